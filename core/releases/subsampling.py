"""Answering from a random subsample (CS208 lecture 2 / PS2 defence).

Draw ``t`` of the ``n`` people uniformly without replacement and answer each
subset-sum query on them, scaled by ``n/t``: ``a_j = (n/t)·Σ_{i∈S_j∩T} x_i``.
The answer is unbiased; its error is sampling error of order ``√(n·(n−t)/t)``.
Secret subsampling amplifies a DP mechanism's guarantee, but on its own it is
not differentially private.
"""
from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from .mechanism import Mechanism


class Subsampling(Mechanism):
    name = "subsample"

    def __init__(self, t: int, n: int):
        if int(n) < 1:
            raise ParameterError("n", f"expected an int >= 1, got {n!r}")
        if not (1 <= int(t) <= int(n)) or float(t) != int(t):
            raise ParameterError("defense_level", f"subsample size t must be an int in [1, n={n}], got {t!r}")
        self.t, self.n = int(t), int(n)

    def release(self, values, rng):
        raise TypeError("Subsampling needs the data: use answer(queries, data, rng)")

    def answer(self, queries, data, rng):
        keep = np.zeros(self.n, dtype=float)
        keep[rng.choice(self.n, size=self.t, replace=False)] = 1.0
        return (self.n / self.t) * np.asarray(queries @ (np.asarray(data, dtype=float) * keep), dtype=float)
