"""Tests of the Dinur–Nissim LP decoders (core/attacks/reconstruction/dinur_nissim_lp.py)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from core.attacks.reconstruction.dinur_nissim_lp import (InfeasibleErrorBoundWarning, _solve_average_error,
                                          solve_lp)
from core.errors import ParameterError, SolverError


def instance(n, m, seed, sigma=0.0):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, n)
    M = (rng.random((m, n)) < 0.5).astype(float)
    a = M @ x + (rng.normal(0.0, sigma, m) if sigma > 0 else 0.0)
    return M, a, x


def l1(M, a, x):
    return float(np.abs(a - M @ x).sum())


def textbook_optimum(M, a):
    """Optimal value of the spec's primal [x; E] LP, solved independently by scipy."""
    m, n = M.shape
    A = sp.vstack([sp.hstack([sp.csr_matrix(M), -sp.identity(m)]),
                   sp.hstack([-sp.csr_matrix(M), -sp.identity(m)])])
    res = linprog(np.r_[np.zeros(n), np.ones(m)], A_ub=A, b_ub=np.r_[a, -a],
                  bounds=[(0, 1)] * n + [(0, None)] * m, method="highs")
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_answers_recover_every_bit(seed):
    M, a, x = instance(100, 200, seed)
    xh = solve_lp(M, a)
    assert np.array_equal((xh >= 0.5).astype(int), x)


def test_exact_answers_hiGHS_path_recovers_every_bit():
    # the solver path itself (bypassing the consistent-answers shortcut)
    M, a, x = instance(100, 200, 7)
    xh = _solve_average_error(M, a, None, 0.0)
    assert np.array_equal((xh >= 0.5).astype(int), x)
    assert l1(M, a, xh) < 1e-5


def test_feasibility_lp_with_zero_error_recovers_every_bit():
    M, a, x = instance(100, 200, 3)
    xh = solve_lp(M, a, error_bound=0)
    assert np.array_equal((xh >= 0.5).astype(int), x)


def test_feasibility_lp_returns_a_feasible_point():
    rng = np.random.default_rng(11)
    M, a, x = instance(80, 160, 4)
    E = 2.0
    a = a + rng.uniform(-E, E, a.shape)
    xh = solve_lp(M, a, error_bound=E)
    assert np.max(np.abs(a - M @ xh)) <= E + 1e-6
    assert np.all((xh >= 0) & (xh <= 1))


@pytest.mark.parametrize("seed", [5, 6])
def test_noisy_optimum_matches_textbook_lp(seed):
    n = 60
    M, a, x = instance(n, 2 * n, seed, sigma=0.1 * np.sqrt(n) + 0.5)
    xh = solve_lp(M, a)
    assert np.all((xh >= 0) & (xh <= 1))
    opt = textbook_optimum(M, a)
    assert l1(M, a, xh) == pytest.approx(opt, rel=1e-6, abs=1e-6)


def test_huge_noise_gives_near_chance_accuracy():
    n = 100
    accs = []
    for seed in range(3):
        M, a, x = instance(n, 2 * n, 20 + seed, sigma=10 * np.sqrt(n))
        xh = solve_lp(M, a)
        assert np.all((xh >= 0) & (xh <= 1))
        accs.append(np.mean((xh >= 0.5) == x))
    assert np.mean(accs) < 0.7


def test_infeasible_error_bound_falls_back_with_warning():
    M, a, x = instance(60, 120, 8, sigma=3.0)
    with pytest.warns(InfeasibleErrorBoundWarning):
        xh = solve_lp(M, a, error_bound=0.0)
    assert l1(M, a, xh) == pytest.approx(textbook_optimum(M, a), rel=1e-6)


def test_sparse_and_dense_input_agree():
    n = 60
    M, a, x = instance(n, 2 * n, 9, sigma=1.0)
    xd = solve_lp(M, a)
    xs = solve_lp(sp.csr_matrix(M), a)
    assert l1(M, a, xd) == pytest.approx(l1(M, a, xs), rel=1e-7)
    Me, ae, xe = instance(n, 2 * n, 10)
    assert np.array_equal((solve_lp(sp.csc_matrix(Me), ae) >= 0.5).astype(int), xe)


def test_tiny_time_limit_raises_solver_error():
    M, a, x = instance(200, 400, 12, sigma=2.0)
    with pytest.raises(SolverError):
        solve_lp(M, a, time_limit=1e-6)


def test_consistent_answers_need_no_solver_time():
    # exact answers are certified optimal without calling HiGHS, so even a tiny limit is met
    M, a, x = instance(50, 100, 13)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        xh = solve_lp(M, a, time_limit=1e-6)
    assert np.array_equal(xh.astype(int), x)


@pytest.mark.parametrize("kwargs", [
    dict(queries=np.ones(5), answers=np.ones(5)),
    dict(queries=np.ones((4, 3)), answers=np.ones(5)),
    dict(queries=np.ones((4, 3)), answers=np.array([1, 2, np.nan, 1])),
    dict(queries=np.ones((4, 3)), answers=np.ones(4), error_bound=-1),
    dict(queries=np.ones((4, 3)), answers=np.ones(4), time_limit=0),
])
def test_bad_input_raises_parameter_error(kwargs):
    with pytest.raises(ParameterError):
        solve_lp(**kwargs)
