"""The engine MST and AIM share: seeded noisy marginals and selections budgeted by OpenDP's privacy maps, the
Markov random field fitted by ``mbi``'s mirror descent, and seeded sampling from it.

Not a generator (no registration): :mod:`.mst` and :mod:`.aim` run their algorithms on the pieces below.

Why not OpenDP's ``contingency_table(algorithm=dp.mbi.MST())`` end to end: OpenDP draws every noise sample from
the operating system's secure generator on purpose, so two runs with the same seed released different tables and
gave different metrics — against the lab's rule that ``metrics`` hold seeded results only. The algorithms are
short (McKenna et al. 2021, 2022); the lab runs them itself with its seeded numpy generator and keeps from the
libraries what it should not re-write:

* **Accounting: OpenDP's privacy maps.** Every measurement's noise scale is found by OpenDP's
  ``binary_search_param`` on the OpenDP measurement it stands for (``make_gaussian`` on an L2-bounded vector,
  ``make_noisy_max`` on an L∞-bounded score vector, both under ρ-zCDP), and the ρ it spends is that
  measurement's own privacy map at the record's sensitivity; the spends are kept in a ledger (:class:`Ledger`).
  zCDP composes additively, also adaptively (Bun & Steinke, "Concentrated differential privacy", TCC 2016,
  Lemma 2.3), so the release is ``ρ_total = Σ ρ_i``-zCDP, never above the budget ``ρ`` — the largest ρ that
  OpenDP's ``make_zCDP_to_approxDP`` turns into at most (ε, δ) (:func:`._zcdp.cdp_rho`). By that conversion the
  release is (ε, δ)-DP.
* **Estimation: mbi's mirror descent** (``mbi.estimation.mirror_descent``; McKenna, Sheldon & Miklau,
  "Graphical-model based estimation and inference for differential privacy", ICML 2019): the Markov random
  field whose clique marginals best fit the noisy measurements in L2. It is deterministic given the
  measurements, so the seed fixes the model.

**Privacy unit**: one person's record replaced (the lab's neighbouring relation for every DP generator, ``n`` and
the domains public). A count marginal then moves by +1 in one cell and −1 in another: L1 sensitivity 2, L2
sensitivity √2; a score ``‖M_r(D) − M̂_r‖₁`` (M̂ a model fitted to earlier, public, measurements) moves by at most
‖M_r(D) − M_r(D')‖₁ ≤ 2.

**Noise**: the Gaussian mechanism adds ``N(0, σ²)`` to every cell (ρ = Δ₂²/(2σ²)); the selection is report-noisy-max
with Gumbel(β) noise, the exponential mechanism (ρ = (2Δ∞/β)²/8 for non-monotone scores, OpenDP's map). Both are
drawn with the lab's seeded numpy generator in floating point (the textbook mechanisms, as in the papers'
reference code; OpenDP's own samplers are exact but unseeded).

Sampling (``sample``): the fitted model is a junction tree; at fit time each column, in the model's elimination
order reversed, gets the conditional table ``P(x_j | x_S)`` of the model's marginal on (S, j), S = the columns
already placed that share a clique with ``j`` — the same order and conditionals as ``mbi``'s own
``synthetic_data(method="sample")``, but the tables are copied out of JAX once, and records are drawn with the
lab's seeded generator (:func:`._bayesian_network.ancestral_sample`): 10⁶ rows in about a second.

Reproducibility: the fit's noise comes from the generator's ``rng`` (the scenario passes a seeded one per game),
the estimation is deterministic, and the sampling uses the seeded ``rng`` of ``sample``: the same seed gives the
same release, table and metrics. Within one process the scenario caches each game's fitted release, so the query
sweep and a repeated run reuse it (the fit, JAX's compilation included, is paid once per game).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ...errors import DataError
from ._bayesian_network import Node, ancestral_sample
from ._categorical import normalise_rows
from ._zcdp import cdp_rho
from .base import DeltaOneOverNSquared, Synthesizer

# Replace-one sensitivities (see the module docstring)
COUNT_L2 = math.sqrt(2.0)
SCORE_LINF = 2.0


def column_names(d: int) -> list[str]:
    """Neutral names for mbi's domain (the user's column names never reach JAX)."""
    return [f"c{j}" for j in range(d)]


@lru_cache(maxsize=512)
def gaussian_scale(rho: float, sensitivity: float = COUNT_L2) -> float:
    """Smallest σ whose OpenDP Gaussian measurement (``make_gaussian`` on float vectors, L2 distance) spends at
    most ``rho`` at L2 sensitivity ``sensitivity``: OpenDP's ``binary_search_param`` (≈ Δ/√(2ρ))."""
    import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
    return float(dp.binary_search_param(lambda s: dp.m.make_gaussian(*space, scale=s), d_in=sensitivity,
                                        d_out=rho, T=float))


@lru_cache(maxsize=512)
def gaussian_rho(scale: float, sensitivity: float = COUNT_L2) -> float:
    """ρ that OpenDP's Gaussian measurement of scale σ spends at L2 sensitivity Δ (its privacy map, ≈ Δ²/(2σ²))."""
    import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
    return float(dp.m.make_gaussian(*space, scale=scale).map(sensitivity))


def _noisy_max(scale: float):
    import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float, monotonic=False)
    return dp.m.make_noisy_max(*space, output_measure=dp.zero_concentrated_divergence(), scale=scale)


@lru_cache(maxsize=512)
def noisy_max_scale(rho: float, sensitivity: float = SCORE_LINF) -> float:
    """Smallest Gumbel scale β whose OpenDP ``make_noisy_max`` (ρ-zCDP, non-monotone scores) spends at most
    ``rho`` at L∞ sensitivity ``sensitivity``: OpenDP's ``binary_search_param`` (β ≈ 2Δ/√(8ρ))."""
    import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

    return float(dp.binary_search_param(_noisy_max, d_in=sensitivity, d_out=rho, T=float))


@lru_cache(maxsize=512)
def noisy_max_rho(scale: float, sensitivity: float = SCORE_LINF) -> float:
    """ρ that OpenDP's noisy max of Gumbel scale β spends at L∞ sensitivity Δ (its privacy map)."""
    return float(_noisy_max(scale).map(sensitivity))


class Ledger:
    """The ρ each measurement spends, by OpenDP's privacy map of the measurement it stands for; zCDP composes by
    adding (Bun & Steinke 2016, Lemma 2.3), so ``total`` is the release's ρ. ``spend`` refuses to pass the
    budget (a defect, never a user error: the algorithms size every step to fit)."""

    def __init__(self, budget: float):
        self.budget = float(budget)
        self.entries: list[tuple[str, tuple, float]] = []

    @property
    def total(self) -> float:
        return math.fsum(rho for _, _, rho in self.entries)

    @property
    def remaining(self) -> float:
        return max(0.0, self.budget - self.total)

    def spend(self, what: str, clique: tuple, rho: float) -> None:
        if self.total + rho > self.budget * (1 + 1e-12):
            raise AssertionError(f"{what} on {clique} would spend ρ = {self.total + rho!r} > budget {self.budget!r}")
        self.entries.append((what, clique, float(rho)))


def marginal(codes: np.ndarray, clique: tuple[int, ...], cards: tuple[int, ...]) -> np.ndarray:
    """Counts of every cell of the columns ``clique`` (row-major, flattened as mbi's ``datavector``)."""
    shape = tuple(cards[j] for j in clique)
    return np.bincount(np.ravel_multi_index(tuple(codes[:, j] for j in clique), shape),
                       minlength=int(np.prod(shape))).astype(np.float64)


class MarginalModel(DeltaOneOverNSquared, Synthesizer):
    """(ε, δ)-DP generator of noisy marginals and a graphical model; subclasses choose and measure the marginals
    (``_select_and_measure``). Shared: ρ from (ε, δ), the one-way marginals on ``oneway_share`` of it, the final
    estimation and the sampler."""

    dp = True
    in_paper = False
    slow = True
    oneway_share = 0.5  # OpenDP's dp.mbi default (Algorithm.oneway_split): half of ρ on the one-way marginals
    # mirror-descent iterations of the final estimation (mbi's default); intermediate fits set their own
    final_iters = 1000
    oneway_iters = 200  # the first model holds independent columns: mirror descent converges in a few hundred steps

    def __init__(self, epsilon: float = 1.0, delta: float | None = None):
        super().__init__(epsilon=epsilon, delta=0.0)
        self._take_delta(delta, f"{self.name.upper()} is ρ-zCDP, reported as (ε, δ)-DP: it needs δ > 0")

    # ------------------------------------------------------------ the pieces the algorithms use
    def measure(self, clique: tuple[int, ...], rho: float, what: str = "measure"):
        """Gaussian mechanism on the marginal of ``clique`` spending at most ``rho`` (OpenDP's map), seeded."""
        from mbi import LinearMeasurement  # lazy: imports JAX

        sigma = gaussian_scale(rho)
        self.ledger_.spend(what, clique, gaussian_rho(sigma))
        counts = marginal(self._codes, clique, self.cardinalities_)
        noisy = counts + self._rng.normal(0.0, sigma, counts.size)
        return LinearMeasurement(noisy, tuple(self._names[j] for j in clique), stddev=sigma)

    def select(self, scores: np.ndarray, rho: float, sensitivity: float = SCORE_LINF,
               what: str = "select") -> int:
        """Report-noisy-max (the exponential mechanism) over ``scores`` spending at most ``rho``, seeded."""
        beta = noisy_max_scale(rho, sensitivity)
        self.ledger_.spend(what, (), noisy_max_rho(beta, sensitivity))
        return int(np.argmax(np.asarray(scores, dtype=np.float64) + self._rng.gumbel(0.0, beta, len(scores))))

    def estimate(self, measurements: list, iters: int, potentials=None):
        """mbi's mirror descent (warm-started from ``potentials`` when given) on every measurement so far."""
        from mbi.estimation import mirror_descent  # lazy: imports JAX

        return mirror_descent(self._domain_mbi, measurements, potentials=potentials, iters=iters)

    def model_marginal(self, model, clique: tuple[int, ...]) -> np.ndarray:
        """The fitted model's marginal on ``clique``, flattened as :func:`marginal`."""
        return model_marginals(model, self._names, [clique])[clique]

    def data_marginal(self, clique: tuple[int, ...]) -> np.ndarray:
        return marginal(self._codes, clique, self.cardinalities_)

    def _select_and_measure(self, measurements: list, model, rho: float) -> tuple[list, object]:
        """Spend ``rho`` on the algorithm's own marginals; return every measurement and the last fitted model."""
        raise NotImplementedError

    # ------------------------------------------------------------ fit and sample
    def _fit(self, codes: np.ndarray, rng: np.random.Generator) -> None:
        from mbi import Domain  # lazy: imports JAX

        n, d = codes.shape
        if n < 2:
            raise DataError(f"{self.name.upper()} needs at least 2 records")
        self._fit_delta(n)
        self.rho_ = cdp_rho(self.epsilon, self.delta)
        self.ledger_ = Ledger(self.rho_)
        self._codes, self._rng = codes, rng
        self._names = column_names(d)
        self._domain_mbi = Domain(self._names, self.cardinalities_)
        self._progress(0.02, f"fitting {self.name.upper()}")
        try:
            oneway = self.rho_ * self.oneway_share
            measurements = [self.measure((j,), oneway / d, "one-way") for j in range(d)]
            model = self.estimate(measurements, iters=self.oneway_iters)
            measurements, model = self._select_and_measure(measurements, model, self.ledger_.remaining)
            self._progress(0.9, f"fitting {self.name.upper()}: final estimation")
            model = self.estimate(measurements, iters=self.final_iters, potentials=model.potentials)
        finally:
            del self._codes, self._rng  # the fitted generator keeps the model, never the data
        self.cliques_ = [tuple(int(c[1:]) for c in m.clique) for m in measurements if len(m.clique) > 1]
        self.root_, self.root_marginal_, self.nodes_ = conditionals(model, self._names, self.cardinalities_)

    def _sample(self, m: int, rng: np.random.Generator) -> np.ndarray:
        return ancestral_sample(self.root_, self.root_marginal_, self.nodes_, self.cardinalities_, m, rng)


def model_marginals(model, names: list[str], cliques: list[tuple[int, ...]]) -> dict[tuple[int, ...], np.ndarray]:
    """The model's marginal on each clique (column indices), flattened, summing to the model's total.

    The Markov random field is ``P(x) ∝ Π_C exp(θ_C(x_C))`` over its potentials' cliques, so a marginal is one sum
    of products, computed here by ``numpy.einsum`` with a greedy contraction order (variable elimination; exact).
    mbi's own ``project`` does the same with JAX operations one by one, and JAX compiles every new shape: scoring
    AIM's hundreds of candidate marginals that way cost minutes per round."""
    index = {c: j for j, c in enumerate(names)}
    if len(names) > 52:  # numpy.einsum names at most 52 axes
        return {cl: np.asarray(model.project(tuple(names[j] for j in cl)).datavector(), dtype=np.float64)
                for cl in cliques}
    operands = []
    for cl in model.potentials.cliques:
        factor = model.potentials.arrays[cl]
        theta = np.asarray(factor.values, dtype=np.float64)
        operands += [np.exp(theta - theta.max()), [index[a] for a in factor.domain.attrs]]
    total = float(model.total)
    out = {}
    for cl in cliques:
        table = np.einsum(*operands, list(cl), optimize="greedy").ravel()
        out[cl] = table * (total / table.sum())
    return out


def conditionals(model, names: list[str], cards: tuple[int, ...]) -> tuple[int, np.ndarray, list[Node]]:
    """(root column, its marginal, one :class:`Node` per other column) read off a fitted ``mbi``
    MarkovRandomField, in the order ``mbi.MarkovRandomField.synthetic_data`` samples; each row is renormalised
    (negative estimates clipped; uniform if it held no mass)."""
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
