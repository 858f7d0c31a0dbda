import math

import numpy as np
import pytest

from core.measure import metrics
from core.errors import ParameterError
from core.releases.gaussian import Gaussian, analytic_delta, gaussian_epsilon
from core.releases.laplace import Laplace
from core.releases.rounding import Rounding
from core.releases.subsampling import Subsampling


def test_roc_known_answers():
    assert metrics.roc([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])["auc"] == 1.0
    assert metrics.roc([0, 0, 1, 1], [0.9, 0.8, 0.2, 0.1])["auc"] == 0.0
    assert metrics.tpr_at_fpr([0, 0, 1, 1], [0.1, 0.95, 0.8, 0.9], 0.0) == 0.0
    assert metrics.tpr_at_fpr([0, 0, 1, 1], [0.1, 0.95, 0.8, 0.9], 0.5) == 1.0
    assert metrics.advantage([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == 1.0


def test_random_scores_give_auc_near_half():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 20_000)
    m = metrics.mia_metrics(y, rng.random(20_000))
    assert abs(m["auc"] - 0.5) < 0.01
    assert m["tpr_at_fpr_0.1"] < 0.12 and m["tpr_at_fpr_0.01"] < 0.02


def test_clopper_pearson_known_values():
    lo, hi = metrics.clopper_pearson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.3085, abs=1e-4)
    lo, hi = metrics.clopper_pearson(5, 10)
    assert lo == pytest.approx(0.1871, abs=1e-4) and hi == pytest.approx(0.8129, abs=1e-4)
    s = metrics.accuracy_summary([1] * 9 + [0])
    assert s["accuracy"] == 0.9 and s["accuracy_ci_low"] < 0.9 < s["accuracy_ci_high"]


def test_clopper_pearson_closed_form_is_scipys_exact_interval():
    from scipy.stats import binomtest
    for n in (1, 2, 5, 10, 37, 100, 1000):
        ks = list(range(n + 1)) if n <= 100 else [0, 1, 2, 499, 998, 999, 1000]
        for confidence in (0.95, 0.9):
            low, high = metrics.clopper_pearson_many(ks, [n] * len(ks), confidence)
            for k, lo, hi in zip(ks, low, high):
                ref = binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
                assert (lo, hi) == pytest.approx((ref.low, ref.high), abs=1e-9), (k, n, confidence)
                assert metrics.clopper_pearson(k, n, confidence) == (lo, hi)
    low, high = metrics.clopper_pearson_many([0, 0], [0, 5])  # no trials: no interval
    assert np.isnan(low[0]) and np.isnan(high[0]) and low[1] == 0.0 and 0 < high[1] < 1
    assert math.isnan(metrics.clopper_pearson(0, 0)[0])
    with pytest.raises(ValueError):
        metrics.clopper_pearson_many([11], [10])


def test_empirical_epsilon_bounds():
    # A perfect test on many games certifies a large ε; a coin flip certifies none.
    # With no error in 10,000 games each way, the 95% upper bounds are ≈ 3e-4, so ε ≥ ln(1/3e-4) ≈ 8.1.
    assert 7.9 < metrics.empirical_epsilon(0, 10_000, 0, 10_000) < 8.3
    assert metrics.empirical_epsilon(5_000, 10_000, 5_000, 10_000) == 0.0
    # FPR = FNR = 0.1 exactly would mean ε ≥ ln 9; the upper confidence bounds make it smaller.
    e = metrics.empirical_epsilon(10_000, 100_000, 10_000, 100_000)
    assert math.log(9) * 0.95 < e < math.log(9)


def test_laplace_scale_and_noise():
    mech = Laplace(0.5)
    assert mech.scale == 2.0 and mech.privacy == (0.5, 0.0)
    noise = mech.release(np.zeros(200_000), np.random.default_rng(0))
    assert noise.std() == pytest.approx(math.sqrt(2) * 2.0, rel=0.02)
    with pytest.raises(ParameterError, match="epsilon"):
        Laplace(0)


def test_gaussian_calibrations():
    g = Gaussian(1.0, 1e-5)
    # Balle & Wang (2018): σ ≈ 3.73 for ε = 1, δ = 1e-5, Δ = 1; the classic rule gives 4.84.
    assert g.sigma == pytest.approx(3.7306, abs=2e-3)
    assert Gaussian(1.0, 1e-5, calibration="classic").sigma == pytest.approx(4.8448, abs=1e-3)
    assert analytic_delta(g.sigma, 1.0) == pytest.approx(1e-5, rel=1e-4)
    assert gaussian_epsilon(g.sigma, 1e-5) == pytest.approx(1.0, abs=1e-6)
    assert Gaussian.from_sigma(g.sigma, 1e-5).epsilon == pytest.approx(1.0, abs=1e-6)
    for bad in ({"delta": 0}, {"delta": 1.0}, {"calibration": "x"}):
        with pytest.raises(ParameterError):
            Gaussian(1.0, **{"delta": 1e-5, **bad})


def test_rounding_and_subsampling():
    assert Rounding(5).release(np.array([2.4, 2.6, 13.0]), None).tolist() == [0.0, 5.0, 15.0]
    rng = np.random.default_rng(0)
    q = np.ones((1, 10))
    x = np.ones(10)
    assert Subsampling(10, 10).answer(q, x, rng)[0] == 10.0  # t = n is exact
    est = [Subsampling(3, 10).answer(q, (np.arange(10) < 5).astype(float), rng)[0] for _ in range(4000)]
    assert np.mean(est) == pytest.approx(5.0, abs=0.1)  # unbiased
    with pytest.raises(ParameterError):
        Subsampling(11, 10)
