"""RAP: Relaxed Adaptive Projection — gradient descent on a relaxed table to match all 3-way marginals.

Source: Aydore et al. (ICML 2021); the configuration of Annamalai, Gadotti & Rocher (USENIX Security 2024),
§5.2 and App. A ("we set the number of iterations to 2000 and Q to be the continuous relaxation of all 3-way
marginal queries"), run through Liu et al.'s ``dp-query-release`` non-DP algorithm; spec
``docs/specs/seed002_linear_recon_sdg.md`` §5. Engine: :mod:`._relaxed_marginals`.

Math. With ``a = Q(D) ∈ [0, 1]^q`` the answers of all 3-way marginal queries on the data and ``X =
softmax_blocks(Z)`` a relaxed table of ``K = 1000`` rows (``Z ~ N(0, 1)`` at start), RAP solves

    min_Z ‖Q(X) − a‖₂

by ``T = 2000`` Adam steps (lr 0.1, no schedule). Each step draws 1024 query indices with replacement with
probability ``∝ |Q(X) − a|`` (the current errors) and descends the loss ``‖e_S‖₂ / 1024`` on that multiset
``S``, whose gradient is ``∂L/∂q = c_q e_q / (1024 ‖e_S‖₂)`` (``c_q`` = times ``q`` was drawn), back-propagated
in closed form. Records are then drawn from the relaxed rows (one categorical draw per attribute and row).

There is no DP guarantee: the true answers are used as they are. The paper's code seeds torch with 0 for
the initialisation; here the initialisation comes from the ``rng`` passed to ``fit``.
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from ._relaxed_marginals import DTYPE, Adam, ThreeWayMarginals
from .base import Synthesizer, _integer, register_synthesizer

RELAXED_ROWS = 1000          # K, "FixedGenerator" size
LEARNING_RATE = 0.1
QUERIES_PER_STEP = 1024      # max_idxs


@register_synthesizer
class RAP(Synthesizer):
    name = "rap"
    title = "RAP (relaxed adaptive projection)"

    def __init__(self, steps: int = 2000, relaxed_rows: int = RELAXED_ROWS, **privacy):
        super().__init__(**privacy)
        self.steps = _integer("steps", steps, 1, 100_000)
        self.relaxed_rows = _integer("relaxed_rows", relaxed_rows, 1, 100_000)

    def _params(self):
        return {"steps": self.steps, "relaxed_rows": self.relaxed_rows}

    # shared with RAP^softmax
    def _setup(self, codes, rng):
        self.queries_ = ThreeWayMarginals(self.cardinalities_)
        self._true = self.queries_.data_answers(codes)
        self._z = rng.standard_normal((self.queries_.width, self.relaxed_rows)).astype(DTYPE)  # Zᵀ
        self._adam = Adam(self._z.shape, LEARNING_RATE)
        self.history_: list[float] = []   # mean |error| over all queries, before each step and at the end

    def _descend(self, xt: np.ndarray, grad_q: np.ndarray, products: np.ndarray) -> None:
        qm = self.queries_
        self._adam.step(self._z, qm.softmax_backward(xt, qm.backward(xt, grad_q, products)))

    def relaxed_table(self) -> np.ndarray:
        """The fitted relaxed table ``X`` (``K × Σ K_j``, each attribute block a probability vector)."""
        return self.queries_.softmax(self._z).T

    def fit(self, data, rng):
        # small BLAS calls: one thread is much faster than two competing ones on a busy machine
        with threadpool_limits(limits=1, user_api="blas"):
            return super().fit(data, rng)

    def marginal_errors(self) -> np.ndarray:
        """``Q(X) − Q(D)`` for every 3-way marginal query, at the fitted relaxed table."""
        return self.queries_.answers(self.queries_.softmax(self._z)) - self._true

    def _fit(self, codes, rng):
        self._setup(codes, rng)
        qm = self.queries_
        for t in range(self.steps):
            if t % 25 == 0:
                self._progress(t / self.steps, "fitting RAP")
            xt = qm.softmax(self._z)
            products = qm.products(xt)
            err = qm.answers(xt, products) - self._true
            abs_err = np.abs(err)
            self.history_.append(float(abs_err.mean()))
            total = abs_err.sum()
            if total <= 0:
                break
            cdf = np.cumsum(abs_err) / total
            idx = np.minimum(np.searchsorted(cdf, rng.random(QUERIES_PER_STEP), side="right"), qm.n_queries - 1)
            counts = np.bincount(idx, minlength=qm.n_queries)
            norm = np.sqrt(np.sum(err[idx] ** 2))
            if norm <= 0:
                break
            self._descend(xt, counts * err / (QUERIES_PER_STEP * norm), products)
        self.history_.append(float(np.abs(self.marginal_errors()).mean()))
        self._xt = self.queries_.softmax(self._z)

    def _sample(self, m, rng):
        return self.queries_.sample(self._xt, m, rng)
