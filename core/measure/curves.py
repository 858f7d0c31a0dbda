"""Small series a page draws from a run's scores: thinned curves, an ROC read at a given FPR, score histograms."""
from __future__ import annotations

import numpy as np


def thin(values, n: int = 400) -> list:
    """At most ``n`` evenly spaced values of ``values`` (first and last kept), for a series a page draws."""
    values = np.asarray(values)
    if values.size <= n:
        return values.tolist()
    idx = np.unique(np.linspace(0, values.size - 1, n).astype(int))
    return values[idx].tolist()


def thin_roc(fpr, tpr, n: int = 300) -> dict:
    """An ROC curve thinned to about ``n`` points spaced geometrically in FPR, so the low-FPR end a log axis
    shows keeps its detail."""
    fpr, tpr = np.asarray(fpr), np.asarray(tpr)
    if fpr.size > n:
        grid = np.concatenate([[0.0], np.geomspace(max(fpr[fpr > 0].min(), 1e-7), 1, n)])
        idx = np.unique(np.clip(np.searchsorted(fpr, grid, side="right") - 1, 0, fpr.size - 1))
        fpr, tpr = fpr[idx], tpr[idx]
    return {"fpr": fpr.tolist(), "tpr": tpr.tolist()}


def tpr_at(roc: dict, fpr: float) -> float:
    """Highest empirical TPR with FPR ≤ fpr (the rule of :func:`core.measure.metrics.tpr_at_fpr`)."""
    f, t = np.asarray(roc["fpr"]), np.asarray(roc["tpr"])
    ok = f <= fpr + 1e-12
    return float(t[ok].max()) if ok.any() else 0.0


def score_histogram(scores, y, integer_k: int | None) -> dict:
    """Members' and non-members' score histograms on shared edges: unit bins for integer scores up to
    ``integer_k``, else 60 bins between the 0.1% and 99.9% quantiles."""
    if integer_k is not None:
        edges = np.arange(-0.5, integer_k + 1.0)
    else:
        lo, hi = np.quantile(scores, [0.001, 0.999])
        edges = np.linspace(lo, hi if hi > lo else lo + 1, 61)
    y = np.asarray(y).astype(bool)
    return {"edges": edges.tolist(),
            "members": np.histogram(scores[y], edges)[0].tolist(),
            "non_members": np.histogram(scores[~y], edges)[0].tolist()}
