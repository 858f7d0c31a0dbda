"""MST and AIM (seeded noise, OpenDP's privacy maps, mbi's estimation): the contract, the same release for the
same seed, what each keeps, the accounting, and a game.

Each generator is fitted once per module on the planted table of tests/core/releases/test_synthesizers.py (c2 = c0 XOR c1, a
pure 3-way dependence; c3 ≈ c4, a 2-way one) at ε = 10: a fit costs tens of seconds on the shared machine, most
of it JAX compiling mirror descent, so the tests share the fitted models.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from core.errors import ParameterError
from core.releases.synthesizers import get_synthesizer
from core.releases.synthesizers._zcdp import cdp_rho, closed_form_rho, opendp_epsilon
from test_synthesizers import corr34, planted, xor_agreement

pytestmark = pytest.mark.slow  # MST and AIM: tens of CPU seconds a fit (JAX compiling mirror descent)


@pytest.fixture(scope="module")
def data():
    return planted(1000)


@pytest.fixture(scope="module")
def fitted(data):
    return {name: get_synthesizer(name, epsilon=10.0).fit(data, np.random.default_rng(1)) for name in ("mst", "aim")}


def tvd(a: np.ndarray, b: np.ndarray, k: int) -> float:
    return 0.5 * float(np.abs(np.bincount(a, minlength=k) / len(a) - np.bincount(b, minlength=k) / len(b)).sum())


@pytest.mark.parametrize("name", ["mst", "aim"])
def test_contract_claim_and_seeded_sampling(name, fitted, data):
    gen = fitted[name]
    n = len(data)
    assert gen.dp and gen.slow and not gen.in_paper
    # the claim: (ε, 1/n²), through the largest ρ OpenDP's own conversion allows
    assert gen.privacy == (10.0, 1.0 / n ** 2)
    assert gen.rho_ == pytest.approx(cdp_rho(10.0, 1.0 / n ** 2))
    assert opendp_epsilon(gen.rho_, 1.0 / n ** 2) <= 10.0
    # the ledger of OpenDP's privacy maps: every measurement's ρ adds up to the budget (zCDP composes by adding),
    # never above it, and OpenDP's conversion of that total is the ε the generator claims
    spent = gen.ledger_.total
    assert spent <= gen.rho_ and spent == pytest.approx(gen.rho_, rel=1e-6)
    assert opendp_epsilon(spent, 1.0 / n ** 2) == pytest.approx(10.0, rel=1e-4)
    assert opendp_epsilon(spent, 1.0 / n ** 2) <= 10.0
    kinds = {what for what, _, _ in gen.ledger_.entries}
    assert kinds == {"one-way", "select", "measure"}
    s = gen.sample(20_000, np.random.default_rng(2))
    assert s.shape == (20_000, 5) and s.dtype == np.int64
    assert (s >= 0).all() and (s < np.array(data.cardinalities)).all()  # OpenDP's extra "null" is never drawn
    assert np.array_equal(s, gen.sample(20_000, np.random.default_rng(2)))  # the lab's seed fixes the rows
    assert not np.array_equal(s, gen.sample(20_000, np.random.default_rng(3)))
    assert get_synthesizer(name, **gen.params()).params() == gen.params() == {"epsilon": 10.0, "delta": None}
    # every one-way marginal survives ε = 10 (noise of a few counts on 1,000 records)
    codes = data.codes()
    for j, k in enumerate(data.cardinalities):
        assert tvd(s[:, j], codes[:, j], k) < 0.05


@pytest.mark.parametrize("name", ["mst", "aim"])
def test_same_seed_same_release_other_seed_another(name, fitted, data):
    again = get_synthesizer(name, epsilon=10.0).fit(data, np.random.default_rng(1))
    assert again.cliques_ == fitted[name].cliques_
    assert again.ledger_.entries == fitted[name].ledger_.entries
    assert np.array_equal(again.sample(5000, np.random.default_rng(2)), fitted[name].sample(5000, np.random.default_rng(2)))
    other = get_synthesizer(name, epsilon=10.0).fit(data, np.random.default_rng(7))
    assert not np.array_equal(other.sample(5000, np.random.default_rng(2)),
                              fitted[name].sample(5000, np.random.default_rng(2)))


def test_noise_scales_follow_opendp_maps():
    from core.releases.synthesizers._marginal_models import (gaussian_rho, gaussian_scale, noisy_max_rho,
                                                             noisy_max_scale)

    # Gaussian: ρ = Δ²/(2σ²) with Δ = √2 (a replaced record moves two cells by one); noisy max (Gumbel, non-monotone
    # scores): ρ = (2Δ/β)²/8 with Δ = 2 (an L1-error score moves by at most 2)
    sigma = gaussian_scale(0.01)
    assert sigma == pytest.approx(math.sqrt(2) / math.sqrt(2 * 0.01), rel=1e-6)
    assert gaussian_rho(sigma) <= 0.01
    beta = noisy_max_scale(0.01)
    assert beta == pytest.approx(2 * 2 / math.sqrt(8 * 0.01), rel=1e-6)
    assert noisy_max_rho(beta) <= 0.01


def test_mst_keeps_pairs_not_the_pure_three_way(fitted):
    s = fitted["mst"].sample(50_000, np.random.default_rng(4))
    assert corr34(s) > 0.8  # the data: ≈ 0.9; the spanning tree picks the strongly dependent pair (3, 4)
    assert (3, 4) in fitted["mst"].cliques_
    # a tree of pairs cannot hold c2 = c0 XOR c1 (every pair of the three is independent): back to chance
    assert abs(xor_agreement(s) - 0.5) < 0.1


def test_aim_keeps_the_three_way_dependence(fitted):
    s = fitted["aim"].sample(50_000, np.random.default_rng(4))
    assert xor_agreement(s) > 0.85  # AIM's workload is every 3-way marginal: it measures (0, 1, 2)
    assert corr34(s) > 0.8
    assert any(set(c) == {0, 1, 2} for c in fitted["aim"].cliques_)


def test_parameters_validated():
    with pytest.raises(ParameterError):
        get_synthesizer("mst", epsilon=0)
    with pytest.raises(ParameterError):
        get_synthesizer("aim", epsilon=1.0, delta=0.0)
    with pytest.raises(ParameterError):
        get_synthesizer("mst", epsilon=1.0, delta=1.5)
    assert get_synthesizer("aim", epsilon=1.0).describe().endswith("(1, 1/n²)-DP")
    assert math.isnan(get_synthesizer("mst", epsilon=1.0).privacy[1])  # δ = 1/n² is known once fitted


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-6), (10.0, 1e-6), (1.0, 1e-9), (100.0, 1e-5)])
def test_opendp_conversion_agrees_with_the_closed_form(eps, delta):
    # OpenDP's make_zCDP_to_approxDP (via cdp_rho) and the Canonne–Kamath–Steinke closed form give the same ρ
    assert cdp_rho(eps, delta) == pytest.approx(closed_form_rho(eps, delta), rel=1e-4)
    assert opendp_epsilon(closed_form_rho(eps, delta), delta) == pytest.approx(eps, rel=1e-4)


@pytest.mark.parametrize("error,share,sens", [(5.0, 0.95, 1.0), (1.0, 0.5, 2.0), (20.0, 0.99, 1.0)])
def test_opendp_accuracy_agrees_with_the_closed_forms(error, share, sens):
    from scipy.stats import norm

    from core.releases.gaussian import Gaussian
    from core.theory import odds

    # Laplace(b) is within ±E with probability 1 − e^{−E/b}: ε = Δ·ln(1/(1 − q))/E
    assert odds.epsilon_for_accuracy(error, share, sens, "laplace") == pytest.approx(
        sens * np.log(1 / (1 - share)) / error, rel=1e-6)
    # N(0, σ²) is within ±E with probability q when σ = E/Φ⁻¹((1 + q)/2)
    sigma = error / norm.ppf((1 + share) / 2)
    assert odds.epsilon_for_accuracy(error, share, sens, "gaussian", 1e-5) == pytest.approx(
        Gaussian.from_sigma(sigma, 1e-5, sens).epsilon, rel=1e-4)


def test_mst_in_a_game_claims_its_epsilon_and_joins_the_trade_off():
    from core.measure.audit import audit_result
    from core.measure.compare import pareto_points
    from core.runtime.games import run

    from core.scenarios.synthetic.data import clear_caches

    config = {"generator": "mst", "epsilon": 1.0, "n": 200, "games": 1, "synth_size": 100, "attack": "dcr",
              "query_sweep": False}
    result = run("synthetic", config, seed=0)
    clear_caches()  # fit again: the same seed gives the same release and the same metrics
    assert run("synthetic", config, seed=0).metrics == result.metrics
    clear_caches()
    assert run("synthetic", config, seed=1).metrics != result.metrics
    m = result.metrics
    assert m["claimed_epsilon"] == 1.0 and m["claimed_delta"] == pytest.approx(1 / 200 ** 2)
    assert not audit_result(result).broken  # one game cannot push the measured ε above the claim
    points = result.series["privacy_utility"]
    assert [p["m"] for p in points] == [10, 100] and {p["generator"] for p in points} == {"mst"}
    assert all(p["epsilon"] == 1.0 and 0 <= p["tvd3"] <= 1 for p in points)
    assert pareto_points(points, "tvd3")  # a point of the scatter's Pareto front
    assert result.timings["fit_seconds"] > 0


def test_aim_in_a_game_claims_its_epsilon_and_is_not_flagged():
    from core.measure.audit import audit_result
    from core.runtime.games import run

    result = run("synthetic", {"generator": "aim", "epsilon": 1.0, "n": 200, "games": 1, "synth_size": 100,
                               "attack": "dcr", "query_sweep": False}, seed=0)
    assert result.metrics["claimed_epsilon"] == 1.0
    assert not audit_result(result).broken
