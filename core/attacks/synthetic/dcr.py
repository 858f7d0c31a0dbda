"""Adv_dcr: guess the secret of the synthetic record closest to the target (distance to closest record).

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §4.3, after Chen et al.'s GAN-Leaks; spec
``docs/specs/seed002_linear_recon_sdg.md`` §4 and §11 A8 (paper semantics by default).

Paper version (default):

1. collapse S by QIs: every distinct QI vector z⁻ of S keeps one secret, the **mode** of the secrets of its
   rows (ties broken uniformly at random);
2. ``d_b = min_{z ∈ S_collapsed} ‖(x_u | b) − z‖₂`` for b ∈ {0, 1}, with the Euclidean distance on the
   raw integer category codes of all d columns (as the authors' code);
3. output ``argmin_b d_b`` (uniformly random on a tie). The ROC score is ``d_0 / (d_0 + d_1)`` (½ on a tie),
   larger meaning "more likely 1".

``variant="code"`` reproduces the authors' code instead: no collapse; if an exact copy of ``(x_u|0)`` or
``(x_u|1)`` is in S, the more frequent one wins (ties → 1); otherwise ``0 if d_0 < d_1 else 1``.
"""
from __future__ import annotations

import numpy as np
from sklearn.neighbors import NearestNeighbors


def _group_ids(Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unique QI rows, group id of every row), via one mixed-radix key when it fits in int64."""
    hi = Q.max(axis=0) + 1 if Q.size else np.ones(Q.shape[1], np.int64)
    if float(np.prod(hi.astype(float))) < 2**62:
        strides = np.ones(Q.shape[1], dtype=np.int64)
        for i in range(Q.shape[1] - 2, -1, -1):
            strides[i] = strides[i + 1] * hi[i + 1]
        key = Q @ strides
        uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
        return Q[first], inv.ravel()
    uniq, inv = np.unique(Q, axis=0, return_inverse=True)
    return uniq, inv.ravel()


def _collapsed(Q: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The paper's collapsed synthetic table: each distinct QI row once, with its majority secret (a tie drawn
    at random from ``rng``)."""
    uniq, gid = _group_ids(Q)
    counts = np.bincount(2 * gid + y, minlength=2 * len(uniq)).reshape(len(uniq), 2)
    mode = (counts[:, 1] > counts[:, 0]).astype(np.int64)
    tie = counts[:, 1] == counts[:, 0]
    if tie.any():
        mode[tie] = rng.integers(0, 2, size=int(tie.sum()))
    return uniq, mode


def dcr_attack(S: np.ndarray, x_u: np.ndarray, rng: np.random.Generator, variant: str = "paper") -> tuple[int, float]:
    """(guess, score) for the target with QI codes ``x_u`` from synthetic rows ``S`` (secret last)."""
    S = np.asarray(S, dtype=np.int64)
    x_u = np.asarray(x_u, dtype=np.int64)
    Q, y = S[:, :-1], S[:, -1]
    if variant == "code":
        d2 = ((Q - x_u) ** 2).sum(axis=1).astype(float)
        exact = d2 == 0
        if exact.any():
            n0, n1 = int((y[exact] == 0).sum()), int((y[exact] == 1).sum())
            return (0 if n0 > n1 else 1), (n1 / (n0 + n1))
        d0 = float(np.sqrt(np.min(d2 + (y - 0) ** 2)))
        d1 = float(np.sqrt(np.min(d2 + (y - 1) ** 2)))
        return (0 if d0 < d1 else 1), d0 / (d0 + d1)
    uniq, mode = _collapsed(Q, y, rng)
    d2 = ((uniq - x_u) ** 2).sum(axis=1).astype(float)
    d0 = float(np.sqrt(np.min(d2 + mode.astype(float) ** 2)))
    d1 = float(np.sqrt(np.min(d2 + (1.0 - mode) ** 2)))
    if d0 == d1:
        return int(rng.integers(0, 2)), 0.5
    return (0 if d0 < d1 else 1), d0 / (d0 + d1)


def dcr_attack_many(S: np.ndarray, X: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The paper version of :func:`dcr_attack` for many targets at once: (guesses, scores) for the QI codes ``X``
    (one row per target), against one collapsed copy of ``S``. The nearest collapsed row to ``(x | b)`` is found
    with scikit-learn's exact nearest-neighbour search on the same integer codes (Euclidean distance)."""
    S = np.asarray(S, dtype=np.int64)
    X = np.asarray(X, dtype=np.int64)
    Q, y = S[:, :-1], S[:, -1]
    uniq, mode = _collapsed(Q, y, rng)
    index = NearestNeighbors(n_neighbors=1).fit(np.column_stack([uniq, mode]).astype(float))
    d = [index.kneighbors(np.column_stack([X, np.full(len(X), b)]).astype(float))[0][:, 0] for b in (0, 1)]
    d0, d1 = d
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(d0 + d1 > 0, d0 / (d0 + d1), 0.5)
    guesses = (d1 < d0).astype(np.int64)
    even = d0 == d1
    if even.any():
        guesses[even] = rng.integers(0, 2, size=int(even.sum()))
        scores[even] = 0.5
    return guesses, scores
