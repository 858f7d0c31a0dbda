"""Data-imputation attribute inference (Jayaraman & Evans 2022), the baseline of Kabir, Craig & Mehnaz
(arXiv 2504.04033) §6.2 / spec §A7.

Unlike CSMIA and LOMIA this attack never queries the target model: it trains an MLP(32, 16, 8) (100 epochs) on
an **auxiliary** set whose sensitive values are known — input ``x_ns`` plus one-hot ``y``, output ``s`` — and
applies it to the targets.

* **ideal** (ImpI): the auxiliary set has the training distribution ([C]: random *training* records);
* **practical** (ImpP): it comes from a different distribution ([C]: held-out records that are not
  correlation-controlled, or for natural data a held-out sample with a skewed sensitive prior).

Its accuracy measures what the *data* reveal about ``s``; the gap to CSMIA/LOMIA is what the *model* adds.

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import numpy as np

from ...models.target_model import train_mlp
from .lomia import attack_features

IMPUTATION_EPOCHS = 100


class ImputationAttack:
    def __init__(self, seed: int = 42, epochs: int = IMPUTATION_EPOCHS):
        self.seed, self.epochs = seed, epochs

    def fit(self, X_ns_aux: np.ndarray, y_aux: np.ndarray, s_aux: np.ndarray) -> "ImputationAttack":
        s_aux = np.asarray(s_aux).astype(int)
        self.constant_ = None
        if np.unique(s_aux).size < 2:
            self.constant_ = int(s_aux[0])
            return self
        self.model_, _ = train_mlp(attack_features(X_ns_aux, y_aux), s_aux, self.epochs, self.seed,
                                   what="training the imputation model")
        return self

    def score(self, X_ns: np.ndarray, y: np.ndarray) -> np.ndarray:
        """P(s = 1 | x_ns, y) under the auxiliary model."""
        if self.constant_ is not None:
            return np.full(len(y), float(self.constant_))
        return self.model_.predict_proba(attack_features(X_ns, y))[:, 1]

    def predict(self, X_ns: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (self.score(X_ns, y) >= 0.5).astype(int)
