"""LP decoders for Dinur–Nissim reconstruction (CS208 lecture 2, slide 9, algorithms 2 and 3).

Given subset-sum queries ``M ∈ {0,1}^{m×n}`` and released answers ``a ∈ ℝ^m``:

* **LP for average error** (``error_bound=None``, algorithm 3)::

      min_x Σ_j E_j   s.t.  −E_j ≤ a_j − (Mx)_j ≤ E_j,  0 ≤ x ≤ 1,

  i.e. ``min_{x∈[0,1]^n} ‖a − Mx‖₁``.
* **LP with known error bound E** (algorithm 2): find ``x ∈ [0,1]^n`` with
  ``|a − Mx| ≤ E`` componentwise (zero objective).

``solve_lp`` returns the fractional x̂; the caller rounds at 1/2.

How it is solved (every choice below was measured, see
``benchmarks/bench_reconstruction.py``; 2-core machine, n = 1000, m = 2000,
Gaussian σ = 0.1·√n):

1. **Certified shortcut for consistent answers.** If the least-squares solution,
   rounded to bits, reproduces every answer (``|a − Mx̂| ≤ tol``) and M has full
   column rank, then the LP optimum value is 0 and the optimal set
   ``{x ∈ [0,1]^n : Mx = a}`` is the single point x̂ — exactly what any LP solver
   must return. The shortcut is used only in that provable case (error bound None
   or ≈ 0). It costs one Cholesky of MᵀM (0.1 s at n = 1000), and is skipped at
   once when M is integral and some answer is not an integer (noisy answers).
2. **Dense interior point** (``method="auto"`` or ``"ipm"``): the LP for average
   error goes to :func:`core.solvers.frisch_newton.l1_box_ipm`, a Mehrotra/Gondzio
   primal–dual method whose Newton systems are dense n×n Cholesky factorisations,
   0.6–0.8 s. Its answer is accepted only with a duality-gap certificate
   (``‖a − Mx̂‖₁ − (aᵀy − Σ(Mᵀy)₊) ≤ 1e-8·‖a − Mx̂‖₁`` for the returned x̂ and a dual
   y in [−1, 1]^m), so it is the LP optimum to HiGHS's own tolerance.
3. **HiGHS** (``method="highs"``, and the fallback if 2. cannot certify): the dual
   LP ``max aᵀy − 1ᵀt  s.t.  Mᵀy − t ≤ 0,  −1 ≤ y ≤ 1,  t ≥ 0`` (by
   ``‖r‖₁ = max_{|y|≤1} yᵀr``; n rows instead of 2m) on IPX with crossover and
   presolve off; x̂ is its vector of row duals. 5–7 s: IPX factorises a dense basis
   with sparse LU (3.2 s of 5.6 s in HiGHS's timing report), which is why 2. exists.
   Measured alternatives, all slower: equality-form primal 9 s; the textbook
   ``[x; E]`` form with 2m rows 18 s; dual simplex > 5 min; PDLP 16 s already at
   n = 400; HiPO (pip ``highspy-extras``) 12–20 s; crossover on +25 %; presolve on
   +15 %.

Also evaluated and rejected for HiGHS: **working sets / sifting** (fix ``x_i`` at a
bound and the sign of large residuals from a guess, solve the restricted LP,
certify with the duality gap and grow the sets: with noise about half the x̂_i are
fractional, so the sets grow to ~60 % of the problem; 1.0–1.8 s at n = 400 against
0.8 s for one IPX solve) and **warm starts** (IPX cannot use a primal start).

Known error bound E: the feasibility LP is passed as is (``a − E ≤ Mx ≤ a + E``, m
rows, zero objective, IPX). If HiGHS proves it infeasible, :func:`solve_lp` warns
with :class:`InfeasibleErrorBoundWarning` and returns the LP-for-average-error
solution instead.

Time limit: ``time_limit`` (seconds, wall clock) covers the whole call, interior
point and HiGHS alike. On a timeout the last iterate is returned (clipped to
[0, 1]; every x in the box is feasible for the average-error LP) with a
:class:`LPTimeLimitWarning` saying it is not proven optimal, or a
:class:`~core.errors.SolverError` is raised if there is none. For the feasibility
LP a timed-out point is returned only if it satisfies ``|a − Mx| ≤ E`` (to 1e-6).
A point certified by the shortcut (1.) is returned whatever the limit, since it is
proven optimal.
"""
from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ...errors import ParameterError, SolverError
from ...solvers.frisch_newton import l1_box_ipm

__all__ = ["solve_lp", "InfeasibleErrorBoundWarning", "LPTimeLimitWarning"]

_CONSISTENT_TOL = 1e-9   # relative tolerance for "every answer reproduced"
_FEAS_TOL = 1e-6


class InfeasibleErrorBoundWarning(UserWarning):
    """No x in [0,1]^n satisfies |a − Mx| ≤ E; the average-error LP was solved instead."""


class LPTimeLimitWarning(UserWarning):
    """HiGHS hit the time limit; the returned x̂ is its last iterate, not proven optimal."""


def _highspy():
    import highspy  # imported lazily: core must import without the solver stack

    return highspy


def _validate(queries, answers, error_bound, time_limit):
    if sp.issparse(queries):
        M = np.asarray(queries.toarray(), dtype=float)
    else:
        M = np.asarray(queries, dtype=float)
    if M.ndim != 2 or M.shape[0] == 0 or M.shape[1] == 0:
        raise ParameterError("queries", f"expected a non-empty (m, n) matrix, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ParameterError("queries", "contains NaN or infinite entries")
    a = np.asarray(answers, dtype=float).reshape(-1)
    if a.shape[0] != M.shape[0]:
        raise ParameterError("answers", f"{a.shape[0]} answers for {M.shape[0]} queries")
    if not np.all(np.isfinite(a)):
        raise ParameterError("answers", "contains NaN or infinite values")
    if error_bound is not None:
        error_bound = float(error_bound)
        if not np.isfinite(error_bound) or error_bound < 0:
            raise ParameterError("error_bound", f"must be a finite number >= 0, got {error_bound}")
    if time_limit is not None:
        time_limit = float(time_limit)
        if not time_limit > 0:
            raise ParameterError("time_limit", f"must be > 0 seconds, got {time_limit}")
    return M, a, error_bound, time_limit


def _consistent_point(M: np.ndarray, a: np.ndarray) -> np.ndarray | None:
    """The unique x ∈ {0,1}^n with Mx = a if least squares finds it and M has full column rank."""
    m, n = M.shape
    if m < n:
        return None
    tol = _CONSISTENT_TOL * max(1.0, float(np.max(np.abs(a))))
    if np.max(np.abs(a - np.round(a))) > tol and np.array_equal(M, np.round(M)):
        return None  # integer M and binary x give integer answers: these cannot be reproduced
    G = M.T @ M
    try:
        c = sla.cho_factor(G, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return None  # rank deficient: the optimal set need not be a single point
    if np.min(np.abs(np.diag(c[0]))) < 1e-8 * np.sqrt(np.max(np.diag(G))):
        return None  # numerically rank deficient
    x = sla.cho_solve(c, M.T @ a, check_finite=False)
    xb = (x >= 0.5).astype(float)
    if np.max(np.abs(a - M @ xb)) <= tol:
        return xb
    return None


def _run(h, lp, time_limit, started):
    hs = _highspy()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "ipx")
    h.setOptionValue("run_crossover", "off")
    h.setOptionValue("presolve", "off")
    if time_limit is not None:
        left = time_limit - (time.perf_counter() - started)
        if left <= 0:
            raise SolverError(f"LP decoder: time limit of {time_limit:g} s reached before the solve")
        h.setOptionValue("time_limit", float(left))
    if h.passModel(lp) == hs.HighsStatus.kError:
        raise SolverError("LP decoder: HiGHS rejected the model")
    h.run()
    return h.getModelStatus()


def _csc_lp(A: sp.csc_matrix, cost, col_lo, col_hi, row_lo, row_hi, maximize=False):
    hs = _highspy()
    lp = hs.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_ = np.asarray(col_lo, dtype=float)
    lp.col_upper_ = np.asarray(col_hi, dtype=float)
    lp.row_lower_ = np.asarray(row_lo, dtype=float)
    lp.row_upper_ = np.asarray(row_hi, dtype=float)
    lp.a_matrix_.format_ = hs.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    if maximize:
        lp.sense_ = hs.ObjSense.kMaximize
    return lp


def _solve_average_error(M, a, time_limit, started) -> np.ndarray:
    """Dual of min ‖a − Mx‖₁ over the box: max aᵀy − 1ᵀt, Mᵀy − t ≤ 0; x = row duals."""
    hs = _highspy()
    inf = hs.kHighsInf
    m, n = M.shape
    A = sp.hstack([sp.csc_matrix(M.T), -sp.identity(n, format="csc")], format="csc")
    lp = _csc_lp(A, np.r_[a, -np.ones(n)],
                 np.r_[-np.ones(m), np.zeros(n)], np.r_[np.ones(m), np.full(n, inf)],
                 np.full(n, -inf), np.zeros(n), maximize=True)
    h = hs.Highs()
    status = _run(h, lp, time_limit, started)
    sol = h.getSolution()
    if status == hs.HighsModelStatus.kOptimal:
        return np.clip(np.asarray(sol.row_dual, dtype=float), 0.0, 1.0)
    if status == hs.HighsModelStatus.kTimeLimit:
        if sol.dual_valid and len(sol.row_dual) == n:
            warnings.warn(LPTimeLimitWarning(
                f"LP decoder stopped at the {time_limit:g} s time limit; x̂ is HiGHS's last "
                "iterate, not a proven optimum"), stacklevel=3)
            return np.clip(np.asarray(sol.row_dual, dtype=float), 0.0, 1.0)
        raise SolverError(f"LP decoder: time limit of {time_limit:g} s reached without a usable solution")
    raise SolverError(f"LP decoder: HiGHS ended with status {h.modelStatusToString(status)}")


def _solve_average_error_ipm(M, a, time_limit, started, fallback: bool) -> np.ndarray | None:
    """min ‖a − Mx‖₁ over the box by the dense interior point; None = let HiGHS try."""
    left = None if time_limit is None else time_limit - (time.perf_counter() - started)
    if left is not None and left <= 0:
        raise SolverError(f"LP decoder: time limit of {time_limit:g} s reached before the solve")
    res = l1_box_ipm(M, a, time_limit=left)
    if res.certified:
        return res.x
    if time_limit is not None and time.perf_counter() - started >= time_limit:
        warnings.warn(LPTimeLimitWarning(
            f"LP decoder stopped at the {time_limit:g} s time limit; x̂ is the interior-point "
            f"iterate, within {res.gap:.3g} of the optimum ({res.gap / max(res.primal, 1.0):.1e} relative), "
            "not a proven optimum"), stacklevel=4)
        return res.x
    if fallback:
        return None
    raise SolverError(f"LP decoder: the interior-point method stopped without a certificate ({res.reason})")


def _solve_feasibility(M, a, E, time_limit, started) -> np.ndarray | None:
    """Find x ∈ [0,1]^n with a − E ≤ Mx ≤ a + E; None if HiGHS proves there is none."""
    hs = _highspy()
    m, n = M.shape
    lp = _csc_lp(sp.csc_matrix(M), np.zeros(n), np.zeros(n), np.ones(n), a - E, a + E)
    h = hs.Highs()
    status = _run(h, lp, time_limit, started)
    if status == hs.HighsModelStatus.kInfeasible:
        return None
    sol = h.getSolution()
    if status in (hs.HighsModelStatus.kOptimal, hs.HighsModelStatus.kTimeLimit) and sol.value_valid:
        x = np.clip(np.asarray(sol.col_value, dtype=float), 0.0, 1.0)
        if status == hs.HighsModelStatus.kOptimal:
            return x
        if np.max(np.abs(a - M @ x)) <= E + _FEAS_TOL * max(1.0, E):
            warnings.warn(LPTimeLimitWarning(
                f"feasibility LP stopped at the {time_limit:g} s time limit with a feasible point"),
                stacklevel=3)
            return x
    if status == hs.HighsModelStatus.kTimeLimit:
        raise SolverError(f"LP decoder: time limit of {time_limit:g} s reached without a feasible point")
    raise SolverError(f"LP decoder: HiGHS ended with status {h.modelStatusToString(status)}")


METHODS = ("auto", "ipm", "highs")


def solve_lp(queries, answers, error_bound: float | None = None,
             time_limit: float | None = None, method: str = "auto") -> np.ndarray:
    """Fractional LP decoder x̂ ∈ [0,1]^n for Dinur–Nissim reconstruction.

    Parameters
    ----------
    queries : (m, n) 0/1 array (numpy or scipy.sparse); row j is the indicator of S_j.
    answers : (m,) released answers a_j ≈ Σ_{i∈S_j} x_i.
    error_bound : None for the LP for average error (min Σ_j |a_j − (Mx)_j|), or a
        known bound E ≥ 0 for the feasibility LP |a − Mx| ≤ E. If that LP is
        infeasible an :class:`InfeasibleErrorBoundWarning` is issued and the
        average-error LP is solved instead.
    time_limit : wall-clock seconds for the whole call (None = no limit). See the
        module docstring for what happens on a timeout.
    method : how the LP for average error is solved: ``"auto"`` (dense interior
        point with a duality certificate, HiGHS if it cannot certify), ``"ipm"``
        (the interior point only) or ``"highs"`` (HiGHS only). The feasibility LP
        always goes to HiGHS.

    Returns
    -------
    x̂ : (n,) float array in [0, 1]; round at 1/2 to get bits.

    Raises
    ------
    ParameterError on malformed input, SolverError if HiGHS fails or times out
    without a usable solution.
    """
    started = time.perf_counter()
    if method not in METHODS:
        raise ParameterError("method", f"expected one of {'|'.join(METHODS)}, got {method!r}")
    M, a, E, time_limit = _validate(queries, answers, error_bound, time_limit)
    if E is None or E <= _CONSISTENT_TOL * max(1.0, float(np.max(np.abs(a)))):
        x = _consistent_point(M, a)
        if x is not None:
            return x
    if E is not None:
        x = _solve_feasibility(M, a, E, time_limit, started)
        if x is not None:
            return x
        warnings.warn(InfeasibleErrorBoundWarning(
            f"no x in [0,1]^n has |a - Mx| <= {E:g}; solved the LP for average error instead"),
            stacklevel=2)
    if method != "highs":
        x = _solve_average_error_ipm(M, a, time_limit, started, fallback=method == "auto")
        if x is not None:
            return x
    return _solve_average_error(M, a, time_limit, started)
