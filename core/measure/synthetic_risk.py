"""Privacy risk of a synthetic release measured against a control set, as the field's audit tools report it.

Source: Giomi, Boenisch, Wehmeyer & Tasnádi, "A Unified Framework for Quantifying Privacy Risk in Synthetic Data"
(PoPETs 2023, the Anonymeter paper), §3–4: an attack is run on records that were used to fit the release
(*training* records) and on records from the same population that were not (*control* records). What the attack
achieves on control records is what the population's patterns alone give away — the generator did not see them —
so only the excess on training records is a leak about the people in the data:

    risk = (r_train − r_control) / (1 − r_control)

with ``r`` the attack's success rate on each set. 0 = no more success on the people in the data than on strangers;
1 = every training record the attack could still get wrong after the population's patterns, it gets right.
Negative values mean the attack did better on strangers (sampling noise, when the interval holds 0); the interval
is clipped to [−1, 1].

**The interval.** ``risk`` increases with ``r_train`` and decreases with ``r_control`` (∂risk/∂r_control =
(r_train − 1)/(1 − r_control)² ≤ 0), so a box of plausible rates maps to an interval of risk through its two
corners: ``low = f(train_low, control_high)``, ``high = f(train_high, control_low)``. Each rate gets an exact
Clopper–Pearson interval at 1 − α/2 (Bonferroni), so both hold at once, and the risk interval, with at least
1 − α. That interval counts the sampling of *records*. Records attacked in one game share one release, so their
successes are not independent: when the run played at least :data:`MIN_GAMES_BOOTSTRAP` games, a percentile
bootstrap over games (whole games resampled with replacement, pooled rates recomputed; seeded, so the same run
always gives the same interval) measures the release-to-release variation too, and the reported interval is the
wider of the two at each end. With fewer games only the record interval is available and the note says so.
"""
from __future__ import annotations

import numpy as np

from .metrics import clopper_pearson

MIN_GAMES_BOOTSTRAP = 5
BOOTSTRAP_DRAWS = 2000


def risk_from_rates(train_rate: float, control_rate: float) -> float:
    """``(train − control) / (1 − control)``; NaN when the control rate is 1 (nothing left to leak)."""
    if not np.isfinite(train_rate) or not np.isfinite(control_rate) or control_rate >= 1.0:
        return float("nan")
    return float((train_rate - control_rate) / (1.0 - control_rate))


def control_risk(train_success, control_success, *, train_games=None, control_games=None,
                 confidence: float = 0.95) -> dict:
    """Risk of an attack from its 0/1 outcomes on training and control records.

    ``train_success`` / ``control_success``: one 0/1 (or bool) outcome per attacked record. ``train_games`` /
    ``control_games``: the game each outcome comes from (same length), for the bootstrap over games; None = one
    game. Returns ``risk``, ``risk_ci_low``, ``risk_ci_high``, both rates with their counts, ``games`` and
    ``interval`` (which interval was used, in words)."""
    t = np.asarray(train_success, dtype=float).ravel()
    c = np.asarray(control_success, dtype=float).ravel()
    out = {"train_rate": float(t.mean()) if t.size else float("nan"), "train_n": int(t.size),
           "control_rate": float(c.mean()) if c.size else float("nan"), "control_n": int(c.size)}
    out["risk"] = risk_from_rates(out["train_rate"], out["control_rate"])
    if not t.size or not c.size:
        return {**out, "risk_ci_low": float("nan"), "risk_ci_high": float("nan"), "games": 0,
                "interval": "no records attacked"}
    level = 1.0 - (1.0 - confidence) / 2.0  # Bonferroni: both rates' intervals hold at once
    t_lo, t_hi = clopper_pearson(int(round(t.sum())), t.size, level)
    c_lo, c_hi = clopper_pearson(int(round(c.sum())), c.size, level)
    low, high = risk_from_rates(t_lo, c_hi), risk_from_rates(t_hi, c_lo)
    low = -1.0 if not np.isfinite(low) else low  # control rate may be 1 at its upper end: no lower bound
    high = 1.0 if not np.isfinite(high) else high
    tg = np.zeros(t.size, int) if train_games is None else np.asarray(train_games).ravel()
    cg = np.zeros(c.size, int) if control_games is None else np.asarray(control_games).ravel()
    games = np.union1d(np.unique(tg), np.unique(cg))
    interval = f"records (Clopper–Pearson on each rate, {confidence:.0%} jointly)"
    if games.size >= MIN_GAMES_BOOTSTRAP:
        b_lo, b_hi = _bootstrap_games(t, tg, c, cg, games, confidence)
        if np.isfinite(b_lo) and np.isfinite(b_hi):
            low, high = min(low, b_lo), max(high, b_hi)
            interval += f", widened by a bootstrap over {games.size} games"
    else:
        interval += f"; {games.size} game(s): too few to measure release-to-release variation"
    return {**out, "risk_ci_low": float(min(max(low, -1.0), 1.0)), "risk_ci_high": float(min(max(high, -1.0), 1.0)),
            "games": int(games.size), "interval": interval}


def _bootstrap_games(t, tg, c, cg, games, confidence) -> tuple[float, float]:
    """Percentile interval of the pooled risk over games resampled with replacement (seed fixed: the interval is
    part of the run's seeded result)."""
    index = {g: i for i, g in enumerate(games.tolist())}
    ti = np.array([index[g] for g in tg.tolist()])
    ci = np.array([index[g] for g in cg.tolist()])
    k = games.size
    t_succ, t_n = np.bincount(ti, weights=t, minlength=k), np.bincount(ti, minlength=k).astype(float)
    c_succ, c_n = np.bincount(ci, weights=c, minlength=k), np.bincount(ci, minlength=k).astype(float)
    rng = np.random.default_rng(0)
    draws = rng.multinomial(k, np.full(k, 1.0 / k), size=BOOTSTRAP_DRAWS).astype(float)  # times each game is drawn
    with np.errstate(invalid="ignore", divide="ignore"):
        rt = (draws @ t_succ) / (draws @ t_n)
        rc = (draws @ c_succ) / (draws @ c_n)
        risk = (rt - rc) / (1.0 - rc)
    risk = risk[np.isfinite(risk)]
    if risk.size < BOOTSTRAP_DRAWS // 2:
        return float("nan"), float("nan")
    alpha = 1.0 - confidence
    return float(np.quantile(risk, alpha / 2)), float(np.quantile(risk, 1 - alpha / 2))


def majority_baseline(secrets) -> float:
    """Accuracy of always guessing the most common value: what an attack must beat to know more than the
    population's base rate."""
    s = np.asarray(secrets).ravel()
    if not s.size:
        return float("nan")
    _, counts = np.unique(s, return_counts=True)
    return float(counts.max() / s.size)


def risk_metrics(prefix: str, result: dict) -> dict:
    """The flat metric names a run stores for one attack's risk: ``{prefix}risk``, ``…_ci_low``, ``…_ci_high``,
    and the two success rates."""
    return {f"{prefix}risk": result["risk"], f"{prefix}risk_ci_low": result["risk_ci_low"],
            f"{prefix}risk_ci_high": result["risk_ci_high"], f"{prefix}success_train": result["train_rate"],
            f"{prefix}success_control": result["control_rate"]}
