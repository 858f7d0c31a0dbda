"""Certified reconstruction: which secret bits hold in *every* dataset consistent with the release.

Generate-then-Verify (Liu et al., 2025, "Generate-then-Verify: reconstructing data from limited published
statistics", §3–4): a reconstruction claim is *verified* when an integer program proves that no dataset consistent
with the published statistics contradicts it. Here the statistics are Dinur–Nissim subset sums (CS208 lecture 2,
slides 7–9) released with a stated error bound — exact answers (E = 0) or answers rounded to a multiple of R
(|error| ≤ R/2). The consistent datasets are

    F = { x ∈ {0,1}^n :  lo ≤ Mx ≤ hi },  lo = ⌈a − E⌉,  hi = ⌊a + E⌋  (M is 0/1, so Mx is an integer),

and bit i is *certified* with value v when min_{x∈F} x_i = max_{x∈F} x_i = v. The truth lies in F, so a certified
bit is never wrong. Under unbounded noise (Laplace, Gaussian) every x is consistent with some noise draw, F is all
of {0,1}^n, and nothing can be certified.

Generate: one point x⁰ ∈ F (the attack's own guess when it is consistent, otherwise one integer-feasibility solve).
Verify: for each bit still undecided, ask HiGHS (highspy) for a point of F with x_i = 1 − x⁰_i — first the LP
relaxation (its infeasibility already proves the integer program infeasible), then the integer program. An
infeasible answer certifies bit i; a feasible point x′ refutes every bit where x′ ≠ x⁰ at once, which saves most
solves. When M has full column rank and E = 0 the linear system has one solution, so every bit is certified
without a single solve. A solve that hits its time limit, or a run out of its solve budget, leaves the bit
uncertified: the answer is conservative, never wrong.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

_TOL = 1e-7
# Above these sizes the per-bit check stops short: integer programs for n ≤ IP_MAX_N (the same limit as the
# integer-program decoder: a single feasibility solve at n = 100 with rounded answers took 10 s at the root node
# alone), LP relaxations for n ≤ LP_MAX_N (one LP per undecided bit). Bits left open are not certified.
IP_MAX_N = 60
LP_MAX_N = 300
IP_MAX_NODES = 2000


@dataclass
class Certificate:
    """Per-bit outcome: ``certified[i]`` with value ``value[i]``; ``solves`` LP/IP solves spent; ``status``
    one of ``"unique"`` (full rank, no solve), ``"checked"`` (every bit decided), ``"budget"`` (some bits left
    undecided), ``"inconsistent"`` (no 0/1 vector meets the bound: nothing certified)."""

    certified: np.ndarray
    value: np.ndarray
    solves: int
    status: str
    undecided: int = 0


def bounds(answers, error_bound: float) -> tuple[np.ndarray, np.ndarray]:
    """Integer row bounds ⌈a − E⌉ ≤ Mx ≤ ⌊a + E⌋ for a 0/1 query matrix."""
    a = np.asarray(answers, dtype=float)
    return np.ceil(a - error_bound - _TOL), np.floor(a + error_bound + _TOL)


def _model(M, lo, hi, integer: bool):
    # lazy: highspy loads only where it is used (start-up time: +5 modules)
    import highspy

    A = sp.csc_matrix(M, dtype=float)
    m, n = A.shape
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.zeros(n)
    lp.col_lower_ = np.zeros(n)
    lp.col_upper_ = np.ones(n)
    lp.row_lower_ = np.asarray(lo, dtype=float)
    lp.row_upper_ = np.asarray(hi, dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.passModel(lp)
    return h


def _solve(h, time_limit: float, max_nodes: int | None = None) -> tuple[str, np.ndarray | None]:
    """'feasible' with the point, 'infeasible', or 'unknown' (node or time limit, or a solver failure)."""
    # lazy: highspy loads only where it is used (start-up time: +5 modules)
    import highspy

    h.setOptionValue("time_limit", float(time_limit))
    if max_nodes is not None:
        h.setOptionValue("mip_max_nodes", int(max_nodes))
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return "infeasible", None
    sol = h.getSolution()
    if status == highspy.HighsModelStatus.kOptimal and sol.value_valid:
        return "feasible", np.asarray(sol.col_value, dtype=float)
    return "unknown", None


def _walk(M, lo, hi, x0, rng, steps: int) -> np.ndarray:
    """A random walk on F from x⁰ (single flips, and swaps of a 1 and a 0), returning for every bit a value it
    took that differs from x⁰ where one was met (else x⁰'s). Any point it visits is consistent with the release,
    so a bit it ever flipped is refuted without a solve; a bit it never flipped is left to the solver."""
    x = x0.astype(np.int8).copy()
    s = M @ x
    seen = x0.astype(np.int8).copy()
    n = x.size
    for _ in range(steps):
        i = int(rng.integers(n))
        step = M[:, i] * (1 - 2 * int(x[i]))
        if np.all((s + step >= lo) & (s + step <= hi)):
            x[i] ^= 1
            s = s + step
        else:
            others = np.flatnonzero(x != x[i])
            if others.size == 0:
                continue
            j = int(others[rng.integers(others.size)])
            step2 = step + M[:, j] * (1 - 2 * int(x[j]))
            if not np.all((s + step2 >= lo) & (s + step2 <= hi)):
                continue
            x[i] ^= 1
            x[j] ^= 1
            s = s + step2
        moved = x != x0
        seen[moved] = x[moved]
    return seen


def certify_bits(queries, answers, error_bound: float, guess=None, *, max_solves: int | None = None,
                 time_limit: float = 5.0, walk_steps: int | None = None, walk_seed: int = 0) -> Certificate:
    """Certify the bits of ``x`` that every 0/1 vector with ``|answers − Mx| ≤ error_bound`` shares.

    ``guess``: the attack's bits, used as the generated point when consistent. ``max_solves``: at most this many
    LP/IP solves (default 2n + 1, the most the check can need); ``time_limit`` seconds per solve;
    ``walk_steps`` moves of the random walk that refutes bits before any solve (default 40·n).
    """
    M = np.asarray(queries.toarray() if sp.issparse(queries) else queries, dtype=float)
    m, n = M.shape
    lo, hi = bounds(answers, error_bound)
    budget = 2 * n + 1 if max_solves is None else int(max_solves)
    none = np.zeros(n, dtype=bool)
    if np.any(lo > hi):
        return Certificate(none, np.zeros(n, np.int8), 0, "inconsistent")
    if error_bound <= _TOL and m >= n and np.linalg.matrix_rank(M) == n:
        x = np.linalg.lstsq(M, np.asarray(answers, dtype=float), rcond=None)[0]
        xb = (x >= 0.5).astype(np.int8)
        if np.all((M @ xb >= lo) & (M @ xb <= hi)):
            return Certificate(np.ones(n, dtype=bool), xb, 0, "unique")
        return Certificate(none, np.zeros(n, np.int8), 0, "inconsistent")
    solves = 0
    x0 = None if guess is None else np.asarray(guess, dtype=np.int8).reshape(-1)
    if x0 is None or not np.all((M @ x0 >= lo) & (M @ x0 <= hi)):
        if n > IP_MAX_N:
            return Certificate(none, np.zeros(n, np.int8), 0, "too large", undecided=n)
        ip = _model(M, lo, hi, integer=True)
        state, point = _solve(ip, time_limit)
        solves += 1
        if state != "feasible":  # the truth is in F, so "infeasible" means the stated bound does not hold
            return Certificate(none, np.zeros(n, np.int8), solves, "inconsistent" if state == "infeasible"
                               else "budget", undecided=n)
        x0 = (point >= 0.5).astype(np.int8)
    undecided = _walk(M, lo, hi, x0, np.random.default_rng(walk_seed), steps=walk_steps or 40 * n) == x0
    if n > LP_MAX_N:
        return Certificate(none, x0, solves, "too large", undecided=int(undecided.sum()))
    lp = _model(M, lo, hi, integer=False)
    ip = _model(M, lo, hi, integer=True) if n <= IP_MAX_N else None
    certified = np.zeros(n, dtype=bool)
    for i in range(n):
        if not undecided[i]:
            continue
        if solves >= budget:
            break
        flip = float(1 - x0[i])
        refuted = None
        for h, integer in ((lp, False), (ip, True)):
            if solves >= budget or h is None:
                break
            h.changeColBounds(i, flip, flip)
            state, point = _solve(h, time_limit, IP_MAX_NODES if integer else None)
            h.changeColBounds(i, 0.0, 1.0)
            solves += 1
            if state == "infeasible":
                certified[i] = True
                undecided[i] = False
                break
            if state == "unknown":
                if integer:
                    undecided[i] = False  # conservative: not certified
                continue
            if integer:
                refuted = (point >= 0.5).astype(np.int8)
            elif np.all(np.abs(point - np.round(point)) <= 1e-6):
                refuted = np.round(point).astype(np.int8)  # an integral LP vertex is a point of F
            if refuted is not None:
                undecided &= refuted == x0
                break
    left = int(undecided.sum())
    status = "checked" if left == 0 else ("too large" if ip is None else "budget")
    return Certificate(certified, x0, solves, status, undecided=left)
