"""Attack metrics, computed with the libraries (scikit-learn, scipy.stats).

* ROC / AUC: :func:`sklearn.metrics.roc_curve`, :func:`~sklearn.metrics.roc_auc_score`.
* TPR at a fixed FPR: the highest TPR among empirical ROC points with FPR ≤ α
  (no interpolation, as DeSIA §2.4 recommends).
* Accuracy with an exact Clopper–Pearson interval (Beta quantiles, ``scipy.stats.beta``: the interval of
  ``scipy.stats.binomtest``'s exact method, without its root search).
* Advantage: ``max_t TPR(t) − FPR(t)`` (the distinguishing advantage of the
  best threshold on the scores).
* Empirical ε lower bound: an (ε, δ)-DP mechanism forces every test to satisfy
  ``FPR + e^ε·FNR ≥ 1 − δ`` and ``FNR + e^ε·FPR ≥ 1 − δ`` (Kairouz et al. 2015),
  so with one-sided upper confidence bounds on FPR and FNR,
  ``ε ≥ max(ln((1−δ−FPR⁺)/FNR⁺), ln((1−δ−FNR⁺)/FPR⁺))`` holds with the stated
  confidence (Jagielski et al. 2020; Nasr et al. 2021). The bound needs *both* rates
  covered at once, so each gets half the error budget (Bonferroni: two one-sided
  bounds at 97.5% for a 95% statement).
* The test must be fixed before the games it is judged on. Choosing the best threshold
  (or the best of several attacks) on the same games and then bounding ε there is
  biased upward — a correct release gets flagged far more often than the promised 5%.
  :func:`split_epsilon_bound` therefore splits the games in two halves (alternating
  within each class): the threshold and the attack are chosen on the first half, and the
  bound is computed once, on the second half only. The price is power: half the games
  bound ε (see ``benchmarks/bench_audit.py`` for how much a known leak's bound loses).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import beta, norm, rankdata
from sklearn.metrics import roc_auc_score, roc_curve

from ..errors import DataError
from .audit import _upper_bounds

FPR_LEVELS = (0.1, 0.01, 0.001)


def _check(labels, scores) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(labels).astype(int).ravel()
    s = np.asarray(scores, dtype=float).ravel()
    if y.shape != s.shape:
        raise DataError(f"{y.size} labels but {s.size} scores")
    if not np.isin(y, (0, 1)).all():
        raise DataError("labels must be 0 or 1")
    if np.isnan(s).any():
        raise DataError("scores contain NaN")
    return y, s


def has_both_classes(labels) -> bool:
    y = np.asarray(labels).astype(int)
    return bool(y.size) and 0 < y.sum() < y.size


def roc(labels, scores) -> dict:
    """Empirical ROC curve ``{"fpr", "tpr", "auc"}`` (AUC NaN if one class only)."""
    y, s = _check(labels, scores)
    if not has_both_classes(y):
        return {"fpr": [0.0, 1.0], "tpr": [0.0, 1.0], "auc": float("nan")}
    fpr, tpr, _ = roc_curve(y, s)
    return {"fpr": fpr, "tpr": tpr, "auc": float(roc_auc_score(y, s))}


def tpr_at_fpr(labels, scores, fpr: float) -> float:
    """Highest empirical TPR with FPR ≤ ``fpr`` (0 if no such ROC point but the origin)."""
    y, s = _check(labels, scores)
    if not has_both_classes(y):
        return float("nan")
    f, t, _ = roc_curve(y, s)
    ok = f <= fpr + 1e-12
    return float(t[ok].max()) if ok.any() else 0.0


def advantage(labels, scores) -> float:
    """``max_t TPR(t) − FPR(t)`` over thresholds on the scores."""
    y, s = _check(labels, scores)
    if not has_both_classes(y):
        return float("nan")
    f, t, _ = roc_curve(y, s)
    return float(np.max(t - f))


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial confidence interval for a proportion (Clopper & Pearson 1934).

    With k successes in n trials and α = 1 − confidence, the bounds are the Beta quantiles
    ``low = B⁻¹(α/2; k, n − k + 1)`` (0 when k = 0) and ``high = B⁻¹(1 − α/2; k + 1, n − k)`` (1 when k = n):
    the p at which P(X ≥ k) resp. P(X ≤ k) equals α/2, the interval ``scipy.stats.binomtest(...).proportion_ci(
    method="exact")`` finds by root search. The closed form is about 50 times faster, which matters where a chart
    draws one interval per point or group on every view."""
    if trials <= 0:
        return (float("nan"), float("nan"))
    low, high = clopper_pearson_many([successes], [trials], confidence)
    return (float(low[0]), float(high[0]))


def clopper_pearson_many(successes, trials, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """:func:`clopper_pearson` for arrays of successes and trials at once (NaN where there are no trials)."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if np.any(k < 0) or np.any(k > np.maximum(n, 0)):
        raise ValueError("successes must lie between 0 and the number of trials")
    alpha = 1.0 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, beta.ppf(alpha / 2, np.maximum(k, 1), n - k + 1), 0.0)
        high = np.where(k < n, beta.ppf(1 - alpha / 2, k + 1, np.maximum(n - k, 1)), 1.0)
    empty = n <= 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def accuracy_summary(correct, confidence: float = 0.95) -> dict:
    """Accuracy of 0/1 outcomes with its Clopper–Pearson interval."""
    c = np.asarray(correct, dtype=float).ravel()
    n = c.size
    k = int(round(c.sum()))
    lo, hi = clopper_pearson(k, n, confidence)
    return {"accuracy": k / n if n else float("nan"), "accuracy_ci_low": lo, "accuracy_ci_high": hi}


def proportion_ci_of_mean(values, trials_per_value: int, confidence: float = 0.95) -> tuple[float, float]:
    """Clopper–Pearson interval treating ``values`` (fractions of ``trials_per_value`` bits) as pooled Bernoulli draws."""
    v = np.asarray(values, dtype=float)
    k = int(round((v * trials_per_value).sum()))
    return clopper_pearson(k, v.size * trials_per_value, confidence)


def _upper(k: int, n: int, confidence: float) -> float:
    """One-sided upper Clopper–Pearson bound."""
    if n <= 0:
        return 1.0
    return clopper_pearson(k, n, 2 * confidence - 1)[1] if k < n else 1.0


def _epsilon_from_upper(fpr_hi: float, fnr_hi: float, delta: float) -> float:
    best = 0.0
    for a, b in ((fpr_hi, fnr_hi), (fnr_hi, fpr_hi)):
        num = 1.0 - delta - a
        if num > 0 and b > 0:
            best = max(best, math.log(num / b))
        elif num > 0 and b == 0:
            best = float("inf")
    return best


def empirical_epsilon(fp: int, n_neg: int, fn: int, n_pos: int, delta: float = 0.0,
                      confidence: float = 0.95) -> float:
    """Lower bound on ε implied by one fixed test's false-positive and false-negative counts, holding with
    probability ≥ ``confidence``: both rates get a one-sided Clopper–Pearson upper bound at
    ``1 − (1 − confidence)/2`` so that they hold together (union bound).

    Returns 0 when the counts are compatible with ε = 0 at this confidence. The test (threshold, attack) must
    not have been chosen on these counts — see :func:`split_epsilon_bound`.
    """
    each = 1.0 - (1.0 - confidence) / 2.0
    return _epsilon_from_upper(_upper(fp, n_neg, each), _upper(fn, n_pos, each), delta)


def max_threshold_epsilon(labels, scores, delta: float = 0.0, confidence: float = 0.95) -> float:
    """Largest :func:`empirical_epsilon` over every threshold of the ROC, on the same games.

    Biased upward (the threshold is chosen on the games it is judged on): kept only to measure how much the sound
    :func:`best_threshold_epsilon` costs, never as an audit verdict.
    """
    y, s = _check(labels, scores)
    if not has_both_classes(y):
        return float("nan")
    f, t, _ = roc_curve(y, s)
    n_neg, n_pos = int((y == 0).sum()), int((y == 1).sum())
    best = 0.0
    for fpr, tpr in zip(f, t):
        best = max(best, empirical_epsilon(int(round(fpr * n_neg)), n_neg,
                                           int(round((1 - tpr) * n_pos)), n_pos, delta, confidence))
    return best


def split_halves(labels) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic stratified split of games into a selection half and a bounding half: within each class,
    games alternate between the halves (games are exchangeable, so no randomness is needed and the same games
    always give the same bound)."""
    y = np.asarray(labels).astype(int).ravel()
    first = np.zeros(y.size, dtype=bool)
    for cls in (0, 1):
        idx = np.flatnonzero(y == cls)
        first[idx[::2]] = True
    return np.flatnonzero(first), np.flatnonzero(~first)


def _best_test(y: np.ndarray, score_sets: list[np.ndarray], delta: float, confidence: float) -> tuple[int, float]:
    """(score set, threshold) whose bound is largest on these games; predictions are ``score ≥ threshold``."""
    n_neg, n_pos = int((y == 0).sum()), int((y == 1).sum())
    each = 1.0 - (1.0 - confidence) / 2.0
    best = (-1.0, 0, math.inf)
    for i, s in enumerate(score_sets):
        f, t, thr = roc_curve(y, s)
        fp, fn = np.round(f * n_neg), np.round((1 - t) * n_pos)
        fpr_hi, fnr_hi = _upper_bounds(fp, n_neg, each), _upper_bounds(fn, n_pos, each)
        vals = np.zeros(f.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            for a, b in ((fpr_hi, fnr_hi), (fnr_hi, fpr_hi)):
                num = 1.0 - delta - a
                v = np.where((num > 0) & (b > 0), np.log(np.where(num > 0, num, 1) / np.where(b > 0, b, 1)), 0.0)
                vals = np.maximum(vals, v)
        j = int(np.argmax(vals))
        if vals[j] > best[0]:
            best = (float(vals[j]), i, float(thr[j]))
    return best[1], best[2]


def split_epsilon_bound(labels, score_sets, delta: float = 0.0, confidence: float = 0.95) -> float:
    """Sound 95% lower bound on ε from one or more attacks' scores on the same games.

    The games are split by :func:`split_halves`. On the selection half, every attack and every threshold is tried
    and the one with the largest bound is kept; on the bounding half, that single test's false-positive and
    false-negative counts give :func:`empirical_epsilon`. Because the test is fixed before the bounding half is
    looked at, the bound holds with probability ≥ ``confidence`` whatever was tried. NaN without both classes;
    0 (the trivial bound ε ≥ 0) when there are too few games for both halves to hold both classes.
    """
    y = np.asarray(labels).astype(int).ravel()
    sets = [_check(y, s)[1] for s in score_sets]
    if not has_both_classes(y):
        return float("nan")
    sel, ev = split_halves(y)
    if not (has_both_classes(y[sel]) and has_both_classes(y[ev])):
        return 0.0
    which, thr = _best_test(y[sel], [s[sel] for s in sets], delta, confidence)
    pred = sets[which][ev] >= thr
    ye = y[ev]
    fp, fn = int((pred & (ye == 0)).sum()), int((~pred & (ye == 1)).sum())
    return empirical_epsilon(fp, int((ye == 0).sum()), fn, int((ye == 1).sum()), delta, confidence)


def best_threshold_epsilon(labels, scores, delta: float = 0.0, confidence: float = 0.95) -> float:
    """Sound 95% lower bound on ε from one attack's scores: the threshold is chosen on half the games and the
    bound computed on the other half (:func:`split_epsilon_bound`)."""
    y, s = _check(labels, scores)
    if not has_both_classes(y):
        return float("nan")
    return split_epsilon_bound(y, [s], delta, confidence)


def mia_metrics(labels, scores, fpr_levels=FPR_LEVELS) -> dict:
    """Flat membership/attribute-inference metrics for a binary game."""
    r = roc(labels, scores)
    out = {"auc": r["auc"], "advantage": advantage(labels, scores)}
    for a in fpr_levels:
        out[f"tpr_at_fpr_{a:g}"] = tpr_at_fpr(labels, scores, a)
    return out


def auc_ci_from_counts(auc: float, n_pos: int, n_neg: int, confidence: float = 0.95) -> tuple[float, float]:
    """Normal-approximation confidence interval for an AUC (Hanley & McNeil 1982, standard error eq. 2).

    ``SE² = (A(1−A) + (n₊−1)(Q₁−A²) + (n₋−1)(Q₂−A²)) / (n₊n₋)`` with ``Q₁ = A/(2−A)``, ``Q₂ = 2A²/(1+A)``;
    the interval is ``A ± z·SE`` clipped to [0, 1]. Used for the bands of AUC sweeps, where only the AUC and
    the class sizes of each point are kept (with the scores, prefer :func:`auc_ci`).
    """

    if n_pos <= 0 or n_neg <= 0 or not math.isfinite(auc):
        return (float("nan"), float("nan"))
    q1, q2 = auc / (2 - auc), 2 * auc * auc / (1 + auc)
    var = (auc * (1 - auc) + (n_pos - 1) * (q1 - auc * auc) + (n_neg - 1) * (q2 - auc * auc)) / (n_pos * n_neg)
    half = float(norm.ppf(0.5 + confidence / 2)) * math.sqrt(max(var, 0.0))
    return (max(0.0, auc - half), min(1.0, auc + half))


def auc_ci(labels, scores, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided confidence interval for the ROC AUC.

    DeLong et al. (1988): with the placement values ``V10_i = P̂(s_neg < s_pos_i)`` (ties count ½) of the
    ``m`` positives and ``V01_j = P̂(s_neg_j < s_pos)`` of the ``n`` negatives,
    ``Var(AUC) ≈ Var(V10)/m + Var(V01)/n`` and the interval is ``AUC ± z·SE`` (clipped to [0, 1]).

    With few targets (``min(m, n) < 20``) or a degenerate variance (e.g. AUC = 1 on 4 targets) the normal
    approximation is meaningless, so the conservative Birnbaum–McCarty bound ``Var ≤ AUC(1−AUC)/min(m, n)``
    is used instead, as an exact Clopper–Pearson interval on ``round(AUC·min(m, n))`` of ``min(m, n)``.
    NaN bounds when one class is missing.
    """

    y, s = _check(labels, scores)
    if not has_both_classes(y):
        return (float("nan"), float("nan"))
    pos, neg = s[y == 1], s[y == 0]
    m, n = pos.size, neg.size
    ranks_all = rankdata(np.concatenate([pos, neg]))
    v10 = (ranks_all[:m] - rankdata(pos)) / n          # share of negatives below each positive
    v01 = 1.0 - (ranks_all[m:] - rankdata(neg)) / m    # share of positives above each negative
    auc = float(v10.mean())
    k = min(m, n)
    var = (v10.var(ddof=1) / m if m > 1 else 0.0) + (v01.var(ddof=1) / n if n > 1 else 0.0)
    if k < 20 or var <= 0:
        return clopper_pearson(int(round(auc * k)), k, confidence)
    z = float(norm.ppf(0.5 + confidence / 2))
    half = z * math.sqrt(var)
    return (max(0.0, auc - half), min(1.0, auc + half))
