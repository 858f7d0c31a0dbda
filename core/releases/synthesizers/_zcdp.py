"""Conversion from zero-concentrated DP to (ε, δ)-DP, used to budget RAP^softmax, MST and AIM.

Source: Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
Prop. 12 / Cor. 13 (the optimal conversion), as used by Liu et al. (2021) to turn the paper's (ε, δ) into a
ρ-zCDP budget (Annamalai et al. 2024, App. A; ``docs/specs/seed002_linear_recon_sdg.md`` §5).

Two implementations of the same conversion: OpenDP's own (``make_zCDP_to_approxDP``, :func:`opendp_epsilon`,
:func:`cdp_rho`), which the generators budget with, and the closed form below (:func:`cdp_delta`), kept as the
independent check the tests compare OpenDP against. OpenDP is imported on first use (it loads JAX-free but
takes seconds), so importing the generators stays cheap.
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


def opendp_epsilon(rho: float, delta: float) -> float:
    """Smallest ε with ρ-zCDP ⇒ (ε, δ)-DP, computed by OpenDP: a Gaussian measurement whose privacy map gives
    exactly ρ (sensitivity ``√(2ρ)``, scale 1: ρ = Δ²/(2σ²)), turned into a privacy profile by
    ``make_zCDP_to_approxDP`` and read at δ. OpenDP rounds conservatively, so ε may exceed the closed form by a few
    parts in 10⁵."""
    import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

    if rho < 0 or not 0 < delta < 1:
        raise ValueError("need rho >= 0 and 0 < delta < 1")
    if rho == 0:
        return 0.0
    return float(dp.c.make_zCDP_to_approxDP(_unit_gaussian()).map(math.sqrt(2 * rho)).epsilon(delta))


def _unit_gaussian():
    import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

    dp.enable_features("contrib")  # OpenDP's switch for its community-contributed mechanisms (Gaussian, mbi)
    return dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)


def _rho_at_the_edges(eps: float, delta: float) -> float | None:
    """What both ways of finding ρ answer without a search: ``∞`` when δ ≥ 1 (any ρ is (ε, 1)-DP), ``0`` when
    δ ≤ 0 (no ρ > 0 is pure ε-DP); ``None`` for a δ in (0, 1). A bad ε is a ValueError."""
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError("eps must be a finite number > 0")
    if delta >= 1:
        return math.inf
    if delta <= 0:
        return 0.0
    return None


def cdp_rho(eps: float, delta: float) -> float:
    """Largest zCDP budget ρ that OpenDP converts to at most (ε, δ)-DP (:func:`opendp_epsilon`), by OpenDP's
    ``binary_search`` on ``(0, ε + 1]`` (at ρ = ε + 1 the conversion already exceeds ε). For example
    ``cdp_rho(1, 1e-6) ≈ 0.02436``, a little above ``0.0175`` from the simple bound ``ε = ρ + 2 √(ρ log(1/δ))``;
    :func:`closed_form_rho` finds the same ρ from the closed form."""
    import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

    edge = _rho_at_the_edges(eps, delta)
    if edge is not None:
        return edge
    return float(dp.binary_search(lambda rho: opendp_epsilon(rho, delta) <= eps, bounds=(0.0, eps + 1.0), T=float))


def closed_form_rho(eps: float, delta: float) -> float:
    """Largest zCDP budget ρ whose optimal conversion is still (ε, δ)-DP: ``cdp_delta(ρ, ε) = δ``.

    ``cdp_delta`` increases with ρ, so ρ is the root of ``log cdp_delta(ρ, ε) − log δ`` (Brent's method on
    ``(0, ε + 1]``; at ρ = ε + 1 the δ already exceeds any δ < 1). For example ``cdp_rho(1, 1e-6) ≈ 0.02436``,
    a little above ``0.0175`` from the simple bound ``ε = ρ + 2 √(ρ log(1/δ))``."""
    edge = _rho_at_the_edges(eps, delta)
    if edge is not None:
        return edge
    target = math.log(delta)

    def gap(rho: float) -> float:
        return math.log(max(cdp_delta(rho, eps), 1e-300)) - target

    hi = eps + 1.0
    while gap(hi) < 0:
        hi *= 2
    return brentq(gap, 1e-15, hi, xtol=1e-15, rtol=1e-13)
