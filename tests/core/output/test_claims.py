"""Comparative sentences follow the numbers: each builder is fed numbers pointing one way, then the other, and
must say what the numbers support — and withhold the claim when they do not."""
from __future__ import annotations

import numpy as np
import pytest

from core.measure.records import MIN_PROBABLE, build, choose_precision
from core.output import claims


def _m(**kw):
    base = {"accuracy": 0.70, "accuracy_ci_low": 0.66, "accuracy_ci_high": 0.74, "chance_accuracy": 0.55,
            "kendall_disparity": 0.6, "kendall_p": 0.01, "targeted_accuracy": float("nan"),
            "targeted_fraction": float("nan")}
    return {**base, **kw}


SERIES = {"info": {"sensitive": "married", "group": "year", "sensitive_values": ["no", "yes"],
                   "top_groups": ["1998", "1999", "2001"]}}


def test_ranking_names_the_most_exposed_groups_only_when_it_beats_chance_and_the_attack_its_baseline():
    good = claims.ml_models(_m(), SERIES)
    assert "singles out **1998**, **1999**, **2001** as the most exposed groups" in good
    # the case: the ranking is worse than chance
    worse = claims.ml_models(_m(kendall_disparity=-0.4, kendall_p=0.03), SERIES)
    assert "singles out" not in worse and "worse than chance" in worse and "names no most exposed group" in worse
    # a positive but insignificant τ: no better than chance
    weak = claims.ml_models(_m(kendall_disparity=0.1, kendall_p=0.6), SERIES)
    assert "singles out" not in weak and "no better than chance" in weak
    # a good ranking of an attack that does not beat guessing the common value ranks noise
    below = claims.ml_models(_m(accuracy=0.53, accuracy_ci_low=0.49, chance_accuracy=0.55), SERIES)
    assert "singles out" not in below and "does not beat guessing" in below


def test_bcorr_sentence_follows_the_direction_of_the_gap():
    base = _m(model_accuracy=0.8, model_accuracy_bcorr=0.79, asrd_noise_floor=0.02, asrd_noise_floor_bcorr=0.02)
    assert "shrinks the gap" in claims.bcorr_clause({**base, "asrd": 0.10, "asrd_bcorr": 0.03})
    grew = claims.bcorr_clause({**base, "asrd": 0.07, "asrd_bcorr": 0.10})  # the "from 7 to 10 points"
    assert "shrinks" not in grew and "widens the gap" in grew and "from 7 to 10 points" in grew
    flat = claims.bcorr_clause({**base, "asrd": 0.07, "asrd_bcorr": 0.06})
    assert "shrinks" not in flat and "widens" not in flat and "about where it was" in flat
    nogap = claims.bcorr_clause({**base, "asrd": 0.015, "asrd_bcorr": 0.005})
    assert "shrinks" not in nogap and "no measured gap" in nogap
    assert claims.bcorr_clause(_m()) is None


# ------------------------------------------------------------------ the probable tier
def test_probable_tier_is_right_on_most_people_it_names_on_held_out_records():
    rng = np.random.default_rng(0)
    n = 4000
    score = rng.random(n)
    right = rng.random(n) < score  # higher score, more often right: precision ≥ 0.9 above ≈ 0.8
    table = build(list(range(n)), right.astype(int).tolist(), [1] * n, score)
    cal = table.calibration
    assert cal["rule"] == "precision" and cal["shown"] and table.tier_counts["probable"] > 0
    assert cal["precision"] >= 0.9 and cal["ci_low"] <= cal["precision"] <= cal["ci_high"]
    assert "95% CI" in cal["sentence"] and "held-out" in cal["sentence"]
    # on a fresh draw of the same attack, the people above the threshold are right ≥ 90% of the time (within
    # a binomial tolerance of the stated interval)
    fresh = rng.random(20000)
    fresh_right = rng.random(20000) < fresh
    above = fresh >= cal["threshold"]
    assert fresh_right[above].mean() >= cal["ci_low"] - 0.01


def test_no_probable_tier_when_the_attack_is_right_on_few_of_the_people_it_names():
    rng = np.random.default_rng(1)
    n = 2000
    score = rng.random(n)
    right = rng.random(n) < 0.5  # the score says nothing: nowhere near 90% right
    table = build(list(range(n)), right.astype(int).tolist(), [1] * n, score)
    assert table.tier_counts["probable"] == 0 and not table.calibration["shown"]
    assert table.calibration["sentence"].startswith("No probable tier")
    # the case: two wrong guesses out of ten named probable is impossible — too few to state anything
    few = choose_precision([0.9] * 10, [True] * 8 + [False] * 2)
    assert not few.shown


def test_a_threshold_that_fails_on_the_held_out_half_shows_no_tier():
    # pick half (even rows) all right at high scores, check half (odd rows) all wrong at the same scores
    n = 20 * MIN_PROBABLE
    score = np.repeat(np.linspace(1, 0.5, n // 2), 2)
    right = np.tile([True, False], n // 2)
    cal = choose_precision(score, right)
    assert cal.threshold is not None and cal.precision == 0 and not cal.shown
    assert "short of the at least 90%" in cal.sentence()


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_the_stated_level_is_kept(level):
    rng = np.random.default_rng(2)
    score = rng.random(6000)
    right = rng.random(6000) < score
    cal = choose_precision(score, right, level=level)
    assert cal.shown and cal.precision >= level and cal.level == level


def test_the_exposure_table_calls_its_top_rows_most_exposed_only_when_a_tier_backs_it():
    assert "most exposed" in claims.exposure_heading({"certified": 0, "probable": 3, "guess": 90}, 50, "people")
    plain = claims.exposure_heading({"certified": 0, "probable": 0, "guess": 93}, 50, "people")
    assert "most exposed" not in plain and "scores highest" in plain and "no tier backs" in plain


def test_the_aggregates_sentence_says_luck_when_the_auc_interval_reaches_chance():
    from core.plots.aggregates import plain_summary

    series = {"task": "aia", "sensitive": "sex"}
    clear = plain_summary({"accuracy": 0.7, "targets": 200, "auc": 0.8, "auc_ci_low": 0.74}, series)
    luck = plain_summary({"accuracy": 0.55, "targets": 12, "auc": 0.6, "auc_ci_low": 0.42}, series)
    assert "cannot tell apart from luck" not in clear and "cannot tell apart from luck" in luck
    assert "a person's sex" in clear
