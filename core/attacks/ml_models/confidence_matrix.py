"""Confidence matrix and angular difference (Kabir, Craig & Mehnaz, arXiv 2504.04033, §5.1, Definitions 5.1–5.2,
Algorithms 1–2; spec §A8).

**Algorithm 1.** For every record ``i`` and candidate ``s_j``, query ``f(x_ns,i, s_j)``: ``C[i, j]`` is the
confidence (max class probability) and ``ŷ[i, j]`` the label. The prediction-correctness vector is
``v_i = 1`` iff ``ŷ[i, j] = y_i`` for **all** ``j`` (for binary S exactly CSMIA's case 2; spec Part C.4).

**Algorithm 2.** For each label value ``ℓ`` take the rows with ``v = 1`` and ``y = ℓ`` and fit the OLS line
``C[:, 0] ≈ a + m_ℓ·C[:, 1]`` (confidence with ``s = s₀`` against confidence with ``s = s₁``). The
**angular difference** between the two classes' lines is

    AD = arctan( |m₁ − m₀| / (1 + m₁·m₀) ) · sign(m₁ − m₀)   (radians).

Intuition (paper §4.2, Fig. 3): each class forms a comet-shaped cloud; when ``s`` and ``y`` are correlated in a
group the model leans on ``s`` for that group, the two clouds tilt apart and the angle grows with ``|ρ|``.
The attacker computes AD from black-box answers only — no sensitive value is needed.

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import numpy as np

MIN_ROWS = 8  # rows per class needed for a meaningful slope


def correctness(labels: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``v``: the model predicts the true label for every candidate value of s."""
    return (np.asarray(labels) == np.asarray(y).reshape(-1, 1)).all(axis=1)


def slope(x: np.ndarray, y: np.ndarray) -> float:
    """OLS slope of ``y`` on ``x`` (``np.polyfit`` degree 1); NaN if too few points or no spread in x."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.size < MIN_ROWS or np.ptp(x) < 1e-9:
        return float("nan")
    return float(np.polyfit(x, y, 1)[0])


def angular_difference(m0: float, m1: float) -> float:
    """``arctan(|m₁ − m₀| / (1 + m₁m₀))·sign(m₁ − m₀)``; NaN if a slope is undefined."""
    if not (np.isfinite(m0) and np.isfinite(m1)):
        return float("nan")
    d = m1 - m0
    return float(np.arctan(abs(d) / (1 + m1 * m0)) * np.sign(d)) if (1 + m1 * m0) != 0 else float(
        np.pi / 2 * np.sign(d))


def class_lines(confidence: np.ndarray, labels: np.ndarray, y: np.ndarray, mask=None) -> dict:
    """Per-class regression lines (slope, intercept, rows) on the ``v = 1`` rows inside ``mask``."""
    v = correctness(labels, y)
    if mask is not None:
        v = v & np.asarray(mask, bool)
    out = {}
    for ell in (0, 1):
        rows = v & (np.asarray(y) == ell)
        x, z = confidence[rows, 1], confidence[rows, 0]
        m = slope(x, z)
        b = float(np.mean(z) - m * np.mean(x)) if np.isfinite(m) else float("nan")
        out[ell] = {"slope": m, "intercept": b, "rows": int(rows.sum())}
    return out


def group_ad(confidence: np.ndarray, labels: np.ndarray, y: np.ndarray, groups: np.ndarray,
             n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """AD of every group (NaN where a class has fewer than :data:`MIN_ROWS` ``v = 1`` rows) and the rows used."""
    v = correctness(labels, y)
    ads = np.full(n_groups, np.nan)
    used = np.zeros(n_groups, int)
    y = np.asarray(y)
    for k in range(n_groups):
        in_g = groups == k
        m = []
        for ell in (0, 1):
            rows = v & in_g & (y == ell)
            m.append(slope(confidence[rows, 1], confidence[rows, 0]))
        ads[k] = angular_difference(m[0], m[1])
        used[k] = int((v & in_g).sum())
    return ads, used
