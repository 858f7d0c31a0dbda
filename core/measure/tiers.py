"""How sure a tier is: the probable tier's threshold, by held-out precision or by a stated false-positive rate.

:func:`choose_precision` is the rule of every per-record table (see :mod:`core.measure.records`): the attack is
right on at least ``level`` of the people it calls probable, measured on records not used to choose the threshold,
with a 95 % Clopper–Pearson interval (``scipy.stats.binomtest``). :func:`calibrate` is the membership game's rule
(the location lab): at most a fraction ``fpr`` of the non-member games clear the threshold.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

import numpy as np
from scipy.stats import beta, binomtest

from ..errors import ParameterError

DEFAULT_FPR = 0.01
PRECISION_LEVEL = 0.9  # "probable": right on at least 90 % of the people it names, on records not used to choose it
MIN_PROBABLE = 10  # held-out guesses at or above the threshold needed before a precision is stated at all
PICK_CONFIDENCE = 0.975  # the pick half's precision must reach the level at the lower end of its 95% interval


@dataclass
class Calibration:
    """The probable tier's threshold: scores strictly above ``threshold`` are called probable.

    ``negatives`` scores were calibrated on, ``false_positives`` of them clear the threshold (``rate``); at most
    ``fpr`` of them may. ``rate_high`` is the 95 % Clopper–Pearson upper bound of the rate on fresh negatives.
    """

    fpr: float
    threshold: float | None
    negatives: int
    false_positives: int
    negative_kind: str

    @property
    def rate(self) -> float | None:
        return self.false_positives / self.negatives if self.negatives else None

    @property
    def rate_high(self) -> float | None:
        if not self.negatives:
            return None

        k, n = self.false_positives, self.negatives
        return 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))

    def sentence(self) -> str:
        if self.threshold is None:
            return (f"No {self.negative_kind} to calibrate a threshold on, so nothing is called probable.")
        return (f"Probable: score above {self.threshold:.6g}, which {self.false_positives:,} of "
                f"{self.negatives:,} {self.negative_kind} cleared ({100 * (self.rate or 0):.2g}%, at most "
                f"{100 * self.fpr:g}% allowed; ≤ {100 * (self.rate_high or 0):.2g}% on fresh ones at 95%).")

    def to_dict(self) -> dict:
        return {"fpr": self.fpr, "threshold": self.threshold, "negatives": self.negatives,
                "false_positives": self.false_positives, "negative_kind": self.negative_kind,
                "rate": self.rate, "rate_high": self.rate_high, "sentence": self.sentence()}


@dataclass
class Precision:
    """The probable tier's threshold by precision: ``threshold`` chosen on the ``pick`` half of the records, then
    ``right`` of the ``checked`` held-out guesses at or above it are right. ``shown`` is False (no probable tier)
    when no threshold reaches ``level`` on the pick half, or the held-out half falls short of it."""

    level: float
    threshold: float | None
    picked: int
    checked: int
    right: int
    kind: str = "guesses"

    @property
    def precision(self) -> float | None:
        return self.right / self.checked if self.checked else None

    @cached_property
    def interval(self) -> tuple[float, float] | None:
        # Cached: every row of a per-record table quotes this one interval in its sentence, and scipy's exact
        # interval is two root searches (≈ 4 ms): 10,000 rows spent 45 s of a 65 s Synthetic data run on it.
        if not self.checked:
            return None

        ci = binomtest(self.right, self.checked).proportion_ci(0.95, method="exact")
        return float(ci.low), float(ci.high)

    @property
    def shown(self) -> bool:
        return (self.threshold is not None and self.checked >= MIN_PROBABLE
                and (self.precision or 0.0) >= self.level)

    def stated(self) -> str:
        lo, hi = self.interval or (0.0, 0.0)
        return (f"right on {self.right:,} of {self.checked:,} held-out {self.kind} at or above it "
                f"({100 * (self.precision or 0):.0f}%, 95% CI {100 * lo:.0f}–{100 * hi:.0f}%)")

    def sentence(self) -> str:
        need = f"at least {100 * self.level:.0f}%"
        if self.threshold is None:
            return (f"No probable tier: no score threshold makes the attack right on {need} of the {self.kind} it "
                    f"names (on at least {MIN_PROBABLE} of them), among the records used to choose one.")
        if not self.shown:
            return (f"No probable tier: the threshold {self.threshold:.6g}, chosen on half the records, is "
                    f"{self.stated()} on the other half — short of the {need} (on at least {MIN_PROBABLE}) a "
                    "probable tier needs.")
        return (f"Probable: score at or above {self.threshold:.6g}, chosen on half the records; on the other half "
                f"the attack was {self.stated()}, {need} required.")

    def to_dict(self) -> dict:
        lo, hi = self.interval or (None, None)
        return {"rule": "precision", "level": self.level, "threshold": self.threshold, "picked": self.picked,
                "checked": self.checked, "right": self.right, "precision": self.precision, "ci_low": lo,
                "ci_high": hi, "shown": self.shown, "sentence": self.sentence()}


def choose_precision(score, correct, usable=None, level: float = PRECISION_LEVEL, kind: str = "guesses"
                     ) -> Precision:
    """The probable threshold by held-out precision (see the module docstring). Rows of ``usable`` (default: all)
    alternate between the pick half (even positions) and the check half (odd); on the pick half the threshold is
    the lowest score ``t`` at which the guesses scoring ≥ ``t`` (at least :data:`MIN_PROBABLE` of them) are
    right at least ``level`` of the time at the lower end of their 95 % Clopper–Pearson interval
    (:data:`PICK_CONFIDENCE`, one-sided); the check half's guesses scoring ≥ ``t`` measure its precision."""
    if not 0 < level < 1:
        raise ParameterError("level", f"the probable tier's precision must be in (0, 1), got {level}")
    s = np.asarray(score, dtype=float).reshape(-1)
    ok = np.asarray(correct, dtype=bool).reshape(-1)
    use = np.isfinite(s) & (np.ones(s.size, bool) if usable is None else np.asarray(usable, dtype=bool))
    idx = np.flatnonzero(use)
    pick, check = idx[0::2], idx[1::2]
    order = pick[np.argsort(-s[pick], kind="stable")]
    ps, pr = s[order], np.cumsum(ok[order])
    threshold = None
    if ps.size:
        n_at = np.arange(1, ps.size + 1)
        # the lower end of the 95% Clopper–Pearson interval of the pick half's precision at each cut: a cut whose
        # point precision only just reaches the level would fall short on the held-out half about half the time
        low = np.where(pr > 0, beta.ppf(1 - PICK_CONFIDENCE, np.maximum(pr, 1), n_at - pr + 1), 0.0)
        last = np.append(ps[1:] != ps[:-1], True)  # the last position of each distinct score: ties go together
        fit = np.flatnonzero(last & (n_at >= MIN_PROBABLE) & (low >= level))
        if fit.size:
            threshold = float(ps[fit[-1]])
    if threshold is None:
        return Precision(level, None, 0, 0, 0, kind)
    above = check[s[check] >= threshold]
    return Precision(level, threshold, int(np.sum(s[pick] >= threshold)), int(above.size), int(ok[above].sum()),
                     kind)


def calibrate(negative_scores: Iterable[float], fpr: float = DEFAULT_FPR,
              negative_kind: str = "negatives") -> Calibration:
    """The lowest threshold ``t`` with at most ``fpr`` of ``negative_scores`` strictly above it.

    ``t`` is the ``(⌊fpr·N⌋+1)``-th largest negative score, so ``#{s > t} ≤ ⌊fpr·N⌋`` (ties only lower it).
    On fresh negatives from the same distribution the expected rate is at most ``fpr``.
    """
    if not 0 < fpr < 1:
        raise ParameterError("fpr", f"the probable tier's false-positive rate must be in (0, 1), got {fpr}")
    s = np.asarray(list(negative_scores) if not isinstance(negative_scores, np.ndarray) else negative_scores,
                   dtype=float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return Calibration(fpr, None, 0, 0, negative_kind)
    allowed = int(math.floor(fpr * s.size))
    desc = np.sort(s)[::-1]
    t = float(desc[min(allowed, s.size - 1)])
    return Calibration(fpr, t, int(s.size), int(np.sum(s > t)), negative_kind)



def _reason(cal: "Calibration | Precision", score: float, probable: bool, eligible: bool) -> str:
    """One row's sentence for a tier other than certified."""
    if isinstance(cal, Calibration):
        if probable:
            return (f"Score {score:.6g} clears the threshold {cal.threshold:.6g} that "
                    f"{100 * (cal.rate or 0):.2g}% of {cal.negative_kind} cleared.")
        if cal.threshold is None:
            return f"No {cal.negative_kind} to calibrate on, so the score cannot be called probable."
        if not eligible:
            return "The attack does not claim this one, so it is only a guess."
        return (f"Score {score:.6g} does not clear the threshold {cal.threshold:.6g}, so "
                f"{cal.negative_kind} score as high: only a guess.")
    if probable:
        return f"Score {score:.6g} is at or above {cal.threshold:.6g}, where the attack was {cal.stated()}."
    if not eligible:
        return "The attack does not claim this one, so it is only a guess."
    if not cal.shown:
        return "No probable tier in this run (see the tier rule above), so this is only a guess."
    return (f"Score {score:.6g} is below {cal.threshold:.6g}, under which the attack is right too rarely to name "
            "anyone: only a guess.")
