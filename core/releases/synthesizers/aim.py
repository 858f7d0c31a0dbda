"""AIM: an adaptive and iterative mechanism for DP synthetic data, from OpenDP's ``dp.mbi.AIM``.

Source: McKenna, Mullins, Sheldon & Miklau, "AIM: An Adaptive and Iterative Mechanism for Differentially Private
Synthetic Data", PVLDB 15(11), 2022, §4 (Algorithm 2). Released through OpenDP 0.16's contingency-table API with
OpenDP's own accounting (:mod:`._marginal_models`: the privacy unit, the ρ budget from (ε, δ), the keys and the
seeded sampler).

Math (ρ-zCDP, OpenDP's defaults: workload = every 3-way marginal and its subsets, ``d`` columns):

* **one-way marginals**, half of ρ, as in MST, and a first graphical model fitted to them;
* **rounds** on the other half, at most ``T = 16 d``, starting at a per-round budget ``ρ_t = (ρ/2)/T``:

  - *select* (a tenth of ``ρ_t``): the exponential mechanism over the workload's marginals ``r`` whose model
    would still fit the memory cap, with quality ``w_r (‖M_r(D) − M̂_r‖₁ − √(2/π) σ_t n_r)`` — the model's L1
    error on ``r`` minus the error the coming measurement's noise would leave (``n_r`` cells), weighted by how
    many workload marginals ``r`` overlaps;
  - *measure* (the other nine tenths): ``M_r(D) + N(0, σ_t²)`` per cell;
  - *generate*: mirror descent refits the Markov random field to every measurement so far;
  - *anneal*: if the refit moved marginal ``r`` by less than the noise's expected L1 size, the next rounds get
    four times the budget (fewer, sharper measurements), until the budget is spent.

AIM adapts its cliques to the data (it can keep three-way structure MST cannot), at several mirror-descent fits
per release: slower than MST. The claim: (ε, δ)-DP for replace-one neighbours with δ = 1/n² by default
(ρ-zCDP, converted by OpenDP).
"""
from __future__ import annotations

from ._marginal_models import MarginalModel
from .base import register_synthesizer


@register_synthesizer
class AIM(MarginalModel):
    name = "aim"
    title = "AIM (DP adaptive iterative marginals, OpenDP)"

    def algorithm(self):
        import opendp.prelude as dp  # lazy: OpenDP (and polars) take seconds to import

        return dp.mbi.AIM()
