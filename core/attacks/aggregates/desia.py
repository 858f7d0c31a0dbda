"""DeSIA: attribute inference against limited fixed aggregate statistics
(Mao, Stevanoski & de Montjoye; paper §5, Algorithms 1–2; spec §5, §8.2).

The attacker sees ``m < s`` counting queries ``Q`` and their answers ``Q(D)``,
``s = |D|``, an auxiliary sample ``D_aux``, and the non-sensitive values
``r*^{A'}`` of a target known to be unique on ``A'``. It predicts the target's
sensitive value (the last attribute).

**Deterministic module** M_D (Algorithm 1). One integer variable ``x_r ∈ {0..ub_r}``
per full-domain record ``r`` (its multiplicity), with

* ``Σ_{r ∈ cells(q)} x_r = q(D)`` for every released ``q``;
* ``Σ_r x_r = s`` (spec §11.5, flag ``total_constraint``);
* the *uniqueness constraint* ``Σ_v x_{(r*^{A'}, v)} = 1``;
* bound tightening ``ub_r = min(s, min_{q ∋ r} q(D))``.

A feasible solution ``σ`` gives ``v̂`` (the value with ``σ(x_{(r*,v̂)}) = 1``).
The *null constraint* ``x_{(r*, v̂)} = 0`` is then added: if the program becomes
infeasible, ``v̂`` is the only value consistent with the release – the target is
*deterministically vulnerable* and the answer is certain. Speed-ups (spec §8.2):
attribute values that every query treats alike are merged into classes, and
cells with the same membership signature are merged into one variable (a
lossless aggregation: any group total within the common bound can be split
among the group's cells); the LP relaxation of the verification program is
solved first (LP infeasible ⇒ ILP infeasible); every solve has a time limit and
a timeout never counts as verified.

**Stochastic module** M_S (Algorithm 2): shadow datasets and a meta-classifier, in
:mod:`core.attacks.aggregates.desia_stochastic`.

**Noisy releases** (§5.6; spec §7). The paper does not say how M_D handles noise. The default
(``md_noise="exact"``, the spec's choice) keeps exact equalities on ``q̃``: the program is infeasible as soon
as one rounded noisy answer contradicts every dataset — at ε = 10 about 63 % of releases of 150 cells have a
count off by one (``1 − (1 − e^{−5})^{150}``) — so M_D falls silent and DeSIA is left with M_S: a step down
from "no noise" to "a little noise" that is the solver's brittleness, not protection. When the noisy program
stays feasible, a "verified" value can be wrong (reported as ``deterministic_errors``).
``md_noise="bounded"`` uses what the attacker knows about the mechanism instead: with probability ≥ 1 − α
(α = 10⁻³) every true count lies within ``b = ⌈ln(m/α)/ε − ½⌉`` of its noisy answer (:func:`noise_slack`),
so the equalities become ``q̃ − b ≤ Σ x ≤ q̃ + b``: the true dataset always stays feasible and a verified value
is right with probability ≥ 1 − α — but with b ≥ 1 on every cell the solver rarely settles anyone.

Scores: a settled target scores 1.0 / 0.0; others get ``P(positive)`` clipped to
``[1e-9, 1 − 1e-9]`` so settled targets always rank first/last (spec §2.4).

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ...errors import DataError, ParameterError
from ...releases.aggregate_release import AggregateRelease
from .desia_stochastic import StochasticModule

_EPS_SCORE = 1e-9
MAX_GRID_CELLS = 4_000_000
NOISE_ALPHA = 1e-3  # noise-bounded M_D: all true counts lie within ± slack with probability ≥ 1 − α


# =============================================================================== grid
class QueryGrid:
    """Lossless aggregation of the full domain for a fixed query set (spec §8.2).

    Per attribute, values with the same mask column across all queries form a
    *class*; a *product cell* is a tuple of classes (weight = number of domain
    records in it); product cells with the same query signature form a *group*.
    """

    def __init__(self, masks, cardinalities):
        self.cardinalities = tuple(int(c) for c in cardinalities)
        self.m = len(masks)
        d = len(self.cardinalities)
        self.value_class, class_sizes, class_mem = [], [], []
        for i, card in enumerate(self.cardinalities):
            cols = np.ones((card, self.m), dtype=bool)
            for j, q in enumerate(masks):
                if q[i] is not None:
                    cols[:, j] = np.asarray(q[i], dtype=bool)
            _, first, inv, counts = np.unique(np.packbits(cols, axis=1), axis=0, return_index=True,
                                              return_inverse=True, return_counts=True)
            self.value_class.append(inv.ravel())
            class_sizes.append(counts)
            class_mem.append(cols[first])  # (n_classes_i, m)
        self.shape = tuple(len(c) for c in class_sizes)
        n_cells = int(np.prod(self.shape, dtype=np.int64))
        if n_cells > MAX_GRID_CELLS:
            raise DataError(f"the query set splits the domain into {n_cells:,} classes "
                            f"(limit {MAX_GRID_CELLS:,}); use fewer or coarser attributes")
        # membership of product cells: AND over attributes (broadcast, then flatten)
        mem = np.ones(self.shape + (self.m,), dtype=bool)
        weight = np.ones(self.shape, dtype=np.int64)
        for i in range(d):
            view = [1] * d + [self.m]
            view[i] = self.shape[i]
            mem &= class_mem[i].reshape(view)
            wv = [1] * d
            wv[i] = self.shape[i]
            weight = weight * class_sizes[i].reshape(wv)
        mem = mem.reshape(n_cells, self.m)
        _, ginv = np.unique(np.packbits(mem, axis=1), axis=0, return_inverse=True)
        self.cell_group = ginv.ravel()
        self.n_groups = int(self.cell_group.max()) + 1
        self.group_size = np.bincount(self.cell_group, weights=weight.ravel(),
                                      minlength=self.n_groups).astype(np.int64)
        first_cell = np.full(self.n_groups, -1)
        first_cell[self.cell_group[::-1]] = np.arange(n_cells)[::-1]
        self.group_mem = mem[first_cell]  # (G, m)

    def cell_of(self, records: np.ndarray) -> np.ndarray:
        """Product-cell index of each full record."""
        records = np.atleast_2d(records)
        classes = [self.value_class[i][records[:, i]] for i in range(len(self.cardinalities))]
        return np.ravel_multi_index(classes, self.shape)

    def group_of(self, records: np.ndarray) -> np.ndarray:
        return self.cell_group[self.cell_of(records)]


# ============================================================================ solving
@dataclass
class SolveResult:
    status: str  # "feasible" | "infeasible" | "timeout" | "error"
    x: np.ndarray | None
    seconds: float


def solve_feasibility(A: sp.csc_matrix, rhs_lo: np.ndarray, rhs_hi: np.ndarray, lb: np.ndarray,
                      ub: np.ndarray, integer: bool, time_limit: float, seed: int = 0) -> SolveResult:
    """Feasibility of ``{x : rhs_lo ≤ A x ≤ rhs_hi, lb ≤ x ≤ ub, x integer?}`` with HiGHS."""
    # lazy: highspy loads only where it is used (start-up time: +5 modules)
    import highspy

    t0 = time.perf_counter()
    n_rows, n_cols = A.shape
    if n_cols == 0:
        ok = bool(np.all(rhs_lo <= 0) and np.all(rhs_hi >= 0))
        return SolveResult("feasible" if ok else "infeasible", np.zeros(0), time.perf_counter() - t0)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(max(time_limit, 1e-6)))
    h.setOptionValue("random_seed", int(seed) % 2_147_483_647)
    h.setOptionValue("threads", 1)
    lp = highspy.HighsLp()
    lp.num_col_ = n_cols
    lp.num_row_ = n_rows
    lp.col_cost_ = np.zeros(n_cols)
    lp.col_lower_ = np.asarray(lb, dtype=float)
    lp.col_upper_ = np.asarray(ub, dtype=float)
    lp.row_lower_ = np.asarray(rhs_lo, dtype=float)
    lp.row_upper_ = np.asarray(rhs_hi, dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = n_cols
    lp.a_matrix_.num_row_ = n_rows
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n_cols
    h.passModel(lp)
    h.run()
    st = h.getModelStatus()
    S = highspy.HighsModelStatus
    secs = time.perf_counter() - t0
    if st == S.kOptimal:
        return SolveResult("feasible", np.round(np.asarray(h.getSolution().col_value)), secs)
    # zero cost and finite bounds: "unbounded or infeasible" can only mean infeasible
    if st in (S.kInfeasible, S.kUnboundedOrInfeasible):
        return SolveResult("infeasible", None, secs)
    if st in (S.kTimeLimit, S.kInterrupt, S.kIterationLimit, S.kSolutionLimit):
        return SolveResult("timeout", None, secs)
    return SolveResult("error", None, secs)


def noise_slack(epsilon: float, m: int, alpha: float = NOISE_ALPHA) -> int:
    """Per-cell bound ``b`` on ``|q̃ − q(D)|`` that holds for all ``m`` cells with probability ≥ 1 − α.

    ``q̃ = round(q + n)``, ``n ~ Lap(1/ε)``: ``|q̃ − q| ≤ b`` whenever ``|n| < b + ½``, and
    ``P(|n| ≥ b + ½) = e^{−ε(b+½)}``; a union bound over the m cells gives
    ``b = ⌈ln(m/α)/ε − ½⌉`` (0 without noise).
    """
    if epsilon <= 0 or m <= 0:
        return 0
    return max(0, math.ceil(math.log(m / alpha) / epsilon - 0.5))


class _Program:
    """The constraint program of one release, ready to add per-target singleton columns.

    ``slack`` = b widens every released-count equality to ``q̃ − b ≤ Σ x ≤ q̃ + b`` (noise-bounded M_D);
    the total and the uniqueness constraint stay exact.
    """

    def __init__(self, grid: QueryGrid, answers: np.ndarray, size: int, total_constraint: bool,
                 slack: int = 0):
        answers = np.asarray(answers, dtype=float)
        self.grid, self.size = grid, int(size)
        self.total_constraint = total_constraint
        self.slack = int(slack)
        # exact program: noisy answers may be negative or fractional, equalities then make it infeasible,
        # bounds use the clipped answers (spec §7)
        self.trivially_infeasible = bool(slack == 0 and (np.any(answers < 0)
                                                         or np.any(answers != np.round(answers)))
                                         or (total_constraint and size < 0))
        clipped = np.clip(answers + self.slack, 0, None)
        big = np.where(grid.group_mem, clipped[None, :], np.inf).min(axis=1)
        self.group_ub = np.minimum(float(size), big)
        rows = [grid.group_mem.T.astype(float)]
        rhs = [answers]
        if total_constraint:
            rows.append(np.ones((1, grid.n_groups)))
            rhs.append(np.array([float(size)]))
        self.A_groups = np.vstack(rows)  # (rows, G) dense; G is small after aggregation
        self.rhs = np.concatenate(rhs)
        self.n_answers = len(answers)

    def bounds(self, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row bounds (lo, hi) for ``rhs`` from :meth:`build`: ± slack on the released counts only."""
        lo, hi = np.array(rhs, dtype=float), np.array(rhs, dtype=float)
        if self.slack:
            lo[:self.n_answers] = np.maximum(lo[:self.n_answers] - self.slack, 0.0)
            hi[:self.n_answers] += self.slack
        return lo, hi

    def build(self, target_records: np.ndarray, uniqueness: bool):
        """Matrix with the target records as singleton columns (last ``T`` columns)."""
        groups = self.grid.group_of(target_records)
        size = self.grid.group_size.copy()
        np.subtract.at(size, groups, 1)
        keep = (size > 0) & (self.group_ub > 0)
        cols = [self.A_groups[:, keep], self.A_groups[:, groups]]
        ub = np.concatenate([self.group_ub[keep], self.group_ub[groups]])
        A = np.hstack(cols)
        rhs = self.rhs
        if uniqueness:
            row = np.zeros((1, A.shape[1]))
            row[0, -len(groups):] = 1.0
            A = np.vstack([A, row])
            rhs = np.concatenate([rhs, [1.0]])
            ub[-len(groups):] = np.minimum(ub[-len(groups):], 1.0)
        return sp.csc_matrix(A), rhs, np.zeros(A.shape[1]), ub


# ====================================================================== deterministic
@dataclass
class DeterministicResult:
    value: int | None          # the verified value (None = ∅)
    first_value: int | None    # v̂ from the first solve (None if infeasible / timeout)
    first_status: str
    verify_status: str         # "verified" | "feasible" | "timeout" | "skipped" | ...
    seconds: float


class DeterministicModule:
    """M_D of DeSIA (Algorithm 1) on HiGHS; see the module docstring for the math."""

    def __init__(self, time_limit: float = 60.0, total_constraint: bool = True,
                 uniqueness: bool = True, verification: bool = True, noise: str = "exact",
                 alpha: float = NOISE_ALPHA):
        if not time_limit > 0:
            raise ParameterError("time_limit", f"must be > 0 s, got {time_limit}")
        if noise not in ("bounded", "exact"):
            raise ParameterError("md_noise", f"expected bounded|exact, got {noise!r}")
        self.noise, self.alpha = noise, float(alpha)
        self.time_limit = float(time_limit)
        self.total_constraint = total_constraint
        self.uniqueness = uniqueness
        self.verification = verification

    def fit(self, release: AggregateRelease, grid: QueryGrid | None = None) -> "DeterministicModule":
        self.release_ = release
        self.grid_ = grid if grid is not None else QueryGrid(release.masks, release.cardinalities)
        self.slack_ = (noise_slack(release.epsilon, release.n_queries, self.alpha)
                       if self.noise == "bounded" else 0)
        self.program_ = _Program(self.grid_, release.answers, release.size, self.total_constraint,
                                 self.slack_)
        return self

    def infer(self, target_nonsensitive, rng: np.random.Generator) -> DeterministicResult:
        t0 = time.perf_counter()
        k = self.release_.cardinalities[-1]
        r = np.asarray(target_nonsensitive, dtype=np.int64).ravel()
        if r.size != len(self.release_.cardinalities) - 1:
            raise DataError(f"a target needs {len(self.release_.cardinalities) - 1} non-sensitive values")
        cells = np.column_stack([np.tile(r, (k, 1)), np.arange(k)])
        prog = self.program_
        if prog.trivially_infeasible:
            return DeterministicResult(None, None, "infeasible", "skipped", time.perf_counter() - t0)
        A, rhs, lb, ub = prog.build(cells, self.uniqueness)
        rhs = prog.bounds(rhs)
        seed = int(rng.integers(2**31 - 1))
        first = solve_feasibility(A, *rhs, lb, ub, True, self.time_limit, seed)
        if first.status != "feasible":
            return DeterministicResult(None, None, first.status, "skipped", time.perf_counter() - t0)
        xt = first.x[-k:]
        if self.uniqueness:
            v_hat = int(np.argmax(xt))
        else:  # ablation: majority among the target cells with x > 0, else random
            v_hat = int(np.argmax(xt)) if xt.max() > 0 else int(rng.integers(k))
        if not self.verification:
            return DeterministicResult(None, v_hat, "feasible", "skipped", time.perf_counter() - t0)
        ub2 = ub.copy()
        ub2[A.shape[1] - k + v_hat] = 0.0  # null constraint c_t'
        return self._verify(A, rhs, lb, ub2, v_hat, first, t0, seed)

    def _verify(self, A, rhs, lb, ub, v_hat, first, t0, seed):
        remaining = self.time_limit
        lp = solve_feasibility(A, *rhs, lb, ub, False, remaining, seed)
        if lp.status == "infeasible":
            return DeterministicResult(v_hat, v_hat, "feasible", "verified", time.perf_counter() - t0)
        if lp.status == "timeout":
            return DeterministicResult(None, v_hat, "feasible", "timeout", time.perf_counter() - t0)
        mip = solve_feasibility(A, *rhs, lb, ub, True, self.time_limit, seed + 1)
        if mip.status == "infeasible":
            return DeterministicResult(v_hat, v_hat, "feasible", "verified", time.perf_counter() - t0)
        return DeterministicResult(None, v_hat, "feasible", mip.status, time.perf_counter() - t0)


# ============================================================================= DeSIA
@dataclass
class DeSIAOutput:
    score: float            # P(positive value), 0/1 when settled
    prediction: int
    settled: bool           # decided by M_D (deterministically vulnerable)
    first_value: int        # v̂ of the first solve (-1: none)
    md_status: str
    ms_probability: float   # M_S's P(positive) (NaN when not computed)
    ms_valid_auc: float
    seconds_md: float
    seconds_ms: float


class DeSIA:
    """DeSIA = M_D if it settles the target, else M_S (paper §5).

    ``stochastic=False`` replaces M_S by a random guess with the constant score
    0.5 (Table 3, row 2); ``verification=False`` returns the first feasible value
    as a hard 0/1 prediction (row 3).
    """

    def __init__(self, shadows: int = 20000, time_limit: float = 60.0, total_constraint: bool = True,
                 uniqueness: bool = True, verification: bool = True, stochastic: bool = True,
                 classifier: str = "lr", cv: int = 5, md_noise: str = "exact"):
        self.deterministic = DeterministicModule(time_limit, total_constraint, uniqueness, verification,
                                                 noise=md_noise)
        self.stochastic = StochasticModule(shadows, classifier=classifier, cv=cv) if stochastic else None
        self.verification = verification

    def fit(self, release: AggregateRelease, aux_records: np.ndarray, rng: np.random.Generator,
            grid: QueryGrid | None = None) -> "DeSIA":
        if release.cardinalities[-1] < 2:
            raise DataError("the sensitive attribute needs at least two values")
        self.release_ = release
        self.deterministic.fit(release, grid)
        if self.stochastic is not None:
            self.stochastic.fit(release, aux_records, rng)
        return self

    def attack(self, target_nonsensitive, rng: np.random.Generator) -> DeSIAOutput:
        k = self.release_.cardinalities[-1]
        md = self.deterministic.infer(target_nonsensitive, rng)
        first = -1 if md.first_value is None else md.first_value
        status = md.verify_status if md.first_status == "feasible" else md.first_status
        if md.value is not None:
            return DeSIAOutput(float(md.value == k - 1 if k > 2 else md.value), md.value, True, first,
                               status, float("nan"), float("nan"), md.seconds, 0.0)
        if not self.verification:  # ablation row 3: hard prediction from the first solve
            v = first if first >= 0 else int(rng.integers(k))
            return DeSIAOutput(float(v == 1), v, False, first, status, float("nan"), float("nan"),
                               md.seconds, 0.0)
        if self.stochastic is None:  # ablation row 2: random guess for the rest
            return DeSIAOutput(0.5, int(rng.integers(k)), False, first, status, float("nan"),
                               float("nan"), md.seconds, 0.0)
        t0 = time.perf_counter()
        proba, auc = self.stochastic.predict_proba(target_nonsensitive)
        p = float(np.clip(proba[1] if k == 2 else proba[-1], _EPS_SCORE, 1 - _EPS_SCORE))
        return DeSIAOutput(p, int(np.argmax(proba)), False, first, status, p, auc, md.seconds,
                           time.perf_counter() - t0)
