"""Optimal likelihood-ratio attack (spec seed001 §4.5 — an oracle curve, not in the paper).

Each released positive cell is ``Ã^r_c = N_c + b·C + X_c`` with ``N_c`` the clean
count of the traces the attacker does not know and ``X_c`` the DP noise. With
``h_c`` the law of ``N_c``, the per-cell likelihood under membership bit b is
``f_b(x) = Σ_n h_c(n) f_X(x − n − bC)`` and the Neyman–Pearson test for a balanced
prior decides "member" iff ``Λ = Σ_c [log f_1(x_c) − log f_0(x_c)] > 0`` (ties at
random), treating the cells as independent.

* **Informed** attacker (θ = 1): ``N_c ≡ 0``. Laplace: ``log f_1 − log f_0 = (|x| − |x − C|)/b
  = (ε/C)(2·clip(x, 0, C) − C)``, so the test is ``Σ clip(x_c, 0, C) > kC/2`` — exactly
  optimal; two-threshold is its hard-clip special case. Gaussian: ``Λ ∝ Σ x_c − kC/2``,
  i.e. the one-threshold attack is optimal.
* **Auxiliary** attacker (θ = 0): ``h_c`` is estimated from the attacker's own traces:
  a group of G traces drawn from a pool of N of which K_c have a one at cell c gives
  ``N_c ~ Hypergeometric(N, K_c, G)``.

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
from __future__ import annotations

import numpy as np
from scipy import stats


def _log_noise_pdf(mechanism: str, scale: float, x: np.ndarray) -> np.ndarray:
    if mechanism == "laplace":
        return -np.abs(x) / scale - np.log(2 * scale)
    return -0.5 * (x / scale) ** 2 - np.log(scale * np.sqrt(2 * np.pi))


class LikelihoodRatioAttack:
    """NP-optimal test for independent cells; ``fit`` learns the clean-count laws h_c."""

    name = "lrt"

    def __init__(self, mechanism: str, scale: float, clip: float = 1.0, tail: float = 1e-12):
        self.mechanism = mechanism
        self.scale = float(scale)
        self.clip = float(clip)
        self.tail = tail
        self.log_h_: list[tuple[np.ndarray, np.ndarray]] | None = None

    def fit_informed(self, k: int) -> "LikelihoodRatioAttack":
        """Informed attacker: every clean residual count is 0."""
        self.k_ = int(k)
        self.log_h_ = None
        return self

    def fit_pool(self, pool_size: int, cell_hits: np.ndarray, group: int) -> "LikelihoodRatioAttack":
        """Auxiliary attacker: N_c ~ Hypergeom(pool_size, K_c, group) from its own pool."""
        self.k_ = len(cell_hits)
        self.log_h_ = []
        for K in np.asarray(cell_hits, dtype=np.int64):
            dist = stats.hypergeom(int(pool_size), int(K), int(group))
            lo, hi = dist.ppf(self.tail), dist.isf(self.tail)
            n = np.arange(max(0, int(lo)), int(hi) + 1)
            self.log_h_.append((n.astype(np.float64), dist.logpmf(n)))
        return self

    def score(self, X) -> np.ndarray:
        """Log-likelihood ratio Λ of every aggregate (rows of X, k columns)."""
        X = np.asarray(X, dtype=np.float64)
        C, b = self.clip, self.scale
        if self.log_h_ is None:
            if self.mechanism == "laplace":
                return ((2.0 * np.clip(X, 0.0, C) - C) / b).sum(axis=1)
            return ((X * C - 0.5 * C * C) / b ** 2).sum(axis=1)
        out = np.zeros(X.shape[0])
        cols = np.ascontiguousarray(X.T)
        for c, (n, logh) in enumerate(self.log_h_):
            # one grid j = n_min … n_max + 1 serves both hypotheses: f_b(x) = Σ_j h(j − b) f_X(x − jC).
            # Shift by the log-density at the nearest grid point (the largest term) to stay finite.
            x = cols[c]
            j0, j1 = n[0], n[-1] + 1
            m = _log_noise_pdf(self.mechanism, b, x - np.clip(np.rint(x / C), j0, j1) * C)
            h = np.exp(logh)
            s0 = np.zeros_like(x)
            s1 = np.zeros_like(x)
            for i, j in enumerate(np.arange(j0, j1 + 1)):
                e = np.exp(_log_noise_pdf(self.mechanism, b, x - j * C) - m)
                if i < h.size:
                    s0 += h[i] * e
                if i >= 1:
                    s1 += h[i - 1] * e
            out += np.log(np.maximum(s1, 1e-300)) - np.log(np.maximum(s0, 1e-300))
        return out

    def predict(self, X, rng: np.random.Generator | None = None) -> np.ndarray:
        s = self.score(X)
        tie = s == 0
        pred = (s > 0).astype(np.int8)
        if tie.any():
            rng = rng or np.random.default_rng(0)
            pred[tie] = rng.integers(0, 2, int(tie.sum()), dtype=np.int8)
        return pred
