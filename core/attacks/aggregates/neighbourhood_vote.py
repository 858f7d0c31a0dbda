"""Turning K tentative reconstructions into AIA / MIA scores (DeSIA paper §2.5 and §6.3; spec §4.3–4.4).

AIA — L-neighbourhood majority vote. Pool the records of all K reconstructions ``D'_1..D'_K`` (a multiset)
and, for a target with non-sensitive values ``r*^{A'}``, let

    N_L = { r ∈ ∪_j D'_j : Σ_{i=1}^{n−1} 𝟙(r^i ≠ r*^i) = L }.

Start at ``L = 0`` and increase ``L`` until ``N_L`` is non-empty (at worst ``L = n−1``, every record),
i.e. take the records at minimum Hamming distance on ``A'``. The prediction is
``argmax_v #{r ∈ N_L : r^n = v}`` with ties broken uniformly at random; the score is the share of the
positive value in ``N_L``.

MIA — the fraction of the K reconstructions whose 0-neighbourhood of the **full** target record is
non-empty (i.e. that contain the exact record); the paper predicts "member" when that count is > K/2.

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import DataError

__all__ = ["aia_scores", "mia_scores", "pool"]

_CHUNK_ELEMENTS = 4_000_000


def pool(reconstructions: np.ndarray | Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Stack K reconstructions into one record array; also return each record's reconstruction index."""
    if isinstance(reconstructions, np.ndarray) and reconstructions.ndim == 3:
        k, s, d = reconstructions.shape
        return reconstructions.reshape(k * s, d), np.repeat(np.arange(k), s)
    parts = [np.asarray(r) for r in reconstructions]
    if not parts:
        raise DataError("no reconstructions to vote over")
    if any(p.ndim != 2 or p.shape[1] != parts[0].shape[1] for p in parts):
        raise DataError("every reconstruction must be a 2-D record array with the same columns")
    return np.concatenate(parts), np.repeat(np.arange(len(parts)), [len(p) for p in parts])


def aia_scores(reconstructions, targets_nonsensitive: np.ndarray, rng: np.random.Generator,
               positive: int = 1, n_values: int | None = None, return_level: bool = False):
    """Smallest non-empty L-neighbourhood vote over the pooled reconstructions.

    Parameters
    ----------
    reconstructions : array (K, s, d) or sequence of (s_j, d) arrays; the last column is sensitive.
    targets_nonsensitive : array (T, d−1) of the targets' non-sensitive values.
    rng : random generator for the tie-breaks.
    positive : the sensitive value whose share is the score.
    n_values : size of the sensitive domain (default: inferred, at least 2).
    return_level : also return the neighbourhood level L used for each target.

    Returns
    -------
    scores (T,) float in [0, 1], predictions (T,) int [, levels (T,) int].
    """
    records, _ = pool(reconstructions)
    if records.shape[0] == 0:
        raise DataError("the reconstructions contain no records")
    targets = np.asarray(targets_nonsensitive)
    if targets.ndim != 2 or targets.shape[1] != records.shape[1] - 1:
        raise DataError(f"targets_nonsensitive must have shape (T, {records.shape[1] - 1})")
    sens = records[:, -1].astype(np.int64)
    if sens.min() < 0:
        raise DataError("sensitive values must be non-negative integer codes")
    if n_values is None:
        n_values = max(int(sens.max()) + 1, int(positive) + 1, 2)
    elif sens.max() >= n_values or positive >= n_values:
        raise DataError(f"sensitive values must lie in 0..{n_values - 1}")
    # distinct non-sensitive rows with the count of each sensitive value
    uniq, inv = np.unique(records[:, :-1], axis=0, return_inverse=True)
    inv = inv.ravel()
    counts = np.bincount(inv * n_values + sens, minlength=uniq.shape[0] * n_values)
    counts = counts.reshape(uniq.shape[0], n_values).astype(float)

    n_t = targets.shape[0]
    neigh = np.empty((n_t, n_values))
    levels = np.empty(n_t, dtype=np.int64)
    step = max(1, _CHUNK_ELEMENTS // max(1, uniq.shape[0]))
    for lo in range(0, n_t, step):
        t = targets[lo:lo + step]
        dist = np.zeros((t.shape[0], uniq.shape[0]), dtype=np.int16)
        for i in range(t.shape[1]):
            dist += t[:, i, None] != uniq[None, :, i]
        lvl = dist.min(axis=1)
        levels[lo:lo + step] = lvl
        neigh[lo:lo + step] = (dist == lvl[:, None]).astype(float) @ counts
    scores = neigh[:, positive] / neigh.sum(axis=1)
    top = neigh == neigh.max(axis=1, keepdims=True)
    predictions = np.argmax(top * (1.0 + rng.random(top.shape)), axis=1)
    if return_level:
        return scores, predictions, levels
    return scores, predictions


def mia_scores(reconstructions, targets: np.ndarray) -> np.ndarray:
    """Fraction of the K reconstructions that contain each full target record exactly (shape (T,))."""
    records, owner = pool(reconstructions)
    targets = np.asarray(targets)
    if targets.ndim != 2 or targets.shape[1] != records.shape[1]:
        raise DataError(f"targets must have shape (T, {records.shape[1]})")
    k = len(reconstructions)
    both = np.concatenate([records, targets.astype(records.dtype)])
    _, ids = np.unique(both, axis=0, return_inverse=True)
    ids = ids.ravel()
    rec_ids, tgt_ids = ids[:records.shape[0]], ids[records.shape[0]:]
    present = np.zeros((k, int(ids.max()) + 1), dtype=bool)
    present[owner, rec_ids] = True
    return present[:, tgt_ids].mean(axis=0)
