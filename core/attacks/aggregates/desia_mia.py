"""DeSIA adapted to membership inference (paper §6.2, Fig. 9; spec §6).

Game: the defender removes either the target (``b = 0``) or another user unique
on ``A'`` (``b = 1``) from ``D`` and releases ``Q(D)`` and ``|D|``; the attacker
knows the target's full record ``r*``.

**M_D.** The constraint program of :mod:`core.attacks.aggregates.desia` *without* the
uniqueness constraint. A feasible ``σ`` gives a multiplicity ``σ(x_{r*})``;
verification adds ``x_{r*} = 0`` if ``σ(x_{r*}) ≥ 1`` and ``x_{r*} ≥ 1`` otherwise
(the general form of the paper's ``c_t'``). If that is infeasible, membership is
determined: ``b̂ = 𝟙[σ(x_{r*}) ≥ 1]``, score 1 or 0.

**M_S.** Shadows ``D_i``: ``|D|−1`` aux records (sensitive values re-drawn) plus
either ``r*`` (``b_i = 1``) or one more aux record (``b_i = 0``), ``b_i ~ U{0,1}``;
features ``Q(D_i)``; the same L2 logistic regression with cross-validated ``C``
scores ``P(b = 1 | Q(D))``. Backgrounds, fillers and labels are drawn once per
query set and shared by all targets, so ``X_i = B_i + b_i·Mem[r*] + (1−b_i)·E_i``
and targets with the same membership vector ``Mem[r*]`` share one fitted model.

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

import time

import numpy as np

from ...errors import DataError, ParameterError
from ...releases.aggregate_release import AggregateRelease
from .desia import DeSIAOutput, QueryGrid, _Program, solve_feasibility
from .desia_stochastic import check_shadow_labels, make_classifier, sample_backgrounds
from ...releases.census_tables import noisy_answers

_EPS_SCORE = 1e-9


class DeSIAMIA:
    """Membership-inference DeSIA: ``fit`` once per query set, ``attack`` once per game."""

    def __init__(self, shadows: int = 20000, time_limit: float = 60.0, total_constraint: bool = True,
                 classifier: str = "lr", cv: int = 5, train_fraction: float = 2 / 3):
        if shadows < 10:
            raise ParameterError("shadows", f"need at least 10 shadow datasets, got {shadows}")
        if not time_limit > 0:
            raise ParameterError("time_limit", f"must be > 0 s, got {time_limit}")
        self.shadows, self.time_limit = int(shadows), float(time_limit)
        self.total_constraint, self.classifier, self.cv = total_constraint, classifier, int(cv)
        self.train_fraction = float(train_fraction)

    def fit(self, masks, cardinalities, size: int, aux_records: np.ndarray, rng: np.random.Generator,
            epsilon: float = 0.0, grid: QueryGrid | None = None) -> "DeSIAMIA":
        """Shared shadow material for releases of ``size`` = |D| records over ``masks``."""
        self.masks_, self.cardinalities_, self.size_ = list(masks), tuple(cardinalities), int(size)
        self.grid_ = grid if grid is not None else QueryGrid(self.masks_, self.cardinalities_)
        B, E = sample_backgrounds(aux_records, self.shadows, self.size_ - 1, self.masks_,
                                  self.cardinalities_, rng, extra=True)
        self.labels_ = rng.integers(0, 2, size=self.shadows)
        base = B + (1 - self.labels_)[:, None] * E  # non-members contribute their filler record
        if epsilon > 0:
            base = noisy_answers(base, epsilon, rng)
        self.base_ = base.astype(np.float32)
        n_train = int(round(self.train_fraction * self.shadows))
        self.train_ = np.arange(n_train)
        self.valid_ = np.arange(n_train, self.shadows)
        self.seed_ = int(rng.integers(2**31 - 1))
        self._rel = AggregateRelease(tuple(f"a{i}" for i in range(len(cardinalities))),
                                     self.cardinalities_, self.masks_, np.zeros(len(self.masks_)), 0)
        self.cache_: dict[bytes, tuple] = {}
        return self

    def _model(self, target_record):
        t = self._rel.membership(np.atleast_2d(target_record))[0].astype(np.float32)
        key = t.astype(np.int8).tobytes()
        if key not in self.cache_:
            X = self.base_ + self.labels_[:, None].astype(np.float32) * t[None, :]
            y = self.labels_
            check_shadow_labels(y[self.train_], self.cv)
            model = make_classifier(self.classifier, self.cv, self.seed_)
            from threadpoolctl import threadpool_limits
            with threadpool_limits(1):
                model.fit(X[self.train_], y[self.train_])
            auc = float("nan")
            if len(self.valid_) and len(np.unique(y[self.valid_])) == 2:
                from sklearn.metrics import roc_auc_score
                auc = float(roc_auc_score(y[self.valid_], model.predict_proba(X[self.valid_])[:, 1]))
            self.cache_[key] = (model, auc)
        return self.cache_[key]

    def deterministic(self, release: AggregateRelease, target_record, rng):
        """(b̂ or None, σ(x_{r*}) or None, status) of M_D."""
        prog = _Program(self.grid_, release.answers, release.size, self.total_constraint)
        if prog.trivially_infeasible:
            return None, None, "infeasible"
        A, rhs, lb, ub = prog.build(np.atleast_2d(target_record), uniqueness=False)
        seed = int(rng.integers(2**31 - 1))
        first = solve_feasibility(A, rhs, rhs, lb, ub, True, self.time_limit, seed)
        if first.status != "feasible":
            return None, None, first.status
        sigma = int(first.x[-1])
        lb2, ub2 = lb.copy(), ub.copy()
        if sigma >= 1:
            ub2[-1] = 0.0
        else:
            lb2[-1] = 1.0
            if ub2[-1] < 1:  # the bound already forbids membership: determined
                return 0, sigma, "verified"
        lp = solve_feasibility(A, rhs, rhs, lb2, ub2, False, self.time_limit, seed)
        if lp.status == "infeasible":
            return int(sigma >= 1), sigma, "verified"
        if lp.status != "feasible":
            return None, sigma, lp.status
        mip = solve_feasibility(A, rhs, rhs, lb2, ub2, True, self.time_limit, seed + 1)
        if mip.status == "infeasible":
            return int(sigma >= 1), sigma, "verified"
        return None, sigma, mip.status

    def attack(self, release: AggregateRelease, target_record, rng: np.random.Generator) -> DeSIAOutput:
        if release.n_queries != len(self.masks_) or int(release.size) != self.size_:
            raise DataError("the release does not match the query set / size DeSIAMIA was fitted on")
        t0 = time.perf_counter()
        b_hat, sigma, status = self.deterministic(release, target_record, rng)
        t_md = time.perf_counter() - t0
        first = -1 if sigma is None else int(sigma >= 1)
        if b_hat is not None:
            return DeSIAOutput(float(b_hat), b_hat, True, first, status, float("nan"), float("nan"),
                               t_md, 0.0)
        t1 = time.perf_counter()
        model, auc = self._model(target_record)
        p = float(model.predict_proba(np.asarray(release.answers, dtype=np.float32)[None, :])[0, 1])
        p = float(np.clip(p, _EPS_SCORE, 1 - _EPS_SCORE))
        return DeSIAOutput(p, int(p >= 0.5), False, first, status, p, auc, t_md,
                           time.perf_counter() - t1)
