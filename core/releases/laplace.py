"""The Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006).

For a query with L1 sensitivity Δ₁, adding ``Lap(b)`` noise with ``b = Δ₁/ε`` to
each answer is ε-DP. Density ``p(z) = exp(−|z|/b) / (2b)``; variance ``2b²``.
"""
from __future__ import annotations

import numpy as np

from .mechanism import Mechanism, positive


class Laplace(Mechanism):
    name = "laplace"

    def __init__(self, epsilon: float, sensitivity: float = 1.0):
        self.epsilon = positive("epsilon", epsilon)
        self.sensitivity = positive("sensitivity", sensitivity)

    @property
    def scale(self) -> float:
        """Noise scale ``b = Δ₁/ε``."""
        return self.sensitivity / self.epsilon

    @property
    def std(self) -> float:
        return float(np.sqrt(2.0) * self.scale)

    @property
    def privacy(self) -> tuple[float, float]:
        return (self.epsilon, 0.0)

    def release(self, values, rng):
        values = np.asarray(values, dtype=float)
        return values + rng.laplace(0.0, self.scale, size=values.shape)
