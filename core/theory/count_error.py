"""What noise costs a published count: expected error and the chance of missing by more than a tolerance.

The accuracy side of a noisy table, in closed form, so a stakeholder can weigh it against the attack at the same ε.

* **Laplace, rounded** (the aggregate-statistics release publishes ``round(q + Lap(1/ε))``). With
  ``X ~ Lap(b = 1/ε)`` and ``q = e^(−ε)``, the published error ``K = round(X)`` has ``P(K = 0) = 1 − e^(−ε/2)`` and,
  for ``k ≥ 1``, ``P(|K| = k) = e^(−ε(k − ½))·(1 − q)``. Summing the geometric series,
  ``E|K| = e^(ε/2)(1 − q)·Σ k qᵏ = 1 / (2·sinh(ε/2))`` (≈ 1/ε for small ε) and, for an integer tolerance t ≥ 0,
  ``P(|K| > t) = e^(−ε(t + ½))``.
* **Laplace, unrounded**: ``E|X| = 1/ε`` and ``P(|X| > t) = e^(−εt)`` (scipy.stats.laplace).
* **Gaussian** ``N(0, σ²)``: ``E|X| = σ·√(2/π)`` and ``P(|X| > t) = 2·(1 − Φ(t/σ))`` (scipy.stats.halfnorm).

The relative error of a cell with true count c ≥ 1 is ``E|K| / c``; cells whose true count is 0 have no relative
error and are left out of its mean (a stakeholder reads "off by 30% on a count of 3", not a division by zero).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..errors import ParameterError

MECHANISMS = ("laplace-rounded", "laplace", "gaussian")


def _check(mechanism: str, scale_or_eps: float) -> None:
    if mechanism not in MECHANISMS:
        raise ParameterError("mechanism", f"expected one of {', '.join(MECHANISMS)}, got {mechanism!r}")
    if not (scale_or_eps > 0 and math.isfinite(scale_or_eps)):
        raise ParameterError("epsilon" if mechanism.startswith("laplace") else "sigma",
                             f"must be a positive finite number, got {scale_or_eps!r}")


def expected_abs_error(mechanism: str, param: float) -> float:
    """E|noise| of one published count. ``param`` is ε for the Laplace mechanisms and σ for the Gaussian."""
    _check(mechanism, param)
    if mechanism == "laplace-rounded":
        return 1.0 / (2.0 * math.sinh(param / 2.0))
    if mechanism == "laplace":
        return float(stats.laplace(scale=1.0 / param).expect(abs))
    return float(stats.halfnorm(scale=param).mean())


def prob_off_by_more(mechanism: str, param: float, tolerance: float) -> float:
    """P(|published − true| > tolerance) for one count (``param``: ε for Laplace, σ for Gaussian)."""
    _check(mechanism, param)
    if not (tolerance >= 0 and math.isfinite(tolerance)):
        raise ParameterError("tolerance", f"must be a finite number ≥ 0, got {tolerance!r}")
    if mechanism == "laplace-rounded":
        return math.exp(-param * (math.floor(tolerance) + 0.5))  # integer errors: |K| > t ⇔ |K| > ⌊t⌋
    if mechanism == "laplace":
        return float(stats.laplace(scale=1.0 / param).sf(tolerance) * 2.0)
    return float(stats.halfnorm(scale=param).sf(tolerance))


def expected_relative_error(mechanism: str, param: float, true_counts) -> float | None:
    """Mean over the cells with a true count ≥ 1 of E|noise| / count (None when every count is 0)."""
    c = np.asarray(true_counts, dtype=float)
    c = c[c >= 1]
    if len(c) == 0:
        return None
    return float(np.mean(expected_abs_error(mechanism, param) / c))


def measured_errors(true_counts, published, tolerance: float = 0.0) -> dict:
    """The same three numbers measured on one release: mean |error|, mean relative error over cells with a true
    count ≥ 1, and the share of cells off by more than ``tolerance``."""
    t = np.asarray(true_counts, dtype=float)
    p = np.asarray(published, dtype=float)
    if t.shape != p.shape or t.size == 0:
        raise ParameterError("cells", f"need as many published as true counts (got {p.size} and {t.size})")
    if not (tolerance >= 0 and math.isfinite(tolerance)):
        raise ParameterError("tolerance", f"must be a finite number ≥ 0, got {tolerance!r}")
    err = np.abs(p - t)
    pos = t >= 1
    return {"abs_error": float(err.mean()),
            "relative_error": float(np.mean(err[pos] / t[pos])) if pos.any() else None,
            "share_off": float(np.mean(err > tolerance)), "cells": int(t.size)}
