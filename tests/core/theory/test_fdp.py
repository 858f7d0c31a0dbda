"""f-DP trade-off curves and conversions against known values (Dong, Roth & Su 2022; Kairouz et al. 2015)."""
import math

import numpy as np
import pytest
from scipy.stats import norm

from core.errors import ParameterError
from core.theory import dp_accuracy as T
from core.theory import fdp


def test_eps_delta_tradeoff_known_points():
    # f(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))
    eps, delta = math.log(3), 0.0
    assert fdp.eps_delta_tradeoff(0.0, eps, delta) == pytest.approx(1.0)
    assert fdp.eps_delta_tradeoff(0.1, eps, delta) == pytest.approx(0.7)          # 1 − 3·0.1
    assert fdp.eps_delta_tradeoff(0.5, eps, delta) == pytest.approx(0.5 / 3)      # e^{−ε}(1 − 0.5)
    assert fdp.eps_delta_tradeoff(1.0, eps, delta) == pytest.approx(0.0)
    # the kink sits at α = (1−δ)/(1+e^ε), where both lines meet
    eps, delta = 1.0, 0.01
    a = (1 - delta) / (1 + math.e)
    assert fdp.eps_delta_tradeoff(a, eps, delta) == pytest.approx(1 - delta - math.e * a)
    assert fdp.eps_delta_tradeoff(a, eps, delta) == pytest.approx(math.exp(-1) * (1 - delta - a))
    # ε = 0, δ = 0: perfect privacy, β = 1 − α (the diagonal)
    alpha = np.linspace(0, 1, 11)
    assert np.allclose(fdp.eps_delta_tradeoff(alpha, 0.0, 0.0), 1 - alpha)


def test_gdp_tradeoff_known_points():
    assert fdp.gdp_tradeoff(0.05, 0.0) == pytest.approx(0.95)
    # μ = 1, α = 0.05: Φ(1.6449 − 1) = Φ(0.6449) ≈ 0.7405
    assert fdp.gdp_tradeoff(0.05, 1.0) == pytest.approx(norm.cdf(norm.ppf(0.95) - 1), abs=1e-12)
    assert fdp.gdp_tradeoff(0.05, 1.0) == pytest.approx(0.7405, abs=1e-4)
    # symmetric: G_μ(G_μ(α)) = α
    a = np.array([0.01, 0.2, 0.6])
    assert np.allclose(fdp.gdp_tradeoff(fdp.gdp_tradeoff(a, 1.3), 1.3), a)


def test_accuracy_bounds():
    for eps in (0.1, 0.5, 1.0, 3.0):
        assert fdp.accuracy_bound(eps) == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))
        assert fdp.accuracy_bound(eps) == pytest.approx(T.dp_expected_accuracy(1, eps))
        # the balanced accuracy at the curve's kink equals the bound
        r = fdp.tradeoff_roc(eps, fpr=np.linspace(0, 1, 20001))
        acc = max((1 - f + t) / 2 for f, t in zip(r["fpr"], r["tpr"]))
        assert acc == pytest.approx(fdp.accuracy_bound(eps), abs=1e-4)
        assert fdp.epsilon_from_accuracy(fdp.accuracy_bound(eps)) == pytest.approx(eps)
    assert fdp.accuracy_bound(1.0, 0.01) == pytest.approx(T.dp_expected_accuracy(1, 1.0, 0.01))
    assert fdp.gdp_accuracy_bound(1.0) == pytest.approx(norm.cdf(0.5))
    assert fdp.gdp_accuracy_bound(2.0) == pytest.approx(T.gdp_accuracy(1, 0.5))  # μ = C/σ = 2


def test_gdp_conversions():
    # Dong et al. Cor. 2.13 at μ = 1, ε = 1: Φ(−0.5) − e·Φ(−1.5)
    assert fdp.gdp_delta(1.0, 1.0) == pytest.approx(norm.cdf(-0.5) - math.e * norm.cdf(-1.5), rel=1e-10)
    assert fdp.gdp_delta(1.0, 1.0) == pytest.approx(0.30854 - math.e * 0.066807, abs=1e-4)  # table values of Φ
    eps = fdp.gdp_epsilon(1.0, 1e-5)
    assert fdp.gdp_delta(1.0, eps) == pytest.approx(1e-5, rel=1e-6)
    mu = fdp.gdp_mu_for(1.0, 1e-5)
    assert fdp.gdp_delta(mu, 1.0) == pytest.approx(1e-5, rel=1e-6)
    # the GDP curve at μ(ε, δ) lies inside the (ε, δ) region (it implies (ε, δ)-DP)
    a = np.linspace(0, 1, 501)
    assert np.all(fdp.gdp_tradeoff(a, mu) >= fdp.eps_delta_tradeoff(a, 1.0, 1e-5) - 1e-9)
    assert fdp.gaussian_mu(2.0, 1.0, compositions=4) == pytest.approx(1.0)
    assert fdp.compose_gdp(0.5, 16) == pytest.approx(2.0)


def test_tpr_bound_matches_kairouz_roc_for_one_observation():
    r = T.dp_roc_bound(1, 0.7, 0.0, fpr=np.linspace(0, 1, 101))
    ours = fdp.tpr_bound(np.asarray(r["fpr"][1:]), 0.7)
    assert np.allclose(ours, r["tpr"][1:], atol=1e-12)


def test_bad_inputs_raise_typed_errors():
    with pytest.raises(ParameterError):
        fdp.eps_delta_tradeoff(0.1, -1.0)
    with pytest.raises(ParameterError):
        fdp.eps_delta_tradeoff(0.1, 1.0, 1.5)
    with pytest.raises(ParameterError):
        fdp.gaussian_mu(0.0)
