"""MST: the winner of NIST's 2018 differential-privacy synthetic-data challenge, from OpenDP's ``dp.mbi.MST``.

Source: McKenna, Miklau & Sheldon, "Winning the NIST Contest: A scalable and general approach to differentially
private synthetic data", Journal of Privacy and Confidentiality 11(3), 2021, §3 (Algorithm 1). Released through
OpenDP 0.16's contingency-table API with OpenDP's own accounting (:mod:`._marginal_models`: the privacy unit, the
ρ budget from (ε, δ), the keys and the seeded sampler).

Math (ρ-zCDP, OpenDP's defaults, ``d`` columns):

* **one-way marginals**, half of ρ: every column's histogram with Gaussian noise (``ρ/2`` split over the ``d``
  histograms); a first graphical model is fitted to them;
* **select**, a tenth of the other half: ``d − 1`` rounds of the exponential mechanism (report-noisy-max) over the
  column pairs not yet connected, each scored by ``‖M_{ij}(D) − M̂_{ij}‖₁``, the L1 error of the current model on
  that pair's 2-way marginal; the picked pairs form a maximum spanning tree of "badly explained" pairs (a
  Kruskal step with a disjoint-set forest keeps it a tree);
* **measure**, the remaining nine tenths: each selected pair's 2-way marginal plus Gaussian noise
  ``N(0, σ²)`` per cell, σ found by OpenDP's binary search so the ``d − 1`` measurements compose to that share;
* **generate**: mirror descent fits the Markov random field (a tree, hence exact inference) whose marginals best
  match all noisy measurements in L2; synthetic records are drawn from it.

The release keeps every one-way and the selected two-way marginals (up to noise); three-way and higher
dependences survive only as far as the tree implies them. The claim: (ε, δ)-DP for replace-one neighbours with
δ = 1/n² by default (ρ-zCDP, converted by OpenDP). Cost: JAX compiles the estimator once per fit (mirror descent
is jit-compiled afresh on each call), which dominates a fit of a thousand records.
"""
from __future__ import annotations

from ._marginal_models import MarginalModel
from .base import register_synthesizer


@register_synthesizer
class MST(MarginalModel):
    name = "mst"
    title = "MST (DP maximum spanning tree of 2-way marginals, OpenDP)"
    retry_rounding = True  # its budget split depends on ρ and d only (see MarginalModel.retry_rounding)

    def algorithm(self):
        import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

        return dp.mbi.MST()
