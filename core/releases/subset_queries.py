"""Subset-sum queries for reconstruction attacks (CS208 lecture 2, slides 7–9; PS2).

A subset-sum query ``q_S(x) = Σ_{i∈S} x_i`` is a row of the 0/1 matrix ``M_S``.

* ``random-subsets``: each person is in each ``S_j`` independently with
  probability ½ (the setting of Dinur–Nissim and of the slides' "exact releases
  (random queries)").
* ``hash``: without identifiers, the attacker defines sets by a predicate on the
  public attributes. PS2 uses ``q(pub_i) = ((pub_i · d) mod 2003) mod 2`` with
  ``d`` uniform in ``{0..2002}^k``; people with identical public attributes always
  land in the same sets and cannot be told apart.
"""
from __future__ import annotations

import numpy as np

from ..errors import ParameterError

HASH_PRIME = 2003
FAMILIES = ("random-subsets", "hash")


def random_subsets(n: int, m: int, rng: np.random.Generator, p: float = 0.5) -> np.ndarray:
    """``m × n`` 0/1 matrix, every entry Bernoulli(p)."""
    return (rng.random((m, n)) < p).astype(np.float64)


def hash_predicates(public: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m × n`` 0/1 matrix of PS2 hash predicates over integer public attributes ``(n, k)``."""
    public = np.asarray(public, dtype=np.int64)
    d = rng.integers(0, HASH_PRIME, size=(m, public.shape[1]))
    return (((d @ public.T) % HASH_PRIME) % 2).astype(np.float64)


def make_queries(family: str, n: int, m: int, rng: np.random.Generator,
                 public: np.ndarray | None = None) -> np.ndarray:
    if family == "random-subsets":
        return random_subsets(n, m, rng)
    if family == "hash":
        if public is None:
            raise ParameterError("queries", "hash queries need public attributes")
        return hash_predicates(public, m, rng)
    raise ParameterError("queries", f"expected one of {'|'.join(FAMILIES)}, got {family!r}")
