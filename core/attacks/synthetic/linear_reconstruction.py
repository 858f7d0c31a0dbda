"""Adv_recon: linear reconstruction of every secret bit from k-way queries answered on synthetic data.

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §4.2 and App. B/C; spec
``docs/specs/seed002_linear_recon_sdg.md`` §3.

The adversary knows the QI matrix X of the n records (not their secrets) and the synthetic data S. It
picks q simple k-way queries (:mod:`core.releases.kway_queries`), estimates their answers r̂ from S
(conditional scaling by default), and solves

    min_{t ∈ ℝⁿ} ‖A t − r̂‖₁   subject to  0 ≤ t_i ≤ 1,

where row j of the 0/1 matrix A marks the records of X in query j's QI cell (§3.4). One LP reconstructs
all n bits; only the target's ``t_u`` is used: the guess is ``⌊t_u⌉`` (1 if ``t_u ≥ ½``) and the ROC score
is ``t_u``.

Solver (both through :func:`core.attacks.reconstruction.dinur_nissim_lp.solve_lp`, which reaches the same
optimum either way): the certified dense interior-point method for exactly this LP
(:func:`core.solvers.frisch_newton.l1_box_ipm`) or HiGHS on the sparse dual. The dense method forms
``Mᵀ W M`` densely (q·n² flops per iteration), which pays off when A is dense (Dinur–Nissim's random subsets,
half ones) but not here: every record lies in exactly one cell per attribute tuple, so A has 1–3% non-zeros
for 3-way and ~0.2% for 4-way queries. Measured on 2 cores, one BLAS thread, n = 1000 (objectives equal to
4 decimals): CCES 3-way (2,775 × 1,000) 3.8–4.4 s dense vs 0.6–0.7 s HiGHS; ACS-like 3-way (3,882 × 1,000)
5.9–6.5 s vs 1.1–2.2 s; FIRE-like 4-way q = 10⁵ (11,031 × 1,000) 17.1 s vs 0.96 s. So ``lp_method="auto"``
picks by density: the dense method from 5% non-zeros up, HiGHS below, each the other's fallback. Rows of A that are all zero (cells empty in X)
only add the constant ``|r̂_j|`` to the objective and are left out of the LP (the objective reported
includes them); records that no query covers are left out too and get ``t_i = ½``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ...errors import SolverError
from ...releases.kway_queries import KWayQueries
from ..reconstruction.dinur_nissim_lp import solve_lp


@dataclass
class ReconResult:
    t: np.ndarray          # (n,) LP solution in [0, 1]
    objective: float       # ‖A t − r̂‖₁ over all q queries
    n_queries: int         # q (rows of A, including empty cells)
    lp_rows: int           # rows actually passed to the LP


@dataclass
class ReconMatrix:
    """The LP's constraint matrix, kept once per game: the non-empty rows of A restricted to the records that
    some query covers, dense and column-major.

    Built from the sparse A, so a 10⁵-query family never materialises its (mostly empty) dense q × n form.
    Records in no queried cell do not enter the objective: any ``t_i`` is optimal for them, and they get the
    uninformative ``t_i = ½`` without being passed to the solver (with few queries this shrinks the LP from
    n columns to a handful).
    """

    nonzero: np.ndarray    # (q,) bool: rows with at least one record
    covered: np.ndarray    # (n,) bool: records in at least one queried cell
    dense: np.ndarray      # (rows kept, records covered) float64, Fortran order

    @classmethod
    def from_queries(cls, queries: KWayQueries) -> "ReconMatrix":
        return cls.from_sparse(queries.matrix(dense=False))

    @classmethod
    def from_sparse(cls, A) -> "ReconMatrix":
        A = sp.csr_matrix(A)
        nonzero = np.diff(A.indptr) > 0
        covered = np.zeros(A.shape[1], dtype=bool)
        covered[A.indices] = True
        kept = A[nonzero][:, covered]
        return cls(nonzero, covered, np.asfortranarray(kept.toarray(), dtype=np.float64))

    @property
    def n_queries(self) -> int:
        return int(self.nonzero.size)

    @property
    def n(self) -> int:
        return int(self.covered.size)


def linear_reconstruction(queries: KWayQueries, synthetic: np.ndarray, scaling: str = "conditional",
                          lp_method: str = "auto", A: "ReconMatrix | None" = None,
                          time_limit: float | None = None) -> ReconResult:
    """Solve Adv_recon's LP for all n records (pass a prepared ``A`` to reuse it across sizes)."""
    r = queries.answers(synthetic, scaling)
    return solve_recon_lp(ReconMatrix.from_queries(queries) if A is None else A, r, lp_method, time_limit)


def solve_recon_lp(A, r: np.ndarray, lp_method: str = "auto", time_limit: float | None = None) -> ReconResult:
    """``min ‖A t − r‖₁, 0 ≤ t ≤ 1`` with empty rows of A dropped from the solve.

    ``A`` is a :class:`ReconMatrix`, a dense array or a scipy.sparse matrix.
    """
    if not isinstance(A, ReconMatrix):
        A = ReconMatrix.from_sparse(A)
    r = np.asarray(r, dtype=np.float64)
    const = float(np.abs(r[~A.nonzero]).sum())
    Ak, rk = A.dense, r[A.nonzero]
    t = np.full(A.n, 0.5)
    objective = const
    if Ak.shape[0] and Ak.shape[1]:
        tk = np.asarray(_solve(Ak, rk, lp_method, time_limit), dtype=np.float64)
        t[A.covered] = tk
        objective += float(np.abs(Ak @ tk - rk).sum())
    return ReconResult(t=t, objective=objective, n_queries=A.n_queries, lp_rows=int(Ak.shape[0]))


DENSE_FROM = 0.05  # share of non-zeros from which the dense interior point beats HiGHS (measured, see above)


def _solve(M: np.ndarray, r: np.ndarray, lp_method: str, time_limit: float | None) -> np.ndarray:
    """``lp_method="auto"``: the dense certified interior point for dense A, HiGHS for sparse A (each the
    other's fallback); ``"ipm"``/``"highs"`` force one engine (``"ipm"`` still falls back if it cannot certify)."""
    if lp_method == "auto":
        density = float(np.count_nonzero(M)) / M.size
        first = "auto" if density >= DENSE_FROM else "highs"
        try:
            return solve_lp(M, r, time_limit=time_limit, method=first)
        except SolverError:
            return solve_lp(M, r, time_limit=time_limit, method="highs" if first == "auto" else "auto")
    return solve_lp(M, r, time_limit=time_limit, method="auto" if lp_method == "ipm" else lp_method)


def guess(t_u: float) -> int:
    """The paper's rounding ⌊t_u⌉ (ties at ½ go to 1, as in the authors' code)."""
    return int(t_u >= 0.5)
