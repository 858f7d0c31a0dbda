"""A release of fixed counting queries over categorical records (DeSIA paper, §2.1).

A counting query ``q = (V_1^q, …, V_n^q)`` with ``V_i^q ⊆ 𝒱_i`` answers
``q(D) = Σ_u 𝟙(∧_i r_u^i ∈ V_i^q)``. Records are integer-coded (value ``v`` of
attribute ``i`` is ``0 ≤ v < cardinalities[i]``); each query is stored as one
boolean mask per attribute, or ``None`` where the attribute is unconstrained.
The sensitive attribute is the last one by convention.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DataError


@dataclass
class AggregateRelease:
    attributes: tuple[str, ...]
    cardinalities: tuple[int, ...]
    masks: list[tuple[np.ndarray | None, ...]]
    answers: np.ndarray
    size: int
    epsilon: float = 0.0  # 0 means the answers are exact counts

    def __post_init__(self):
        self.answers = np.asarray(self.answers, dtype=float)
        if len(self.attributes) != len(self.cardinalities):
            raise DataError("attributes and cardinalities differ in length")
        if len(self.masks) != len(self.answers):
            raise DataError(f"{len(self.masks)} queries but {len(self.answers)} answers")
        for q in self.masks:
            if len(q) != len(self.cardinalities):
                raise DataError("every query needs one mask (or None) per attribute")
            for mask, card in zip(q, self.cardinalities):
                if mask is not None and np.shape(mask) != (card,):
                    raise DataError(f"a query mask has shape {np.shape(mask)}, expected ({card},)")

    @property
    def n_queries(self) -> int:
        return len(self.masks)

    def membership(self, records: np.ndarray) -> np.ndarray:
        """Boolean matrix ``Mem[record, query]``: record satisfies query (so ``Q(D) = Mem.sum(0)``)."""
        records = np.asarray(records)
        if records.ndim != 2 or records.shape[1] != len(self.cardinalities):
            raise DataError(f"records must have shape (n, {len(self.cardinalities)})")
        mem = np.ones((records.shape[0], self.n_queries), dtype=bool)
        for j, q in enumerate(self.masks):
            for i, mask in enumerate(q):
                if mask is not None:
                    mem[:, j] &= mask[records[:, i]]
        return mem

    def evaluate(self, records: np.ndarray) -> np.ndarray:
        """Exact answers ``Q(records)`` as integers."""
        return self.membership(records).sum(axis=0)
