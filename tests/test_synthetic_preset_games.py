"""The synthetic lab's presets play as many games as their interval needs, or as the server's budget allows.

A preset's headline is the target accuracy with its 95% interval; the aim is an interval narrower than ±0.04
(≈ 600 games at an accuracy of 0.5). A preset that cannot afford that within a server's per-run budget (the 10⁶-row
RAP and CTGAN presets, whose every game fits the generator anew) must play the most games the budget allows, and
its explanation must state the games it plays and the interval they give — so the page never claims more than the
run delivers.
"""
from __future__ import annotations

import re

from core.measure.metrics import clopper_pearson
from core.runtime.settings import settings
from core.scenario import get
from core.studies.presets import load_presets


def _half_width(games: int, accuracy: float = 0.5) -> float:
    lo, hi = clopper_pearson(int(round(accuracy * games)), games)
    return (hi - lo) / 2


def _synthetic_presets() -> dict[str, dict]:
    return {k: p for k, p in load_presets().items() if p["scenario"] == "synthetic" and not k.startswith("known-bug-")}


def test_every_synthetic_preset_is_narrow_enough_or_plays_all_the_games_its_budget_allows():
    limit = settings().max_run_seconds
    sc = get("synthetic")
    presets = _synthetic_presets()
    assert {"synthetic-rap-1e6", "synthetic-ctgan-1e6", "synthetic-indhist-chance"} <= set(presets)
    for name, p in presets.items():
        config = sc.resolve(p["params"])
        games = config["games"]
        assert sc.estimate_cost(config).seconds <= limit, name
        if _half_width(games) < 0.04:
            continue
        # too costly for ±0.04: then one more game must not fit, or the preset left games on the table
        assert sc.estimate_cost({**config, "games": games + 1}).seconds > limit, (name, games)


def test_the_costly_presets_explanations_state_their_games_and_interval():
    presets = _synthetic_presets()
    for name in ("synthetic-rap-1e6", "synthetic-ctgan-1e6"):
        p = presets[name]
        games, text = p["params"]["games"], p["explanation"]
        assert f"{games} games" in text, name
        stated = [float(x) for x in re.findall(r"±\s?(0\.\d+)", text)]
        # the interval at an accuracy of 0.5 (the widest) is among those the text states, to the second decimal
        assert any(abs(x - _half_width(games)) < 0.01 for x in stated), (name, stated, _half_width(games))
        # and the games a ±0.04 interval would need, at the accuracy the text assumes
        need = [int(x.replace(",", "")) for x in re.findall(r"≈ ([\d,]+) games", text)]
        assert need and all(_half_width(n, 0.87 if "rap" in name else 0.5) < 0.045 for n in need), (name, need)


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
