"""Shared numerics for the generators: normalising noisy histograms and vectorised categorical draws.

Not a generator (no registration); the files named after generators import from here so no sampling or
normalisation code is duplicated.
"""
from __future__ import annotations

import numpy as np


def normalise_rows(counts: np.ndarray) -> np.ndarray:
    """Turn (possibly noisy) counts into probability rows along the last axis.

    Negative entries are clipped to 0 and each row is divided by its sum; a row whose sum is 0 becomes
    uniform. This is DataSynthesizer's ``normalize_given_distribution`` rule (Ping et al. 2017), which
    IndHist, BayNet and PrivBayes inherit in the paper (App. A).
    """
    p = np.clip(np.asarray(counts, dtype=np.float64), 0.0, None)
    total = p.sum(axis=-1, keepdims=True)
    k = p.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0, p / np.where(total > 0, total, 1.0), 1.0 / k)
    return out


def cumulative(probs: np.ndarray) -> np.ndarray:
    """Row-wise CDFs of probability rows (last axis), with the last entry forced to exactly 1."""
    cdf = np.cumsum(probs, axis=-1)
    cdf[..., -1] = 1.0
    return cdf


def draw_from_rows(cdf: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One categorical draw per entry of ``rows``: value ``v`` with probability ``P[rows[i], v]``.

    ``cdf`` is a ``(R, K)`` table of row CDFs (see :func:`cumulative`). All draws are done by a single
    ``searchsorted`` on the flattened table shifted by the row number: row ``r``'s CDF lives in
    ``[r, r + 1]``, so ``u + r`` (``u ~ U[0, 1)``) falls into row ``r``'s segment at the sampled value.
    Cost ``O(len(rows) · log(R·K))``, no Python loop over records.
    """
    cdf = np.asarray(cdf, dtype=np.float64)
    n_rows, k = cdf.shape
    rows = np.asarray(rows, dtype=np.int64)
    flat = (cdf + np.arange(n_rows, dtype=np.float64)[:, None]).ravel()
    u = rng.random(rows.shape[0])
    idx = np.searchsorted(flat, rows + u, side="right")
    return np.clip(idx - rows * k, 0, k - 1)

