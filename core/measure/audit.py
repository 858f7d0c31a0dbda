"""Claims vs measurements: does a run's measured leakage fit the ε its release claims?

An (ε, δ)-DP release forces every membership/attribute test to satisfy ``FPR + e^ε·FNR ≥ 1 − δ`` and
``FNR + e^ε·FPR ≥ 1 − δ`` (Kairouz et al. 2015). Scenarios turn the counts of their strongest attack into a 95%
lower bound ``empirical_epsilon_low`` (Clopper–Pearson upper bounds on FPR and FNR, each at 97.5% so both hold
together; Jagielski et al. 2020, Nasr et al. 2021). The attack and its threshold are chosen on one half of the
games and the bound is computed on the other half (:func:`core.measure.metrics.split_epsilon_bound`): choosing the
best threshold on the very games that bound ε inflates the bound, and a correct release would be flagged far more
often than 5% of the time. If the lower bound exceeds the claimed ε, the release leaks more than its ε allows —
the mechanism (e.g. noise scale) or its privacy accounting is broken — up to the 5% chance of a false alarm per
tested bound.

:func:`epsilon_lower_bound_roc` is the vectorised form of :func:`core.measure.metrics.max_threshold_epsilon`
(the optimistic maximum over every ROC point of the same games) — kept to measure what the sound bound costs.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.stats import beta

BROKEN_MESSAGE = "this release leaks more than its ε allows: the mechanism or its accounting is broken"


def _upper_bounds(k: np.ndarray, n: int, confidence: float) -> np.ndarray:
    """One-sided upper Clopper–Pearson bounds for k successes out of n (1 when k = n)."""
    k = np.asarray(k, dtype=float)
    out = np.ones_like(k)
    ok = k < n
    out[ok] = beta.ppf(confidence, k[ok] + 1, n - k[ok])
    return out


def epsilon_lower_bound_roc(fpr, tpr, n_neg: int, n_pos: int, delta: float = 0.0,
                            confidence: float = 0.95) -> float:
    """Largest ε lower bound over the ROC points (FPR, TPR) of a test on ``n_neg`` negatives and ``n_pos``
    positives: ``max(ln((1−δ−FPR⁺)/FNR⁺), ln((1−δ−FNR⁺)/FPR⁺))`` with one-sided Clopper–Pearson upper bounds.
    Equals :func:`core.measure.metrics.max_threshold_epsilon` on the same points (optimistic: the best point is
    chosen on the games it is judged on); NaN without both classes."""
    if n_neg <= 0 or n_pos <= 0:
        return float("nan")
    f = np.clip(np.asarray(fpr, dtype=float), 0, 1)
    t = np.clip(np.asarray(tpr, dtype=float), 0, 1)
    fp = np.round(f * n_neg)
    fn = np.round((1 - t) * n_pos)
    each = 1.0 - (1.0 - confidence) / 2.0  # both rates must hold at once
    fpr_hi = _upper_bounds(fp, int(n_neg), each)
    fnr_hi = _upper_bounds(fn, int(n_pos), each)
    best = 0.0
    for a, b in ((fpr_hi, fnr_hi), (fnr_hi, fpr_hi)):
        num = 1.0 - delta - a
        ok = (num > 0) & (b > 0)
        if ok.any():
            best = max(best, float(np.max(np.log(num[ok] / b[ok]))))
        if ((num > 0) & (b == 0)).any():
            return math.inf
    return best


@dataclass
class Verdict:
    """Outcome of comparing a claimed (ε, δ) with a measured lower bound."""

    status: str            # "violation" | "consistent" | "no-claim" | "not-measured"
    claimed_epsilon: float | None
    claimed_delta: float
    empirical_epsilon_low: float | None
    message: str

    @property
    def broken(self) -> bool:
        return self.status == "violation"

    def to_dict(self) -> dict:
        return asdict(self)


def _num(value) -> float | None:
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def audit(claimed_epsilon: float | None, claimed_delta: float | None, empirical_low: float | None) -> Verdict:
    """Compare a release's claimed (ε, δ) with the measured 95% lower bound on ε.

    ``claimed_epsilon`` None or inf = the release claims no DP guarantee (nothing to violate).
    """
    eps, delta, low = _num(claimed_epsilon), _num(claimed_delta) or 0.0, _num(empirical_low)
    if low is None:
        return Verdict("not-measured", eps, delta, None, "no empirical ε was measured for this run")
    if eps is None or math.isinf(eps):
        return Verdict("no-claim", eps, delta, low,
                       f"the release claims no differential-privacy guarantee; the attack shows ε ≥ {low:.3g} "
                       "(95% confidence)")
    if low > eps * (1 + 1e-9) + 1e-12:
        return Verdict("violation", eps, delta, low,
                       f"{BROKEN_MESSAGE} — measured ε ≥ {low:.3g} (95% lower bound) against the claimed "
                       f"ε = {eps:.3g}" + (f", δ = {delta:.3g}" if delta else ""))
    return Verdict("consistent", eps, delta, low,
                   f"consistent with the claim: measured ε ≥ {low:.3g} (95% lower bound) ≤ claimed ε = {eps:.3g}")


def claim_of(result: Any) -> tuple[float | None, float]:
    """The (ε, δ) a run's release claims: ``claimed_epsilon``/``claimed_delta`` metrics, else the
    reconstruction scenario's ``release_epsilon``/``release_delta`` (None = no claim)."""
    m = _metrics(result)
    for eps_key, delta_key in (("claimed_epsilon", "claimed_delta"), ("release_epsilon", "release_delta")):
        if eps_key in m:
            eps = _num(m.get(eps_key))
            return (None if eps is None or math.isinf(eps) else eps), (_num(m.get(delta_key)) or 0.0)
    return None, 0.0


def audit_result(result: Any) -> Verdict:
    """:func:`audit` on a :class:`~core.runtime.games.Result` (or its dict)."""
    eps, delta = claim_of(result)
    return audit(eps, delta, _metrics(result).get("empirical_epsilon_low"))


def _metrics(result: Any) -> dict:
    if isinstance(result, dict):
        return result.get("metrics") or {}
    return getattr(result, "metrics", None) or {}
