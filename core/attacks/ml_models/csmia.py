"""CSMIA, the confidence-score-based model inversion attribute inference attack (Mehnaz et al. 2022), as used by
Kabir, Craig & Mehnaz (arXiv 2504.04033) §4 / spec §A7.

For a target record with known non-sensitive attributes ``x_ns`` and known label ``y``, query the black box once
per candidate value ``s_j`` of the sensitive attribute and get ``(ŷ_j, c_j)`` (label, max class probability).
With ``k = #{j : ŷ_j = y}``:

* **case 1** (``k = 1``): exactly one candidate reproduces the true label → guess that ``s_j``;
* **case 2** (``k > 1``): every candidate reproduces it → guess ``argmax_j c_j`` (the most confident);
* **case 3** (``k = 0``): none does → guess ``argmin_j c_j`` (the least confidently wrong).

Ties in ``c`` are broken by adding 1e-6 to a random column ([C]). ``|S|`` queries per record (2 here).
The attack needs no prior of ``s`` and no auxiliary data.

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class CSMIAResult:
    prediction: np.ndarray  # guessed s (0/1)
    case: np.ndarray        # 1, 2 or 3
    score: np.ndarray       # signed evidence for s = 1 (> 0 ⇔ guess 1), for ROC / empirical ε
    labels: np.ndarray      # (n, 2) predicted label with s = 0, s = 1
    confidence: np.ndarray  # (n, 2) confidence with s = 0, s = 1


def csmia_from_queries(labels: np.ndarray, confidence: np.ndarray, y: np.ndarray,
                       rng: np.random.Generator) -> CSMIAResult:
    """The case logic on a precomputed (n, |S|) table of black-box answers (binary S)."""
    labels = np.asarray(labels)
    conf = np.asarray(confidence, dtype=float).copy()
    y = np.asarray(y).reshape(-1, 1)
    tie = conf[:, 0] == conf[:, 1]
    if tie.any():
        cols = rng.integers(0, conf.shape[1], tie.sum())
        conf[np.flatnonzero(tie), cols] += 1e-6
    match = labels == y
    k = match.sum(axis=1)
    pred = np.where(k == 1, match.argmax(axis=1),
                    np.where(k > 1, conf.argmax(axis=1), conf.argmin(axis=1)))
    case = np.where(k == 1, 1, np.where(k > 1, 2, 3))
    margin = np.abs(conf[:, 1] - conf[:, 0]) + np.where(case == 1, 1.0, 0.0)
    score = np.where(pred == 1, margin, -margin)
    return CSMIAResult(pred.astype(int), case.astype(int), score, labels, conf)


def csmia(model, X_ns: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> CSMIAResult:
    """Run CSMIA against ``model`` (anything with ``query(X_ns, s) -> (labels, confidences)``)."""
    l0, c0 = model.query(X_ns, 0)
    l1, c1 = model.query(X_ns, 1)
    return csmia_from_queries(np.column_stack([l0, l1]), np.column_stack([c0, c1]), y, rng)
