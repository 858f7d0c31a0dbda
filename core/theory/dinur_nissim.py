"""Closed forms for the Dinur–Nissim reconstruction game: what to expect before any game is played.

CS208 lecture 2 (Vadhan et al. 2025), slides 7–9, and spec Part B of ``docs/specs/seed003_004_disparate_and_cs208.md``
(B2 item 9 "On the level of accuracy", B3 reference numbers). The game: n secret bits ``x_i ~ Bernoulli(p)``,
m random subsets ``S_j`` (each person in each set with probability ½), answers ``a_j = q_{S_j}(x) + z_j``.

**Majority baseline.** Guessing the more common value for everyone scores ``max(K, n−K)/n`` with
``K ~ Bin(n, p)``; its expectation ``E[max(K, n−K)]/n`` is an exact binomial sum (0.540 at n = 100, p = ½; it
tends to ``max(p, 1−p)`` as n grows).

**Least squares under Gaussian noise** (the √n threshold in closed form). Write the 0/1 query matrix as its
mean plus a centred part whose entries have variance ¼. The least-squares error is ``e = (MᵀM)⁻¹Mᵀz`` with
covariance ``σ²(MᵀM)⁻¹``; for a random design the inverse-Wishart mean gives ``E[(MᵀM)⁻¹] ≈ 4·I/(m−n−1)`` (the
rank-one mean part only moves the direction of the all-ones vector), so each coordinate's error is
≈ N(0, 4σ²/(m−n−1)). Rounding at ½ recovers bit i iff its error stays on the right side of ½:

    accuracy_LS(n, m, σ) ≈ Φ( √(m − n − 1) / (4σ) )          (m > n + 1)

With σ = c·√n and m = ρ·n this is ``Φ(√(ρ − 1 − 1/n) / (4c))``: it depends on σ/√n, not on n — the slide's
"error o(√n) is necessary" made quantitative (σ = √n at m = 2n: Φ(¼) ≈ 0.60, spec B3 measures 0.59). Rounding
answers to a multiple of R acts like noise of standard deviation ``R/√12`` (a uniform error). At ``m ≤ n + 1``
the matrix is (nearly) singular and the formula does not apply; without noise and ``m ≥ n`` a random 0/1 matrix
is invertible with probability 1 − o(1), so every bit is recovered. The LP decoder does at least as well as
least squares near m = n (spec B3 table) and about as well from m = 2n on.

**What differential privacy allows** (any attacker, however strong). The Gaussian defence adds N(0, σ²) to
each answer; a person who is in ``c`` of the released sets moves the answer vector by √c in L2, so for that
person's bit the release is μ-GDP with ``μ = √c/σ`` (Dong, Roth & Su 2022, Thm 2.7): no test tells ``x_i = 1``
from ``x_i = 0`` better than telling N(0, 1) from N(μ, 1), whatever the attacker knows about the other bits
(mixtures keep the bound). With prior p the Bayes-optimal guess between those two Gaussians is right with
probability

    A(μ, p) = p·Φ(μ/2 + L/μ) + (1 − p)·Φ(μ/2 − L/μ),     L = ln(p / (1 − p))

(``Φ(μ/2)`` at p = ½; ``max(p, 1 − p)`` as μ → 0). For random subsets ``c ~ Bin(m, ½)``, so the expected
fraction of bits *any* attacker recovers is at most ``E_c[A(√c/σ, p)]``; for hash-predicate queries the
engine's worst case ``c = m`` is used (a larger c only loosens the bound).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..errors import ParameterError


def _check(n: int, m: int | None = None) -> None:
    if int(n) < 1:
        raise ParameterError("n", f"must be >= 1, got {n}")
    if m is not None and int(m) < 1:
        raise ParameterError("query_ratio", f"needs at least one query, got m = {m}")


def expected_majority(n: int, p: float) -> float:
    """``E[max(K, n−K)]/n`` for ``K ~ Bin(n, p)``: the majority-guess baseline the run measures, in expectation."""
    _check(n)
    if not 0.0 <= p <= 1.0:
        raise ParameterError("secret_rate", f"must lie in [0, 1], got {p}")
    k = np.arange(int(n) + 1)
    pmf = stats.binom.pmf(k, int(n), p)
    return float(np.sum(pmf * np.maximum(k, int(n) - k)) / int(n))


def ls_accuracy(n: int, m: int, sigma) -> np.ndarray | float:
    """Least-squares fraction of bits recovered under noise of standard deviation ``sigma`` (array or scalar):
    ``Φ(√(m−n−1)/(4σ))`` for ``m > n + 1``; 1 without noise when ``m ≥ n``; NaN where the formula does not
    apply (see the module docstring)."""
    _check(n, m)
    s = np.asarray(sigma, dtype=float)
    if np.any(s < 0) or np.any(np.isnan(s)):
        raise ParameterError("defense_level", "the noise level must be >= 0")
    free = int(m) - int(n) - 1
    with np.errstate(divide="ignore"):
        out = np.where(s > 0, stats.norm.cdf(math.sqrt(max(free, 0)) / (4.0 * np.where(s > 0, s, 1.0))), 1.0)
    if free <= 0:
        out = np.where((s == 0) & (int(m) >= int(n)), 1.0, np.nan)
    return float(out) if out.ndim == 0 else out


def gaussian_bit_accuracy(mu, prior: float = 0.5) -> np.ndarray | float:
    """Bayes-optimal accuracy of telling N(0, 1) (bit 0) from N(μ, 1) (bit 1) with ``P(bit = 1) = prior``:
    ``p·Φ(μ/2 + L/μ) + (1−p)·Φ(μ/2 − L/μ)``, ``L = ln(p/(1−p))``; ``max(p, 1−p)`` at μ = 0."""
    if not 0.0 <= prior <= 1.0:
        raise ParameterError("secret_rate", f"must lie in [0, 1], got {prior}")
    mu = np.asarray(mu, dtype=float)
    if np.any(mu < 0):
        raise ParameterError("mu", "must be >= 0")
    base = max(prior, 1.0 - prior)
    if prior in (0.0, 1.0):
        out = np.full(mu.shape, 1.0)
    else:
        log_odds = math.log(prior / (1.0 - prior))
        safe = np.where(mu > 0, mu, 1.0)
        acc = prior * stats.norm.cdf(safe / 2 + log_odds / safe) + \
            (1 - prior) * stats.norm.cdf(safe / 2 - log_odds / safe)
        out = np.where(np.isinf(mu), 1.0, np.where(mu > 0, np.maximum(acc, base), base))
    return float(out) if out.ndim == 0 else out


def dp_bit_bound(m: int, sigma, prior: float = 0.5, queries: str = "random-subsets") -> np.ndarray | float:
    """Upper bound on the expected fraction of bits any attacker recovers from m subset sums with Gaussian
    noise σ (array or scalar): ``E_c[A(√c/σ, p)]`` with ``c ~ Bin(m, ½)`` for random subsets, ``c = m``
    otherwise; 1 where σ = 0 (no guarantee)."""
    _check(1, m)
    m = int(m)
    s = np.atleast_1d(np.asarray(sigma, dtype=float))
    if np.any(s < 0):
        raise ParameterError("defense_level", "the noise level must be >= 0")
    if queries == "random-subsets":
        c = np.arange(m + 1)
        w = stats.binom.pmf(c, m, 0.5)
        keep = w > 1e-15
        c, w = c[keep], w[keep] / w[keep].sum()
    else:
        c, w = np.array([m]), np.array([1.0])
    out = np.ones(s.shape)
    pos = s > 0
    if pos.any():
        mu = np.sqrt(c)[None, :] / s[pos][:, None]
        out[pos] = (gaussian_bit_accuracy(mu, prior) * w[None, :]).sum(axis=1)
    out = np.minimum(out, 1.0)
    return float(out[0]) if np.ndim(sigma) == 0 else out
