"""What a privacy budget ε means, in attack terms (for choosing ε).

Everything here is closed form, so a stakeholder can move ε and see at once:

* **Membership inference bound.** Against a k-fold (ε, δ)-DP release, no test
  separates "in" from "out" with balanced accuracy above
  ``ACC_DP(k) = 1 − (1−δ)^k (1 − ACC_RR(k))`` (optimal composition, Kairouz et
  al. 2015; stable form in :mod:`core.theory.dp_accuracy`, docs/specs/seed001_location_mia.md §3.2).
  The whole trade-off curve (max TPR at each FPR) is :func:`dp_roc_bound`.
* **Posterior belief.** An ε-DP release moves an attacker's odds on any fact
  about one person by at most a factor ``e^ε`` (δ aside): a prior ``p`` becomes
  at most ``p·e^ε / (p·e^ε + 1 − p)``.
* **Noise.** Laplace scale ``Δ₁/ε``; Gaussian σ with classic and analytic
  calibration at δ (:mod:`core.releases.gaussian`).
* **Reconstruction.** For m subset-sum queries over n people answered with
  Gaussian noise at this (ε, δ) *in total* (each person is in about m/2 sets,
  L2 sensitivity √(m/2)), the noise per answer relative to √n tells whether
  Dinur–Nissim reconstruction is expected to work (σ ≪ √n) or fail (σ ≳ √n);
  CS208 lecture 2, slide 9.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from ..releases.gaussian import Gaussian
from ..releases.laplace import Laplace
from .dp_accuracy import dp_expected_accuracy_curve, dp_roc_bound

REFERENCE_EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
PRIORS = (0.01, 0.1, 0.5)


def posterior_bound(prior, epsilon: float):
    """Largest posterior an ε-DP release allows from ``prior`` (δ = 0)."""
    prior = np.asarray(prior, dtype=float)
    odds = prior * math.exp(epsilon)
    return odds / (odds + 1.0 - prior)


def explain_epsilon(epsilon: float, delta: float = 1e-5, k_max: int = 60, n: int = 100,
                    query_ratio: float = 2.0) -> dict:
    """All series and numbers of the ε explorer for one (ε, δ)."""
    if not (isinstance(epsilon, (int, float)) and 0 < epsilon <= 20):
        raise ParameterError("epsilon", f"expected a number in (0, 20], got {epsilon!r}")
    if not (0 <= delta < 1):
        raise ParameterError("delta", f"expected a number in [0, 1), got {delta!r}")
    if not (1 <= int(k_max) <= 500):
        raise ParameterError("observations", f"expected an int in [1, 500], got {k_max!r}")
    if not (5 <= int(n) <= 100_000):
        raise ParameterError("n", f"expected an int in [5, 100000], got {n!r}")
    ks = np.arange(0, int(k_max) + 1)
    curves = {f"{e:g}": dp_expected_accuracy_curve(ks, e, delta).tolist()
              for e in sorted(set(REFERENCE_EPSILONS) | {float(epsilon)})}
    rocs = {f"k = {k}": dp_roc_bound(k, epsilon, delta) for k in sorted({1, max(1, int(k_max) // 4), int(k_max)})}
    priors = np.linspace(0.0, 1.0, 101)
    m = max(1, int(round(query_ratio * n)))
    gaussian_delta = delta if delta > 0 else 1e-5
    gauss = Gaussian(epsilon, gaussian_delta, sensitivity=math.sqrt(m / 2.0))
    laplace = Laplace(epsilon, sensitivity=m / 2.0)
    return {
        "epsilon": float(epsilon), "delta": float(delta),
        "observations": ks.tolist(),
        "accuracy_bound": curves,
        "roc_bound": {name: {"fpr": np.asarray(r["fpr"]).tolist(), "tpr": np.asarray(r["tpr"]).tolist()}
                      for name, r in rocs.items()},
        "posterior": {"prior": priors.tolist(), "bound": posterior_bound(priors, epsilon).tolist()},
        "posterior_table": [{"prior": p, "max_posterior": float(posterior_bound(p, epsilon))} for p in PRIORS],
        "numbers": {
            "accuracy_bound_1": float(dp_expected_accuracy_curve([1], epsilon, delta)[0]),
            "accuracy_bound_k": float(dp_expected_accuracy_curve([int(k_max)], epsilon, delta)[0]),
            "odds_factor": math.exp(epsilon),
            "laplace_scale_count": 1.0 / epsilon,
            "gaussian_sigma_count_analytic": Gaussian(epsilon, gaussian_delta).sigma,
            "gaussian_sigma_count_classic": Gaussian(epsilon, gaussian_delta, calibration="classic").sigma,
        },
        "reconstruction": {
            "n": int(n), "queries": m, "gaussian_delta": gaussian_delta,
            "gaussian_sigma": gauss.sigma, "laplace_std": laplace.std,
            "sigma_over_sqrt_n": gauss.sigma / math.sqrt(n),
            "verdict": ("reconstruction expected to fail (noise ≳ √n)" if gauss.sigma >= math.sqrt(n)
                        else "reconstruction expected to work (noise ≪ √n)" if gauss.sigma < 0.2 * math.sqrt(n)
                        else "partial reconstruction (noise within a factor 5 of √n)"),
        },
    }
