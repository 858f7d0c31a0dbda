"""PrivBayes: BayNet with ε-differential privacy (half the budget on the structure, half on the tables).

Source: Zhang et al., "PrivBayes" (TODS 2017); Annamalai, Gadotti & Rocher (USENIX Security 2024), §6.4
and App. A (DataSynthesizer's implementation, degree ``k = 3``, ``ε ∈ {1, 10, 100}``); spec
``docs/specs/seed002_linear_recon_sdg.md`` §5 and §11-A20. Shares all code with :class:`~.baynet.BayNet`
(:mod:`._bayesian_network`); only the budgets differ:

* structure, ``ε/2``: each of the ``d − 1`` greedy choices is drawn by the exponential mechanism,
  ``P(X, Π) ∝ exp(I(X; Π) · (ε/2) / (2 (d − 1) S(X, Π)))`` with PrivBayes' sensitivity ``S`` of the mutual
  information under replacing one record (≈ ``2 log(n)/n``);
* parameters, ``ε/2``: ``Lap(2(d − k)/(ε/2))`` on every cell of the ``d − k`` joint count tables, clipped
  at 0 and normalised per parent configuration.

By sequential composition the whole release is ε-DP (replace-one neighbours, ``n`` and the domains public).
As ε → ∞ it tends to BayNet; as ε → 0 the structure is uniform and the tables pure noise, so the synthetic
attributes become near-independent and near-uniform. Unlike DataSynthesizer 0.1.11 (see
:mod:`._bayesian_network`), the table noise has the scale the ε claim requires.

Single columns at ε = 10 (checked 2026-11-29 against the reference behaviour, CCES16, n = 1000, five fits): with
the paper's fixed degree k = 3 the 51-value ``state`` is a parent in most tables, e.g. race's table
state × sex × income × race has 10,608 cells; ``Lap(2·8/5)`` on each, clipped at 0, adds ≈ 1.6 expected counts
per cell, ≈ 17,000 in all against 1,000 records, so ``P(race | parents)`` is nearly uniform and race's one-way
TVD is 0.63 (state 0.37, bornagain 0.37). This is the honest noise, not a bug in the tables: DataSynthesizer's
run, with its n× too little noise (``count_sensitivity="probability"``), gives 0.02 on the same columns. The
PrivBayes paper itself avoids such tables by choosing parent sets under its θ-usefulness rule (Zhang et al.
2017, §4.4: a table must hold enough records per cell for its noise); the lab keeps the linear-reconstruction
paper's fixed k = 3, so compare utilities at equal k, or read MST/AIM for what current methods keep.
"""
from __future__ import annotations

from ...errors import ParameterError
from .baynet import BayNet
from .base import register_synthesizer

# "probability" reproduces DataSynthesizer issue 34 (n× too little noise); never offered on the lab pages
COUNT_SENSITIVITIES = ("count", "probability")


@register_synthesizer
class PrivBayes(BayNet):
    name = "privbayes"
    title = "PrivBayes (DP Bayesian network)"
    dp = True

    def __init__(self, epsilon: float = 1.0, k: int = 3, count_sensitivity: str = "count"):
        super().__init__(k=k, epsilon=epsilon, delta=0.0)
        if count_sensitivity not in COUNT_SENSITIVITIES:
            raise ParameterError("count_sensitivity", f"expected one of {'|'.join(COUNT_SENSITIVITIES)}, "
                                 f"got {count_sensitivity!r}")
        self.count_sensitivity = count_sensitivity

    def _budgets(self):
        return self.epsilon / 2, self.epsilon / 2

    def _params(self):
        return {**super()._params(), **({} if self.count_sensitivity == "count"
                                        else {"count_sensitivity": self.count_sensitivity})}

    def _table_sensitivity(self, n: int) -> float:
        """2 for counts. ``count_sensitivity="probability"`` re-creates a documented bug (DataSynthesizer issue 34):
        the noise was calibrated to the sensitivity of a *probability* table, 2/n, but added to *counts*, so every
        table got n times too little noise while the release still claimed ε. Used only by the known-bug gallery."""
        return 2.0 / n if self.count_sensitivity == "probability" else 2.0
