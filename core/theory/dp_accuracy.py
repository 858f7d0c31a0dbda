"""What differential privacy allows a membership attacker to reach on k observations.

Liu, Shilov, Guepin & de Montjoye, *Sub-optimal learning in meta-classifier attacks:
membership inference on DP location aggregates* — Fig. 1 and Sec. 2.3 (docs/specs/seed001_location_mia.md §3).

A target with ``k`` positive observations (cells ``A_le`` with ``z_le = 1``) is
protected by ``k`` applications of an (ε, δ)-DP mechanism (ε "per observation").

**Kairouz et al. optimal composition (Theorem 1).** The k-fold composition is
``((k-2i)ε, 1-(1-δ)^k (1-δ_i))``-DP for every ``i ≤ ⌊k/2⌋`` with
``δ_i = Σ_{l<i} C(k,l)(e^{(k-l)ε} - e^{(k-2i+l)ε}) / (1+e^ε)^k``. An (ε', δ')-DP
test has ``α + e^{ε'} β ≥ 1-δ'`` and ``e^{ε'} α + β ≥ 1-δ'`` so its best balanced
error is ``(1-δ')/(1+e^{ε'})``; hence ``ACC_DP = 1 - max_i (1-δ'_i)/(1+e^{(k-2i)ε})``.

**Stable closed form (spec §3.2, verified equal to the above).** With p = e^ε/(1+e^ε),
q = 1-p, the k-fold randomized-response accuracy is
``ACC_RR = 1/2 + 1/4 Σ_j C(k,j) |p^j q^{k-j} - q^j p^{k-j}|`` and
``ACC_DP = 1 - (1-δ)^k (1 - ACC_RR)``.

The module also gives the optimal ROC of any k-fold ε-DP mechanism (the RR
staircase), the Gaussian-DP optimum (μ = √k·C/σ) and the exact optimal
(likelihood-ratio) test against the Laplace mechanism, computed by convolving the
law of ``clip(x, 0, C)`` (spec §4.5), plus the analytic one-/two-threshold accuracies
of Theorems 2–3 (spec §4.1–4.2).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from ..errors import ParameterError


def _check(k: int, epsilon: float, delta: float = 0.0) -> int:
    k = int(k)
    if k < 0:
        raise ParameterError("observations", f"must be >= 0, got {k}")
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ParameterError("epsilon", f"must be a finite number > 0, got {epsilon}")
    if not (0 <= delta < 1):
        raise ParameterError("delta", f"must be in [0, 1), got {delta}")
    return k


def rr_accuracy(k: int, epsilon: float) -> float:
    """Best balanced accuracy against k-fold ε randomized response (= any k-fold ε-DP, δ=0)."""
    k = _check(k, epsilon)
    if k == 0:
        return 0.5
    p = special.expit(epsilon)  # e^ε/(1+e^ε), stable for large ε
    j = np.arange(k + 1)
    pin = stats.binom.pmf(j, k, p)
    pout = stats.binom.pmf(j, k, 1.0 - p)
    return float(0.5 + 0.25 * np.abs(pin - pout).sum())


def dp_expected_accuracy(k: int, epsilon: float, delta: float = 0.0) -> float:
    """ACC_DP(k, ε, δ) = 1 - (1-δ)^k (1 - ACC_RR(k, ε)) — the paper's "expected accuracy"."""
    k = _check(k, epsilon, delta)
    return float(1.0 - (1.0 - delta) ** k * (1.0 - rr_accuracy(k, epsilon)))


def dp_expected_accuracy_curve(ks, epsilon: float, delta: float = 0.0) -> np.ndarray:
    return np.array([dp_expected_accuracy(int(k), epsilon, delta) for k in ks])


def kairouz_accuracy(k: int, epsilon: float, delta: float = 0.0) -> float:
    """Theorem 1 evaluated literally (log-domain sums); equals :func:`dp_expected_accuracy`."""
    k = _check(k, epsilon, delta)
    if k == 0:
        return 0.5
    worst = 0.0
    log_norm = k * np.logaddexp(0.0, epsilon)
    for i in range(k // 2 + 1):
        delta_i = 0.0
        for l in range(i):
            log_c = special.gammaln(k + 1) - special.gammaln(l + 1) - special.gammaln(k - l + 1)
            hi = (k - l) * epsilon
            lo = (k - 2 * i + l) * epsilon
            # e^hi - e^lo = e^hi (1 - e^{lo-hi})
            delta_i += math.exp(log_c + hi + math.log1p(-math.exp(lo - hi)) - log_norm)
        delta_prime = 1.0 - (1.0 - delta) ** k * (1.0 - delta_i)
        err = (1.0 - delta_prime) * special.expit(-(k - 2 * i) * epsilon)
        worst = max(worst, err)
    return float(1.0 - worst)


def rr_optimal_roc(k: int, epsilon: float) -> dict:
    """Vertices of the optimal ROC of any k-fold ε-DP test (RR outcome j = #ones, j = k..0)."""
    k = _check(k, epsilon)
    p = special.expit(epsilon)
    j = np.arange(k, -1, -1)
    pin = stats.binom.pmf(j, k, p)
    pout = stats.binom.pmf(j, k, 1.0 - p)
    return {"fpr": np.concatenate([[0.0], np.cumsum(pout)]).clip(0, 1),
            "tpr": np.concatenate([[0.0], np.cumsum(pin)]).clip(0, 1)}


# --------------------------------------------------------------- Gaussian (GDP)
def gdp_accuracy(k: int, sigma: float, clip: float = 1.0) -> float:
    """Exact optimum against k Gaussian cells: μ = √k C/σ, ACC = Φ(μ/2) (= one-threshold)."""
    mu = math.sqrt(k) * clip / sigma
    return float(stats.norm.cdf(mu / 2))


def gdp_roc(k: int, sigma: float, clip: float = 1.0, fpr=None) -> dict:
    mu = math.sqrt(k) * clip / sigma
    fpr = np.geomspace(1e-5, 1, 200) if fpr is None else np.asarray(fpr, float)
    fpr = np.concatenate([[0.0], fpr])
    return {"fpr": fpr, "tpr": stats.norm.sf(stats.norm.isf(fpr) - mu)}


# ------------------------------------------------- exact Laplace likelihood-ratio test
def _clip_law(shift: float, scale: float, clip: float, bins: int) -> np.ndarray:
    """Law of clip(shift + Lap(scale), 0, C) on the grid {0, h, …, C}, h = C/bins.

    The atoms at 0 and C are exact; the continuous part on (0, C) is binned into
    cells of width h whose mass is put on the cell's nearer grid point (half-cells
    at the ends), so the sum of k copies lives on the grid {0, h, …, kC}.
    """
    edges = np.concatenate([[0.0], (np.arange(bins) + 0.5) * clip / bins, [clip]])
    cdf = stats.laplace.cdf(edges, loc=shift, scale=scale)
    mass = np.diff(cdf)
    mass[0] += cdf[0]                 # atom at 0: P(x <= 0)
    mass[-1] += 1.0 - cdf[-1]         # atom at C: P(x >= C)
    return mass


def laplace_lrt_distributions(k: int, scale: float, clip: float = 1.0, bins: int = 64):
    """Laws of the NP-optimal statistic Σ_c clip(x_c, 0, C) under H_OUT and H_IN."""
    out1 = _clip_law(0.0, scale, clip, bins)
    in1 = _clip_law(clip, scale, clip, bins)
    n = k * bins + 1
    size = 1 << (n - 1).bit_length()
    f_out = np.fft.rfft(out1, size) ** k
    f_in = np.fft.rfft(in1, size) ** k
    p_out = np.fft.irfft(f_out, size)[:n].clip(0)
    p_in = np.fft.irfft(f_in, size)[:n].clip(0)
    return p_out / p_out.sum(), p_in / p_in.sum()


def laplace_lrt_accuracy(k: int, epsilon: float, clip: float = 1.0, bins: int = 64) -> float:
    """Best balanced accuracy against k Laplace(C/ε) cells = 1/2 + TV(P_in, P_out)/2."""
    k = _check(k, epsilon)
    if k == 0:
        return 0.5
    p_out, p_in = laplace_lrt_distributions(k, clip / epsilon, clip, bins)
    return float(0.5 + 0.25 * np.abs(p_in - p_out).sum())


def laplace_lrt_roc(k: int, epsilon: float, clip: float = 1.0, bins: int = 64) -> dict:
    p_out, p_in = laplace_lrt_distributions(max(int(k), 1), clip / epsilon, clip, bins)
    return {"fpr": np.concatenate([[0.0], np.cumsum(p_out[::-1])]).clip(0, 1),
            "tpr": np.concatenate([[0.0], np.cumsum(p_in[::-1])]).clip(0, 1)}


# ------------------------------------------------ informed threshold attacks (Thm 2–3)
def informed_noise_std(mechanism: str, scale: float) -> float:
    """Per-cell noise std: Laplace scale b → √2 b; Gaussian σ → σ."""
    return math.sqrt(2.0) * scale if mechanism == "laplace" else scale


def one_threshold_informed_accuracy(k: int, mechanism: str, scale: float, clip: float = 1.0) -> float:
    """Theorem 2 (CLT; exact for Gaussian): ACC = Φ(√k C / (2 σ_X))."""
    sd = informed_noise_std(mechanism, scale)
    return float(stats.norm.cdf(math.sqrt(k) * clip / (2 * sd)))


def per_cell_fpr_informed(mechanism: str, scale: float, clip: float = 1.0) -> float:
    """α' = P(noise ≥ C/2) with T_c = C/2; Laplace: ½e^{-C/(2b)}, Gaussian: 1-Φ(C/(2σ))."""
    if mechanism == "laplace":
        return float(0.5 * math.exp(-clip / (2 * scale)))
    return float(stats.norm.sf(clip / (2 * scale)))


def two_threshold_informed_accuracy(k: int, mechanism: str, scale: float, clip: float = 1.0) -> float:
    """Theorem 3, exact: s_out ~ Bin(k, α'), s_in ~ Bin(k, 1-α'); ACC = P(X<k/2) + ½P(X=k/2)."""
    a = per_cell_fpr_informed(mechanism, scale, clip)
    if k == 0:
        return 0.5
    x = np.arange(k + 1)
    pmf = stats.binom.pmf(x, k, a)
    return float(pmf[2 * x < k].sum() + 0.5 * pmf[2 * x == k].sum())


def two_threshold_informed_clt(k: int, mechanism: str, scale: float, clip: float = 1.0) -> float:
    """CLT form of Theorem 3: midpoint threshold k/2 between N(kα', kα'(1-α')) and its mirror."""
    a = per_cell_fpr_informed(mechanism, scale, clip)
    return float(stats.norm.cdf((k / 2 - k * a) / math.sqrt(k * a * (1 - a))))


def optimal_informed_accuracy(k: int, mechanism: str, scale: float, clip: float = 1.0) -> float:
    """The exact NP optimum of the informed game for the mechanism actually used.

    ``scale`` is the Laplace scale b (effective ε = C/b) or the Gaussian σ.
    """
    if mechanism == "laplace":
        return laplace_lrt_accuracy(k, clip / scale, clip)
    return gdp_accuracy(k, scale, clip)


def composed_privacy_region(k: int, epsilon: float, delta: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 1's family ``(ε_i, δ'_i) = ((k-2i)ε, 1-(1-δ)^k(1-δ_i))``, i = 0..⌊k/2⌋ (vectorised)."""
    k = _check(k, epsilon, delta)
    i = np.arange(k // 2 + 1)
    eps_i = (k - 2 * i) * epsilon
    l = np.arange(k // 2 + 1)
    log_c = special.gammaln(k + 1) - special.gammaln(l + 1) - special.gammaln(k - l + 1)
    log_norm = k * np.logaddexp(0.0, epsilon)
    # term[i, l] = C(k,l) (e^{(k-l)ε} - e^{(k-2i+l)ε}) / (1+e^ε)^k for l < i
    hi = (k - l)[None, :] * epsilon
    lo = (k - 2 * i[:, None] + l[None, :]) * epsilon
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.exp(log_c[None, :] + hi + np.log1p(-np.exp(np.minimum(lo - hi, 0.0))) - log_norm)
    term = np.where(l[None, :] < i[:, None], term, 0.0)
    delta_i = term.sum(axis=1)
    return eps_i, 1.0 - (1.0 - delta) ** k * (1.0 - delta_i)


def dp_roc_bound(k: int, epsilon: float, delta: float = 0.0, fpr=None) -> dict:
    """Highest TPR any test can reach at each FPR against k-fold (ε, δ)-DP (Kairouz region).

    ``TPR ≤ min_i min(e^{ε_i} FPR + δ'_i, 1 − e^{−ε_i}(1 − δ'_i − FPR))``; for δ = 0 this is
    the randomized-response staircase of :func:`rr_optimal_roc`.
    """
    eps_i, dlt = composed_privacy_region(k, epsilon, delta)
    if fpr is None:
        fpr = np.unique(np.concatenate([np.geomspace(1e-6, 1, 400), rr_optimal_roc(k, epsilon)["fpr"]]))
    fpr = np.asarray(fpr, float)
    f = fpr[:, None]
    with np.errstate(over="ignore"):
        a = np.exp(np.minimum(eps_i, 700.0))[None, :] * f + dlt[None, :]
    b = 1.0 - np.exp(-eps_i)[None, :] * (1.0 - dlt[None, :] - f)
    tpr = np.minimum(np.minimum(a, b).min(axis=1), 1.0)
    return {"fpr": np.concatenate([[0.0], fpr]), "tpr": np.concatenate([[min(1.0, dlt.min())], tpr])}


def dp_auc_bound(k: int, epsilon: float, delta: float = 0.0) -> float:
    """Largest AUC any test can reach against k-fold (ε, δ)-DP: area under :func:`dp_roc_bound`."""
    grid = np.linspace(0.0, 1.0, 4001)
    if delta == 0.0:
        grid = np.unique(np.concatenate([grid, rr_optimal_roc(k, epsilon)["fpr"]]))
    r = dp_roc_bound(k, epsilon, delta, fpr=grid)
    f, t = np.asarray(r["fpr"][1:]), np.asarray(r["tpr"][1:])
    return float(np.sum(np.diff(f) * (t[1:] + t[:-1]) / 2))


def laplace_lrt_auc(k: int, epsilon: float, clip: float = 1.0, bins: int = 64) -> float:
    """AUC of the optimal test against k Laplace cells: P(S_in > S_out) + ½ P(S_in = S_out)."""
    if k == 0:
        return 0.5
    p_out, p_in = laplace_lrt_distributions(k, clip / epsilon, clip, bins)
    below = np.concatenate([[0.0], np.cumsum(p_out)[:-1]])
    return float(np.sum(p_in * (below + 0.5 * p_out)))


def optimal_informed_auc(k: int, mechanism: str, scale: float, clip: float = 1.0) -> float:
    """AUC of the exact NP test of the informed game (Gaussian: Φ(μ/√2), μ = √k C/σ)."""
    if mechanism == "laplace":
        return laplace_lrt_auc(k, clip / scale, clip)
    return float(stats.norm.cdf(math.sqrt(k) * clip / scale / math.sqrt(2)))
