"""Adv_recon: linear reconstruction of every secret bit from k-way queries answered on synthetic data.

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §4.2 and App. B/C; spec
``seed002_linear_recon_sdg.md`` §3.

The adversary knows the QI matrix X of the n records (not their secrets) and the synthetic data S. It
picks q simple k-way queries (:mod:`core.releases.kway_queries`), estimates their answers r̂ from S
(conditional scaling by default), and solves

    min_{t ∈ ℝⁿ} ‖A t − r̂‖₁   subject to  0 ≤ t_i ≤ 1,

where row j of the 0/1 matrix A marks the records of X in query j's QI cell (§3.4). One LP reconstructs
all n bits; only the target's ``t_u`` is used: the guess is ``⌊t_u⌉`` (1 if ``t_u ≥ ½``) and the ROC score
is ``t_u``.

Solver: the certified dense interior-point method for exactly this LP
(:func:`core.solvers.frisch_newton.l1_box_ipm`, through :func:`core.attacks.dinur_nissim_lp.solve_lp`), with
HiGHS as its fallback and reference (``lp_method="highs"``). Rows of A that are all zero (cells empty in X)
only add the constant ``|r̂_j|`` to the objective and are left out of the LP; the objective reported
includes them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...releases.kway_queries import KWayQueries
from ..dinur_nissim_lp import solve_lp


@dataclass
class ReconResult:
    t: np.ndarray          # (n,) LP solution in [0, 1]
    objective: float       # ‖A t − r̂‖₁ over all q queries
    n_queries: int         # q (rows of A, including empty cells)
    lp_rows: int           # rows actually passed to the LP


def linear_reconstruction(queries: KWayQueries, synthetic: np.ndarray, scaling: str = "conditional",
                          lp_method: str = "auto", A: np.ndarray | None = None,
                          time_limit: float | None = None) -> ReconResult:
    """Solve Adv_recon's LP for all n records (pass a precomputed dense ``A`` to reuse it across sizes)."""
    r = queries.answers(synthetic, scaling)
    return solve_recon_lp(queries.matrix(dense=True) if A is None else A, r, lp_method, time_limit)


def solve_recon_lp(A: np.ndarray, r: np.ndarray, lp_method: str = "auto",
                   time_limit: float | None = None) -> ReconResult:
    """``min ‖A t − r‖₁, 0 ≤ t ≤ 1`` with empty rows of A dropped from the solve."""
    r = np.asarray(r, dtype=np.float64)
    nonzero = A.any(axis=1)
    const = float(np.abs(r[~nonzero]).sum())
    Ak = A[nonzero] if not nonzero.all() else A
    rk = r[nonzero]
    if Ak.shape[0] == 0:
        t = np.full(A.shape[1], 0.5)
    else:
        t = solve_lp(np.asfortranarray(Ak), rk, time_limit=time_limit, method=lp_method)
    objective = const + float(np.abs(Ak @ t - rk).sum()) if Ak.shape[0] else const
    return ReconResult(t=np.asarray(t, dtype=np.float64), objective=objective, n_queries=int(A.shape[0]),
                       lp_rows=int(Ak.shape[0]))


def guess(t_u: float) -> int:
    """The paper's rounding ⌊t_u⌉ (ties at ½ go to 1, as in the authors' code)."""
    return int(t_u >= 0.5)
