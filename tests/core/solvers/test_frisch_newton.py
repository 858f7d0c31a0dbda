"""Tests of the dense interior-point LP solver (core/solvers/frisch_newton.py) and of
solve_lp's choice between it and HiGHS."""
from __future__ import annotations

import numpy as np
import pytest

from core.attacks.reconstruction.dinur_nissim_lp import _solve_average_error, solve_lp
from core.errors import ParameterError
from core.solvers.frisch_newton import duality_certificate, l1_box_ipm


def subset_instance(n, m, seed, noise="gaussian", level=1.0):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, n)
    M = (rng.random((m, n)) < 0.5).astype(float)
    exact = M @ x
    if noise == "gaussian":
        a = exact + rng.normal(0.0, level, m)
    elif noise == "uniform":
        a = exact + rng.uniform(-level, level, m)
    elif noise == "rounding":
        a = level * np.round(exact / level)
    elif noise == "laplace":
        a = exact + rng.laplace(0.0, level, m)
    else:
        raise ValueError(noise)
    return M, a, x


def highs_optimum(M, a):
    x = _solve_average_error(M, a, None, 0.0)
    return float(np.abs(a - M @ x).sum())


@pytest.mark.parametrize("n,m,noise,level,seed", [
    (40, 80, "gaussian", 0.1 * np.sqrt(40), 0),
    (60, 120, "gaussian", 0.5 * np.sqrt(60), 1),
    (50, 400, "laplace", 2.0, 2),        # many queries per person
    (80, 40, "gaussian", 1.0, 3),         # fewer queries than people (m < n)
    (70, 140, "rounding", 4.0, 4),        # ties and a degenerate optimal face
    (90, 90, "uniform", 3.0, 5),          # square
    (120, 240, "gaussian", 10 * np.sqrt(120), 6),  # noise far beyond √n
])
def test_certified_optimum_matches_highs(n, m, noise, level, seed):
    M, a, x = subset_instance(n, m, seed, noise, level)
    res = l1_box_ipm(M, a)
    assert res.certified, res.reason
    assert np.all((res.x >= 0) & (res.x <= 1)) and np.all(np.abs(res.y) <= 1)
    opt = highs_optimum(M, a)
    # the certificate brackets HiGHS's optimum, and the primal value equals it
    assert res.dual <= opt + 1e-6 * max(1.0, opt)
    assert res.primal == pytest.approx(opt, rel=1e-7, abs=1e-6)
    assert res.gap <= 1e-8 * max(1.0, res.primal) + 1e-12


def test_real_valued_matrix_is_solved_too():
    # not 0/1: the float32 shortcut for matrix–vector products must switch itself off
    rng = np.random.default_rng(7)
    M = rng.normal(size=(100, 40))
    a = M @ rng.random(40) + rng.normal(0, 0.3, 100)
    res = l1_box_ipm(M, a)
    assert res.certified
    assert res.primal == pytest.approx(highs_optimum(M, a), rel=1e-7)


def test_weak_duality_holds_for_any_box_points():
    # the certificate is a valid bracket for arbitrary x in the box and y in [-1, 1]
    M, a, _ = subset_instance(30, 60, 8, "gaussian", 2.0)
    opt = highs_optimum(M, a)
    rng = np.random.default_rng(8)
    for _ in range(20):
        primal, dual, xb, yb = duality_certificate(M, a, rng.normal(0.5, 1, 30), rng.normal(0, 2, 60))
        assert dual <= opt + 1e-7 <= primal + 2e-7
        assert np.all((xb >= 0) & (xb <= 1)) and np.all(np.abs(yb) <= 1)


def test_same_input_same_output():
    M, a, _ = subset_instance(60, 120, 9, "gaussian", 2.0)
    r1, r2 = l1_box_ipm(M, a), l1_box_ipm(M, a)
    assert np.array_equal(r1.x, r2.x) and r1.iterations == r2.iterations


def test_iteration_limit_reports_no_certificate():
    M, a, _ = subset_instance(60, 120, 10, "gaussian", 2.0)
    res = l1_box_ipm(M, a, max_iter=2)
    assert not res.certified and "2 iterations" in res.reason
    assert res.gap > 0 and np.all((res.x >= 0) & (res.x <= 1))


def test_time_limit_reports_no_certificate():
    M, a, _ = subset_instance(200, 400, 11, "gaussian", 2.0)
    res = l1_box_ipm(M, a, time_limit=1e-9)
    assert not res.certified and "time limit" in res.reason


def test_bad_shapes_raise_parameter_error():
    with pytest.raises(ParameterError):
        l1_box_ipm(np.ones((4, 3)), np.ones(5))


@pytest.mark.parametrize("seed", [12, 13])
def test_solve_lp_methods_agree(seed):
    n = 150
    M, a, x = subset_instance(n, 2 * n, seed, "gaussian", 0.2 * np.sqrt(n))
    x_ipm = solve_lp(M, a, method="ipm")
    x_highs = solve_lp(M, a, method="highs")
    x_auto = solve_lp(M, a)
    assert np.array_equal(x_auto, x_ipm)
    l1 = [float(np.abs(a - M @ v).sum()) for v in (x_ipm, x_highs)]
    assert l1[0] == pytest.approx(l1[1], rel=1e-7)
    # both are optimal; they may sit at different points of an optimal face, but the
    # rounded reconstructions agree almost everywhere
    assert np.mean((x_ipm >= 0.5) == (x_highs >= 0.5)) >= 0.98


def test_solve_lp_rejects_unknown_method():
    with pytest.raises(ParameterError):
        solve_lp(np.ones((4, 3)), np.ones(4), method="simplex")


@pytest.mark.parametrize("n,m,seed", [(120, 240, 14), (100, 800, 15), (150, 75, 16)])
def test_nearly_consistent_answers_reach_the_optimum(n, m, seed):
    # noise 1e-6: the optimum is almost 0, where single precision cannot resolve the gap;
    # the solver must switch to double precision (or hand over to HiGHS), never return junk
    M, a, x = subset_instance(n, m, seed, "gaussian", 1e-6)
    res = l1_box_ipm(M, a)
    opt = highs_optimum(M, a)
    # HiGHS's own answer is only optimal to its tolerances (~1e-7 absolute here)
    if res.certified:
        assert res.dual <= opt + 1e-7 and res.primal <= opt + 1e-7
    xs = solve_lp(M, a)
    assert float(np.abs(a - M @ xs).sum()) == pytest.approx(opt, abs=1e-7)
    if m >= n:
        assert np.array_equal((xs >= 0.5).astype(int), x)


def test_uncertified_interior_point_falls_back_to_highs(monkeypatch):
    import core.solvers.frisch_newton as fn
    from core.errors import SolverError

    real = fn.l1_box_ipm
    monkeypatch.setattr(fn, "l1_box_ipm", lambda M, a, **kw: real(M, a, max_iter=1))
    M, a, _ = subset_instance(60, 120, 17, "gaussian", 2.0)
    x = solve_lp(M, a)  # auto: HiGHS takes over
    assert float(np.abs(a - M @ x).sum()) == pytest.approx(highs_optimum(M, a), rel=1e-7)
    with pytest.raises(SolverError, match="without a certificate"):
        solve_lp(M, a, method="ipm")


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_an_infinite_single_precision_direction_finishes_in_double_without_a_warning(monkeypatch):
    """A float32 factor of an ill-conditioned system can solve to an infinite direction without a word from
    LAPACK; the next float32 product then met the infinity with M's zeros ("invalid value encountered in matmul")
    and the iterate turned to NaN. Here the first single-precision solve is made to return an infinity: the solver
    notices, finishes in double precision, certifies the same optimum, and no RuntimeWarning is raised."""
    import core.solvers.frisch_newton as fn

    M, a, _ = subset_instance(60, 120, 17, "gaussian", 2.0)
    plain = fn.l1_box_ipm(M, a)
    real = fn._factorise
    spoiled = []

    def factorise(M_, M32, w, d, single):
        solve = real(M_, M32, w, d, single)
        if not single or solve is None or spoiled:
            return solve
        spoiled.append(True)
        return lambda r: np.full(r.shape, np.inf)

    monkeypatch.setattr(fn, "_factorise", factorise)
    res = fn.l1_box_ipm(M, a)
    assert spoiled and res.certified
    assert res.primal == pytest.approx(plain.primal, rel=1e-7)
    assert res.primal == pytest.approx(highs_optimum(M, a), rel=1e-7)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("noise", ["gaussian", "uniform", "rounding", "laplace"])
def test_the_interior_point_raises_no_numerical_warning(noise):
    """Exact-ish, noisy, rounded and heavy-tailed answers, dense and sparse queries: no RuntimeWarning."""
    from core.solvers.frisch_newton import l1_box_ipm

    for n, m, seed in ((30, 15, 1), (80, 240, 2), (150, 300, 3)):
        M, a, _ = subset_instance(n, m, seed, noise, 3.0)
        assert l1_box_ipm(M, a).certified
