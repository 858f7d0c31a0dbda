"""IndHist: every attribute drawn independently from its own (Laplace-noised) 1-D histogram.

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §5.2 and App. A ("IndHist, for 'independent
histogram', is a baseline ... independently sampling from the individual distribution of each attribute");
the paper runs DataSynthesizer's *independent attribute mode* (Ping et al. 2017). Spec
``seed002_linear_recon_sdg.md`` §5 and §11-A4.

Math. For a table of ``n`` records and ``d`` attributes, column ``j`` with domain size ``K_j``:

* empirical frequencies ``p_j(v) = #{i : x_ij = v} / n``;
* DataSynthesizer's default ``ε = 0.1`` (the wrapper in the paper's code never passes ``epsilon``, so the
  default applies): Laplace noise ``p̃_j(v) = p_j(v) + Lap(2d / (nε))`` on every cell — the budget ``ε/d``
  per attribute and L1 sensitivity ``2/n`` of a frequency vector when one record is replaced — then
  negatives clipped to 0 and the vector renormalised (uniform if nothing is left). The noise covers every
  value of the (public) domain; DataSynthesizer histograms only the values that occur, which itself
  reveals which values are present;
* a synthetic record is ``(v_1, …, v_d)`` with ``v_j ~ p̃_j`` independently, so every association
  between attributes is lost: ``P_S(v_a, v_b) = p̃_a(v_a) p̃_b(v_b)``.

Decision (docs/specs/seed002_linear_recon_sdg.md §11-A4): IndHist is exposed as an **ε-DP generator** whose
``epsilon`` defaults to **0.1**, the value the paper actually ran (its text presents IndHist as a plain baseline,
but the noise was there: "de facto ε = 0.1"). The guarantee is ε-DP for replace-one neighbours with ``n`` public, by
sequential composition over the ``d`` histograms. A large ``epsilon`` (e.g. 10⁴) makes the noise negligible and
gives the noiseless histogram the paper's text describes. The noise scale at ε = 0.1 is large (0.2 per probability
for ``d = 10``, ``n = 1000``), which is why IndHist's 1-way marginals are far from the data's in the paper's utility
tables.
"""
from __future__ import annotations

import numpy as np

from ._categorical import cumulative, draw_from_rows, normalise_rows
from .base import Synthesizer, register_synthesizer

DATASYNTHESIZER_DEFAULT_EPSILON = 0.1


@register_synthesizer
class IndHist(Synthesizer):
    name = "indhist"
    title = "IndHist (independent 1-D histograms)"
    dp = True

    def __init__(self, epsilon: float = DATASYNTHESIZER_DEFAULT_EPSILON):
        super().__init__(epsilon=epsilon, delta=0.0)

    def _fit(self, codes, rng):
        n, d = codes.shape
        scale = 2.0 * d / (n * self.epsilon)
        self.noise_scale_ = scale
        self.marginals_ = []
        for j, k in enumerate(self.cardinalities_):
            freq = np.bincount(codes[:, j], minlength=k)[:k] / n
            self.marginals_.append(normalise_rows(freq + rng.laplace(0.0, scale, size=k)))

    def _sample(self, m, rng):
        rows = np.zeros(m, dtype=np.int64)
        return np.column_stack([draw_from_rows(cumulative(p[None, :]), rows, rng) for p in self.marginals_])
