"""Least-squares decoder for subset-sum reconstruction (CS208 lecture 2, slide 9, algorithm 4).

``x̂ = argmin_x ‖a − M_S x‖²`` over ``ℝ^n`` (``numpy.linalg.lstsq``, minimum-norm
solution when ``M_S`` is rank-deficient), then the caller rounds at ½. "Also
works for random S_j's, and is much faster than LP" — but it ignores the box
``0 ≤ x ≤ 1``, so at ``m = n`` it is ill-conditioned under noise (spec B3).

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import numpy as np


def solve_ls(queries, answers) -> np.ndarray:
    M = queries.toarray() if hasattr(queries, "toarray") else np.asarray(queries, dtype=float)
    x, *_ = np.linalg.lstsq(M, np.asarray(answers, dtype=float), rcond=None)
    return x
