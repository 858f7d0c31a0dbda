"""Conversion from zero-concentrated DP to (ε, δ)-DP, used to budget RAP^softmax.

Source: Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
Prop. 12 / Cor. 13 (the optimal conversion), as used by Liu et al. (2021) to turn the paper's (ε, δ) into a
ρ-zCDP budget (Annamalai et al. 2024, App. A; ``docs/specs/seed002_linear_recon_sdg.md`` §5).
"""
from __future__ import annotations

import math

from scipy.optimize import brentq


def cdp_delta(rho: float, eps: float) -> float:
    """Smallest δ such that every ρ-zCDP mechanism is (ε, δ)-DP:

        δ = inf_{α > 1}  exp((α − 1)(αρ − ε)) / (α − 1) · (1 − 1/α)^α.

    The log of the bracket is convex in α; its derivative ``(2α − 1)ρ − ε + log(1 − 1/α)`` is increasing, so
    the minimiser is its unique root (found by Brent's method)."""
    if rho < 0 or eps < 0:
        raise ValueError("rho and eps must be >= 0")
    if rho == 0:
        return 0.0

    def slope(a: float) -> float:
        return (2 * a - 1) * rho - eps + math.log1p(-1 / a)

    lo, hi = 1.0 + 1e-12, max(2.0, (eps + 1) / (2 * rho) + 2)
    while slope(hi) < 0:
        hi *= 2
    a = brentq(slope, lo, hi, xtol=1e-14, rtol=1e-14) if slope(lo) < 0 else lo
    log_delta = (a - 1) * (a * rho - eps) + a * math.log1p(-1 / a) - math.log(a - 1)
    return min(1.0, math.exp(log_delta))


def cdp_rho(eps: float, delta: float) -> float:
    """Largest zCDP budget ρ whose optimal conversion is still (ε, δ)-DP: ``cdp_delta(ρ, ε) = δ``.

    ``cdp_delta`` increases with ρ, so ρ is the root of ``log cdp_delta(ρ, ε) − log δ`` (Brent's method on
    ``(0, ε + 1]``; at ρ = ε + 1 the δ already exceeds any δ < 1). For example ``cdp_rho(1, 1e-6) ≈ 0.02436``,
    a little above ``0.0175`` from the simple bound ``ε = ρ + 2 √(ρ log(1/δ))``."""
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError("eps must be a finite number > 0")
    if delta >= 1:
        return math.inf
    if delta <= 0:
        return 0.0
    target = math.log(delta)

    def gap(rho: float) -> float:
        return math.log(max(cdp_delta(rho, eps), 1e-300)) - target

    hi = eps + 1.0
    while gap(hi) < 0:
        hi *= 2
    return brentq(gap, 1e-15, hi, xtol=1e-15, rtol=1e-13)
