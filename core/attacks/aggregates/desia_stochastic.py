"""DeSIA's stochastic module M_S (Mao, Stevanoski & de Montjoye; paper §5, Algorithm 2): shadow datasets drawn
from the auxiliary sample, features = the released queries' answers on each shadow, and a meta-classifier that
scores P(target's sensitive value = 1 | Q(D)).

``N`` shadow datasets ``D_i = R_i ∪ {(r*^{A'}, z_i)}`` with ``R_i`` = ``s−1`` records of ``D_aux`` (drawn without
replacement, sensitive values re-drawn uniformly) and label ``z_i ~ U(𝒱_n)``; an L2 logistic regression with ``C``
chosen by 5-fold cross-validation is trained on 2/3 of them (1/3 held out). Backgrounds and labels are drawn once
per release and shared by all targets: ``X_i = B_i + Mem[(r*, z_i)]``, so the fitted model depends on the target
only through ``Δ = Mem[(r*,1)] − Mem[(r*,0)]`` and targets with the same ``Δ`` share one fit. The deterministic
module M_D and the attack that combines both are in :mod:`core.attacks.aggregates.desia`.
"""
from __future__ import annotations


import numpy as np
import scipy.sparse as sp

from ...cancel import checkpoint
from ...errors import DataError, ParameterError
from ...releases.aggregate_release import AggregateRelease
from ...releases.census_tables import noisy_answers



def make_classifier(kind: str = "lr", cv: int = 5, seed: int = 0):
    """The meta-classifier M (paper: L2 logistic regression, C by CV; §7 alternatives)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if kind == "lr":
        from sklearn.linear_model import LogisticRegressionCV
        clf = LogisticRegressionCV(Cs=np.logspace(-4, 2, 7), cv=cv, l1_ratios=(0.0,),
                                   max_iter=1000, scoring="neg_log_loss", use_legacy_attributes=False)
    elif kind == "mlp":
        from sklearn.neural_network import MLPClassifier
        clf = MLPClassifier(hidden_layer_sizes=(50, 20), max_iter=300, early_stopping=True,
                            random_state=seed)
    elif kind == "rf":
        from sklearn.ensemble import RandomForestClassifier
        clf = RandomForestClassifier(n_estimators=100, max_features="sqrt", random_state=seed)
    else:
        raise ParameterError("classifier", f"expected lr|mlp|rf, got {kind!r}")
    return make_pipeline(StandardScaler(), clf)


def sample_backgrounds(aux_records: np.ndarray, n_shadows: int, n_rows: int, masks, cardinalities,
                       rng: np.random.Generator, extra: bool = False):
    """Answers of ``n_shadows`` background sets of ``n_rows`` aux records with re-drawn sensitive values.

    Returns ``B`` (N, m) int32 and, with ``extra=True``, also the membership
    ``E`` (N, m) of one further distinct aux record per shadow (MIA's b = 0 filler).
    """
    aux = np.asarray(aux_records)
    n_aux = aux.shape[0]
    need = n_rows + (1 if extra else 0)
    if need > n_aux:
        raise DataError(f"the auxiliary data has {n_aux} records but each shadow needs {need}")
    k = cardinalities[-1]
    rel = AggregateRelease(tuple(f"a{i}" for i in range(len(cardinalities))), tuple(cardinalities),
                           list(masks), np.zeros(len(masks)), size=0)
    stacked = []
    for v in range(k):
        recs = aux.copy()
        recs[:, -1] = v
        stacked.append(rel.membership(recs))
    mem = sp.csr_matrix(np.vstack(stacked).astype(np.float32))  # (k·n_aux, m)
    B = np.empty((n_shadows, len(masks)), dtype=np.int32)
    E = np.empty((n_shadows, len(masks)), dtype=np.int8) if extra else None
    chunk = max(1, min(n_shadows, 4_000_000 // max(n_aux, 1)))
    for a in range(0, n_shadows, chunk):
        checkpoint("sampling shadow datasets")
        b = min(n_shadows, a + chunk)
        c = b - a
        pick = np.argpartition(rng.random((c, n_aux)), need - 1, axis=1)[:, :need]
        z = rng.integers(0, k, size=(c, need))
        cols = z * n_aux + pick
        S = sp.csr_matrix((np.ones(c * n_rows, dtype=np.float32), cols[:, :n_rows].ravel(),
                           np.arange(0, c * n_rows + 1, n_rows)), shape=(c, k * n_aux))
        B[a:b] = np.rint((S @ mem).toarray()).astype(np.int32)
        if extra:
            E[a:b] = mem[cols[:, n_rows]].toarray().astype(np.int8)
    return B, E


def check_shadow_labels(labels: np.ndarray, cv: int) -> None:
    """The meta-classifier's ``cv``-fold cross-validation needs ≥ ``cv`` training shadows of every label."""
    counts = np.bincount(np.asarray(labels, dtype=np.int64))
    if len(counts) < 2 or counts.min() < cv:
        raise ParameterError("shadows", f"too few shadow datasets: the {len(labels)} training shadows have "
                             f"{counts.min() if len(counts) >= 2 else 0} of one label, but the meta-classifier's "
                             f"{cv}-fold cross-validation needs at least {cv} of each; use more shadows")


class StochasticModule:
    """M_S of DeSIA (Algorithm 2): shadow releases + meta-classifier, per target."""

    def __init__(self, shadows: int = 20000, train_fraction: float = 2 / 3, classifier: str = "lr",
                 cv: int = 5):
        if shadows < 10:
            raise ParameterError("shadows", f"need at least 10 shadow datasets, got {shadows}")
        self.shadows = int(shadows)
        self.train_fraction = float(train_fraction)
        self.classifier = classifier
        self.cv = int(cv)

    def fit(self, release: AggregateRelease, aux_records: np.ndarray, rng: np.random.Generator):
        """Draw the shared backgrounds (``s−1`` aux records each), labels and shadow noise."""
        self.release_ = release
        self.k_ = release.cardinalities[-1]
        B, _ = sample_backgrounds(aux_records, self.shadows, release.size - 1, release.masks,
                                  release.cardinalities, rng)
        self.labels_ = rng.integers(0, self.k_, size=self.shadows)
        if release.epsilon > 0:  # the attacker knows the mechanism: same noise on the shadows
            B = noisy_answers(B, release.epsilon, rng)
        self.B_ = B.astype(np.float32)
        n_train = int(round(self.train_fraction * self.shadows))
        self.train_ = np.arange(n_train)
        self.valid_ = np.arange(n_train, self.shadows)
        self.seed_ = int(rng.integers(2**31 - 1))
        self.cache_: dict[bytes, tuple] = {}
        return self

    def _target_vectors(self, r: np.ndarray) -> np.ndarray:
        k = self.k_
        cells = np.column_stack([np.tile(r, (k, 1)), np.arange(k)])
        return self.release_.membership(cells).astype(np.float32)  # (k, m)

    def model_for(self, target_nonsensitive):
        """(fitted model, a_0, held-out AUC, cached?) for a target; shared by equal Δ patterns."""
        r = np.asarray(target_nonsensitive, dtype=np.int64).ravel()
        a = self._target_vectors(r)
        delta = a - a[0]
        key = delta.astype(np.int8).tobytes()
        if key in self.cache_:
            model, auc = self.cache_[key]
            return model, a[0], auc, True
        X = self.B_ + delta[self.labels_]
        y = self.labels_
        model = make_classifier(self.classifier, self.cv, self.seed_)
        tr = self.train_
        check_shadow_labels(y[tr], self.cv)
        # one BLAS thread: targets run in parallel processes, and OpenBLAS threads
        # competing for 2 cores slow the fit down by an order of magnitude
        from threadpoolctl import threadpool_limits
        with threadpool_limits(1):
            model.fit(X[tr], y[tr])
        auc = float("nan")
        if self.k_ == 2 and len(self.valid_) and len(np.unique(y[self.valid_])) == 2:
            from sklearn.metrics import roc_auc_score
            auc = float(roc_auc_score(y[self.valid_], model.predict_proba(X[self.valid_])[:, 1]))
        self.cache_[key] = (model, auc)
        return model, a[0], auc, False

    def predict_proba(self, target_nonsensitive, answers=None) -> tuple[np.ndarray, float]:
        """``P(b = v | Q(D))`` for every value ``v`` and the held-out AUC of the model."""
        model, a0, auc, _ = self.model_for(target_nonsensitive)
        answers = self.release_.answers if answers is None else np.asarray(answers, dtype=float)
        x = (answers - a0)[None, :].astype(np.float32)
        proba = np.zeros(self.k_)
        proba[model.classes_ if hasattr(model, "classes_") else np.arange(self.k_)] = \
            model.predict_proba(x)[0]
        return proba, auc


