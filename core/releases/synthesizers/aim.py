"""AIM: an adaptive and iterative mechanism for DP synthetic data, seeded, on OpenDP's accounting.

Source: McKenna, Mullins, Sheldon & Miklau, "AIM: An Adaptive and Iterative Mechanism for Differentially Private
Synthetic Data", PVLDB 15(11), 2022, §4 (Algorithm 2), with the budget split of OpenDP 0.16's ``dp.mbi.AIM``
(the lab ran that implementation before; it draws unseeded noise, see :mod:`._marginal_models`, which holds the
privacy unit, the accounting, the estimation and the sampler).

Math (ρ-zCDP, ``d`` columns; workload W = every 3-way marginal, candidates = W and all its subsets, candidate
``r`` weighted ``w_r = Σ_{s ∈ W} |r ∩ s|``):

* **one-way marginals**, half of ρ, as in MST, and a first graphical model fitted to them;
* **rounds** on the other half, at most ``T``, starting at a per-round budget ``ρ_t = (ρ/2)/T``:

  - *select* (a tenth of ``ρ_t``): the exponential mechanism (Gumbel report-noisy-max, L∞ sensitivity
    ``2 max_r w_r``) over the candidates whose model would still fit the size cap, with quality
    ``w_r (‖M_r(D) − M̂_r‖₁ − √(2/π) σ_t n_r)`` — the model's L1 error on ``r`` minus the error the coming
    measurement's noise would leave (``n_r`` cells);
  - *measure* (the other nine tenths): ``M_r(D) + N(0, σ_t²)`` per cell;
  - *generate*: mbi's mirror descent refits the Markov random field to every measurement so far, warm-started
    from the last model;
  - *anneal*: if the refit moved marginal ``r`` by at most the noise's expected L1 size ``√(2/π) σ_t n_r``, the
    next rounds get four times the budget; when at most two rounds' budget is left, the last round spends all of
    it (the paper's rule).
* the **size cap** grows with the budget spent: the junction tree of the model with ``r`` added may hold at most
  ``max_size · (ρ spent on rounds + ρ_t)/(ρ/2)`` megabytes (the paper's schedule, OpenDP's default 80 MB).

Page-sized parameters (documented departures from the paper's defaults, which the paper leaves free): the paper
runs ``T = 16 d`` rounds and refits with 1,000 mirror-descent iterations each round; every refit is a JAX
compilation of several seconds, so AIM took 600–800 s on the default synthetic game. The lab runs
``T = rounds_per_column · d`` rounds (2 d: fewer, larger measurements — the paper's annealing reaches such sizes
anyway when the first rounds are not significant), and scores the candidates by ``numpy.einsum`` over the model's
potentials (:func:`._marginal_models.model_marginals`) instead of a JAX compilation per candidate. Each refit keeps
mbi's 1,000 warm-started iterations (``round_iters``): the iterations cost little beside the compilation, and an
under-converged refit barely moves the selected marginal, so the annealing test would call every round
insignificant and spend the budget in a few rounds (with 100 iterations the 3-way error at n = 10⁵ was 19 times
MST's). The workload is the paper's (every 3-way marginal). The claim: (ε, δ)-DP with δ = 1/n² by default, through ρ = the largest budget
OpenDP's ``make_zCDP_to_approxDP`` converts to at most (ε, δ); the ledger of OpenDP's privacy maps (``ledger_``)
never exceeds it.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ._marginal_models import SCORE_LINF, MarginalModel, gaussian_scale, model_marginals
from .base import register_synthesizer


@register_synthesizer
class AIM(MarginalModel):
    name = "aim"
    title = "AIM (DP adaptive iterative marginals, OpenDP accounting)"
    measure_split = 0.9   # OpenDP's dp.mbi.AIM default: of each round's budget
    degree = 3            # the workload: every marginal of this many columns (the paper's experiments)
    max_size = 80.0       # MB of the largest model (the paper's and OpenDP's default)
    rounds_per_column = 2  # T = 2 d (the paper: 16 d; see the module docstring)
    round_iters = 1000    # warm-started mirror-descent iterations between rounds (mbi's default)

    def _select_and_measure(self, measurements, model, rho):
        from mbi.junction_tree import hypothetical_model_size  # lazy: imports JAX

        d = len(self.cardinalities_)
        cards = self.cardinalities_
        workload = list(itertools.combinations(range(d), min(self.degree, d)))
        subsets = sorted({s for q in workload for k in range(1, len(q) + 1) for s in itertools.combinations(q, k)})
        weight = {r: float(sum(len(set(r) & set(q)) for q in workload)) for r in subsets}
        cells = {r: int(np.prod([cards[j] for j in r])) for r in subsets}
        exact = {r: self.data_marginal(r) for r in subsets}
        rounds = max(1, self.rounds_per_column * d)
        rho_t, spent = rho / rounds, 0.0
        model_cliques = []
        while self.ledger_.remaining > rho * 1e-9:
            remaining = self.ledger_.remaining
            last = remaining <= 2 * rho_t
            if last:
                rho_t = remaining
            rho_measure = rho_t * self.measure_split
            rho_select = (rho_t - rho_measure) * (1 - 1e-9)  # a hair under: the two shares' float sum stays ≤ ρ_t
            sigma = gaussian_scale(rho_measure)
            cap = self.max_size * (spent + rho_t) / rho
            names = self._names
            candidates = [r for r in subsets if hypothetical_model_size(
                self._domain_mbi, model_cliques + [tuple(names[j] for j in r)]) <= cap]
            if not candidates:
                break
            fitted = model_marginals(model, names, candidates)
            expected = math.sqrt(2 / math.pi) * sigma
            scores = [weight[r] * (float(np.abs(exact[r] - fitted[r]).sum()) - expected * cells[r])
                      for r in candidates]
            pick = candidates[self.select(scores, rho_select, SCORE_LINF * max(weight[r] for r in candidates))]
            measurements = measurements + [self.measure(pick, rho_measure)]
            model_cliques.append(tuple(names[j] for j in pick))
            before = fitted[pick]
            model = self.estimate(measurements, iters=self.round_iters, potentials=model.potentials)
            moved = float(np.abs(model_marginals(model, names, [pick])[pick] - before).sum())
            if moved <= expected * cells[pick]:
                rho_t *= 4
            spent = rho - self.ledger_.remaining
            self._progress(0.05 + 0.85 * spent / rho, "fitting AIM: rounds")
            if last:
                break
        return measurements, model
