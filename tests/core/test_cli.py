"""CLI hardening: checks happen before the run, grids are validated per point,
--jobs is capped, parameters without effect are warned about."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from lab_paths import ROOT

from core import cli
from core.runtime.sweep import plan, usable_cores
from core.errors import ParameterError

FAST = ["--set", "sweeps=false", "--set", "trials=1", "--set", "n=20"]


def _cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_unwritable_json_path_fails_before_the_run(tmp_path, monkeypatch, capsys):
    played = []
    monkeypatch.setattr(cli, "run", lambda *a, **k: played.append(1))  # must never be reached
    for bad in (str(tmp_path / "no-such-dir" / "out.json"), str(tmp_path)):
        code = cli.main(["run", "reconstruction", *FAST, "--json", bad])
        err = capsys.readouterr().err
        assert code == 2
        assert err.count("\n") == 1 and err.startswith("error: --json:"), err
    assert not played
    # the sweep command checks it too, before validating/running any point
    code = cli.main(["sweep", "reconstruction", "--vary", "query_ratio=1,2", *FAST, "--json", str(tmp_path)])
    assert code == 2 and "--json" in capsys.readouterr().err


def test_unwritable_json_path_in_a_subprocess_has_no_traceback(tmp_path):
    proc = _cli("run", "reconstruction", *FAST, "--json", str(tmp_path / "missing" / "x.json"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0
    assert proc.stdout == ""  # nothing ran


def test_writable_json_path_is_written_and_a_probe_leaves_no_file_on_error(tmp_path, capsys):
    out = tmp_path / "out.json"
    assert cli.main(["run", "reconstruction", *FAST, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["config"]["n"] == 20
    capsys.readouterr()
    probe = tmp_path / "probe.json"
    assert cli.main(["run", "reconstruction", "--set", "n=1", "--json", str(probe)]) == 2
    assert not probe.exists()


def test_sweep_validates_each_point_with_its_own_values():
    # ilp needs n <= 60: the default n = 100 of the varied parameter must not be used for validation
    proc = _cli("sweep", "reconstruction", "--set", "solver=ilp", "--vary", "n=20,40", "--set", "sweeps=false",
                "--set", "trials=1")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    assert [r["n"] for r in rows] == [20, 40] and all(r["accuracy"] == 1.0 for r in rows)


def test_bad_grid_point_is_reported_by_its_values_before_any_game(monkeypatch, capsys):
    from core.runtime import sweep as sweep_mod

    played = []
    real = sweep_mod._play_chunk
    monkeypatch.setattr(sweep_mod, "_play_chunk", lambda *a: played.append(1) or real(*a))
    code = cli.main(["sweep", "reconstruction", "--set", "solver=ilp", "--vary", "n=20,40,100",
                     "--set", "sweeps=false", "--set", "trials=1"])
    err = capsys.readouterr().err
    assert code == 2 and not played
    assert "grid point (n=100)" in err and "ilp" in err
    with pytest.raises(ParameterError, match=r"grid point \(query_ratio=1.0, n=100\)"):
        plan("reconstruction", {"solver": "ilp"}, {"query_ratio": [1.0], "n": [20, 100]})


def test_jobs_is_capped_at_usable_cores_with_one_notice(monkeypatch, capsys):
    seen = {}

    def fake_run(scenario, overrides, seed, n_jobs, progress, cancel):
        seen["n_jobs"] = n_jobs
        from core.runtime.games import run
        return run(scenario, overrides, seed=seed)

    monkeypatch.setattr(cli, "run", fake_run)
    assert cli.main(["run", "reconstruction", *FAST, "--jobs", "48", "--no-store"]) == 0  # a fresh run, not the store
    err = capsys.readouterr().err
    assert seen["n_jobs"] == usable_cores() <= len(os.sched_getaffinity(0))
    assert [line for line in err.splitlines() if "capped" in line] == [
        f"note: --jobs 48 capped at {usable_cores()}, the number of usable CPU cores"]
    assert cli.main(["run", "reconstruction", *FAST, "--jobs", "0"]) == 2


def test_sweep_jobs_capped_too(monkeypatch, capsys):
    seen = {}
    monkeypatch.setattr(cli, "sweep", lambda *a, **k: seen.update(k) or {"rows": []})
    assert cli.main(["sweep", "reconstruction", "--vary", "query_ratio=1,2", *FAST, "--jobs", "64"]) == 0
    assert seen["n_jobs"] == usable_cores() and "capped" in capsys.readouterr().err


def test_inactive_parameter_set_explicitly_is_warned_about(capsys):
    assert cli.main(["run", "reconstruction", *FAST, "--set", "defense_level=3"]) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: defense_level=3.0 has no effect: only used when defense is "
                        "rounding|gaussian|subsample (it is 'none')"]
    assert "defense_level" in json.loads(captured.out)["inactive"]
    # active with a defence: no warning
    assert cli.main(["run", "reconstruction", *FAST, "--set", "defense=gaussian", "--set", "defense_level=3"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_trace_file_with_the_informed_attacker_is_warned_about(tmp_path, capsys):
    from core.scenario import get

    sc = get("location")
    config = sc.resolve({"trace_file": "x.csv", "attacker": "informed"})
    assert "trace_file" in sc.inactive(config)
    assert "trace_file" not in sc.inactive(sc.resolve({"trace_file": "x.csv", "attacker": "auxiliary"}))


# ------------------------------------------------------------------ saved configurations and usage errors
def _one_line_error(proc) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


@pytest.mark.slow  # one `python -m core` subprocess per broken file
def test_broken_config_files_are_one_line_and_exit_2(tmp_path):
    from core.output.report import html_report
    from core.runtime.games import run as play

    good = {"format": "privacy-attack-lab/run", "scenario": "reconstruction",
            "params": {"n": 20, "trials": 1, "sweeps": False}, "seed": 3}
    report = html_report([play("reconstruction", good["params"], seed=3)])
    broken_report = re.sub(r'(<script type="application/json" id="lab-runs">)\[\{', r"\1[{{oops", report)
    cases = {
        "embedded.html": (broken_report, "embedded in the report is not valid JSON"),
        "list-params.json": (json.dumps({**good, "params": [1, 2]}), "'params' must be an object"),
        "text-params.json": (json.dumps({**good, "params": "x"}), "'params' must be an object"),
        "text-seed.json": (json.dumps({**good, "seed": "abc"}), "'seed' must be a whole number"),
        "fraction-seed.json": (json.dumps({**good, "seed": 1.7}), "'seed' must be a whole number >= 0, got 1.7"),
        "negative-seed.json": (json.dumps({**good, "seed": -1}), "'seed' must be a whole number >= 0"),
        "null-config.json": (json.dumps({"scenario": "reconstruction", "config": None}), "'config' must be an obj"),
        "number-scenario.json": (json.dumps({**good, "scenario": 7}), "'scenario' must be a scenario name"),
        "deep.json": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        line = _one_line_error(_cli("run", "--config", str(path)))
        assert line.startswith("error: --config: ") and expected in line, (name, line)
    utf16 = tmp_path / "utf16.json"
    utf16.write_text(json.dumps(good), encoding="utf-16")  # e.g. PowerShell's `>` redirection
    assert "UTF-16" in _one_line_error(_cli("run", "--config", str(utf16)))
    # the well-formed file runs, with its seed; a whole-number float seed is that number
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps({**good, "seed": 3.0}))
    proc = _cli("run", "--config", str(ok), "--no-store")
    assert proc.returncode == 0 and json.loads(proc.stdout)["config"]["seed"] == 3


@pytest.mark.slow  # one `python -m core` subprocess per usage error
def test_every_usage_error_is_one_line(tmp_path):
    for args, expected in [(("run", "reconstruction", "--seed", "abc"), "invalid int value: 'abc'"),
                           (("run", "reconstruction", "--seed", "1.5"), "invalid int value: '1.5'"),
                           (("sweep", "reconstruction", "--bogus"), "unrecognized arguments: --bogus"),
                           (("frobnicate",), "invalid choice: 'frobnicate'"),
                           (("sweep",), "required: scenario"),
                           (("sweep", "reconstruction", "--vary", "n=20,30", "--vary", "n=40", *FAST[:4]),
                            "n: is varied twice")]:
        line = _one_line_error(_cli(*args))
        assert expected in line, line
    assert "usage:" not in _cli("run", "reconstruction", "--seed", "abc").stderr


def test_a_parameter_set_twice_is_warned_about(capsys):
    assert cli.main(["run", "reconstruction", *FAST, "--set", "n=21", "--no-store"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["config"]["n"] == 21  # the last one wins, as before
    assert [line for line in captured.err.splitlines() if line.startswith("warning:")] == [
        "warning: --set n given twice (n=20, then n=21); the last one, n=21, is used"]
    assert cli.main(["run", "reconstruction", *FAST, "--set", "n=20", "--no-store"]) == 0  # the same value twice
    assert "warning" not in capsys.readouterr().err


@pytest.mark.slow  # `python -m core` run and sweep in subprocesses
def test_sweep_takes_the_same_store_flag_as_run():
    proc = _cli("sweep", "reconstruction", "--vary", "n=20,21", *FAST[:4], "--no-store")
    assert proc.returncode == 0, proc.stderr
    assert [r["n"] for r in json.loads(proc.stdout)["rows"]] == [20, 21]
    assert "--no-store" in _cli("sweep", "--help").stdout and "--no-store" in _cli("run", "--help").stdout


def test_sweep_has_the_cost_estimate_and_memory_guard_of_run(monkeypatch, capsys):
    from core.runtime import sweep as sweep_module

    played = []
    monkeypatch.setattr(sweep_module, "_play_all", lambda *a, **k: played.append(1) or [])
    # the example: two points of 1000 trials at n=2000 — hours of work — is announced before it starts
    code = cli.main(["sweep", "reconstruction", "--vary", "n=2000,1999", "--set", "trials=1000"])
    err = capsys.readouterr().err
    assert code == 0 and played
    assert re.search(r"note: this sweep of 2 points is estimated at about \d+ MB and [\d.]+ hours", err), err
    # a sweep that needs more memory than the guard allows is refused before anything is prepared, like a run
    monkeypatch.setattr("core.cost.physical_memory", lambda: 100_000_000)
    played.clear()
    code = cli.main(["sweep", "reconstruction", "--vary", "n=2000,1999", "--set", "trials=1000"])
    err = capsys.readouterr().err
    assert code == 2 and not played
    assert err.startswith("error: ") and "of memory" in err and err.count("\n") == 1, err
    assert cli.main(["run", "reconstruction", "--set", "n=2000", "--set", "trials=1000"]) == 2  # the same guard
    assert "of memory" in capsys.readouterr().err


def test_long_sweeps_print_progress_on_stderr(monkeypatch, capsys):
    monkeypatch.setattr(cli, "PROGRESS_AFTER", 0.0)  # "longer than a few seconds", without waiting for it
    assert cli.main(["sweep", "reconstruction", "--vary", "n=20,21,22", *FAST[:4]]) == 0
    err = capsys.readouterr().err
    assert "reconstruction sweep: 1/3 points" in err  # then at most every PROGRESS_EVERY s into a file


@pytest.mark.slow  # one `python -m core` subprocess per unreadable path
def test_a_data_path_that_is_not_a_readable_file_is_one_line_and_exit_2_before_the_estimate(tmp_path):
    """The issue's command: a directory as the PPMF file once printed the cost note ("about 198 MB and 14 minutes")
    and then failed with exit 1. Every file parameter is checked first, on run and on sweep."""
    missing = str(tmp_path / "nope.csv")
    for args, says in ((["run", "aggregates", "--set", "data=ppmf", "--set", "data_path=/"], "is a directory"),
                       (["run", "ml-models", "--set", "dataset=csv", "--set", f"data_path={missing}"], "no such file"),
                       (["run", "location", "--set", "trace_file=/dev/null"], "not a regular file"),
                       (["sweep", "aggregates", "--set", "data=ppmf", "--set", "data_path=/", "--vary",
                         "epsilon=1,2"], "is a directory")):
        out = _cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ") and says in out.stderr, out.stderr
        assert "estimated" not in out.stderr and out.stdout == ""


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
def test_an_unreadable_data_path_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "locked.csv"
    path.write_text("a,b\n1,2\n")
    path.chmod(0)
    out = _cli("run", "ml-models", "--set", "dataset=csv", "--set", f"data_path={path}")
    assert out.returncode == 2 and "cannot read" in out.stderr and out.stderr.count("\n") == 1
