"""Report and rerun: exported configs round-trip through `python -m core run --config`, reports work offline."""
import json
import os
import re
import subprocess
import sys

import pytest
from lab_paths import ROOT

from core import cli
from core.errors import DataError, ParameterError
from core.runtime.games import run
from core.scenario import get
from core.studies.presets import compare_with_paper, get_preset, load_presets
from core.output.report import command_line, html_report, run_config
from core.output.saved_config import load_config

LOC = {"observations": 3, "games": 1000, "shadow_sweep_max": 0, "train_shadows": 200, "epsilon": 0.7}
RECON = {"n": 30, "trials": 2, "sweeps": False, "defense": "gaussian", "defense_level": 2.0}


def _cli_json(argv, capsys):
    assert cli.main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("scenario,params,seed", [("location", LOC, 5), ("reconstruction", RECON, 3)])
def test_json_export_reruns_to_the_same_metrics(tmp_path, capsys, scenario, params, seed):
    result = run(scenario, params, seed=seed)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(run_config(result)))
    out = _cli_json(["run", "--config", str(path)], capsys)
    assert out["config"] == result.config
    assert out["metrics"] == result.to_dict()["metrics"]
    # the full result JSON (the lab's "full result" download) is accepted too
    full = tmp_path / "result.json"
    full.write_text(result.to_json(records=False))
    assert _cli_json(["run", "--config", str(full)], capsys)["metrics"] == out["metrics"]
    # explicit --seed / --set override the saved ones
    other = _cli_json(["run", "--config", str(path), "--seed", str(seed + 1)], capsys)
    assert other["config"]["seed"] == seed + 1


def test_command_line_reruns_the_run(capsys):
    result = run("location", LOC, seed=2)
    cmd = command_line(result)
    assert cmd.startswith("python -m core run location ") and "--seed 2" in cmd
    argv = cmd.split()[3:]
    assert _cli_json(argv, capsys)["metrics"] == result.to_dict()["metrics"]


def test_html_report_is_offline_and_embeds_the_config(tmp_path, capsys):
    a = run("location", LOC, seed=0)
    b = run("location", {**LOC, "epsilon": 2.0}, seed=0)
    one = html_report([a])
    assert not re.search(r"<script[^>]*\bsrc=", one)  # nothing fetched: plotly.js is inline
    assert not re.search(r"<link[^>]*\bhref=", one)
    assert "Plotly" in one and one.count("Plotly.newPlot") >= 1  # plotly.js inline + an interactive figure
    assert "python -m core run location" in one and "Claims vs measurements" in one
    assert re.search(r"<td>numpy</td><td>\d", one)
    path = tmp_path / "report.html"
    path.write_text(one)
    assert load_config(path) == ("location", run_config(a)["params"], 0)
    assert _cli_json(["run", "--config", str(path)], capsys)["metrics"] == a.to_dict()["metrics"]
    both = html_report([a, b])
    assert "Configuration differences" in both and "epsilon" in both
    path.write_text(both)
    with pytest.raises(DataError, match="comparison of 2 runs"):
        load_config(path)


def test_bad_config_files_give_clear_errors(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli.main(["run", "--config", str(bad)]) == 2  # a file that cannot be rerun is bad input
    assert "not JSON" in capsys.readouterr().err
    bad.write_text(json.dumps({"scenario": "location", "params": {"nope": 1}, "seed": 0}))
    assert cli.main(["run", "--config", str(bad)]) == 2
    assert "nope" in capsys.readouterr().err
    assert cli.main(["run"]) == 2
    assert "name a scenario" in capsys.readouterr().err


def test_presets_load_and_link_to_registered_scenarios():
    presets = load_presets()
    assert {"location-fig13-laplace", "desia-fig1", "dinur-nissim-sqrt-n", "synthetic-rap-1e6",
            "disparity-51-groups"} <= set(presets)
    for p in presets.values():
        assert p["explanation"].strip() and p["source"].strip() and isinstance(p["paper_value"], float)
        if p["scenario"] in ("location", "reconstruction", "aggregates"):
            assert p["available"], p["problem"]
        assert (ROOT / "pages").glob(f"*_{p['page']}.py")
    with pytest.raises(ParameterError):
        get_preset("no-such-preset")
    assert compare_with_paper(presets["dinur-nissim-sqrt-n"], {"accuracy": 0.6})["difference"] == pytest.approx(0.01)
    cmp = compare_with_paper(presets["dinur-nissim-sqrt-n"],
                             {"accuracy": 0.6, "accuracy_ci_low": 0.55, "accuracy_ci_high": 0.65, "games_done": 10})
    assert cmp["ci"] == (0.55, 0.65) and cmp["paper_inside"] is True and "95% CI 0.550–0.650" in cmp["text"]
    assert compare_with_paper(presets["dinur-nissim-sqrt-n"], {"accuracy": 0.7, "accuracy_ci_low": 0.65,
                                                               "accuracy_ci_high": 0.75})["paper_inside"] is False
    spread = compare_with_paper({"metric": "targeted_accuracy_mean", "paper_value": 0.816},
                                {"targeted_accuracy_mean": 0.70, "targeted_accuracy_sd": 0.04, "model_seeds_done": 5})
    assert spread["paper_z"] == pytest.approx(2.9) and spread["seeds"] == 5
    assert spread["text"] == "0.700 ± 0.040 (s.d. over 5 seeds)"


def test_cli_preset_runs_the_paper_configuration():
    # the √n breakdown: the reference value 0.59 within the trial noise of 10 × 100 bits
    out = subprocess.run([sys.executable, "-m", "core", "run", "--preset", "dinur-nissim-sqrt-n"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["config"]["defense_level"] == 1.0 and data["config"]["noise_unit"] == "sqrt_n"
    assert abs(data["metrics"]["accuracy"] - 0.59) < 0.06


def test_report_headline_prints_the_interval_and_the_all_records_accuracy():
    res = {"scenario": "synthetic", "config": {"seed": 0, "games": 100},
           "metrics": {"accuracy": 0.78, "accuracy_ci_low": 0.69, "accuracy_ci_high": 0.85, "games_done": 100,
                       "recon_all_records_accuracy": 0.812, "mre_gt10": 0.1}, "series": {}}
    page = html_report([res])
    assert "0.780 (95% CI 0.690–0.850, 100 games)" in page
    assert "all-records reconstruction accuracy = 0.812" in page


def test_presets_fit_the_servers_budget_and_the_interval_preset_is_narrow_enough():
    """Every preset runs within a server's per-run budget (its estimate ≤ max_run_seconds), or else its quick look
    does, and the synthetic preset meant to pin the paper's 'at chance' claim plays enough games for a 95% interval
    under ±0.04 even at the widest (an accuracy of 50%)."""
    from core.measure.metrics import clopper_pearson
    from core.basics.settings import settings
    from core.scenario import get
    from core.studies.presets import quick_look

    limit = settings().max_run_seconds
    for name, p in load_presets().items():
        sc = get(p["scenario"])
        quick = quick_look(p)
        params = p["params"] if quick is None else quick["params"]
        assert sc.estimate_cost(sc.resolve(params)).seconds <= limit, name
    games = load_presets()["synthetic-indhist-chance"]["params"]["games"]
    lo, hi = clopper_pearson(games // 2, games)
    assert (hi - lo) / 2 < 0.04


# ------------------------------------------------------------ uploads: the user's file name, never a server path
def test_an_upload_is_named_as_the_user_named_it_and_never_leaves_the_server_as_a_path():
    from core.data import census
    from core.output.report import public_config
    from ui.widgets import uploads

    state = {}
    raw = b"age,zip,smoker\n30,02138,yes\n40,02139,no\n"
    path = uploads.save_upload(raw, kind="synthetic", state=state, name="C:\\Users\\me\\My survey [v2].csv")
    server_dir = str(uploads.upload_dir())
    assert path.startswith(server_dir) and os.path.basename(path) == "My survey -v2-.csv"  # no Markdown link
    assert os.stat(path).st_mode & 0o777 == 0o600 and os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700
    # engine messages name the file by its base name: now the user's
    with pytest.raises(DataError, match=r"not in My survey -v2-\.csv "):
        census.load_csv(path, sensitive="nope")
    # the report, the rerun command and the configuration download show the name, not the server's folder
    sc = get("synthetic")
    result = {"scenario": "synthetic", "config": {**sc.defaults(), "dataset": "csv", "data_path": path, "seed": 3},
              "metrics": {"accuracy": 0.5}, "series": {}}
    assert command_line(result) == ("python -m core run synthetic --set dataset=csv "
                                    "--set 'data_path=My survey -v2-.csv' --seed 3")
    assert public_config(result)["params"]["data_path"] == "My survey -v2-.csv"
    assert run_config(result)["params"]["data_path"] == path  # the server itself still knows where the file is
    page = html_report([result])
    assert server_dir not in page and "My survey -v2-.csv" in page
    # the same bytes under another name are another file; each goes when its session lets go of it
    other = {}
    path2 = uploads.save_upload(raw, kind="synthetic", state=other, name="copy.csv")
    assert os.path.basename(path2) == "copy.csv" and os.path.exists(path)
    uploads.drop_upload("synthetic", state=state)
    uploads.drop_upload("synthetic", state=other)
    assert not os.path.exists(path) and not os.path.exists(os.path.dirname(path))
    # a path the user gave on the command line is theirs: it stays as it is
    mine = {**result, "config": {**result["config"], "data_path": "/home/me/data.csv"}}
    assert "--set data_path=/home/me/data.csv" in command_line(mine)
