"""Claims vs measurements: a planted broken mechanism is flagged, a correct one is not."""
import math

import numpy as np
import pytest

from core.measure import metrics as M
from core.measure.audit import BROKEN_MESSAGE, audit, audit_result, epsilon_lower_bound_roc
from core.runtime.games import run
from core.releases.laplace import Laplace
from core.scenarios.location import scenario as loc  # the module whose Laplace the game calls

SMALL = {"observations": 1, "games": 4000, "shadow_sweep_max": 0, "train_shadows": 400, "epsilon": 0.5}


class BrokenLaplace(Laplace):
    """Claims ε but adds a tenth of the noise ε-DP needs (a scale off by a factor of 10)."""

    @property
    def scale(self) -> float:
        return super().scale / 10


def test_vectorised_bound_equals_metrics_helper():
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(300), np.zeros(300)].astype(int)
    s = rng.normal(size=600) + 1.2 * y
    f, t, _ = __import__("sklearn.metrics", fromlist=["roc_curve"]).roc_curve(y, s)
    for delta in (0.0, 1e-3):
        assert epsilon_lower_bound_roc(f, t, 300, 300, delta) == pytest.approx(
            M.max_threshold_epsilon(y, s, delta), rel=1e-9)


def test_audit_verdicts():
    assert audit(1.0, 0.0, 2.5).broken
    assert BROKEN_MESSAGE in audit(1.0, 0.0, 2.5).message
    assert audit(1.0, 0.0, 0.4).status == "consistent"
    assert audit(None, 0.0, 3.0).status == "no-claim"
    assert audit(math.inf, 0.0, 3.0).status == "no-claim"
    assert audit(1.0, 0.0, None).status == "not-measured"
    assert audit(1.0, 0.0, float("nan")).status == "not-measured"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_correct_laplace_never_flagged(seed):
    for attacker in ("informed",):
        r = run("location", {**SMALL, "attacker": attacker}, seed=seed)
        v = audit_result(r)
        assert r.metrics["claimed_epsilon"] == pytest.approx(0.5)
        assert 0 <= r.metrics["empirical_epsilon_low"] <= 0.5
        assert v.status == "consistent", v.message


def test_correct_laplace_k5_not_flagged_and_bound_is_informative():
    r = run("location", {**SMALL, "observations": 5, "epsilon": 1.0}, seed=0)
    assert r.metrics["claimed_epsilon"] == pytest.approx(5.0)
    assert 0.3 < r.metrics["empirical_epsilon_low"] < 5.0  # the attack does leak, within the claim
    assert not audit_result(r).broken


def test_broken_mechanism_is_flagged(monkeypatch):
    monkeypatch.setattr(loc, "Laplace", BrokenLaplace)
    loc._theory.cache_clear()
    try:
        for seed in (0, 1):
            r = run("location", SMALL, seed=seed)
            assert r.metrics["noise_scale"] == pytest.approx(0.2)  # 1/(10·0.5)
            v = audit_result(r)
            assert v.broken, v.message
            assert r.metrics["empirical_epsilon_low"] > 1.0  # true ε = 5, claimed 0.5
            assert BROKEN_MESSAGE in v.message
    finally:
        loc._theory.cache_clear()


def test_cli_prints_the_flag_to_stderr(monkeypatch, capsys):
    from core import cli
    monkeypatch.setattr(loc, "Laplace", BrokenLaplace)
    loc._theory.cache_clear()
    try:
        code = cli.main(["run", "location", "--set", "observations=1", "--set", "games=2000",
                         "--set", "shadow_sweep_max=0", "--set", "train_shadows=400"])
    finally:
        loc._theory.cache_clear()
    err = capsys.readouterr().err
    assert code == 0
    assert BROKEN_MESSAGE in err


RECON = {"n": 100, "trials": 4, "sweeps": False, "defense": "gaussian", "noise_unit": "sqrt_n"}


def test_reconstruction_reports_a_per_bit_lower_bound_within_its_claim():
    r = run("reconstruction", {**RECON, "defense_level": 0.3}, seed=0)
    assert 0.5 < r.metrics["empirical_epsilon_low"] < r.metrics["release_epsilon"]
    assert audit_result(r).status == "consistent"
    exact = run("reconstruction", {**RECON, "defense": "none"}, seed=0)
    assert exact.metrics["empirical_epsilon_low"] > 3 and audit_result(exact).status == "no-claim"


def test_broken_accounting_is_flagged(monkeypatch):
    """The noise is right but the claim forgets that a person is in ~m/2 queries (sensitivity 1 instead of √(m/2))."""
    from core.releases.gaussian import Gaussian
    from core.scenarios import reconstruction as rec

    class ForgetfulGaussian(Gaussian):
        @classmethod
        def from_sigma(cls, sigma, delta=1e-5, sensitivity=1.0):
            return Gaussian.from_sigma(sigma, delta, 1.0)

    monkeypatch.setattr(rec, "Gaussian", ForgetfulGaussian)
    # n = 400, m = 2n: the true L2 sensitivity is √(m/2) = 20, so σ = 0.1·√n = 2 is claimed as ε ≈ 2 instead of ≈ 92
    r = run("reconstruction", {**RECON, "n": 400, "trials": 3, "solver": "lsq", "defense_level": 0.1}, seed=0)
    v = audit_result(r)
    assert r.metrics["release_epsilon"] < r.metrics["empirical_epsilon_low"]
    assert v.broken and BROKEN_MESSAGE in v.message
