"""The command line's defaults fit a whole file: a run on a user's file whose paper-scale defaults are estimated at
many minutes plays the lab page's lighter values for the parameters it was not given, says so in one line before
the estimate, and never touches a value the user set. (How long the fitted runs really take is a speed goal, kept
in the report, not asserted here.)"""
from __future__ import annotations

import numpy as np
import pytest

from core import cli
from core.data.census import synthetic_block
from core.data.real_blocks import write_ppmf
from core.errors import ParameterError
from core.scenario import get
from core.studies.file_defaults import LONG_RUN_SECONDS, fit_defaults, shorter_hint


@pytest.fixture(scope="module")
def ppmf(tmp_path_factory) -> str:
    """A PPMF extract of one block of 30,000 people (the Census Bureau's columns and codes)."""
    path = tmp_path_factory.mktemp("ppmf") / "ppmf30k.csv"
    write_ppmf(synthetic_block(30_000, np.random.default_rng(0)), path)
    return str(path)


def _seconds(sc, overrides) -> float:
    return sc.estimate_cost(sc.resolve(overrides)).seconds


def test_a_long_run_on_a_file_plays_the_page_values_it_was_not_given(ppmf):
    sc = get("aggregates")
    asked = {"data": "ppmf", "data_path": ppmf}
    before = _seconds(sc, asked)
    assert before > 5 * LONG_RUN_SECONDS  # the paper's 10 blocks × 20,000 shadows: many minutes
    played, note = fit_defaults(sc, asked)
    added = {k: v for k, v in played.items() if k not in asked}
    assert added and _seconds(sc, played) <= LONG_RUN_SECONDS
    drivers = sc.estimate_cost(sc.resolve(asked)).drivers
    config = sc.resolve(asked)
    for key, value in added.items():  # only the page's own, smaller values of what drives the cost
        assert key in drivers and sc.page_defaults[key] == value < config[key]
        assert f"--set {key}={config[key]}" in note  # how to play the defaults instead
    assert "\n" not in note and "14 minutes" in note


def test_a_value_the_user_set_is_never_changed(ppmf):
    sc = get("aggregates")
    played, note = fit_defaults(sc, {"data": "ppmf", "data_path": ppmf, "blocks": 10, "shadows": 20_000})
    assert played["blocks"] == 10 and played["shadows"] == 20_000
    assert note is None or ("blocks" not in note.split("instead")[0] and "shadows =" not in note)
    every = {"data": "ppmf", "data_path": ppmf, "blocks": 10, "shadows": 20_000, "block_size": 454,
             "reconstructions": 100}
    assert fit_defaults(sc, every) == (every, None)  # nothing left to lighten: the run stays as asked…
    hint = shorter_hint(sc.estimate_cost(sc.resolve(every)))
    assert hint.startswith("; to make it shorter, lower ") and "shadows" in hint  # …and says what makes it long


def test_the_built_in_data_and_short_runs_keep_the_defaults(ppmf, tmp_path):
    sc = get("aggregates")
    assert fit_defaults(sc, {}) == ({}, None)  # the paper's scale on the paper's data is what was asked
    small = {"data": "ppmf", "data_path": ppmf, "blocks": 1, "shadows": 1000}
    assert fit_defaults(sc, small) == (small, None)


def test_the_command_line_says_it_before_the_estimate_and_runs_what_it_says(ppmf, monkeypatch, capsys):
    asked = []

    def stop(scenario, overrides, **_):
        asked.append(overrides)
        raise ParameterError("run", "stopped by the test before any game")

    monkeypatch.setattr(cli, "run", stop)
    code = cli.main(["run", "aggregates", "--set", "data=ppmf", "--set", f"data_path={ppmf}", "--no-store"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and asked
    fitted = next(i for i, line in enumerate(err) if "at the command line's defaults" in line)
    estimate = next(i for i, line in enumerate(err) if line.startswith("note: this run is estimated at"))
    assert fitted < estimate
    played, _ = fit_defaults(get("aggregates"), {"data": "ppmf", "data_path": ppmf})
    assert asked[0] == played  # the run gets what the note says: its configuration records it


def test_the_location_lab_fits_k_and_the_group_to_a_check_in_file(tmp_path):
    """The paper's k = 60 and G = 1,999 suit Milano's busiest tweeters; a file of 60 users with 8 to 29 check-in
    hours each is played at the largest k its ten most active users reach and at G = the pool's size, said in
    one line each, instead of "no user has 60 positive observations"."""
    from core.runtime.games import run
    from core.scenarios.location.fit import fit

    rng = np.random.default_rng(0)
    hours = {f"u{i:02d}": rng.choice(400, size=int(rng.integers(8, 30)), replace=False) for i in range(60)}
    lines = ["user,timestamp,site"] + [f"{u},{1385654400 + 3600 * int(h)},s{int(rng.integers(0, 6))}"
                                       for u, hs in hours.items() for h in hs]
    path = tmp_path / "checkins.csv"
    path.write_text("\n".join(lines) + "\n")
    tenth = sorted((len(h) for h in hours.values()), reverse=True)[9]
    sc = get("location")
    config = sc.resolve({"attacker": "auxiliary", "trace_file": str(path)})
    fitted = fit(config)
    assert (fitted.observations, fitted.group_size, fitted.target_users) == (tenth, 29, 10)
    assert len(fitted.notes) == 2 and all("\n" not in n for n in fitted.notes)
    assert sc.fit_notes(config) == list(fitted.notes)
    res = run("location", {"attacker": "auxiliary", "trace_file": str(path), "games": 1000, "user_games": 200,
                           "shadow_sweep_max": 0, "train_shadows": 400}, seed=0)
    assert res.config["observations"] == 60  # what was asked stays recorded; the notes say what was played
    assert res.series["info"]["k"] == tenth and res.series["fit_notes"] == list(fitted.notes)
    assert res.metrics["users_attacked"] == 10 and 0 <= res.metrics["accuracy"] <= 1
