"""What one ε means for one person, and what accuracy it costs — the closed forms behind the plain-words sentences.

* **Belief bound (pure ε).** An ε-DP release multiplies an attacker's odds that a person is in the data by at most
  ``e^ε`` (Dwork & Roth 2014, §2.3; Kasiviswanathan & Smith 2014): a prior ``p`` becomes at most
  ``p·e^ε / (p·e^ε + 1 − p)``; at p = ½ that is ``e^ε / (1 + e^ε)`` (ε = 1: 73%).
* **(ε, δ) through the f-DP curve.** The trade-off curve ``f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))``
  (Dong, Roth & Su 2022, Prop. 2.5) is, read as a ROC boundary, a jump of height δ at FPR = 0 followed by slopes
  of at most ``e^ε``. A jump is an outcome that gives the person away outright (posterior 1) and it has chance at
  most δ; every other outcome has likelihood ratio ≤ the slope ``e^ε``, so the posterior bound above holds except
  with chance δ. The attacker's best chance of guessing in/out right at prior ``p`` is
  ``max_α p·(1 − f(α)) + (1 − p)·(1 − α)``, attained at a corner of the curve (α = 0, the knee
  α* = (1 − δ)/(1 + e^ε), or α = 1 − δ); at p = ½ it is ``(e^ε + δ)/(1 + e^ε)``, which equals the belief bound
  when δ = 0.
* **Accuracy first.** A Laplace count with sensitivity Δ and scale b = Δ/ε is within ±E with probability
  ``1 − e^{−E/b}``; "within ±E for a share q of queries" needs ``ε = Δ·ln(1/(1 − q))/E``. A Gaussian count is
  within ±E with probability q when ``σ = E / Φ⁻¹((1 + q)/2)``; the ε needed is the analytic-Gaussian ε of that σ
  at δ (Balle & Wang 2018).
* **Equivalent sample.** Publishing a Bernoulli sample with fraction r, scaled up by 1/r, estimates a count c with
  variance ``c(1 − r)/r``; its mean absolute error is ≈ ``√(2/π)·√(c(1 − r)/r)`` (normal approximation). Matching
  the mean over a query set of counts ``c_q`` to the noise's mean absolute error MAE (Laplace: ``b = Δ/ε``;
  Gaussian: ``σ·√(2/π)``) gives ``(1 − r)/r = (MAE / S)²`` with ``S = √(2/π)·mean_q √c_q``, so
  ``r = 1 / (1 + (MAE/S)²)``: "the noise costs about as much accuracy as publishing an r random sample".
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from ..errors import ParameterError
from ..releases.gaussian import Gaussian
from .fdp import eps_delta_tradeoff


def _check_eps(epsilon: float) -> float:
    try:
        epsilon = float(epsilon)
    except (TypeError, ValueError):
        raise ParameterError("epsilon", f"expected a number >= 0, got {epsilon!r}") from None
    if math.isnan(epsilon) or epsilon < 0:
        raise ParameterError("epsilon", f"expected a number >= 0 (inf = no guarantee), got {epsilon!r}")
    return epsilon


def _check_delta(delta: float) -> float:
    try:
        delta = float(delta)
    except (TypeError, ValueError):
        raise ParameterError("delta", f"expected a number in [0, 1), got {delta!r}") from None
    if not 0 <= delta < 1:
        raise ParameterError("delta", f"expected a number in [0, 1), got {delta!r}")
    return delta


def _check_prior(prior: float) -> float:
    try:
        prior = float(prior)
    except (TypeError, ValueError):
        raise ParameterError("prior", f"expected a probability in (0, 1), got {prior!r}") from None
    if not 0 < prior < 1:
        raise ParameterError("prior", f"expected a probability strictly between 0 and 1, got {prior!r}")
    return prior


def posterior_bound(epsilon: float, prior: float = 0.5, delta: float = 0.0) -> float:
    """Highest belief that a person is in the data an attacker can hold after the release, from belief ``prior``:
    ``p·e^ε / (p·e^ε + 1 − p)``. With δ > 0 the same bound holds except with chance δ (the jump of the f-DP
    curve at FPR = 0, where the release may give the person away); see :func:`giveaway_chance`."""
    epsilon, prior = _check_eps(epsilon), _check_prior(prior)
    _check_delta(delta)
    if math.isinf(epsilon):
        return 1.0
    # odds form, stable for large ε: 1 / (1 + (1 − p)/p · e^−ε)
    return float(1.0 / (1.0 + (1.0 - prior) / prior * math.exp(-epsilon)))


def giveaway_chance(delta: float) -> float:
    """Chance that an (ε, δ) release gives a person away outright (the δ jump of the f-DP curve)."""
    return _check_delta(delta)


def guess_bound(epsilon: float, prior: float = 0.5, delta: float = 0.0) -> float:
    """Best chance of guessing in/out correctly at ``prior``: ``max_α p·(1 − f(α)) + (1 − p)·(1 − α)`` over the
    (ε, δ) trade-off curve. The objective is linear between the curve's corners, so the maximum is at one of them:
    α = 0 (TPR = δ), the knee α* = (1 − δ)/(1 + e^ε) (TPR = δ + e^ε·α*) or α = 1 − δ (TPR = 1). At p = ½ it is
    ``(e^ε + δ)/(1 + e^ε)``, the best balanced accuracy."""
    epsilon, prior, delta = _check_eps(epsilon), _check_prior(prior), _check_delta(delta)
    if math.isinf(epsilon):
        return 1.0
    p = prior
    knee_a = (1.0 - delta) / (1.0 + math.exp(epsilon))
    knee_t = min(1.0, delta + math.exp(epsilon) * knee_a)
    corners = ((0.0, delta), (knee_a, knee_t), (1.0 - delta, 1.0))
    return float(min(1.0, max(p * t + (1.0 - p) * (1.0 - a) for a, t in corners)))


def posterior_from_curve(epsilon: float, prior: float = 0.5, delta: float = 0.0, grid: int = 4001) -> float:
    """:func:`posterior_bound` read off the f-DP trade-off curve numerically: the steepest slope of the ROC boundary
    ``TPR = 1 − f_{ε,δ}(FPR)`` past its jump at FPR = 0 is the largest likelihood ratio Λ an outcome can carry,
    and the posterior is ``p·Λ / (p·Λ + 1 − p)``. (Kept as an independent check of the closed form.)"""
    epsilon, prior, delta = _check_eps(epsilon), _check_prior(prior), _check_delta(delta)
    alpha = np.unique(np.concatenate([np.geomspace(1e-6, 1.0, grid), np.linspace(1e-6, 1.0, grid)]))
    tpr = 1.0 - eps_delta_tradeoff(alpha, epsilon, delta)  # α > 0 only: past the jump at FPR = 0
    slopes = np.diff(tpr) / np.diff(alpha)
    lam = float(slopes.max())
    return float(prior * lam / (prior * lam + 1.0 - prior))


# ---------------------------------------------------------------- accuracy first
def epsilon_for_accuracy(error: float, share: float = 0.95, sensitivity: float = 1.0, mechanism: str = "laplace",
                         delta: float = 1e-5) -> float:
    """Smallest ε whose noise keeps a count within ±``error`` for a ``share`` of queries of this ``sensitivity``.

    Laplace: ``ε = Δ·ln(1/(1 − q))/E``. Gaussian: σ = E/Φ⁻¹((1+q)/2), then the analytic-Gaussian ε of σ at δ.
    The scale that keeps a share q within ±E is OpenDP's (``accuracy_to_laplacian_scale`` /
    ``accuracy_to_gaussian_scale`` at α = 1 − q); tests/core/releases/test_mbi_generators.py checks it against the closed forms.
    """
    error, share, sensitivity = _positive("error", error), float(share), _positive("sensitivity", sensitivity)
    if not 0 < share < 1:
        raise ParameterError("share", f"expected a share strictly between 0 and 1, got {share!r}")
    if mechanism == "laplace":
        from opendp.accuracy import accuracy_to_laplacian_scale  # lazy: OpenDP takes seconds to import

        return float(sensitivity / accuracy_to_laplacian_scale(error, 1.0 - share))
    if mechanism == "gaussian":
        from opendp.accuracy import accuracy_to_gaussian_scale  # lazy: OpenDP takes seconds to import

        delta = _check_delta(delta)
        if delta <= 0:
            raise ParameterError("delta", "the Gaussian mechanism needs δ > 0")
        sigma = float(accuracy_to_gaussian_scale(error, 1.0 - share))
        return float(Gaussian.from_sigma(sigma, delta, sensitivity).epsilon)
    raise ParameterError("mechanism", f"expected laplace|gaussian, got {mechanism!r}")


def share_within(error: float, epsilon: float, sensitivity: float = 1.0, mechanism: str = "laplace",
                 delta: float = 1e-5) -> float:
    """Share of counts within ±``error`` under the mechanism's noise at ε (the inverse of
    :func:`epsilon_for_accuracy`, used to check it)."""
    error, epsilon = _positive("error", error), _positive("epsilon", epsilon)
    if mechanism == "laplace":
        return float(-math.expm1(-error * epsilon / sensitivity))
    sigma = Gaussian(epsilon, delta, sensitivity).sigma
    return float(2 * norm.cdf(error / sigma) - 1)


def _positive(name: str, value) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, f"expected a number > 0, got {value!r}") from None
    if not value > 0 or math.isinf(value):
        raise ParameterError(name, f"expected a finite number > 0, got {value!r}")
    return value


# ---------------------------------------------------------------- equivalent sample
def noise_mae(epsilon: float, sensitivity: float = 1.0, mechanism: str = "laplace", delta: float = 1e-5) -> float:
    """Mean absolute error of one noisy count: Laplace ``Δ/ε``; Gaussian ``σ·√(2/π)`` (analytic σ at δ)."""
    epsilon = _positive("epsilon", epsilon)
    if mechanism == "laplace":
        return float(sensitivity / epsilon)
    return float(Gaussian(epsilon, delta, sensitivity).sigma * math.sqrt(2 / math.pi))


def equivalent_sample_fraction(counts, mae: float) -> float:
    """Sampling fraction r whose scaled-up Bernoulli sample has the same mean absolute error as the noise, over
    the true ``counts`` of the query set: ``r = 1/(1 + (MAE/S)²)``, ``S = √(2/π)·mean √c``. 1 when MAE = 0;
    0 when every count is 0 (no sample estimates a zero count with error)."""
    c = np.asarray(counts, dtype=float).ravel()
    if c.size == 0 or np.isnan(c).any() or (c < 0).any():
        raise ParameterError("counts", "expected a non-empty list of counts >= 0")
    mae = float(mae)
    if not mae >= 0:
        raise ParameterError("mae", f"expected a mean absolute error >= 0, got {mae!r}")
    s = math.sqrt(2 / math.pi) * float(np.sqrt(c).mean())
    if mae == 0:
        return 1.0
    if s == 0:
        return 0.0
    return float(1.0 / (1.0 + (mae / s) ** 2))


def sample_mae(counts, fraction: float) -> float:
    """Mean absolute error of counts estimated from a Bernoulli ``fraction`` sample scaled by 1/r (normal
    approximation), the other side of :func:`equivalent_sample_fraction`."""
    c = np.asarray(counts, dtype=float).ravel()
    r = float(fraction)
    return float(math.sqrt(2 / math.pi) * np.mean(np.sqrt(c * (1 - r) / r)))


def belief_curve(prior: float = 0.5, delta: float = 0.0, chosen: float | None = None, epsilons=None) -> dict:
    """``{"epsilon", "belief", "guess", "prior", "delta", "chosen"}``: the belief bound and the best guessing chance
    along an ε grid (log-spaced 0.01–50), and the point of the ``chosen`` ε — for the ε explorer's chart with real
    deployments on its ε axis."""
    eps = np.geomspace(0.01, 50, 200) if epsilons is None else np.asarray(epsilons, dtype=float)
    point = None if chosen is None else {"epsilon": float(chosen), "belief": posterior_bound(chosen, prior, delta)}
    return {"epsilon": eps.tolist(), "belief": [posterior_bound(e, prior, delta) for e in eps],
            "guess": [guess_bound(e, 0.5, delta) for e in eps], "prior": float(prior), "delta": float(delta),
            "chosen": point}
