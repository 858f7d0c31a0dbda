"""Integer-programming decoder for subset-sum reconstruction (CS208 lecture 2, slide 9, algorithm 1).

The slide's IP finds ``x̂ ∈ {0,1}^n`` with ``|a_j − Σ_{i∈S_j} x̂_i| ≤ E`` for all j;
it needs E. Here E is a variable per query and the program minimises the total
slack — ``min Σ_j E_j`` s.t. ``−E_j ≤ a_j − (M x̂)_j ≤ E_j``, ``x̂ ∈ {0,1}^n`` — which
returns the slide's solution whenever one exists for the true E and needs no
knowledge of the noise. NP-hard in the worst case; solved with HiGHS'
branch-and-cut (highspy), with a time limit.
"""
from __future__ import annotations

import numpy as np
import highspy
from scipy import sparse

from ...errors import SolverError


def solve_ip(queries, answers, time_limit: float | None = 30.0) -> np.ndarray:
    M = sparse.csr_matrix(queries, dtype=float)
    a = np.asarray(answers, dtype=float)
    m, n = M.shape
    # Columns: x (n, binary), E (m, continuous >= 0). Rows: Mx + E >= a ; Mx - E <= a.
    eye = sparse.identity(m, format="csr")
    A = sparse.vstack([sparse.hstack([M, eye]), sparse.hstack([M, -eye])]).tocsc()
    lp = highspy.HighsLp()
    lp.num_col_ = n + m
    lp.num_row_ = 2 * m
    lp.col_cost_ = np.concatenate([np.zeros(n), np.ones(m)])
    lp.col_lower_ = np.zeros(n + m)
    lp.col_upper_ = np.concatenate([np.ones(n), np.full(m, highspy.kHighsInf)])
    lp.row_lower_ = np.concatenate([a, np.full(m, -highspy.kHighsInf)])
    lp.row_upper_ = np.concatenate([np.full(m, highspy.kHighsInf), a])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n + [highspy.HighsVarType.kContinuous] * m
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    sol = h.getSolution()
    if not sol.value_valid:
        raise SolverError(f"integer program found no solution ({h.modelStatusToString(status)})")
    return np.asarray(sol.col_value[:n])
