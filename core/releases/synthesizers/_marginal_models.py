"""The engine MST and AIM share: OpenDP's contingency-table release fitted on integer codes, and seeded sampling
from the graphical model it returns.

Not a generator (no registration): :mod:`.mst` and :mod:`.aim` pick the algorithm. Both go through OpenDP 0.16's
own accounting (``dp.Context.compositor(...).query(...).contingency_table(keys=..., algorithm=...)``, the
library's ``opendp[mbi]`` extra, i.e. McKenna's private-pgm estimation engine ``mbi``):

* **Privacy unit**: ``dp.unit_of(changes=1)`` — one person's record replaced, the lab's neighbouring relation for
  every DP generator (``n`` and the domains public). OpenDP turns one change into a symmetric distance of 2, so a
  count table's L1 sensitivity is 2 and its L2 sensitivity is bounded by 2 (conservative: the exact replace-one
  L2 sensitivity is √2).
* **Budget**: the algorithms are ρ-zCDP (Gaussian noise). The lab asks for (ε, δ); ``ρ`` is the largest budget that
  OpenDP's own conversion ``make_zCDP_to_approxDP`` turns into at most (ε, δ) (:func:`._zcdp.cdp_rho`), and the
  compositor refuses any release that would spend more than ρ. By that conversion the release is (ε, δ)-DP.
* **Keys**: every column's domain is public (``keys = range(K_j)``), so no δ is spent on discovering categories;
  OpenDP adds one "null" category per column, which the sampler below never draws (post-processing).
* **Rounding**: see ``retry_rounding`` (MST asks again with ρ·(1 − 10⁻⁹) when OpenDP's own split of ρ rounds
  one unit in the last place above ρ; data-independent, so no privacy is spent on the retry).
* **Estimation** (``mbi.estimation.mirror_descent``, the library default): the Markov random field whose clique
  marginals best fit the noisy measurements in L2 (McKenna, Sheldon & Miklau, "Graphical-model based estimation
  and inference for differential privacy", ICML 2019).

Sampling (``sample``): the fitted model is a junction tree; at fit time each column, in the model's elimination
order reversed, gets the conditional table ``P(x_j | x_S)`` of the model's marginal on (S, j), S = the columns
already placed that share a clique with ``j`` — the same order and conditionals as ``mbi``'s own
``synthetic_data(method="sample")``, but the tables are copied out of JAX once, and records are drawn with the
lab's seeded generator (:func:`._bayesian_network.ancestral_sample`): 10⁶ rows in about a second, the same rows for
the same seed.

Reproducibility: OpenDP draws its noise from the operating system's secure generator on purpose (a seed must
never weaken the guarantee), so two fits of the same data differ even with the same seed; the lab's seed fixes the
data sample, the target and the rows drawn from a fitted model. Within one process the scenario caches each
game's fitted release, so the query sweep and a repeated run reuse it (the fit, JAX's compilation included, is
paid once per game).
"""
from __future__ import annotations

import logging

import numpy as np

from ...errors import DataError, SolverError
from ._bayesian_network import Node, ancestral_sample
from ._categorical import normalise_rows
from ._zcdp import cdp_rho
from .base import DeltaOneOverNSquared, Synthesizer


ROUNDING_RETRIES = 3


def column_names(d: int) -> list[str]:
    """Neutral names for the polars frame (the user's column names never reach OpenDP or JAX)."""
    return [f"c{j}" for j in range(d)]


class MarginalModel(DeltaOneOverNSquared, Synthesizer):
    """(ε, δ)-DP generator released by OpenDP's ``contingency_table``; subclasses choose ``algorithm()``."""

    dp = True
    in_paper = False
    slow = True
    # OpenDP 0.16's MST can refuse its own select step when d − 1 rounded shares of a budget add up to one unit in
    # the last place above it ("insufficient budget for query: 0.0016968979328542842 > 0.001696897932854284", MST at
    # ε = 1 on 200 CCES records). MST's budget split depends on ρ and the number of columns only, never on the data,
    # so whether it fails says nothing about anyone and asking again with a hair less ρ costs no privacy. AIM's
    # rounds depend on the data, so a failure there is reported, never retried.
    retry_rounding = False

    def __init__(self, epsilon: float = 1.0, delta: float | None = None):
        super().__init__(epsilon=epsilon, delta=0.0)
        self._take_delta(delta, f"{self.name.upper()} is ρ-zCDP, reported as (ε, δ)-DP: it needs δ > 0")

    def algorithm(self):
        """The ``dp.mbi`` algorithm object (``dp.mbi.MST()``, ``dp.mbi.AIM()``)."""
        raise NotImplementedError

    def _fit(self, codes: np.ndarray, rng: np.random.Generator) -> None:
        import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import
        import polars as pl  # lazy, as OpenDP

        n, d = codes.shape
        if n < 2:
            raise DataError(f"{self.name.upper()} needs at least 2 records")
        self._fit_delta(n)
        self.rho_ = cdp_rho(self.epsilon, self.delta)
        names = column_names(d)
        frame = pl.DataFrame({c: codes[:, j].astype(np.int64) for j, c in enumerate(names)})
        dp.enable_features("contrib")
        self._progress(0.05, f"fitting {self.name.upper()}")
        # OpenDP's context logs a warning above ρ = 0.5 (large budgets are unusual); ε = 10 is ρ ≈ 1.7 on purpose
        logging.getLogger("opendp.context").setLevel(logging.ERROR)
        context = dp.Context.compositor(data=frame.lazy(), privacy_unit=dp.unit_of(changes=1),
                                        privacy_loss=dp.loss_of(rho=self.rho_))
        keys = {c: list(range(k)) for c, k in zip(names, self.cardinalities_)}
        rho = self.rho_
        for attempt in range(ROUNDING_RETRIES + 1):
            try:
                table = (context.query(rho=rho).select(*names)
                         .contingency_table(keys=keys, algorithm=self.algorithm()).release())
                break
            except dp.OpenDPException as exc:
                if "insufficient budget" not in str(exc) or not self.retry_rounding or attempt == ROUNDING_RETRIES:
                    raise SolverError(f"{self.name.upper()}: OpenDP refused its own budget split at ρ = {rho:.6g} "
                                      "(a floating-point rounding inside dp.mbi); try another ε") from None
                # a sum of sub-budgets rounded one unit in the last place above ρ: ask for a hair less budget
                rho *= 1 - 1e-9 * 10 ** attempt
        self.rho_ = rho
        self.cliques_ = [tuple(int(c[1:]) for c in m.clique) for m in table.marginals.flatten() if len(m.clique) > 1]
        self._progress(0.9, f"fitting {self.name.upper()}")
        self.root_, self.root_marginal_, self.nodes_ = conditionals(table.model, names, self.cardinalities_)

    def _sample(self, m: int, rng: np.random.Generator) -> np.ndarray:
        return ancestral_sample(self.root_, self.root_marginal_, self.nodes_, self.cardinalities_, m, rng)


def conditionals(model, names: list[str], cards: tuple[int, ...]) -> tuple[int, np.ndarray, list[Node]]:
    """(root column, its marginal, one :class:`Node` per other column) read off a fitted ``mbi``
    MarkovRandomField, in the order ``mbi.MarkovRandomField.synthetic_data`` samples. OpenDP's extra "null"
    category (index ``K_j``) is cut from every axis, then each row renormalised (uniform if it held no mass)."""
    from mbi import junction_tree  # lazy: imports JAX

    index = {c: j for j, c in enumerate(names)}
    cliques = [set(cl) for cl in model.cliques]
    _, elimination = junction_tree.make_junction_tree(model.domain, cliques)
    order = list(elimination)[::-1]

    def table(cols: tuple[str, ...]) -> np.ndarray:
        values = np.asarray(model.project(cols).datavector(flatten=False), dtype=np.float64)
        return values[tuple(slice(0, cards[index[c]]) for c in cols)]

    root = order[0]
    root_marginal = normalise_rows(table((root,)))
    nodes, used = [], {root}
    for col in order[1:]:
        linked = set().union(*[cl for cl in cliques if col in cl]) & used
        parents = tuple(sorted(linked, key=lambda c: index[c]))
        used.add(col)
        joint = table(parents + (col,))
        nodes.append(Node(index[col], tuple(index[p] for p in parents),
                          normalise_rows(joint.reshape(-1, cards[index[col]]))))
    return index[root], root_marginal, nodes
