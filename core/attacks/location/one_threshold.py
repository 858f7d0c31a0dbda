"""One-threshold attack on location aggregates (Liu et al., Sec. 3.2; spec seed001 §4.1).

**Score1 (Alg. 2, Eq. 4).** With the known traces removed, ``Ã^r = Ã − A_θ``, the
score is the sum of the target's positive observations,
``s = Σ_{l,e} 1(z_le = 1) Ã^r_le``. Inputs here are already in k-cell space: ``X``
holds ``Ã^r`` at the target's k positive cells (one column per cell).

**Threshold (Alg. 3, Eq. 6).** ``T = ½(mean_{member shadows} s + mean_{non-member shadows} s)``;
the decision is ``b̂ = 0 if s ≤ T else 1`` (Alg. 1).

**Fixed FPR (Alg. 6).** ``T = μ̂_0 + √v̂ · Φ⁻¹(1 − FPR)`` with ``v̂ = (v̂_0 + v̂_1)/2``.

Theorem 2 (variances add — the paper's σ is a typo): ``s ~ N(Σ(μ_c + b), Σ(σ_c² + σ_X²))``;
informed Laplace at ε = 0.5 gives ``ACC ≈ Φ(√k / (2√8))`` (0.9145 at k = 60).

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ...errors import DataError


def score1(X: np.ndarray) -> np.ndarray:
    """Sum of the released positive observations (Alg. 2)."""
    return np.asarray(X).sum(axis=1, dtype=np.float64)


def _split(scores: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(y).astype(bool)
    if y.all() or not y.any():
        raise DataError("shadow aggregates need both members and non-members")
    return scores[~y], scores[y]


class OneThresholdAttack:
    """Score1 + midpoint threshold (Alg. 1–3); ``fit(X_shadow, y_shadow)``, ``predict(X)``."""

    name = "one-threshold"

    def __init__(self):
        self.threshold_: float | None = None

    def fit(self, X, y) -> "OneThresholdAttack":
        s0, s1 = _split(score1(X), y)
        self.mu0_, self.mu1_ = float(s0.mean()), float(s1.mean())
        self.var_ = float((s0.var(ddof=1) + s1.var(ddof=1)) / 2) if min(s0.size, s1.size) > 1 else 0.0
        self.threshold_ = 0.5 * (self.mu0_ + self.mu1_)
        return self

    def score(self, X) -> np.ndarray:
        return score1(X)

    def predict(self, X) -> np.ndarray:
        if self.threshold_ is None:
            raise RuntimeError("fit the attack first")
        return (self.score(X) > self.threshold_).astype(np.int8)

    def accuracy(self, X, y) -> float:
        return float((self.predict(X) == np.asarray(y)).mean())

    def threshold_for_fpr(self, fpr: float) -> float:
        """Alg. 6: Gaussian fit of the shadow scores, T = μ̂_0 + √v̂ Φ⁻¹(1 − FPR)."""
        if not 0 < fpr < 1:
            raise ValueError("fpr must be in (0, 1)")
        return float(self.mu0_ + np.sqrt(self.var_) * stats.norm.isf(fpr))
