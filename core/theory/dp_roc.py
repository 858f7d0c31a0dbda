"""The ROC region an (ε, δ)-DP release allows, and the per-person ε of a release of noisy counts.

**Hypothesis-testing view of DP** (Wasserman & Zhou 2010; Kairouz, Oh & Viswanath 2015, Thm 2.1). A
mechanism is (ε, δ)-DP iff every test between two neighbouring datasets, with false-positive rate FPR
and true-positive rate TPR, satisfies

    TPR ≤ e^ε·FPR + δ          and          1 − FPR ≥ e^ε·(1 − TPR) − δ,

i.e. ``TPR ≤ min(e^ε·FPR + δ, 1 − e^{−ε}·(1 − δ − FPR))``. The ROC curve of *any* attack on such a
release lies below this bound (clipped to [0, 1]); for δ = 0 the two lines cross at
``FPR* = 1/(1 + e^ε)`` and the area under the bound is ``e^ε/(1 + e^ε)`` (the largest AUC, and the largest
balanced accuracy, an ε-DP release allows).

**Per-person ε of a release of noisy counts** (DeSIA paper §5.6). Each released count gets independent
Laplace noise of scale 1/ε_agg, so one count is ε_agg-DP for a change of one person's record (sensitivity
1). Changing one person's record moves every count whose cell contains the old or the new record (by
one each), so by basic composition the release is ``ε = ε_agg · max_change ‖Q(D) − Q(D')‖₁``-DP:

* attribute inference (only the sensitive value changes): ``max_r Σ_q |𝟙[(r, v₁) ∈ q] − 𝟙[(r, v₀) ∈ q]|``;
* membership (add / remove one record): ``max_r Σ_q 𝟙[r ∈ q]``.

The maximum runs over every record of the domain (a DP claim holds for everyone, not only for the people
of the block). Rounding the noisy answers is post-processing and keeps the guarantee.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from ..releases.aggregate_release import AggregateRelease

#: The largest domain enumerated exactly for the per-person sensitivity (records × queries booleans).
MAX_DOMAIN = 2_000_000


def roc_bound(fpr, epsilon: float, delta: float = 0.0) -> np.ndarray:
    """Largest TPR an (ε, δ)-DP release allows at each FPR (see the module docstring)."""
    if not epsilon >= 0:
        raise ParameterError("epsilon", f"must be ≥ 0, got {epsilon}")
    if not 0 <= delta <= 1:
        raise ParameterError("delta", f"must lie in [0, 1], got {delta}")
    f = np.clip(np.asarray(fpr, dtype=float), 0.0, 1.0)
    if math.isinf(epsilon):
        return np.ones_like(f)
    e = math.exp(epsilon)
    tpr = np.minimum(e * f + delta, 1.0 - (1.0 - delta - f) / e)
    return np.clip(tpr, 0.0, 1.0)


def max_auc(epsilon: float, delta: float = 0.0, points: int = 20001) -> float:
    """Area under :func:`roc_bound` (``e^ε/(1+e^ε)`` when δ = 0)."""
    if delta == 0 and math.isfinite(epsilon):
        return 1.0 / (1.0 + math.exp(-epsilon))
    f = np.linspace(0.0, 1.0, points)
    t = roc_bound(f, epsilon, delta)
    return float(np.sum((t[1:] + t[:-1]) * np.diff(f)) / 2)


def roc_bound_curve(epsilon: float, delta: float = 0.0, points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) of the bound on a grid dense at low FPR (for a linear plot and a log-log inset)."""
    f = np.unique(np.concatenate([[0.0], np.geomspace(1e-5, 1.0, points), np.linspace(0, 1, points)]))
    return f, roc_bound(f, epsilon, delta)


def _domain(cardinalities) -> np.ndarray:
    grids = np.meshgrid(*[np.arange(c) for c in cardinalities], indexing="ij")
    return np.column_stack([g.ravel() for g in grids])


def release_sensitivity(masks, cardinalities, task: str = "aia", records: np.ndarray | None = None) -> int:
    """L1 change of the released counts when one person's record changes (see the module docstring).

    ``masks``: one tuple of per-attribute boolean masks (or None) per released count, the sensitive attribute
    last. The maximum runs over the whole domain when it has at most ``MAX_DOMAIN`` non-sensitive records;
    otherwise over ``records`` (then it is a lower bound on the domain's sensitivity).
    """
    card = tuple(int(c) for c in cardinalities)
    if not masks:
        return 0
    if task not in ("aia", "mia"):
        raise ParameterError("task", f"expected aia|mia, got {task!r}")
    rel = AggregateRelease(tuple(f"a{i}" for i in range(len(card))), card, list(masks),
                           np.zeros(len(masks)), size=0)
    n_front = int(np.prod(card[:-1], dtype=np.int64))
    if n_front <= MAX_DOMAIN:
        front = _domain(card[:-1])
    elif records is not None:
        front = np.unique(np.asarray(records)[:, :-1], axis=0)
    else:
        raise ParameterError("records", "the domain is too large to enumerate; pass the records")
    best = 0
    for lo in range(0, len(front), 20000):
        part = front[lo:lo + 20000]
        values = range(card[-1]) if task == "mia" else (0,)  # AIA: every sensitive value is tried anyway
        for v in values:
            best = max(best, int(_record_changes(rel, np.column_stack([part, np.full(len(part), v)]), task).max()))
    return best


def record_sensitivity(masks, cardinalities, records: np.ndarray, task: str = "aia") -> np.ndarray:
    """Per record, the L1 change of the released counts when that person's record changes (the module
    docstring's quantity before the maximum): for ``aia`` the released cells that move when only the
    sensitive value (last column) changes, maximised over pairs of values; for ``mia`` the cells that contain
    the record. 0 for attribute inference means the release does not depend on that person's sensitive value
    at all. ``release_sensitivity`` is the maximum of this over the domain."""
    card = tuple(int(c) for c in cardinalities)
    if task not in ("aia", "mia"):
        raise ParameterError("task", f"expected aia|mia, got {task!r}")
    records = np.asarray(records)
    if not masks:
        return np.zeros(len(records), dtype=int)
    rel = AggregateRelease(tuple(f"a{i}" for i in range(len(card))), card, list(masks),
                           np.zeros(len(masks)), size=0)
    return _record_changes(rel, records, task)


def _record_changes(rel, records: np.ndarray, task: str) -> np.ndarray:
    if task == "mia":
        return rel.membership(records).sum(axis=1)
    k = rel.cardinalities[-1]
    mems = [rel.membership(np.column_stack([records[:, :-1], np.full(len(records), v)])) for v in range(k)]
    out = np.zeros(len(records), dtype=int)
    for a in range(k):
        for b in range(a + 1, k):
            out = np.maximum(out, (mems[a] != mems[b]).sum(axis=1))
    return out


def per_person_epsilon(epsilon_per_aggregate: float, sensitivity: int) -> float:
    """ε of the whole release for one person: ``ε_agg · sensitivity`` (inf without noise)."""
    if epsilon_per_aggregate <= 0:
        return float("inf")
    return float(epsilon_per_aggregate) * int(sensitivity)
