"""An AUC interval for targets that are not independent draws: a two-stage cluster bootstrap.

In the table-release game every target of one census block is attacked through the *same* release: one draw of
the noise, one set of released cells, one set of shadow datasets. Their scores move together from release to
release, so the targets of a run are clustered, and an interval that treats them as independent (DeLong's, in
:func:`core.measure.metrics.auc_ci`) misses the release-to-release part of the spread.

The two-stage bootstrap (Davison & Hinkley 1997, §3.8 "hierarchical data"; Field & Welsh 2007): draw the
clusters (block × release) with replacement, then the targets within each drawn cluster with replacement, and
take the AUC of the pooled draw; the 2.5% and 97.5% quantiles of those AUCs are the interval. Drawing at both
stages keeps both the between-release and the within-release variation; with a single cluster it reduces to the
ordinary target bootstrap, which cannot see the release-to-release spread at all — :func:`interval` then falls
back to DeLong and says so (``clusters`` = 1), and the pages say the interval covers only one release.

Each resample is a vector of multiplicities over the targets, and the AUC of a weighted sample is the weighted
Mann–Whitney statistic (ties count ½), computed for all resamples at once on the scores' distinct levels.
``tests/core/studies/test_ladder_soundness.py`` measures coverage on clustered data with a known AUC.
"""
from __future__ import annotations

import math

import numpy as np

from .metrics import auc_ci

DEFAULT_RESAMPLES = 1000
MIN_CLUSTERS = 2  # below this the between-cluster spread cannot be estimated from the run


def weighted_auc(labels: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """AUC of each row of ``weights`` (shape (B, n)): P(score of a positive > score of a negative), ties ½,
    each target counted as many times as its weight. NaN where a resample has no positive or no negative."""
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=float)
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    levels, inv = np.unique(s, return_inverse=True)
    L = len(levels)
    pos = np.zeros((w.shape[0], L))
    neg = np.zeros((w.shape[0], L))
    np.add.at(pos.T, inv[y], w[:, y].T)
    np.add.at(neg.T, inv[~y], w[:, ~y].T)
    neg_below = np.cumsum(neg, axis=1) - neg  # weighted negatives strictly below each level
    wins = (pos * (neg_below + 0.5 * neg)).sum(axis=1)
    total = pos.sum(axis=1) * neg.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, wins / np.where(total > 0, total, 1.0), np.nan)


def cluster_bootstrap_ci(labels, scores, clusters, confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
                         seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the AUC from the two-stage bootstrap (clusters, then targets within each)."""
    y = np.asarray(labels).astype(int)
    s = np.asarray(scores, dtype=float)
    _, cl = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    n_cl = int(cl.max()) + 1 if len(cl) else 0
    members = [np.flatnonzero(cl == c) for c in range(n_cl)]
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n_cl, size=(resamples, n_cl))
    times = np.stack([np.bincount(p, minlength=n_cl) for p in picks])  # (B, clusters): draws of each cluster
    weights = np.zeros((resamples, len(y)))
    for c, idx in enumerate(members):
        # a cluster drawn t times contributes t·n_c targets drawn with replacement from its n_c targets
        weights[:, idx] = rng.multinomial(times[:, c] * len(idx), np.full(len(idx), 1.0 / len(idx)))
    aucs = weighted_auc(y, s, weights)
    aucs = aucs[np.isfinite(aucs)]
    if not len(aucs):
        return (float("nan"), float("nan"))
    a = (1 - confidence) / 2
    lo, hi = np.quantile(aucs, [a, 1 - a])
    # the bootstrap's variance over K clusters is (K − 1)/K of the true one: widen around the estimate
    centre = float(weighted_auc(y, s, np.ones((1, len(y))))[0])
    widen = math.sqrt(n_cl / (n_cl - 1)) if n_cl > 1 else 1.0
    return (float(max(0.0, centre - widen * (centre - lo))), float(min(1.0, centre + widen * (hi - centre))))


def interval(labels, scores, clusters, confidence: float = 0.95, seed: int = 0,
             resamples: int = DEFAULT_RESAMPLES) -> dict:
    """The AUC's interval that respects the clusters: ``{"low", "high", "clusters", "method"}``.

    ``method`` is ``"cluster bootstrap"`` with at least :data:`MIN_CLUSTERS` clusters; with fewer it is
    ``"DeLong (one release)"`` — the targets-only interval, which says nothing about how much another release of
    the same table would differ. The wider of the bootstrap and DeLong is kept, so a lucky resample never
    narrows the interval below the targets' own spread."""
    y = np.asarray(labels).astype(int)
    s = np.asarray(scores, dtype=float)
    n_cl = len({str(c) for c in clusters})
    lo_d, hi_d = auc_ci(y, s, confidence)
    if n_cl < MIN_CLUSTERS or not (math.isfinite(lo_d) and math.isfinite(hi_d)):
        return {"low": lo_d, "high": hi_d, "clusters": n_cl, "method": "DeLong (one release)"}
    lo_b, hi_b = cluster_bootstrap_ci(y, s, clusters, confidence, resamples=resamples, seed=seed)
    return {"low": min(lo_d, lo_b), "high": max(hi_d, hi_b), "clusters": n_cl, "method": "cluster bootstrap"}
