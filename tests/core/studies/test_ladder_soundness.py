"""The Aggregates ε ladder is sound: more noise never buys the attacker a gain beyond the intervals, no rung beats
the DP bound at its per-person ε, the AUC's interval respects the clusters (targets sharing a release), and the
ladder's sentences claim only what the intervals support."""
import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from core.measure.cluster_auc import interval, weighted_auc
from core.measure.metrics import auc_ci
from core.runtime.sweep import sweep
from core.studies.choosing_epsilon.ladder import ladder_rows
from core.studies.choosing_epsilon.ladder_reading import reading, sentences

# A size CI can afford (about 10 s a rung on one core): small blocks, the fewest shadows DeSIA accepts, two blocks
# so the interval sees two releases. benchmarks/bench_ladder.py plays the full-size ladder.
SMALL = {"block_size": 60, "query_ratio": 0.5, "attack": "desia", "blocks": 2, "shadows": 100, "targets": 20}


@pytest.mark.parametrize("seed", [0, 1])
def test_aggregates_ladder_never_gains_from_noise_nor_beats_the_bound(seed):
    out = sweep("aggregates", SMALL, {"epsilon": [0.1, 1.0, 10.0]}, seed=seed)
    exact = sweep("aggregates", SMALL, {"epsilon": [0.0]}, seed=seed)["rows"][0]
    rows = ladder_rows("aggregates", out)["rows"]
    assert [r["epsilon"] for r in rows] == [0.1, 1.0, 10.0]
    cells = {r["cells_per_person"] for r in rows}
    assert len(cells) == 1 and cells.pop() >= 1  # one table design: the same cells per person on every rung
    for r in rows:
        assert r["epsilon_per_person"] == pytest.approx(r["epsilon"] * r["cells_per_person"])
        assert r["attack_ci_low"] <= r["attack"] <= r["attack_ci_high"]
        assert r["attack_ci_low"] <= r["bound"] + 1e-9, r  # never above what DP allows at the per-person ε
        # never significantly above the attack on exact counts (noise is a garbling of the exact release)
        assert r["attack_ci_low"] <= exact["auc_ci_high"] + 1e-9, (r, exact)
    for noisier, cleaner in zip(rows, rows[1:]):
        assert noisier["attack_ci_low"] <= cleaner["attack_ci_high"] + 1e-9, (noisier, cleaner)


def test_weighted_auc_is_sklearns_auc():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.normal(size=300) + 0.5 * y, 1)  # ties on purpose
    assert weighted_auc(y, s, np.ones((1, 300)))[0] == pytest.approx(roc_auc_score(y, s))
    w = rng.integers(0, 3, 300)
    rep = np.repeat(np.arange(300), w)
    assert weighted_auc(y, s, w[None, :])[0] == pytest.approx(roc_auc_score(y[rep], s[rep]))


def _clustered(rng, clusters, per, d=0.3, tau=0.5):
    """Scores whose level and separation move together within a cluster (one release's noise)."""
    ys, ss, cs = [], [], []
    for c in range(clusters):
        sep, level = d + rng.normal(0, tau), rng.normal(0, tau)
        y = rng.integers(0, 2, per)
        ys.append(y)
        ss.append(y * sep + level + rng.normal(0, 1, per))
        cs.append(np.full(per, c))
    return np.concatenate(ys), np.concatenate(ss), np.concatenate(cs)


def test_cluster_interval_covers_95_percent_where_delong_does_not():
    y, s, _ = _clustered(np.random.default_rng(123), 20000, 20)
    truth = roc_auc_score(y, s)  # the AUC over the population of releases
    hits_cluster = hits_delong = 0
    trials = 120
    for r in range(trials):
        y, s, c = _clustered(np.random.default_rng(r), 6, 40)
        iv = interval(y, s, c, seed=r, resamples=400)
        lo, hi = auc_ci(y, s)
        hits_cluster += iv["low"] <= truth <= iv["high"]
        hits_delong += lo <= truth <= hi
    assert 0.90 <= hits_cluster / trials <= 0.995, hits_cluster / trials
    assert hits_delong / trials < 0.85, hits_delong / trials  # independent-target intervals are too narrow here


def test_one_release_falls_back_to_delong_and_says_so():
    rng = np.random.default_rng(1)
    y, s = rng.integers(0, 2, 200), rng.normal(size=200)
    iv = interval(y, s, ["0-0"] * 200)
    assert iv["clusters"] == 1 and iv["method"].startswith("DeLong")
    assert (iv["low"], iv["high"]) == pytest.approx(auc_ci(y, s))


# The ladder measured on Aggregate statistics (one block, 100 targets, 1,000 shadows, seed 0), and its mirror.
MEASURED = [(0.1, 0.661, 0.554, 0.767), (1.0, 0.620, 0.508, 0.731), (5.0, 0.652, 0.540, 0.764),
            (10.0, 0.472, 0.352, 0.592)]


def _ladder(points):
    return {"scenario": "aggregates", "attack_label": "attack AUC",
            "rows": [{"epsilon": e, "attack": a, "attack_ci_low": lo, "attack_ci_high": hi, "bound": 0.99,
                      "epsilon_per_person": 9 * e, "cells_per_person": 9} for e, a, lo, hi in points]}


@pytest.mark.parametrize("mirror", [False, True])
def test_sentences_claim_no_trend_the_intervals_do_not_support(mirror):
    pts = MEASURED
    if mirror:  # the same AUCs against the reversed ε order
        pts = [(e, a, lo, hi) for (e, _, _, _), (_, a, lo, hi) in zip(MEASURED, reversed(MEASURED))]
    lad = _ladder(pts)
    assert reading(lad)["trend"] == "none"
    text = " ".join(sentences(lad)).lower()
    assert "no trend" in text and "cannot tell its rungs apart" in text
    for claim in ("weaker at", "stronger", "within 5 points", "protects more", "grows"):
        assert claim not in text, claim


def test_sentences_name_a_supported_trend_and_a_broken_one():
    good = _ladder([(0.1, 0.50, 0.45, 0.55), (10.0, 0.80, 0.75, 0.85)])
    assert reading(good)["trend"] == "weaker with more noise"
    assert "clearly weaker at ε = 0.1 than at ε = 10" in " ".join(sentences(good))
    bad = _ladder([(0.1, 0.80, 0.75, 0.85), (10.0, 0.50, 0.45, 0.55)])
    assert reading(bad)["trend"] == "stronger with more noise"
    assert "Warning" in " ".join(sentences(bad))
