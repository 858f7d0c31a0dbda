"""Dinur–Nissim reconstruction from subset-sum statistics (CS208 lecture 2, slides 7–9).

Setting: a secret bit vector ``x ∈ {0,1}^n``; the curator releases answers
``a_j ≈ q_{S_j}(x) = Σ_{i∈S_j} x_i`` to ``m`` subset-sum queries (matrix ``M_S``).
Dinur & Nissim (2003): if every answer has error ``E = o(√n)``, the attacker
reconstructs all but ``o(n)`` bits; error of order ``√n`` (the sampling error of
a count) is necessary to stop it.

The attack outputs ``round(x̂)`` with x̂ from one of three decoders:

* ``lp`` — LP for average error, ``min Σ_j E_j`` s.t. ``|a_j − (Mx̂)_j| ≤ E_j``,
  ``0 ≤ x̂ ≤ 1`` (slide 9, algorithm 3; :mod:`.dinur_nissim_lp`: a dense interior
  point with a duality-gap certificate, or HiGHS via highspy, per ``lp_method``);
* ``lsq`` — least squares ``min ‖a − Mx̂‖²`` (algorithm 4, :mod:`.dinur_nissim_ls`);
* ``ilp`` — the integer program over ``x̂ ∈ {0,1}^n`` (algorithm 1,
  :mod:`.dinur_nissim_ip`), exponential in the worst case, so limited to small n.

scikit-learn-style: ``fit(queries, answers)`` solves, ``predict()`` returns the
bits, ``score(x)`` the fraction of bits recovered.
"""
from __future__ import annotations

import numpy as np

from ...errors import ParameterError
from .dinur_nissim_ls import solve_ls

DECODERS = ("lp", "lsq", "ilp")
ILP_MAX_N = 60


class DinurNissimAttack:
    def __init__(self, decoder: str = "lp", time_limit: float | None = 60.0, lp_method: str = "auto"):
        # lazy: start-up time (scipy only when used)
        from .dinur_nissim_lp import METHODS

        if decoder not in DECODERS:
            raise ParameterError("solver", f"expected one of {'|'.join(DECODERS)}, got {decoder!r}")
        if lp_method not in METHODS:
            raise ParameterError("lp_method", f"expected one of {'|'.join(METHODS)}, got {lp_method!r}")
        self.decoder = decoder
        self.lp_method = lp_method
        self.time_limit = time_limit
        self.x_fractional_: np.ndarray | None = None

    def fit(self, queries, answers) -> "DinurNissimAttack":
        if self.decoder == "lp":
            # lazy: start-up time (scipy only when used)
            from .dinur_nissim_lp import solve_lp
            x = solve_lp(queries, answers, time_limit=self.time_limit, method=self.lp_method)
        elif self.decoder == "lsq":
            x = solve_ls(queries, answers)
        else:
            if np.shape(queries)[1] > ILP_MAX_N:
                raise ParameterError("solver", f"ilp is limited to n <= {ILP_MAX_N}")
            # lazy: start-up time (scipy, highspy only when used)
            from .dinur_nissim_ip import solve_ip
            x = solve_ip(queries, answers, time_limit=self.time_limit)
        self.x_fractional_ = np.asarray(x, dtype=float)
        return self

    def predict(self) -> np.ndarray:
        if self.x_fractional_ is None:
            raise RuntimeError("call fit() first")
        return (self.x_fractional_ >= 0.5).astype(np.int8)

    def score(self, secret) -> float:
        """Fraction of bits recovered."""
        return float(np.mean(self.predict() == np.asarray(secret)))
