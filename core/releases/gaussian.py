"""The Gaussian mechanism, with classic and analytic calibration.

Adding ``N(0, σ²)`` noise to a query with L2 sensitivity Δ₂ is (ε, δ)-DP when

* **classic** (Dwork & Roth 2014, Thm A.1): ``σ = Δ₂·√(2 ln(1.25/δ))/ε``
  (proved for ε < 1; used here as the textbook rule for any ε), or
* **analytic** (Balle & Wang 2018, Thm 8): σ is the smallest value with
  ``Φ(Δ₂/(2σ) − εσ/Δ₂) − e^ε·Φ(−Δ₂/(2σ) − εσ/Δ₂) ≤ δ``, found by root finding.
  It is exact (tight) for every ε and always ≤ the classic σ.

:func:`analytic_delta` evaluates the left-hand side (the δ a given σ achieves at
ε) and :func:`gaussian_epsilon` inverts it (the ε a given σ achieves at δ).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from ..errors import ParameterError
from .mechanism import Mechanism, positive


def analytic_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """Smallest δ for which ``N(0, σ²)`` noise is (ε, δ)-DP (Balle & Wang 2018, Thm 8)."""
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    # e^ε Φ(−a − b) computed in log space to stay finite for large ε.
    second = math.exp(epsilon + norm.logcdf(-a - b)) if epsilon < 700 else 0.0
    return float(max(0.0, norm.cdf(a - b) - second))


def analytic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    lo, hi = 1e-6 * sensitivity, sensitivity
    while analytic_delta(hi, epsilon, sensitivity) > delta:
        hi *= 2.0
        if hi > 1e12:
            raise ParameterError("delta", f"no σ reaches δ={delta:g} at ε={epsilon:g}")
    if analytic_delta(lo, epsilon, sensitivity) <= delta:
        return lo
    return float(brentq(lambda s: analytic_delta(s, epsilon, sensitivity) - delta, lo, hi, xtol=1e-12, rtol=1e-10))


def classic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    return float(sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon)


def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest ε for which ``N(0, σ²)`` noise is (ε, δ)-DP (analytic, tight)."""
    sigma = positive("sigma", sigma)
    delta = positive("delta", delta, 1.0)
    if analytic_delta(sigma, 0.0, sensitivity) <= delta:
        return 0.0
    hi = 1.0
    while analytic_delta(sigma, hi, sensitivity) > delta:
        hi *= 2.0
        if hi > 1e6:
            return math.inf
    return float(brentq(lambda e: analytic_delta(sigma, e, sensitivity) - delta, 0.0, hi, xtol=1e-10))


class Gaussian(Mechanism):
    name = "gaussian"

    def __init__(self, epsilon: float, delta: float, sensitivity: float = 1.0,
                 calibration: str = "analytic"):
        self.epsilon = positive("epsilon", epsilon)
        self.delta = positive("delta", delta, 1.0)
        self.sensitivity = positive("sensitivity", sensitivity)
        if calibration not in ("analytic", "classic"):
            raise ParameterError("calibration", f"expected one of analytic|classic, got {calibration!r}")
        self.calibration = calibration
        if calibration == "classic":
            self.sigma = classic_sigma(self.epsilon, self.delta, self.sensitivity)
        else:
            self.sigma = analytic_sigma(self.epsilon, self.delta, self.sensitivity)

    @classmethod
    def from_sigma(cls, sigma: float, delta: float = 1e-5, sensitivity: float = 1.0) -> "Gaussian":
        """A Gaussian mechanism of given σ; its claimed ε is the tight analytic one at ``delta``."""
        obj = cls.__new__(cls)
        obj.sigma = positive("sigma", sigma)
        obj.delta = positive("delta", delta, 1.0)
        obj.sensitivity = positive("sensitivity", sensitivity)
        obj.calibration = "analytic"
        obj.epsilon = gaussian_epsilon(obj.sigma, obj.delta, obj.sensitivity)
        return obj

    @property
    def std(self) -> float:
        return self.sigma

    @property
    def privacy(self) -> tuple[float, float]:
        return (self.epsilon, self.delta)

    def release(self, values, rng):
        values = np.asarray(values, dtype=float)
        return values + rng.normal(0.0, self.sigma, size=values.shape)
