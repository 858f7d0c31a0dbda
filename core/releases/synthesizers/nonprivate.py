"""NonPrivate: synthetic data = the real records resampled with replacement.

Source: Annamalai et al. (USENIX Security 2024), §5.2 and Table 1 ("NonPrivate": ``df.sample(m,
replace=True)``); ``docs/specs/seed002_linear_recon_sdg.md`` §5. It is the upper bound on leakage: every
synthetic record is a real one, so S's k-way marginals are unbiased estimates of D's with sampling error
O(1/√m), and the reconstruction attack approaches exact answers as m grows.
"""
from __future__ import annotations

import numpy as np

from .base import Synthesizer, register_synthesizer


@register_synthesizer
class NonPrivate(Synthesizer):
    name = "nonprivate"
    title = "NonPrivate (resample the real records)"

    def _fit(self, codes, rng):
        self._codes = np.ascontiguousarray(codes, dtype=np.int64)

    def _sample(self, m, rng):
        return self._codes[rng.integers(0, self._codes.shape[0], size=m)]
