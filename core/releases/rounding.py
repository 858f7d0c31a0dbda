"""Rounding every answer to the nearest multiple of R (CS208 lecture 2 / PS2 defence).

``M(a) = R·round(a/R)``; the error is at most R/2 per answer. Deterministic, so
it gives no differential-privacy guarantee.
"""
from __future__ import annotations

import numpy as np

from .mechanism import Mechanism, positive


class Rounding(Mechanism):
    name = "rounding"

    def __init__(self, base: float):
        self.base = positive("defense_level", base)

    def release(self, values, rng):
        values = np.asarray(values, dtype=float)
        return self.base * np.round(values / self.base)
