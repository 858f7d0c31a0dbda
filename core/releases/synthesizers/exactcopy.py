"""ExactCopy: the "synthetic" release is the training records themselves, verbatim.

Not a generator anyone should use: the worst case a release can be, and the case proxy scores are known to
misjudge. SDMetrics' distance-to-closest-record score compares how close synthetic rows sit to the training
records and to a holdout set; on low-cardinality data many holdout records share their whole row with a training
record, so a verbatim copy is "as close to strangers as to the training data" and scores as protected, while the
attacks (inference, singling out, linkability against a control set) find the leak. The "exact copy" preset shows
both on the same release.

``sample(m)``: every training record once, in a random order, repeated whole as often as m allows, then the first
records of one more random order (so m = n releases the training data exactly, permuted).
"""
from __future__ import annotations

import numpy as np

from .base import Synthesizer, register_synthesizer


@register_synthesizer
class ExactCopy(Synthesizer):
    name = "exactcopy"
    title = "Exact copy (the training records verbatim)"
    in_paper = False

    def _fit(self, codes, rng):
        self._codes = np.ascontiguousarray(codes, dtype=np.int64)

    def _sample(self, m, rng):
        n = self._codes.shape[0]
        order = np.concatenate([rng.permutation(n) for _ in range(-(-m // n))])[:m]
        return self._codes[order]
