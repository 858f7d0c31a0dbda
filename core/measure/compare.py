"""Comparing runs: headline numbers per scenario, configuration diffs, ROC curves, the privacy–utility Pareto front.

Scenario-generic: every :class:`~core.runtime.games.Result` (or its dict) is read through a small table of which metric is
the scenario's *headline attack metric* (y of the privacy–utility scatter: higher = more leakage) and which is its
*utility error* (x: higher = less useful data), each with fallbacks, so new scenarios plug in by reporting one of
the usual names (``accuracy``/``auc``; ``answer_rmse``/``mre_gt10``/``tvd3``/``1 − model_accuracy``…).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

# (metric, label, transform) — transform "error" turns an accuracy-like utility into an error (1 − value).
ATTACK_METRICS: dict[str, list[tuple[str, str]]] = {
    "location": [("accuracy", "membership accuracy"), ("auc", "AUC")],
    "reconstruction": [("accuracy", "bits recovered")],
    # AUC first: DeSIA's meta-classifier scores are calibrated probabilities that rarely cross 0.5 when the
    # counts say little, so its accuracy sits at the majority-class share whatever the noise; the AUC ranks the
    # scores and moves with what the release reveals.
    "aggregates": [("auc", "attack AUC"), ("accuracy", "attack accuracy")],
    "synthetic": [("accuracy", "attribute-inference accuracy"), ("auc", "AUC")],
    "ml-models": [("accuracy", "attribute-inference accuracy"), ("auc", "AUC")],
}
UTILITY_METRICS: dict[str, list[tuple[str, str, str]]] = {
    "location": [("utility_error", "utility error", ""), ("noise_scale", "noise scale per count", "")],
    "reconstruction": [("utility_error", "utility error", ""), ("answer_rmse", "answer RMSE", "")],
    "aggregates": [("utility_error", "mean count error per cell", ""), ("answer_rmse", "answer RMSE", ""),
                   ("noise_rmse", "noise RMSE per cell", ""), ("noise_scale", "noise scale per cell", "")],
    "synthetic": [("utility_error", "utility error", ""), ("mre_gt10", "MRE (counts > 10)", ""),
                  ("tvd3", "3-way TVD", "")],
    "ml-models": [("utility_error", "utility error", ""), ("model_accuracy", "model error (1 − accuracy)", "error")],
}
DEFAULT_ATTACK = [("accuracy", "attack accuracy"), ("auc", "AUC"), ("advantage", "advantage")]
DEFAULT_UTILITY = [("utility_error", "utility error", ""), ("answer_rmse", "answer RMSE", ""),
                   ("mre_gt10", "MRE (counts > 10)", ""), ("tvd3", "3-way TVD", ""),
                   ("rmse", "RMSE", ""), ("noise_scale", "noise scale", ""),
                   ("model_accuracy", "model error (1 − accuracy)", "error")]
# The "strongest attack" headline metrics shown side by side on the Compare page.
SIDE_BY_SIDE = ("accuracy", "accuracy_ci_low", "accuracy_ci_high", "auc", "advantage", "tpr_at_fpr_0.01",
                "tpr_at_fpr_0.001", "dp_bound_accuracy", "claimed_epsilon", "claimed_delta",
                "empirical_epsilon_low", "release_epsilon", "answer_rmse", "noise_scale", "mre_gt10", "tvd3",
                "model_accuracy", "eod", "dpd")


def _parts(result: Any) -> tuple[str, dict, dict, dict]:
    if isinstance(result, dict):
        return (result.get("scenario", ""), result.get("config") or {}, result.get("metrics") or {},
                result.get("series") or {})
    return result.scenario, result.config or {}, result.metrics or {}, result.series or {}


def _value(metrics: dict, name: str) -> float | None:
    v = metrics.get(name)
    if v is None or isinstance(v, bool):
        return None
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


@dataclass
class Headline:
    scenario: str
    attack_metric: str | None
    attack_label: str
    attack: float | None
    utility_metric: str | None
    utility_label: str
    utility_error: float | None
    empirical_epsilon_low: float | None
    claimed_epsilon: float | None
    # The attack metric's 95% interval when the run reports one for it (an accuracy over few games is noisy: a
    # seed of 25 synthetic-data games moves the target accuracy by about ±0.16), the number of games behind it,
    # and a lower-variance companion measured on the same games (the synthetic reconstruction's accuracy over
    # all records, not just the target), so a reader can tell a real difference from one seed's luck.
    attack_ci: tuple[float, float] | None = None
    games: int | None = None
    companion_metric: str | None = None
    companion_label: str = ""
    companion: float | None = None


# Lower-variance companions of a headline, shown beside it: (metric, label).
COMPANIONS = {"synthetic": ("recon_all_records_accuracy", "all-records reconstruction accuracy")}


def interval_text(value: float | None, ci: tuple[float, float] | None, games: int | None = None) -> str:
    """``0.780 (95% CI 0.700–0.850, 100 games)``: a headline number with its interval, for tables and reports."""
    if value is None:
        return "—"
    text = f"{value:.3f}"
    if ci is not None:
        text += f" (95% CI {ci[0]:.3f}–{ci[1]:.3f}" + (f", {games:,} games)" if games else ")")
    return text


def headline(result: Any) -> Headline:
    """The scenario's headline attack metric and utility error (first available name in the table)."""
    # lazy: start-up time (scipy only when used)
    from .audit import claim_of

    name, _, metrics, _ = _parts(result)
    attack = (None, "attack metric", None)
    for key, label in ATTACK_METRICS.get(name, []) + DEFAULT_ATTACK:
        v = _value(metrics, key)
        if v is not None:
            attack = (key, label, v)
            break
    utility = (None, "utility error", None)
    for key, label, transform in UTILITY_METRICS.get(name, []) + DEFAULT_UTILITY:
        v = _value(metrics, key)
        if v is not None:
            utility = (key, label, 1.0 - v if transform == "error" else v)
            break
    eps, _ = claim_of(result)
    ci = None
    if attack[0] is not None:
        lo, hi = _value(metrics, f"{attack[0]}_ci_low"), _value(metrics, f"{attack[0]}_ci_high")
        ci = (lo, hi) if lo is not None and hi is not None else None
    games = _value(metrics, "games_done")
    comp_key, comp_label = COMPANIONS.get(name, (None, ""))
    comp = _value(metrics, comp_key) if comp_key else None
    return Headline(name, attack[0], attack[1], attack[2], utility[0], utility[1], utility[2],
                    _value(metrics, "empirical_epsilon_low"), eps, ci, None if games is None else int(games),
                    comp_key if comp is not None else None, comp_label if comp is not None else "", comp)


def config_diff(configs: list[dict], names: list[str] | None = None) -> list[dict]:
    """One row per parameter across runs: ``{"param", "values": [...], "differs": bool}``.

    A parameter a run does not have (another scenario) shows as None. Rows that differ come first, in the order
    the parameters first appear.
    """
    order: list[str] = []
    for c in configs:
        for k in c:
            if k not in order:
                order.append(k)
    rows = []
    for k in order:
        values = [c.get(k) for c in configs]
        differs = any(_norm(v) != _norm(values[0]) for v in values[1:])
        rows.append({"param": k, "values": values, "differs": differs})
    rows.sort(key=lambda r: not r["differs"])  # stable: keeps first-appearance order inside each group
    return rows


def _norm(v: Any) -> Any:
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def pareto_front(points: Iterable[tuple[float | None, float | None]]) -> list[bool]:
    """Which points are Pareto-optimal when *both* coordinates are to be minimised (utility error, leakage).

    A point is on the front unless another point is at least as good in both and strictly better in one.
    Points with a missing or NaN coordinate are never on the front.
    """
    pts = [(None if x is None else float(x), None if y is None else float(y)) for x, y in points]
    ok = [x is not None and y is not None and not (math.isnan(x) or math.isnan(y)) for x, y in pts]
    out = []
    for i, (x, y) in enumerate(pts):
        if not ok[i]:
            out.append(False)
            continue
        dominated = any(ok[j] and j != i and pts[j][0] <= x and pts[j][1] <= y and (pts[j][0] < x or pts[j][1] < y)
                        for j in range(len(pts)))
        out.append(not dominated)
    return out


def pareto_points(points: list[dict], x: str, y: str = "accuracy") -> list[dict]:
    """The points of :func:`pareto_front` over ``(point[x], point[y])`` (both minimised), sorted by ``x`` then
    ``y`` — the staircase a privacy–utility scatter draws. Points missing either coordinate are left out."""
    on = pareto_front([(p.get(x), p.get(y)) for p in points])
    return sorted((p for p, keep in zip(points, on) if keep), key=lambda p: (p[x], p[y]))


def roc_curves(result: Any) -> dict[str, dict]:
    """The run's measured ROC curves ``{attack: {"fpr", "tpr", "auc"}}`` (empty if it has none)."""
    _, _, metrics, series = _parts(result)
    roc = series.get("roc")
    if not isinstance(roc, dict):
        return {}
    if "fpr" in roc and "tpr" in roc:  # a single curve
        roc = {"attack": roc}
    out = {}
    for name, c in roc.items():
        if not isinstance(c, dict) or "fpr" not in c or "tpr" not in c or len(c["fpr"]) < 2:
            continue
        fpr, tpr = np.asarray(c["fpr"], float), np.asarray(c["tpr"], float)
        auc = c.get("auc")
        if auc is None:
            order = np.argsort(fpr, kind="stable")
            # step ROC (empirical thresholds): trapezoids on the staircase's corners
            auc = float(np.trapezoid(tpr[order], fpr[order]))
        out[str(name)] = {"fpr": fpr.tolist(), "tpr": tpr.tolist(), "auc": float(auc)}
    return out


def strongest_roc(result: Any) -> tuple[str, dict] | None:
    """The measured ROC with the largest AUC, leaving out random-guess references."""
    curves = {k: v for k, v in roc_curves(result).items() if "random" not in k.lower()}
    if not curves:
        return None
    name = max(curves, key=lambda k: (curves[k]["auc"] if curves[k]["auc"] == curves[k]["auc"] else -1))
    return name, curves[name]


def run_label(result: Any, index: int | None = None) -> str:
    """A short name for a pinned run: scenario, seed and the parameters that usually matter."""
    name, config, _, _ = _parts(result)
    keys = [k for k in ("epsilon", "mechanism", "observations", "attacker", "attack", "n", "query_ratio",
                        "defense", "defense_level", "generator", "model", "defence", "task") if k in config]
    bits = ", ".join(f"{k}={_short(config[k])}" for k in keys[:4])
    prefix = f"#{index} " if index is not None else ""
    return f"{prefix}{name} ({bits}; seed {config.get('seed', 0)})" if bits else f"{prefix}{name} (seed {config.get('seed', 0)})"


def _short(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def comparison_table(results: list[Any], labels: list[str] | None = None) -> list[dict]:
    """Rows of headline metrics, one per run (for the side-by-side table and the report)."""
    labels = labels or [run_label(r, i + 1) for i, r in enumerate(results)]
    rows = []
    for label, r in zip(labels, results):
        name, config, metrics, _ = _parts(r)
        h = headline(r)
        row = {"run": label, "scenario": name, "seed": config.get("seed"),
               "attack metric": h.attack_label, "attack": h.attack,
               "attack 95% CI": None if h.attack_ci is None else f"{h.attack_ci[0]:.3f}–{h.attack_ci[1]:.3f}",
               "games": h.games,
               "utility error metric": h.utility_label, "utility error": h.utility_error,
               "claimed ε": h.claimed_epsilon, "empirical ε (95% low)": h.empirical_epsilon_low}
        if h.companion is not None:
            row[h.companion_label] = h.companion
        for k in SIDE_BY_SIDE:
            if k in metrics and k not in ("claimed_epsilon", "empirical_epsilon_low"):
                row[k] = _value(metrics, k)
        rows.append(row)
    return rows


def scatter_points(results: list[Any], y: str = "attack") -> list[dict]:
    """Points of the privacy–utility scatter: x = utility error, y = headline attack metric (``y="attack"``)
    or the empirical ε lower bound (``y="epsilon"``); ``front`` marks the Pareto-optimal runs."""
    pts = []
    for i, r in enumerate(results):
        h = headline(r)
        yv = h.attack if y == "attack" else h.empirical_epsilon_low
        pts.append({"index": i, "label": run_label(r, i + 1), "scenario": h.scenario, "x": h.utility_error,
                    "y": yv, "x_label": h.utility_label, "y_label": h.attack_label if y == "attack" else
                    "empirical ε (95% lower bound)"})
    front = pareto_front([(p["x"], p["y"]) for p in pts])
    for p, f in zip(pts, front):
        p["front"] = f
    return pts


def _interval(result: Any, metric: str | None) -> tuple[float, float] | None:
    """The 95% interval a run reports for its headline metric (``<metric>_ci_low`` / ``_ci_high``), if any."""
    if metric is None:
        return None
    _, _, metrics, _ = _parts(result)
    lo, hi = _value(metrics, f"{metric}_ci_low"), _value(metrics, f"{metric}_ci_high")
    return (lo, hi) if lo is not None and hi is not None else None


def ranking_verdict(results: list[Any], labels: list[str]) -> str | None:
    """The Compare page's one-line verdict, naming only the differences the runs' 95% intervals support.

    A run "leaks least" only when its interval lies wholly below every other run's; otherwise the sentence says
    the intervals are too wide to rank the runs and names the pairs that do differ (if any). Runs without an
    interval are compared by value with that caveat. Runs with different headline metrics are not ranked."""
    heads = [headline(r) for r in results]
    rows = [(lab, h, _interval(r, h.attack_metric)) for lab, h, r in zip(labels, heads, results)
            if h.attack is not None]
    if len(rows) < 2:
        return None
    if len({h.attack_metric for _, h, _ in rows}) > 1:
        return ("The pinned runs report different headline metrics (" + ", ".join(sorted({h.attack_label for _, h, _
                in rows})) + "), so they are not ranked against each other.")
    what = rows[0][1].attack_label
    if any(ci is None for _, _, ci in rows):
        low = min(rows, key=lambda r: r[1].attack)
        return (f"Lowest {what}: **{low[0]}** ({low[1].attack:.3f}); some runs report no confidence interval, "
                "so this ordering may be luck.")
    low = min(rows, key=lambda r: r[2][1])
    if all(low[2][1] < ci[0] for lab, _, ci in rows if lab != low[0]):
        return (f"**{low[0]}** leaks least: its {what} of {low[1].attack:.3f} (95% CI {low[2][0]:.3f} – "
                f"{low[2][1]:.3f}) lies below every other run's interval.")
    apart = [(a, b) for i, (a, _, ca) in enumerate(rows) for (b, _, cb) in rows[i + 1:]
             if ca[1] < cb[0] or cb[1] < ca[0]]
    text = (f"The runs' 95% intervals of the {what} overlap: too wide to say which leaks least "
            "(play more games or use more records).")
    if apart:
        lower = [(a, b) if _mid(rows, a) < _mid(rows, b) else (b, a) for a, b in apart]
        text += " Clear differences: " + "; ".join(f"**{a}** leaks less than **{b}**" for a, b in lower) + "."
    return text


def _mid(rows, label) -> float:
    return next(h.attack for lab, h, _ in rows if lab == label)


def difference_labels(results: list[Any]) -> list[str]:
    """A label per pinned run made of the parameters that differ between the runs (e.g. the generator), so
    runs of one lab are told apart by what was changed; runs that differ in nothing get their seed."""
    configs = [_parts(r)[1] for r in results]
    changed = [d["param"] for d in config_diff(configs) if d["differs"] and d["param"] not in ("data_path",)]
    out = []
    for i, (r, config) in enumerate(zip(results, configs)):
        name = _parts(r)[0]
        bits = ", ".join(f"{k}={_short(config[k])}" for k in changed[:3] if k in config)
        out.append(f"#{i + 1} {name} ({bits})" if bits else run_label(r, i + 1))
    return out
