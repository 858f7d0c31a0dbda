"""Adv_infer: a classifier trained on the synthetic data predicts the target's secret from its QIs.

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §4.3, after Stadler et al. (2022); spec
``docs/specs/seed002_linear_recon_sdg.md`` §4 and §11 A19.

Train ``C_θ : ∏ X_i → {0,1}`` on all m synthetic rows (features: the integer QI codes used as ordinal
values; label: the secret) and output ``C_θ(x_u)``. ``C_θ`` is scikit-learn's
``RandomForestClassifier()`` with its defaults (100 trees, Gini, unlimited depth), as in the authors' code.
The ROC score is ``P̂(y = 1 | x_u)`` (the code used P(y = 0), which inverts the AUC; decision A19). If S holds
a single class (possible at m = 10), that class is predicted with a constant score.
"""
from __future__ import annotations

import numpy as np
from sklearn.ensemble import RandomForestClassifier


def infer_attack(S: np.ndarray, x_u: np.ndarray, rng: np.random.Generator,
                 n_estimators: int = 100) -> tuple[int, float]:
    """(guess, score = P̂(y=1)) for the target's QI codes ``x_u`` from synthetic rows ``S`` (secret last)."""
    S = np.asarray(S, dtype=np.int64)
    Q, y = S[:, :-1], S[:, -1]
    classes = np.unique(y)
    if classes.size == 1:
        c = int(classes[0])
        return c, float(c)
    clf = RandomForestClassifier(n_estimators=n_estimators, n_jobs=1,
                                 random_state=int(rng.integers(0, 2**31 - 1)))
    clf.fit(Q, y)
    p1 = float(clf.predict_proba(np.asarray(x_u, dtype=np.int64).reshape(1, -1))[0, list(clf.classes_).index(1)])
    return int(p1 >= 0.5), p1


def infer_attack_many(S: np.ndarray, X: np.ndarray, rng: np.random.Generator,
                      n_estimators: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """:func:`infer_attack` for many targets at once: one forest trained on ``S``, (guesses, P̂(y=1)) for every
    row of the QI codes ``X``."""
    S = np.asarray(S, dtype=np.int64)
    X = np.asarray(X, dtype=np.int64)
    Q, y = S[:, :-1], S[:, -1]
    classes = np.unique(y)
    if classes.size == 1:
        c = int(classes[0])
        return np.full(len(X), c, dtype=np.int64), np.full(len(X), float(c))
    clf = RandomForestClassifier(n_estimators=n_estimators, n_jobs=1,
                                 random_state=int(rng.integers(0, 2**31 - 1)))
    clf.fit(Q, y)
    p1 = clf.predict_proba(X)[:, list(clf.classes_).index(1)]
    return (p1 >= 0.5).astype(np.int64), p1.astype(float)
