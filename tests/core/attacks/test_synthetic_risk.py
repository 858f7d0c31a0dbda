"""Risk against a control set and the attacks behind it: known answers, the interval's coverage, the batch attacks
against their one-target versions, singling out and linkability on copies and on strangers."""
from __future__ import annotations

import numpy as np
import pytest

from core.attacks.synthetic.dcr import dcr_attack, dcr_attack_many
from core.attacks.synthetic.infer import infer_attack, infer_attack_many
from core.attacks.synthetic.linkability import linkability_successes
from core.attacks.synthetic.singling_out import singles_out, singling_out_queries
from core.measure.synthetic_risk import control_risk, majority_baseline, risk_from_rates
from core.scenarios.synthetic.data import load_game_data


def test_risk_is_the_excess_over_control_scaled_by_what_control_leaves():
    assert risk_from_rates(0.9, 0.5) == pytest.approx(0.8)
    assert risk_from_rates(0.5, 0.5) == 0.0
    assert risk_from_rates(0.4, 0.5) == pytest.approx(-0.2)
    assert np.isnan(risk_from_rates(1.0, 1.0))
    r = control_risk([1] * 90 + [0] * 10, [1] * 50 + [0] * 50)
    assert r["risk"] == pytest.approx(0.8) and r["train_n"] == 100 and r["control_n"] == 100
    assert r["risk_ci_low"] < 0.8 < r["risk_ci_high"] <= 1.0
    same = control_risk([1] * 60 + [0] * 40, [1] * 60 + [0] * 40)
    assert same["risk"] == 0.0 and same["risk_ci_low"] < 0 < same["risk_ci_high"]


def test_more_records_narrow_the_interval_and_the_bootstrap_over_games_only_widens_it():
    small = control_risk([1] * 9 + [0], [1] * 5 + [0] * 5)
    big = control_risk([1] * 900 + [0] * 100, [1] * 500 + [0] * 500)
    assert big["risk_ci_high"] - big["risk_ci_low"] < small["risk_ci_high"] - small["risk_ci_low"]
    rng = np.random.default_rng(3)
    # ten games whose releases differ: the per-game training rate moves between 0.6 and 0.95
    t, tg, c, cg = [], [], [], []
    for g, p in enumerate(np.linspace(0.6, 0.95, 10)):
        t += list(rng.random(200) < p)
        tg += [g] * 200
        c += list(rng.random(200) < 0.5)
        cg += [g] * 200
    records_only = control_risk(t, c)
    with_games = control_risk(t, c, train_games=tg, control_games=cg)
    assert with_games["risk"] == records_only["risk"]
    assert with_games["risk_ci_low"] <= records_only["risk_ci_low"]
    assert with_games["risk_ci_high"] >= records_only["risk_ci_high"]
    assert "bootstrap over 10 games" in with_games["interval"]
    assert control_risk(t, c, train_games=tg, control_games=cg) == with_games  # seeded: same numbers


def test_the_interval_covers_the_true_risk_at_least_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    p_train, p_control = 0.7, 0.5
    truth = risk_from_rates(p_train, p_control)
    hits = 0
    reps = 300
    for _ in range(reps):
        r = control_risk(rng.random(300) < p_train, rng.random(300) < p_control)
        hits += r["risk_ci_low"] <= truth <= r["risk_ci_high"]
    assert hits / reps >= 0.95


def test_majority_baseline():
    assert majority_baseline([0, 0, 1]) == pytest.approx(2 / 3)
    assert majority_baseline(["a", "b"]) == 0.5


def _cces(n=1500, seed=0):
    codes = load_game_data({"dataset": "cces16", "data_path": "", "secret": ""})[0]
    rng = np.random.default_rng(seed)
    return codes[rng.choice(len(codes), n, replace=False)]


def test_batch_attacks_agree_with_the_one_target_attacks():
    rows = _cces(1200)
    S, X = rows[:1000], rows[1000:, :-1]
    g_inf, p_inf = infer_attack_many(S, X, np.random.default_rng(5), n_estimators=20)
    for i in range(0, 200, 40):
        g1, p1 = infer_attack(S, X[i], np.random.default_rng(5), n_estimators=20)
        assert (g1, pytest.approx(p1)) == (g_inf[i], pytest.approx(p_inf[i]))
    g_dcr, s_dcr = dcr_attack_many(S, X, np.random.default_rng(1))
    agree = 0
    for i in range(200):
        g1, s1 = dcr_attack(S, X[i], np.random.default_rng(1))
        agree += (s1 == pytest.approx(s_dcr[i])) and (s1 == 0.5 or g1 == g_dcr[i])
    assert agree == 200  # same distances; a tie is a coin flip either way


def test_singling_out_finds_the_people_of_a_verbatim_copy_and_few_strangers():
    rows = _cces(2000)
    train, control = rows[:1000], rows[1000:]
    queries = singling_out_queries(train, np.random.default_rng(0), 300)
    assert len(queries) == 300
    assert singles_out(train, queries).all()  # read off the copy, each isolates its person
    assert singles_out(control, queries).mean() < 0.5
    # a query matching nobody, or two people, is no success
    twice = np.vstack([train[:1], train[:1]])
    assert not singles_out(twice, [((0, 1), tuple(int(v) for v in train[0, :2]))])[0]


def test_linkability_default_catches_verbatim_copies_one_neighbour_does_not():
    rows = _cces(2000)
    train, control = rows[:1000, :-1], rows[1000:, :-1]
    copy = train[np.random.default_rng(2).permutation(1000)]
    default = linkability_successes(copy, train)
    strangers = linkability_successes(copy, control)
    one = linkability_successes(copy, train, n_neighbors=1)
    assert default.mean() > 0.9 and strangers.mean() < 0.5
    assert one.mean() < default.mean()  # CCES copy, measured: 0.48 with one neighbour, 1.0 with ten


def test_a_release_made_elsewhere_gets_the_same_risk_computation():
    from core.scenarios.synthetic.records_game import release_risks

    rows = _cces(3000, seed=1)
    train, control, stranger = rows[:1000], rows[1000:2000], rows[2000:]
    names = [f"c{j}" for j in range(rows.shape[1])]
    copy, _, record = release_risks(train[::-1], train, control, names, attacks=("dcr",), seed=0)
    assert copy["dcr_success_train"] == 1.0 and copy["risk"] > 0.9 and copy["linkability_risk"] > 0.9
    assert len(record["train_truth"]) == 1000  # every record of the release's training data
    # a "release" that is other people from the same population leaks nothing about the training records
    other, _, _ = release_risks(stranger, train, control, names, attacks=("dcr",), seed=0)
    assert other["risk_ci_low"] < 0 < other["risk_ci_high"]
    assert other["linkability_risk_ci_low"] < 0.1


@pytest.mark.parametrize("risk,low,high,words", [
    (0.8, 0.7, 0.9, "leaks the secret of the people it was made from"),
    (0.02, -0.05, 0.09, "no measurable leak"),
    (-0.2, -0.3, -0.1, "does better on strangers"),
    (0.3, -0.2, 0.6, "too few records to say"),
])
def test_the_risk_sentence_follows_the_direction_and_the_interval(risk, low, high, words):
    from core.scenarios.synthetic.risk_views import risk_sentence, risks_table

    per = {"train_rate": 0.9, "control_rate": 0.5, "train_n": 999, "control_n": 1000, "risk": risk,
           "risk_ci_low": low, "risk_ci_high": high}
    metrics = {"risk": risk, "risk_ci_low": low, "risk_ci_high": high, "baseline_train": 0.55}
    series = {"risk": {"headline": "dcr", "per_attack": {"dcr": per}}}
    text = risk_sentence(metrics, series)
    assert words in text and "Adv_dcr" in text
    others = {"leaks the secret", "no measurable leak", "does better on strangers", "too few records"} - {
        next(w for w in ("leaks the secret", "no measurable leak", "does better on strangers", "too few records")
             if w in words)}
    assert not any(o in text for o in others)
    table = risks_table(metrics, series)
    assert table.loc[0, "majority baseline"] == "55.0%" and table.loc[0, "risk"] == f"{risk:.3f}"


@pytest.mark.parametrize("seed, m, n, d, card", [(0, 500, 300, 3, 3), (1, 40, 200, 2, 5), (2, 2000, 50, 4, 9),
                                                 (3, 7, 30, 2, 2)])
def test_neighbours_computed_once_per_distinct_target_are_everyones_neighbours(seed, m, n, d, card):
    """Linkability's nearest synthetic rows, found once per distinct value of a target's columns, are exactly
    those found target by target (same rows, same order, ties by position), including when k exceeds m."""
    from core.attacks.synthetic.linkability import _nearest, _nearest_by_value

    rng = np.random.default_rng(seed)
    S = rng.integers(0, card, (m, d))
    X = rng.integers(0, card, (n, d))
    for k in (1, 10, m + 3):
        assert np.array_equal(_nearest_by_value(S, X, k), _nearest(S, X, k))
    # and both are the definition: the k rows first by (Hamming distance, position), in any order
    found = _nearest(S, X, 10)
    for x, rows in zip(X[:40], found[:40]):
        reference = sorted(range(m), key=lambda i: (int(np.sum(S[i] != x)), i))[:10]
        assert sorted(rows.tolist()) == sorted(reference)
    assert _nearest_by_value(S, X[:0], 10).shape == (0, min(10, m))
