"""Linkability: the synthetic data tie together two halves of what is known about a person.

Source: Giomi et al., "A Unified Framework for Quantifying Privacy Risk in Synthetic Data" (PoPETs 2023), §4.2,
after the Article 29 Working Party's Opinion 05/2014 (linkability: "the ability to link at least two records
concerning the same data subject").

The attacker holds two tables about the same people that share no column — one with the columns ``A``, one with
``B`` (here: the known quasi-identifiers split into their first and second half) — and wants to know which row
of one is which row of the other. For each target record x, take its ``n_neighbors`` closest synthetic rows on the
columns A and, separately, on the columns B; the link succeeds if the two sets share a synthetic row (that row
then bridges both halves of x). Distance: the number of columns that differ (Hamming, the categorical part of the
Gower distance Anonymeter uses; every column here is a category). Ties at the k-th distance are broken by the
synthetic row's position, which is uniform (the sample is stored in a random order).

``n_neighbors`` matters: on a table of verbatim copies, a person's copy is at distance 0 on both halves, but so
are everyone who shares either half; with ``n_neighbors = 1`` the first zero-distance row on A and on B are rarely
the same one (Anonymeter's default scores a full copy about 0.06), with 10 they usually are. The lab's default is
:data:`N_NEIGHBORS`. The success rate on training records against control records gives the risk
(:func:`core.measure.synthetic_risk.control_risk`).
"""
from __future__ import annotations

import numpy as np

N_NEIGHBORS = 10
CHUNK = 256  # targets per block of the distance matrix (CHUNK × synthetic rows × 8 bytes)


def split_columns(d: int) -> tuple[list[int], list[int]]:
    """The two halves of the ``d`` known columns: the first ⌈d/2⌉ and the rest."""
    half = (d + 1) // 2
    return list(range(half)), list(range(half, d))


def _nearest(S: np.ndarray, X: np.ndarray, k: int) -> np.ndarray:
    """Indices (rows of ``S``) of the ``k`` nearest synthetic rows to each row of ``X`` by Hamming distance,
    ties broken by row position: the ``k`` smallest keys ``distance · m + position`` (a strict order)."""
    m = S.shape[0]
    k = min(k, m)
    out = np.empty((X.shape[0], k), dtype=np.int64)
    # 32-bit keys when they fit (a third of the time of 64-bit ones: half the memory to write and partition)
    kind = np.int32 if (S.shape[1] + 1) * m < 2**31 else np.int64
    order = np.arange(m, dtype=kind)
    columns = np.ascontiguousarray(S.T)
    for start in range(0, X.shape[0], CHUNK):
        block = X[start:start + CHUNK]
        if k == m:
            out[start:start + CHUNK] = order
            continue
        key = np.zeros((block.shape[0], m), dtype=kind)
        for j in range(S.shape[1]):
            key += block[:, j:j + 1] != columns[j][None, :]
        key *= m
        key += order
        out[start:start + CHUNK] = np.argpartition(key, k - 1, axis=1)[:, :k]
    return out


def _nearest_by_value(S: np.ndarray, X: np.ndarray, k: int) -> np.ndarray:
    """:func:`_nearest` for every row of ``X``, computed once per distinct row: two targets with the same values
    on these columns have the same neighbours (distance and tie-break depend on the values alone), and half of a
    few categorical quasi-identifiers takes a few hundred distinct values among thousands of targets."""
    if X.shape[0] == 0:
        return np.empty((0, min(k, S.shape[0])), dtype=np.int64)
    distinct, back = np.unique(X, axis=0, return_inverse=True)
    return _nearest(S, distinct, k)[back.reshape(-1)]


def linkability_successes(S: np.ndarray, X: np.ndarray, n_neighbors: int = N_NEIGHBORS) -> np.ndarray:
    """One bool per row of ``X`` (the targets' known columns, same order as ``S``'s first columns): do its
    ``n_neighbors`` nearest synthetic rows on the first half and on the second half of the columns share a row?"""
    S = np.asarray(S, dtype=np.int64)
    X = np.asarray(X, dtype=np.int64)
    a, b = split_columns(X.shape[1])
    if not b:
        return np.zeros(X.shape[0], dtype=bool)
    near_a = _nearest_by_value(S[:, a], X[:, a], n_neighbors)
    near_b = _nearest_by_value(S[:, b], X[:, b], n_neighbors)
    return np.array([bool(np.intersect1d(ra, rb, assume_unique=True).size) for ra, rb in zip(near_a, near_b)])
