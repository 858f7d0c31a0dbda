"""MST: the winner of NIST's 2018 differential-privacy synthetic-data challenge, seeded, on OpenDP's accounting.

Source: McKenna, Miklau & Sheldon, "Winning the NIST Contest: A scalable and general approach to differentially
private synthetic data", Journal of Privacy and Confidentiality 11(3), 2021, §3 (Algorithm 1), with the budget
split of OpenDP 0.16's ``dp.mbi.MST`` (the lab ran that implementation before; it draws unseeded noise, see
:mod:`._marginal_models`, which holds the privacy unit, the accounting, the estimation and the sampler).

Math (ρ-zCDP, ``d`` columns, replace-one neighbours: a count marginal has L2 sensitivity √2, an L1-error score
L∞ sensitivity 2):

* **one-way marginals**, half of ρ: every column's histogram plus ``N(0, σ₁²)`` per cell, ``ρ/(2d)`` each
  (σ₁ ≈ √2/√(2·ρ/(2d)), found by OpenDP's search on its Gaussian measurement); a first graphical model (the
  columns independent) is fitted to them;
* **select**, a tenth of the other half: ``d − 1`` rounds of the exponential mechanism (Gumbel report-noisy-max,
  ``ρ_sel/(d − 1)`` each) over the column pairs not yet connected, each scored by ``‖M_{ij}(D) − M̂_{ij}‖₁``,
  the L1 error of the first model on that pair's 2-way marginal; a disjoint-set forest keeps the picked pairs a
  spanning tree of "badly explained" pairs (the Kruskal step of the paper);
* **measure**, the remaining nine tenths: each selected pair's 2-way marginal plus ``N(0, σ₂²)`` per cell, the
  ``d − 1`` measurements sharing that budget equally;
* **generate**: mbi's mirror descent fits the Markov random field (a tree, hence exact inference) whose marginals
  best match all noisy measurements in L2 (``final_iters`` = 1000 iterations, mbi's default); records are drawn
  from it.

The release keeps every one-way and the selected two-way marginals (up to noise); three-way and higher
dependences survive only as far as the tree implies them. The claim: (ε, δ)-DP with δ = 1/n² by default, through
ρ = the largest budget OpenDP's ``make_zCDP_to_approxDP`` converts to at most (ε, δ); the ledger of OpenDP's
privacy maps (``ledger_``) never exceeds it. Cost: two estimations, each one JAX compilation of mirror descent.
"""
from __future__ import annotations

import itertools

import numpy as np
from scipy.cluster.hierarchy import DisjointSet

from ._marginal_models import MarginalModel
from .base import register_synthesizer


@register_synthesizer
class MST(MarginalModel):
    name = "mst"
    title = "MST (DP maximum spanning tree of 2-way marginals, OpenDP accounting)"
    measure_split = 0.9  # OpenDP's dp.mbi.MST default: of the budget after the one-way marginals

    def _select_and_measure(self, measurements, model, rho):
        d = len(self.cardinalities_)
        if d < 2:
            return measurements, model
        rho_measure = rho * self.measure_split
        rho_select = (rho - rho_measure) * (1 - 1e-9)  # a hair under: the two shares' float sum stays ≤ ρ
        pairs = list(itertools.combinations(range(d), 2))
        # the first model holds the one-way measurements only (independent columns), so its 2-way marginal is the
        # outer product of its one-way marginals over the total: exact, and no variable elimination per pair
        ones = [self.model_marginal(model, (j,)) for j in range(d)]
        total = float(model.total)
        errors = {(i, j): float(np.abs(self.data_marginal((i, j)) - np.outer(ones[i], ones[j]).ravel() / total).sum())
                  for i, j in pairs}
        components, chosen = DisjointSet(range(d)), []
        for r in range(d - 1):
            open_pairs = [p for p in pairs if not components.connected(*p)]
            pick = open_pairs[self.select([errors[p] for p in open_pairs], rho_select / (d - 1))]
            chosen.append(pick)
            components.merge(*pick)
            self._progress(0.1 + 0.3 * (r + 1) / (d - 1), "fitting MST: selecting pairs")
        per_pair = min(rho_measure / len(chosen), self.ledger_.remaining / len(chosen))
        measurements = measurements + [self.measure(p, per_pair) for p in chosen]
        return measurements, model
