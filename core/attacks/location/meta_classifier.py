"""MLP meta-classifier attack (Liu et al., Sec. 4–5 and App. G; spec seed001 §4.3).

**Features:** the k positive observations of the background-subtracted aggregate
``x = (Ã^r_c)_{c: z_c = 1}`` (informed: ``b + noise``; auxiliary: noisy counts).
**Model:** one hidden layer of k (Fig. 11b, used in Sec. 4–5) or 100 (prior work,
App. G) sigmoid units and a sigmoid output, trained with binary cross-entropy:
``f̂(x) = σ(W2ᵀ σ(W1ᵀ x + b1) + b2)``.

Hyper-parameters are not given in the paper; the defaults are the spec's, matching
scikit-learn's ``MLPClassifier(activation='logistic', solver='adam',
learning_rate_init=1e-3, alpha=1e-4)``: Glorot-uniform initialisation with gain √2,
Adam(1e-3), L2 penalty ``½α‖W‖²/batch``, batch ``min(200, n)`` (256 above 20k),
**early stopping on separate validation shadows** (patience 15 epochs, best
validation accuracy kept), at most 300 epochs (80 above 20k). Decision:
``f̂(x) ≥ ½`` ⇔ logit ≥ 0. Implemented with PyTorch for speed (200k shadows × k = 60
train in well under a minute on 2 CPU cores).

Theorems 4–5 (typos fixed): with hidden weights ``a·1``, bias ``−aT`` and output
``σ(b(h − ½))`` the net encodes the one-threshold rule; with ``W1 = a·I``, biases
``−aT_j``, output weights b and output bias ``−bT`` it encodes the two-threshold rule —
see :func:`theorem5_weights`. The learned ``W1`` tells which rule was learned:
roughly equal entries (one-threshold, 2k shadows) or a diagonal (two-threshold, 200k),
see :func:`weight_summary`.

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ...errors import Cancelled, DataError


def _torch():
    import torch  # lazy: only the MLP needs it

    return torch


class MetaClassifierMLP:
    """One-hidden-layer sigmoid MLP with validation early stopping (scikit-learn style API)."""

    name = "mlp"

    def __init__(self, hidden: int | None = None, learning_rate: float = 1e-3, alpha: float = 1e-4,
                 batch_size: int | None = None, max_epochs: int | None = None, patience: int = 15,
                 standardize: bool = False, seed: int = 0):
        self.hidden = hidden
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.standardize = standardize
        self.seed = int(seed)
        self.history_: dict[str, list] = {"epoch": [], "train_loss": [], "val_accuracy": []}

    # ------------------------------------------------------------ helpers
    def _prep(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32)
        return (X - self.mean_) / self.std_

    def fit(self, X, y, X_val, y_val, progress: Callable[[int, int, float], None] | None = None,
            cancel: Callable[[], bool] | None = None) -> "MetaClassifierMLP":
        """Train on shadows (X, y), early-stop on validation shadows (X_val, y_val)."""
        torch = _torch()
        threads = torch.get_num_threads()
        # One thread: these matmuls are tiny, and 2 spinning threads collapse under load.
        torch.set_num_threads(1)
        try:
            return self._fit(torch, X, y, X_val, y_val, progress, cancel)
        finally:
            torch.set_num_threads(threads)

    def _fit(self, torch, X, y, X_val, y_val, progress, cancel) -> "MetaClassifierMLP":
        """Train the one-hidden-layer MLP as scikit-learn's MLPClassifier would (Glorot-uniform initial weights,
        logistic hidden units, Adam, L2 penalty α/2·‖W‖² divided by the batch size), on standardised features,
        keeping the weights of the epoch with the best validation accuracy and stopping after ``patience`` epochs
        without improvement. Records the per-epoch training loss and validation accuracy in ``history_``."""
        X = np.asarray(X, dtype=np.float32)
        y = np.asarray(y, dtype=np.float32).ravel()
        X_val = np.asarray(X_val, dtype=np.float32)
        y_val = np.asarray(y_val).astype(np.int8).ravel()
        n, k = X.shape
        if n < 2 or len(np.unique(y)) < 2 or len(np.unique(y_val)) < 2:
            raise DataError("the MLP needs training and validation shadows of both classes")
        if X_val.shape[1] != k:
            raise DataError("validation features differ in width from training features")
        if self.standardize:
            self.mean_ = X.mean(axis=0)
            self.std_ = X.std(axis=0) + np.float32(1e-6)
        else:
            self.mean_ = np.zeros(k, np.float32)
            self.std_ = np.ones(k, np.float32)
        h = self.hidden or k
        bs = self.batch_size or (min(200, n) if n <= 20000 else 256)
        epochs = self.max_epochs or (300 if n <= 20000 else 80)
        gen = torch.Generator().manual_seed(self.seed)
        bound1 = math.sqrt(2.0 * 2.0 / (k + h))   # sklearn: sqrt(factor·2/(fan_in+fan_out)), factor 2 for logistic
        bound2 = math.sqrt(2.0 * 2.0 / (h + 1))
        W1 = ((torch.rand(k, h, generator=gen) * 2 - 1) * bound1).requires_grad_()
        b1 = ((torch.rand(h, generator=gen) * 2 - 1) * bound1).requires_grad_()
        W2 = ((torch.rand(h, 1, generator=gen) * 2 - 1) * bound2).requires_grad_()
        b2 = ((torch.rand(1, generator=gen) * 2 - 1) * bound2).requires_grad_()
        params = [W1, b1, W2, b2]
        opt = torch.optim.Adam(params, lr=self.learning_rate, betas=(0.9, 0.999), eps=1e-8)
        lossf = torch.nn.BCEWithLogitsLoss()
        Xt = torch.from_numpy(self._prep(X))
        yt = torch.from_numpy(y)
        Xv = torch.from_numpy(self._prep(X_val))
        rng = np.random.default_rng(self.seed)
        best = (-1.0, None, 0)
        stale = 0
        for epoch in range(1, epochs + 1):
            perm = torch.from_numpy(rng.permutation(n))
            total = 0.0
            for s in range(0, n, bs):
                idx = perm[s:s + bs]
                xb, yb = Xt[idx], yt[idx]
                logit = (torch.sigmoid(xb @ W1 + b1) @ W2 + b2).squeeze(1)
                loss = lossf(logit, yb) + 0.5 * self.alpha * ((W1 ** 2).sum() + (W2 ** 2).sum()) / len(idx)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(idx)
            with torch.no_grad():
                val_logit = (torch.sigmoid(Xv @ W1 + b1) @ W2 + b2).squeeze(1).numpy()
            val_acc = float(((val_logit >= 0).astype(np.int8) == y_val).mean())
            self.history_["epoch"].append(epoch)
            self.history_["train_loss"].append(total / n)
            self.history_["val_accuracy"].append(val_acc)
            if val_acc > best[0]:
                best = (val_acc, [p.detach().clone() for p in params], epoch)
                stale = 0
            else:
                stale += 1
            if progress is not None:
                progress(epoch, epochs, val_acc)
            if cancel is not None and cancel():
                raise Cancelled("MLP training stopped")
            if stale >= self.patience:
                break
        self.best_epoch_ = best[2]
        self.val_accuracy_ = best[0]
        W1b, b1b, W2b, b2b = (p.numpy().astype(np.float64) for p in best[1])
        self.coefs_ = [W1b, W2b]
        self.intercepts_ = [b1b, b2b]
        return self

    # ---------------------------------------------------------- inference
    def decision_function(self, X) -> np.ndarray:
        """Output logit (≥ 0 ⇔ member)."""
        Z = self._prep(X).astype(np.float64)
        W1, W2 = self.coefs_
        b1, b2 = self.intercepts_
        hidden = 0.5 * (1.0 + np.tanh(0.5 * (Z @ W1 + b1)))  # stable sigmoid
        return (hidden @ W2 + b2).ravel()

    def predict_proba(self, X) -> np.ndarray:
        p = 0.5 * (1.0 + np.tanh(0.5 * self.decision_function(X)))
        return np.column_stack([1 - p, p])

    def predict(self, X) -> np.ndarray:
        return (self.decision_function(X) >= 0).astype(np.int8)

    def score(self, X, y) -> float:
        return float((self.predict(X) == np.asarray(y)).mean())

    def raw_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """``W1`` and ``b1`` in raw feature units (undoing standardisation)."""
        W1, b1 = self.coefs_[0], self.intercepts_[0]
        W = W1 / self.std_[:, None]
        return W, b1 - (self.mean_ / self.std_) @ W1


def weight_summary(W1: np.ndarray, b1: np.ndarray) -> dict:
    """Permute hidden units by their strongest input and measure diagonal dominance (spec §4.3).

    ``dominance`` = mean over hidden units of ``max_i |W1[i, j]| / Σ_i |W1[i, j]|``:
    ≈ 1/k when every unit sums all inputs (one-threshold rule), → 1 for a diagonal
    (two-threshold rule). ``thresholds`` are the units' effective per-cell thresholds
    ``T_j = −b1_j / W1[i*, j]`` on their strongest input.
    """
    W1 = np.asarray(W1, float)
    b1 = np.asarray(b1, float).ravel()
    absw = np.abs(W1)
    top = absw.argmax(axis=0)
    order = np.lexsort((-absw.max(axis=0), top))
    Wp = W1[:, order]
    top_w = W1[top[order], order]
    with np.errstate(divide="ignore", invalid="ignore"):
        thresholds = np.where(np.abs(top_w) > 1e-12, -b1[order] / top_w, np.nan)
        dominance = float(np.mean(absw.max(axis=0) / np.maximum(absw.sum(axis=0), 1e-300)))
    return {"W1": Wp, "b1": b1[order], "order": order, "top_input": top[order],
            "thresholds": thresholds, "dominance": dominance,
            "uniform_dominance": 1.0 / W1.shape[0]}


def theorem5_weights(k: int, thresholds, a: float, b: float, final_threshold: float | None = None):
    """Theorem 5 (typos fixed): W1 = a·I, b1 = −a·T_j, W2 = b, b2 = −b·T (T = k/2 by default)."""
    t = np.broadcast_to(np.asarray(thresholds, float), (k,))
    T = k / 2 if final_threshold is None else final_threshold
    return [a * np.eye(k), np.full((k, 1), float(b))], [-a * t, np.array([-b * T])]


def effective_input_weights(W1: np.ndarray, b1: np.ndarray, W2: np.ndarray) -> np.ndarray:
    """Weight of each input in the output logit, linearised at the hidden biases:
    ``w_i = Σ_j W1[i, j] · W2[j] · σ'(b1_j)``. Roughly equal positive values mean the
    network computes a (weighted) sum of the cells, i.e. the one-threshold rule, even
    when its hidden units mix the inputs with signs (spec §4.3 note)."""
    b1 = np.asarray(b1, float).ravel()
    s = 0.5 * (1.0 + np.tanh(0.5 * b1))
    return np.asarray(W1, float) @ (np.asarray(W2, float).ravel() * s * (1.0 - s))
