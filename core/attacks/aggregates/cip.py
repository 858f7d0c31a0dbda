"""CIP — constraint integer programming reconstruction (Abowd et al.; DeSIA paper §2.4.1, spec §4.1/§8.2).

Math. One integer variable ``x_r ∈ {0..s}`` per full-domain record ``r ∈ 𝒱_1×…×𝒱_n`` holds the
multiplicity of ``r`` in the tentative reconstruction ``D'``. Exact (noiseless) release::

    find x ∈ ℤ_{≥0}^{|𝒱|}  s.t.  Σ_{r ∈ V_1^q×…×V_n^q} x_r = q(D)   for every q ∈ Q,
                                 Σ_r x_r = s.

Noisy release (``q̃ = round(q(D) + Lap(1/ε))``, spec §7): the equalities get L1 slack,
``min Σ_q (e_q⁺ + e_q⁻)`` s.t. ``Σ_{r∈q} x_r − e_q⁺ + e_q⁻ = q̃_q``, ``Σ_r x_r = s``, ``e ≥ 0``; the solve runs
to optimality or to the time limit, keeping the incumbent.

Lossless aggregation (spec §8.2). All constraints are sums over cell sets, so cells with the same
membership signature (the set of queries containing them) are interchangeable: they are merged into one
integer variable ``y_g = Σ_{r∈g} x_r`` with bound ``min(s, min_{q∋g} q(D))`` (noiseless; groups with bound 0
are dropped). Any total within the bound can be split among the group's cells, so feasibility is
unchanged; after solving, each of the ``y_g`` records of group ``g`` is placed in a cell of ``g`` drawn
uniformly at random. Signatures are computed on a coarse grid first: values of one attribute that every
query treats alike form a value class, and the coarse grid is the product of the classes (for the
census schema 2×116×63×2 ≈ 29k cells → a few thousand coarse cells → a few hundred groups).

K reconstructions (paper: "each time with a different seed and order of constraints"): run ``j`` uses
HiGHS ``random_seed``, a random permutation of rows and columns, and a random zero-mean objective
perturbation ``c_g ~ U(−1, 1)`` (noiseless: the solver stops at its first feasible point, so the
perturbation only steers the search; noisy: it is scaled by ``0.5/s`` so it can never outweigh one
unit of L1 error and only breaks ties).

CIP-rand uses the solver's default start; CIP-init passes a MIP start (``Highs.setSolution``) equal to
the group multiplicities of ``s`` records drawn from ``D_aux`` without replacement, a new draw per run
(spec §4.1 and §11 item 10). In the noiseless model that start is usually infeasible, and HiGHS then
discards it (this matches the paper's finding that initialisation does not change CIP); in the noisy
model it is completed with its exact slacks, so it is a feasible incumbent.

Failure: an infeasible exact model (inconsistent answers) or a run that hits ``time_limit`` without any
feasible point raises :class:`~core.errors.SolverError`; a noisy run that hits the limit keeps its
incumbent. Per-run statistics (HiGHS status, seconds, L1 error of the group solution, whether the
noisy model was proven optimal) are kept in ``stats_``.

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np

from ...cancel import checkpoint
from ...errors import DataError, ParameterError, SolverError
from ...releases.aggregate_release import AggregateRelease

__all__ = ["CIP", "DomainAggregation", "aggregate_domain"]

_MAX_COARSE_CELLS = 20_000_000


# ---------------------------------------------------------------------------------------------
# lossless aggregation of the full domain
# ---------------------------------------------------------------------------------------------
@dataclass
class DomainAggregation:
    """Cells of the full domain grouped by their query-membership signature.

    ``value_class[i][v]`` is the class of value ``v`` of attribute ``i``; ``class_members[i]`` lists the
    values sorted by class with ``class_start[i][c]``/``class_size[i][c]`` delimiting class ``c``.
    ``coarse_group[c]`` is the group of coarse cell ``c`` (a flat index into the product of the classes),
    ``incidence`` is the ``(m, G)`` 0/1 matrix "query q contains group g" and ``group_cells`` the number of
    full-domain cells in each group.
    """

    cardinalities: tuple[int, ...]
    value_class: list[np.ndarray]
    class_members: list[np.ndarray]
    class_start: list[np.ndarray]
    class_size: list[np.ndarray]
    coarse_shape: tuple[int, ...]
    coarse_group: np.ndarray
    incidence: np.ndarray
    group_cells: np.ndarray

    @property
    def n_groups(self) -> int:
        return int(self.incidence.shape[1])

    def groups_of(self, records: np.ndarray) -> np.ndarray:
        """Group index of each integer-coded record."""
        records = np.asarray(records)
        coarse = np.ravel_multi_index(
            tuple(self.value_class[i][records[:, i]] for i in range(len(self.cardinalities))),
            self.coarse_shape)
        return self.coarse_group[coarse]

    def disaggregate(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Records for group totals ``counts`` (G,), each placed in a uniformly random cell of its group."""
        counts = np.asarray(counts, dtype=np.int64)
        group_of_record = np.repeat(np.arange(counts.size), counts)
        n = group_of_record.size
        d = len(self.cardinalities)
        if n == 0:
            return np.zeros((0, d), dtype=np.int64)
        # coarse cells sorted by group; weight = number of fine cells in the coarse cell
        order = np.argsort(self.coarse_group, kind="stable")
        cls_idx = np.unravel_index(np.arange(order.size), self.coarse_shape)
        weight = np.ones(order.size, dtype=float)
        for i in range(d):
            weight *= self.class_size[i][cls_idx[i]]
        cum = np.cumsum(weight[order])
        per_group = np.bincount(self.coarse_group, weights=weight, minlength=counts.size)
        seg_end = np.cumsum(per_group)
        seg_start = seg_end - per_group
        target = seg_start[group_of_record] + rng.random(n) * (seg_end - seg_start)[group_of_record]
        pick = np.minimum(np.searchsorted(cum, target, side="right"), order.size - 1)
        coarse = order[pick]
        classes = np.unravel_index(coarse, self.coarse_shape)
        out = np.empty((n, d), dtype=np.int64)
        for i in range(d):
            c = classes[i]
            offset = np.floor(rng.random(n) * self.class_size[i][c]).astype(np.int64)
            out[:, i] = self.class_members[i][self.class_start[i][c] + offset]
        return out


def aggregate_domain(release: AggregateRelease) -> DomainAggregation:
    """Group the full domain of ``release`` by query-membership signature (spec §8.2)."""
    cards = tuple(int(c) for c in release.cardinalities)
    m = release.n_queries
    value_class, members, starts, sizes, class_masks = [], [], [], [], []
    for i, card in enumerate(cards):
        table = np.ones((card, m), dtype=bool)
        for j, q in enumerate(release.masks):
            if q[i] is not None:
                table[:, j] = np.asarray(q[i], dtype=bool)
        uniq, inv = np.unique(table, axis=0, return_inverse=True)
        inv = inv.ravel()
        value_class.append(inv)
        order = np.argsort(inv, kind="stable")
        size = np.bincount(inv, minlength=uniq.shape[0])
        members.append(order)
        starts.append(np.concatenate([[0], np.cumsum(size)[:-1]]))
        sizes.append(size)
        class_masks.append(uniq)  # (n_classes_i, m)
    shape = tuple(cm.shape[0] for cm in class_masks)
    n_coarse = int(np.prod(shape, dtype=np.int64))
    if n_coarse > _MAX_COARSE_CELLS:
        raise ParameterError("release", f"the queries split the domain into {n_coarse:,} classes; "
                                        f"CIP supports at most {_MAX_COARSE_CELLS:,}")
    n_bytes = max(1, (m + 7) // 8)
    sig = np.zeros((n_coarse, n_bytes), dtype=np.uint8)
    for j in range(m):
        cell = np.ones(shape, dtype=bool)
        for i, cm in enumerate(class_masks):
            view = [1] * len(shape)
            view[i] = shape[i]
            cell = cell & cm[:, j].reshape(view)
        sig[:, j // 8] |= cell.ravel().astype(np.uint8) << np.uint8(7 - j % 8)
    uniq_sig, coarse_group = np.unique(sig, axis=0, return_inverse=True)
    coarse_group = coarse_group.ravel()
    incidence = np.unpackbits(uniq_sig, axis=1)[:, :m].T.astype(bool)  # (m, G)
    cls_idx = np.unravel_index(np.arange(n_coarse), shape)
    fine = np.ones(n_coarse, dtype=np.int64)
    for i in range(len(cards)):
        fine *= sizes[i][cls_idx[i]]
    group_cells = np.bincount(coarse_group, weights=fine, minlength=uniq_sig.shape[0]).astype(np.int64)
    return DomainAggregation(cards, value_class, members, starts, sizes, shape, coarse_group,
                             incidence, group_cells)


# ---------------------------------------------------------------------------------------------
# CIP
# ---------------------------------------------------------------------------------------------
_INIT = ("rand", "init")


class CIP:
    """Constraint-integer-programming reconstruction attack, K runs (CIP-rand / CIP-init).

    Parameters
    ----------
    init : "rand" | "init"
        ``"rand"``: the solver's default start. ``"init"``: a MIP start from ``s`` records of ``aux_records``.
    reconstructions : int
        K, the number of tentative datasets (paper: 100).
    time_limit : float
        Seconds per HiGHS solve.
    slack : bool | None
        L1-slack model (noisy answers). ``None``: automatic — on when ``release.epsilon > 0`` or an answer is
        not an integer.
    perturbation : float
        Scale of the random zero-mean objective ``c_g ~ U(−perturbation, perturbation)`` (0 disables it).
    threads : int
        HiGHS threads per solve.
    presolve : bool
        HiGHS presolve. Off by default: on census-like releases (≈3k group variables, ≈100 rows) presolve
        and symmetry detection cost more than they save (measured); symmetry detection is always off.
    """

    def __init__(self, init: str = "rand", reconstructions: int = 100, time_limit: float = 30.0,
                 slack: bool | None = None, perturbation: float = 1.0, threads: int = 1,
                 presolve: bool = False):
        if init not in _INIT:
            raise ParameterError("init", f"must be one of {_INIT}, got {init!r}")
        if int(reconstructions) < 1:
            raise ParameterError("reconstructions", "must be at least 1")
        if not time_limit > 0:
            raise ParameterError("time_limit", "must be positive")
        if perturbation < 0:
            raise ParameterError("perturbation", "must be non-negative")
        self.init = init
        self.reconstructions = int(reconstructions)
        self.time_limit = float(time_limit)
        self.slack = slack
        self.perturbation = float(perturbation)
        self.threads = int(threads)
        self.presolve = bool(presolve)
        self.stats_: list[dict] = []

    # ----------------------------------------------------------------------------- model
    def _build(self, release: AggregateRelease):
        s = int(release.size)
        if s < 1:
            raise DataError("the release has no records (size < 1)")
        answers = np.asarray(release.answers, dtype=float)
        integral = np.allclose(answers, np.round(answers), atol=1e-9)
        slack = self.slack if self.slack is not None else (release.epsilon > 0 or not integral)
        if not slack:
            if not integral:
                raise DataError("exact CIP needs integer answers; use slack=True for noisy ones")
            if np.any(answers < 0) or np.any(answers > s):
                raise SolverError("the exact CIP model is infeasible: an answer lies outside [0, s]")
            answers = np.round(answers)
        agg = aggregate_domain(release)
        inc = agg.incidence  # (m, G)
        m = inc.shape[0]
        ub = np.full(agg.n_groups, float(s))
        if not slack:
            masked = np.where(inc, answers[:, None], np.inf)
            ub = np.minimum(ub, masked.min(axis=0))
        keep = np.flatnonzero(ub > 0)
        a = inc[:, keep].astype(float)
        if not slack:
            rows = np.flatnonzero(a.any(axis=1) | (answers != 0))
            if np.any(~a[rows].any(axis=1)):
                raise SolverError("the exact CIP model is infeasible: a query with a positive answer "
                                  "only covers cells forced to zero")
            a = a[rows]
            rhs = answers[rows]
        else:
            rhs = answers
        return dict(s=s, slack=slack, agg=agg, keep=keep, ub=ub[keep], a=a, rhs=rhs, m=m)

    def _solve_one(self, model, seed: int, start_records: np.ndarray | None):
        """One CIP reconstruction: the integer program over group counts x_g ∈ {0..ub_g} with Σ_g x_g = s and
        the released answers as equalities (exact mode: any feasible point), or with slack variables e⁺, e⁻
        minimising ‖a x − q̃‖₁ (noisy mode). Rows and columns are shuffled and the objective gets a small seeded
        perturbation, so repeated solves sample different reconstructions; a warm start from ``start_records``
        (CIP-init) is passed to HiGHS. Returns the disaggregated records and the solve's statistics; raises
        :class:`SolverError` on an infeasible program or no point within the time limit."""
        rng = np.random.default_rng(seed)
        a, rhs, ub, s = model["a"], model["rhs"], model["ub"], model["s"]
        n_q, n_g = a.shape
        slack = model["slack"]
        # full matrix: query rows, then the total row; columns: groups, then e+ / e-
        mat = np.vstack([a, np.ones((1, n_g))])
        row_lo = np.concatenate([rhs, [s]])
        n_e = n_q if slack else 0
        if slack:
            eye = np.eye(n_q)
            mat = np.hstack([mat, np.vstack([-eye, np.zeros((1, n_q))]),
                             np.vstack([eye, np.zeros((1, n_q))])])
        n_col = n_g + 2 * n_e
        cost = np.zeros(n_col)
        noise = rng.uniform(-1.0, 1.0, size=n_g) * self.perturbation
        if slack:
            cost[:n_g] = noise * 0.5 / s
            cost[n_g:] = 1.0
        else:
            cost[:n_g] = noise
        col_lo = np.zeros(n_col)
        col_hi = np.concatenate([ub, np.full(2 * n_e, np.inf)])
        rperm = rng.permutation(mat.shape[0])
        cperm = rng.permutation(n_col)
        mat_p = mat[rperm][:, cperm]
        start_x = None
        if start_records is not None:
            g = model["agg"].groups_of(start_records)
            pos = np.full(model["agg"].n_groups, -1)
            pos[model["keep"]] = np.arange(n_g)
            gi = pos[g]
            counts = np.bincount(gi[gi >= 0], minlength=n_g).astype(float)
            counts = np.minimum(counts, ub)
            start_x = counts
            if slack:
                resid = a @ counts - rhs
                start_x = np.concatenate([counts, np.maximum(resid, 0), np.maximum(-resid, 0)])
            start_x = start_x[cperm]

        lp = highspy.HighsLp()
        lp.num_col_ = n_col
        lp.num_row_ = mat_p.shape[0]
        lp.col_cost_ = cost[cperm]
        lp.col_lower_ = col_lo[cperm]
        lp.col_upper_ = col_hi[cperm]
        lp.row_lower_ = row_lo[rperm]
        lp.row_upper_ = row_lo[rperm]
        nz_r, nz_c = np.nonzero(mat_p.T)  # column-major: (col, row)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(np.bincount(nz_r, minlength=n_col))]).astype(np.int32)
        lp.a_matrix_.index_ = nz_c.astype(np.int32)
        lp.a_matrix_.value_ = mat_p.T[nz_r, nz_c].astype(float)
        lp.a_matrix_.num_col_ = n_col
        lp.a_matrix_.num_row_ = mat_p.shape[0]
        integrality = np.full(n_col, highspy.HighsVarType.kContinuous)
        integrality[np.flatnonzero(cperm < n_g)] = highspy.HighsVarType.kInteger
        lp.integrality_ = list(integrality)

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("random_seed", int(seed % 2_147_483_647))
        h.setOptionValue("time_limit", self.time_limit)
        h.setOptionValue("threads", self.threads)
        h.setOptionValue("presolve", "on" if self.presolve else "off")
        h.setOptionValue("mip_detect_symmetry", False)
        if not slack:
            h.setOptionValue("mip_max_improving_sols", 1)  # feasibility problem: first point suffices
        h.passModel(lp)
        if start_x is not None:
            h.setSolution(n_col, np.arange(n_col, dtype=np.int32), start_x.astype(float))
        t0 = time.perf_counter()
        h.run()
        seconds = time.perf_counter() - t0
        status = h.getModelStatus()
        info = h.getInfo()
        has_point = info.primal_solution_status == 2  # kSolutionStatusFeasible
        name = h.modelStatusToString(status)
        if status == highspy.HighsModelStatus.kInfeasible:
            raise SolverError("CIP: the integer program is infeasible — the released answers admit no "
                              "dataset of the released size (noisy answers need slack=True)")
        if not has_point:
            raise SolverError(f"CIP: no feasible reconstruction within time_limit={self.time_limit:g}s "
                              f"(HiGHS status: {name})")
        col = np.asarray(h.getSolution().col_value)
        x = np.empty(n_col)
        x[cperm] = col
        y = np.rint(x[:n_g]).astype(np.int64)
        if y.sum() != s:  # only possible through tolerance drift
            raise SolverError(f"CIP: solver returned {y.sum()} records, expected {s}")
        counts = np.zeros(model["agg"].n_groups, dtype=np.int64)
        counts[model["keep"]] = y
        records = model["agg"].disaggregate(counts, rng)
        records = records[rng.permutation(records.shape[0])]
        l1 = float(np.abs(a @ y - rhs).sum())
        stat = dict(status=name, seconds=seconds, l1_error=l1,
                    optimal=status == highspy.HighsModelStatus.kOptimal)  # exact mode stops at 1st point
        return records, stat

    # ----------------------------------------------------------------------------- public
    def reconstruct(self, release: AggregateRelease, rng: np.random.Generator,
                    aux_records: np.ndarray | None = None) -> np.ndarray:
        """Return K tentative datasets as an integer array of shape ``(K, s, d)``."""
        if self.init == "init":
            if aux_records is None or len(aux_records) == 0:
                raise ParameterError("aux_records", "CIP-init needs auxiliary records")
            aux_records = np.asarray(aux_records)
            if aux_records.ndim != 2 or aux_records.shape[1] != len(release.cardinalities):
                raise DataError(f"aux_records must have shape (n, {len(release.cardinalities)})")
        model = self._build(release)
        s = model["s"]
        seeds = rng.integers(0, 2**62, size=self.reconstructions)
        out = np.empty((self.reconstructions, s, len(release.cardinalities)), dtype=np.int64)
        self.stats_ = []
        for k, seed in enumerate(seeds):
            checkpoint("CIP reconstruction")
            start = None
            if self.init == "init":
                srng = np.random.default_rng([int(seed), 1])
                idx = srng.choice(len(aux_records), size=s, replace=len(aux_records) < s)
                start = aux_records[idx]
            out[k], stat = self._solve_one(model, int(seed), start)
            self.stats_.append(stat)
        return out
