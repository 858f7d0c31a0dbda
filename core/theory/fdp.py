"""Hypothesis-testing (f-DP) view of a privacy guarantee: trade-off curves and conversions.

Dong, Roth & Su, *Gaussian Differential Privacy* (JRSS-B 2022), §2–3; Kairouz, Oh & Viswanath (2015).

A membership (or attribute) test that sees the release decides between "the target is in" (H1) and "out"
(H0). Its type-I error is α = FPR and its type-II error β = FNR = 1 − TPR. A mechanism is *f-DP* when
every test has β ≥ f(α); f is the **trade-off function**. In ROC coordinates the guarantee is the region
``TPR ≤ 1 − f(FPR)``: every measured ROC curve must lie below that curve.

* **(ε, δ)-DP** (Dong et al. Prop. 2.5): ``f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))``.
* **μ-GDP** (Def. 2.6): ``G_μ(α) = Φ(Φ⁻¹(1 − α) − μ)`` — the trade-off of telling N(0, 1) from N(μ, 1).
  The Gaussian mechanism with sensitivity Δ and noise σ is (Δ/σ)-GDP; k-fold composition of μ-GDP is
  √k·μ-GDP (Cor. 3.3).
* **μ-GDP ⇒ (ε, δ(ε))-DP for every ε** (Cor. 2.13):
  ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``.
* **Best balanced accuracy** of any test: ``max (1 − α + 1 − β)/2`` on the curve — for (ε, δ)-DP
  ``(e^ε + δ)/(1 + e^ε)`` (δ = 0: ``e^ε/(1 + e^ε)``), for μ-GDP ``Φ(μ/2)``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special
from scipy.stats import norm

from ..errors import ParameterError


def _eps(epsilon: float) -> float:
    epsilon = float(epsilon)
    if not epsilon >= 0 or math.isnan(epsilon):
        raise ParameterError("epsilon", f"must be >= 0 (inf = no guarantee), got {epsilon}")
    return epsilon


def _delta(delta: float) -> float:
    delta = float(delta)
    if not 0 <= delta <= 1:
        raise ParameterError("delta", f"must be in [0, 1], got {delta}")
    return delta


def _mu(mu: float) -> float:
    mu = float(mu)
    if not mu >= 0 or math.isnan(mu):
        raise ParameterError("mu", f"must be >= 0, got {mu}")
    return mu


# ------------------------------------------------------------ trade-off functions
def eps_delta_tradeoff(alpha, epsilon: float, delta: float = 0.0) -> np.ndarray:
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)): the least type-II error an (ε, δ)-DP
    mechanism allows at type-I error α."""
    epsilon, delta = _eps(epsilon), _delta(delta)
    a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
    if math.isinf(epsilon):
        return np.zeros_like(a)
    with np.errstate(over="ignore"):
        first = 1.0 - delta - np.exp(min(epsilon, 700.0)) * a
    second = np.exp(-epsilon) * (1.0 - delta - a)
    return np.maximum(0.0, np.maximum(first, second))


def gdp_tradeoff(alpha, mu: float) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ)."""
    mu = _mu(mu)
    a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
    if math.isinf(mu):
        return np.zeros_like(a)
    return norm.cdf(norm.ppf(1.0 - a) - mu)


def tpr_bound(fpr, epsilon: float | None = None, delta: float = 0.0, mu: float | None = None) -> np.ndarray:
    """Highest TPR any attack can reach at each FPR: ``1 − f(FPR)`` for the tighter of the given
    guarantees ((ε, δ)-DP and/or μ-GDP)."""
    f = np.asarray(fpr, dtype=float)
    bound = np.ones_like(f)
    if epsilon is not None:
        bound = np.minimum(bound, 1.0 - eps_delta_tradeoff(f, epsilon, delta))
    if mu is not None:
        bound = np.minimum(bound, 1.0 - gdp_tradeoff(f, mu))
    return bound


def roc_grid(n: int = 400) -> np.ndarray:
    """FPR grid for drawing: log-spaced near 0 (where privacy attacks matter) plus linear."""
    return np.unique(np.concatenate([[0.0], np.geomspace(1e-6, 1.0, n // 2), np.linspace(0.0, 1.0, n // 2)]))


def tradeoff_roc(epsilon: float | None = None, delta: float = 0.0, mu: float | None = None,
                 fpr=None) -> dict:
    """``{"fpr", "tpr"}`` of the guarantee's boundary in ROC coordinates (TPR = 1 − f(FPR))."""
    grid = roc_grid() if fpr is None else np.asarray(fpr, dtype=float)
    return {"fpr": grid.tolist(), "tpr": tpr_bound(grid, epsilon, delta, mu).tolist()}


# ----------------------------------------------------------------- accuracy
def accuracy_bound(epsilon: float, delta: float = 0.0) -> float:
    """Best balanced accuracy of any test against (ε, δ)-DP: (e^ε + δ)/(1 + e^ε)."""
    epsilon, delta = _eps(epsilon), _delta(delta)
    if math.isinf(epsilon):
        return 1.0
    return float(min(1.0, special.expit(epsilon) + delta * special.expit(-epsilon)))


def gdp_accuracy_bound(mu: float) -> float:
    """Best balanced accuracy of any test against μ-GDP: Φ(μ/2)."""
    return float(norm.cdf(_mu(mu) / 2.0))


def epsilon_from_accuracy(accuracy: float, delta: float = 0.0) -> float:
    """Smallest ε whose (ε, δ) bound allows balanced accuracy ``accuracy`` (inverse of :func:`accuracy_bound`)."""
    delta = _delta(delta)
    acc = float(accuracy)
    if acc <= max(0.5, (1 + delta) / 2):
        return 0.0
    if acc >= 1.0:
        return math.inf
    return float(math.log((acc - delta) / (1.0 - acc)))


# --------------------------------------------------------------- conversions
def gaussian_mu(sigma: float, sensitivity: float = 1.0, compositions: int = 1) -> float:
    """μ of ``compositions`` Gaussian releases with noise σ and L2 sensitivity Δ: √k·Δ/σ."""
    sigma = float(sigma)
    if not sigma > 0:
        raise ParameterError("sigma", f"must be > 0, got {sigma}")
    if int(compositions) < 1:
        raise ParameterError("compositions", f"must be >= 1, got {compositions}")
    return math.sqrt(int(compositions)) * float(sensitivity) / sigma


def compose_gdp(mu: float, k: int) -> float:
    """k-fold composition of μ-GDP is √k·μ-GDP."""
    return math.sqrt(int(k)) * _mu(mu)


def gdp_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (computed in the log domain)."""
    mu, epsilon = _mu(mu), _eps(epsilon)
    if mu == 0:
        return 0.0
    a = norm.logcdf(-epsilon / mu + mu / 2)
    b = epsilon + norm.logcdf(-epsilon / mu - mu / 2)
    if b >= a:
        return 0.0
    return float(math.exp(a) * -math.expm1(b - a))


def gdp_epsilon(mu: float, delta: float) -> float:
    """Smallest ε with μ-GDP ⇒ (ε, δ)-DP (inverse of :func:`gdp_delta` in ε)."""
    mu, delta = _mu(mu), _delta(delta)
    if delta <= 0:
        return math.inf if mu > 0 else 0.0
    if gdp_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(mu, hi) > delta:
        hi *= 2
        if hi > 1e6:
            return math.inf
    return float(optimize.brentq(lambda e: gdp_delta(mu, e) - delta, 0.0, hi, xtol=1e-12))


def gdp_mu_for(epsilon: float, delta: float) -> float:
    """Largest μ whose GDP curve implies (ε, δ)-DP (e.g. to draw a Gaussian mechanism calibrated to (ε, δ))."""
    epsilon, delta = _eps(epsilon), _delta(delta)
    if delta <= 0:
        return 0.0
    if math.isinf(epsilon):
        return math.inf
    lo, hi = 1e-9, 1.0
    while gdp_delta(hi, epsilon) < delta:
        hi *= 2
        if hi > 1e4:
            return math.inf
    return float(optimize.brentq(lambda m: gdp_delta(m, epsilon) - delta, lo, hi, xtol=1e-12))
