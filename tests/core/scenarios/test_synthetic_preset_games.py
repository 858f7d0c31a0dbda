"""The synthetic lab's presets play the games their interval needs, and a quick look fits a shared server.

A preset's headline is the target accuracy with its 95% interval, and every preset plays enough games for an
interval narrower than ±0.04 at the accuracy the paper reports. The 10⁶-row RAP and CTGAN presets, whose every game
fits the generator anew, then cost hours of one core: on a server's page they offer a quick look instead, the most
games a run there may take, and their explanation states both game counts and intervals — so the page never
claims more than the run it shows delivers.
"""
from __future__ import annotations

import re

from core.measure.metrics import clopper_pearson
from core.basics.settings import settings
from core.scenario import get
from core.runtime.sweep import sweep_cost
from core.studies.presets import load_presets, quick_look, sweep_points


def _half_width(games: int, accuracy: float = 0.5) -> float:
    lo, hi = clopper_pearson(int(round(accuracy * games)), games)
    return (hi - lo) / 2


def _seconds(sc, preset: dict, params: dict) -> float:
    """The server's estimate of playing ``params``: one run, or for a comparison preset every point of its grid
    (what the presets page submits, the points' seconds added up as the server adds them)."""
    if not preset.get("sweep"):
        return sc.estimate_cost(sc.resolve(params)).seconds
    points = sweep_points({**preset, "params": params})
    return sweep_cost(sc, [sc.resolve(pt) for pt in points], list(preset["sweep"])).seconds


def _synthetic_presets() -> dict[str, dict]:
    return {k: p for k, p in load_presets().items() if p["scenario"] == "synthetic" and not k.startswith("known-bug-")}


def test_every_synthetic_preset_is_narrow_enough_and_a_costly_one_has_the_largest_quick_look_a_server_takes():
    limit = settings().max_run_seconds
    sc = get("synthetic")
    presets = _synthetic_presets()
    assert {"synthetic-rap-1e6", "synthetic-ctgan-1e6", "synthetic-indhist-chance"} <= set(presets)
    for name, p in presets.items():
        config = sc.resolve(p["params"])
        if p["metric"] == "accuracy":  # one target per game: the games are the sample (a risk preset attacks
            # every record of every game, and states its own interval)
            assert _half_width(config["games"], p["paper_value"]) < 0.04, name  # at the accuracy the paper reports
        quick = quick_look(p)
        if _seconds(sc, p, p["params"]) <= limit:
            assert quick is None, name  # a preset the server runs whole needs no quick look
            continue
        assert quick is not None, name
        games = quick["games"]
        assert _seconds(sc, p, quick["params"]) <= limit, name
        # the quick look leaves no game on the table: one more would be refused
        assert _seconds(sc, p, {**p["params"], "games": games + 1}) > limit, (name, games)


def test_the_costly_presets_explanations_state_both_runs_games_and_intervals():
    presets = _synthetic_presets()
    for name in ("synthetic-rap-1e6", "synthetic-ctgan-1e6"):
        p = presets[name]
        quick, text = quick_look(p), p["explanation"]
        assert f"{quick['full_games']} games" in text and f"{quick['games']} games" in text, name
        stated = [float(x) for x in re.findall(r"±\s?(0\.\d+)", text)]
        # the quick look's interval, at the paper's accuracy and at 0.5 (the widest), is stated to two decimals
        assert any(abs(x - quick["half_width"]) < 0.01 for x in stated), (name, stated, quick["half_width"])
        assert any(abs(x - _half_width(quick["games"])) < 0.01 for x in stated), (name, stated)
        assert "±0.04" in text


def test_the_estimate_behind_the_sizing_follows_what_a_game_computes():
    sc = get("synthetic")

    def seconds(**change):
        return sc.estimate_cost(sc.resolve({"synth_size": 1_000_000, "query_sweep": False, "games": 1,
                                            **change})).seconds

    # RAP evaluates every 3-way marginal cell at each step: 87,658 on CCES16, 144,910 ACS-like, 383,296 FIRE-like
    rap = [seconds(generator="rap", dataset=d) for d in ("cces16", "acs-like", "fire-like")]
    assert rap[0] < rap[1] < rap[2] and rap[2] - rap[0] > 2000 * 45e-9 * (383_296 - 87_658)
    # CTGAN: torch's warm-up once per run, the fit and the 10⁶ rows every game
    one, two = seconds(generator="ctgan"), seconds(generator="ctgan", games=2)
    assert two - one < one - 1.0 - 4.0
    assert seconds(generator="ctgan", epochs=300) - seconds(generator="ctgan") > 0.08 * 270 - 1e-9


def test_a_long_run_keeps_a_bounded_number_of_samples_and_a_dropped_one_comes_back_the_same(monkeypatch):
    """More games per preset must not mean one cached 10⁶-row sample per game: past the byte budget the
    oldest samples go, and a game whose sample went gets the very same rows again from its seeds."""
    import numpy as np

    from core.scenario import prepare_rng
    from core.scenarios.synthetic import data

    sc = get("synthetic")
    config = sc.resolve({"generator": "baynet", "synth_size": 1000, "games": 4, "query_sweep": False})
    context = sc.prepare(config, prepare_rng(0))
    data.clear_caches()
    one = 1000 * len(context["cards"]) * 8   # bytes of one game's sample
    monkeypatch.setattr(data, "SAMPLE_CACHE_BYTES", 2 * one)
    first = data._synthetic(context, config, 0)["S"].copy()
    for g in (1, 2, 3):
        data._synthetic(context, config, g)
    assert len(data._SAMPLES) == 2   # games 2 and 3; 0 and 1 went
    assert np.array_equal(data._synthetic(context, config, 0)["S"], first)
    assert len(data._SAMPLES) == 2
    data.clear_caches()
