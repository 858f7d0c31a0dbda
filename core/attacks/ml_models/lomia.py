"""LOMIA, the label-only model inversion attribute inference attack (Mehnaz et al. 2022), as used by Kabir, Craig
& Mehnaz (arXiv 2504.04033) §4 / spec §A7.

1. Run CSMIA's *label* step: query ``f(x_ns, s_j)`` for every ``s_j`` and keep the **case-1** records, where
   exactly one candidate reproduces the known label ``y``; that candidate is taken as the record's ``s``.
2. Train an attack model on those records: input ``x_ns`` plus one-hot ``y``, target the matched ``s_j``
   ([C]: MLP(32, 16, 8), 40 epochs).
3. Predict ``s`` for **all** records with the attack model ([C], which also overwrites the case-1 answers;
   spec Part C.9). Without case-1 records of both values the attack guesses at random.

Only predicted labels are used — no confidences — which is why it still works against label-only APIs.

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import numpy as np

from ...models.target_model import train_mlp

ATTACK_EPOCHS = 40


def attack_features(X_ns: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x_ns`` with one-hot ``y`` appended (the input of LOMIA's and imputation's attack model)."""
    y = np.asarray(y).astype(int)
    return np.hstack([X_ns, np.eye(2, dtype=np.float32)[y]])


def lomia(case_labels: np.ndarray, X_ns: np.ndarray, y: np.ndarray, rng: np.random.Generator,
          seed: int = 42) -> tuple[np.ndarray, np.ndarray, dict]:
    """``case_labels``: the (n, 2) labels the black box gave with s = 0 and s = 1.

    Returns (prediction, score = P(s = 1), info with the number of case-1 training records).
    """
    match = np.asarray(case_labels) == np.asarray(y).reshape(-1, 1)
    case1 = match.sum(axis=1) == 1
    target = match.argmax(axis=1)
    info = {"case1_records": int(case1.sum())}
    if case1.sum() < 10 or np.unique(target[case1]).size < 2:
        score = rng.random(len(y))
        info["fallback"] = "random guess (too few case-1 records of both values)"
        return (score >= 0.5).astype(int), score, info
    F = attack_features(X_ns, y)
    clf, _ = train_mlp(F[case1], target[case1], ATTACK_EPOCHS, seed, what="training LOMIA's attack model")
    score = clf.predict_proba(F)[:, 1]
    return (score >= 0.5).astype(int), score, info
