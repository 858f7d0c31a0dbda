"""Base class of a release mechanism.

A mechanism turns exact query answers into released ones and states the
privacy it claims as ``(epsilon, delta)`` (``(inf, 0)`` for heuristics that
give no differential-privacy guarantee, such as rounding or subsampling).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError


class Mechanism:
    name = "mechanism"

    @property
    def privacy(self) -> tuple[float, float]:
        return (math.inf, 0.0)

    def release(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Perturb exact answers ``values``."""
        raise NotImplementedError

    def answer(self, queries, data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Answer the linear queries ``queries @ data`` (e.g. subset sums) through the mechanism."""
        return self.release(np.asarray(queries @ data, dtype=float), rng)

    def describe(self) -> str:
        eps, delta = self.privacy
        if math.isinf(eps):
            return f"{self.name}: no DP guarantee"
        return f"{self.name}: ({eps:g}, {delta:g})-DP"


class Identity(Mechanism):
    """Exact answers (no protection)."""

    name = "none"

    def release(self, values, rng):
        return np.asarray(values, dtype=float).copy()


def positive(name: str, value: float, upper: float | None = None) -> float:
    """Validate a strictly positive finite parameter."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, f"expected a number > 0, got {value!r}") from None
    if not math.isfinite(value) or value <= 0 or (upper is not None and value >= upper):
        rng = f"in (0, {upper:g})" if upper is not None else "> 0"
        raise ParameterError(name, f"expected a number {rng}, got {value!r}")
    return value
