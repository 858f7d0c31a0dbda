"""Shared machinery of the location-aggregate membership game (spec seed001 §2, §8).

Everything works in "k-cell space": only the target's ``k`` positive cells are
materialised, because noise on the other cells is independent of membership and
ignored by every attack of the paper.

* :func:`noise` — i.i.d. per-cell DP noise, vectorised in float32 (Laplace by the
  inverse CDF, Gaussian by ``standard_normal``), scaled by the lead's mechanisms.
* :func:`sample_counts` — clean counts at the k cells of ``B`` aggregates, each the sum
  of ``G`` traces drawn *without replacement* from a pool (exact, O(U·B) where U is
  the number of pool users with at least one of the k cells).
* :class:`CellPool` — a pool of traces restricted to the k cells.

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DataError

_HALF_ULP = np.float32(2.0 ** -25)


def noise(mechanism: str, scale: float, shape, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. noise ``Lap(0, scale)`` or ``N(0, scale²)`` as float32.

    Laplace uses ``x = −b·sign(u)·ln(1 − 2|u|)`` with ``u`` uniform on the open
    interval (−½, ½) (24-bit grid shifted by half a step, so never infinite).
    """
    if mechanism == "laplace":
        u = rng.random(shape, dtype=np.float32)
        u -= np.float32(0.5) - _HALF_ULP
        a = np.abs(u)
        a *= np.float32(-2.0)
        np.log1p(a, out=a)
        a *= np.float32(-scale)
        return np.copysign(a, u, out=a)
    if mechanism == "gaussian":
        x = rng.standard_normal(shape, dtype=np.float32)
        x *= np.float32(scale)
        return x
    raise ValueError(f"unknown mechanism {mechanism!r}")


def balanced_labels(n: int) -> np.ndarray:
    """Membership bits of a balanced set: the first ⌊n/2⌋ are members (Alg. 1 step 1)."""
    b = np.zeros(n, dtype=np.int8)
    b[: n // 2] = 1
    return b


@dataclass
class CellPool:
    """A pool of ``size`` traces; ``rows`` holds the k-cell rows of the users with any one there."""

    size: int
    rows: np.ndarray  # (U, k) uint8

    @property
    def k(self) -> int:
        return self.rows.shape[1]

    def restrict(self, k: int) -> "CellPool":
        rows = self.rows[:, :k]
        return CellPool(self.size, rows[rows.any(axis=1)])

    def cell_hits(self) -> np.ndarray:
        """Number of pool users with a one at each cell."""
        return self.rows.sum(axis=0).astype(np.int64)


def sample_counts(pool: CellPool, group: int, n: int, rng: np.random.Generator,
                  chunk: int = 8192) -> np.ndarray:
    """Clean counts (n × k, float32) of ``n`` aggregates of ``group`` traces drawn from ``pool``.

    A uniform ``group``-subset of the pool includes the U relevant users with the
    sequential law ``P(user j in | c of the first j in) = (G − c)/(N − j)``, which
    is exact sampling without replacement restricted to those users.
    """
    if group > pool.size:
        raise DataError(f"group size {group} exceeds the pool of {pool.size} traces")
    rows = pool.rows.astype(np.float32)
    out = np.zeros((n, pool.k), dtype=np.float32)
    U = rows.shape[0]
    if U == 0:
        return out
    for s in range(0, n, chunk):
        b = min(chunk, n - s)
        taken = np.zeros(b, dtype=np.float32)
        inc = np.empty((b, U), dtype=np.float32)
        for j in range(U):
            p = (group - taken) / np.float32(pool.size - j)
            col = rng.random(b, dtype=np.float32) < p
            inc[:, j] = col
            taken += col
        out[s:s + b] = inc @ rows
    return out
