"""BayNet: a degree-k Bayesian network learnt greedily by mutual information, sampled ancestrally.

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §5.2 and App. A — DataSynthesizer's correlated
attribute mode with ``epsilon = 0`` (no DP) and degree ``k = 3`` "so 3-way marginals are well preserved";
``docs/specs/seed002_linear_recon_sdg.md`` §5. The algorithm (PrivBayes' GreedyBayes without noise) is in
:mod:`._bayesian_network`:

* structure: root uniformly at random, then repeatedly the pair ``(X, Π)``, ``X`` not yet placed,
  ``Π`` ⊆ placed attributes with ``|Π| = min(k, #placed)``, maximising ``I(X; Π)`` on the data;
* parameters: exact conditionals ``P(X | Π) = c(X, Π) / c(Π)`` (uniform for parent configurations absent
  from the data), so every ``(k+1)``-way marginal over a node and its parents is reproduced exactly in
  expectation;
* sampling: ``P_S(x) = P(x_root) Π_X P(x_X | x_Π)``, ancestral, vectorised over records.

All attributes are treated as categorical (spec §11-A6: no numeric histogram bins).
"""
from __future__ import annotations

from ._bayesian_network import ancestral_sample, conditional_tables, greedy_bayes
from .base import Synthesizer, _integer, register_synthesizer


@register_synthesizer
class BayNet(Synthesizer):
    name = "baynet"
    title = "BayNet (Bayesian network, degree k)"

    def __init__(self, k: int = 3, **privacy):
        super().__init__(**privacy)
        self.k = _integer("k", k, 1, 6)

    def _params(self):
        return {"k": self.k}

    def _budgets(self) -> tuple[float | None, float | None]:
        """(ε for the structure, ε for the conditional tables); ``None`` = exact (no DP)."""
        return None, None

    def _fit(self, codes, rng):
        eps_structure, eps_tables = self._budgets()
        cards = self.cardinalities_
        self.root_, self.nodes_ = greedy_bayes(codes, cards, self.k, rng, eps_structure)
        self.root_marginal_ = conditional_tables(codes, cards, self.k, self.root_, self.nodes_, rng, eps_tables,
                                                 self._table_sensitivity(codes.shape[0]))

    def _table_sensitivity(self, n: int) -> float:
        """L1 sensitivity of one count table under replace-one: 2."""
        return 2.0

    def network(self) -> list[tuple[str, tuple[str, ...]]]:
        """The learnt structure as ``(child, parents)`` column names, root first with no parents."""
        cols = self.columns_
        return [(cols[self.root_], ())] + [(cols[nd.child], tuple(cols[p] for p in nd.parents))
                                           for nd in self.nodes_]

    def _sample(self, m, rng):
        return ancestral_sample(self.root_, self.root_marginal_, self.nodes_, self.cardinalities_, m, rng)
