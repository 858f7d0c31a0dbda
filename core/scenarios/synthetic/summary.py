"""From the synthetic-data game records to the run's metrics and plot series, in named steps.

The main records (one per game, the full size ladder each) give, per synthetic size m, the attacks' accuracy with
its Clopper–Pearson interval, AUC, TPR at 10% FPR and the empirical-ε lower bound, plus the utility errors
(MRE>10, 3-TVD, mean and s.d. over games). The headline is the strongest attack at the largest m (Acc_max when
several attacks ran). The query-sweep records add accuracy against the number of queries q.
"""
from __future__ import annotations

import math

import numpy as np

from ...measure.metrics import accuracy_summary, best_threshold_epsilon, roc, tpr_at_fpr
from ...measure.synthetic_risk import majority_baseline
from .data import GOOD_UTILITY, HIGH_RISK
from .exposure import exposure_from_records
from .release_file import is_file, original_rows
from .risk_summary import risk_summary

CI_KEYS = ("accuracy", "accuracy_ci_low", "accuracy_ci_high")


def summarize_games(config: dict, context: dict, records: list[dict], attacks: list[str]) -> tuple[dict, dict]:
    """The scenario's ``summarize``: metrics and series of a (possibly partial) run."""
    main = sorted((r for r in records if r["kind"] == "main"), key=lambda r: r["game"])
    qrecs = [r for r in records if r["kind"] == "q"]
    sizes = context["sizes"]
    series: dict = {"risk": {}, "sizes": sizes, "attacks": attacks, "dataset_label": context["label"],
                    "secret": context["secret"], "generator": context["generator"], "by_size": {}, "roc": {},
                    "utility": {}, "privacy_utility": [], "accuracy_vs_queries": {}, "example": None,
                    "high_risk": HIGH_RISK, "good_utility": GOOD_UTILITY}
    if not main:
        return {}, series
    truth = np.array([r["truth"] for r in main])
    eps = main[0]["epsilon"]
    delta = main[0]["delta"] if eps is not None and math.isfinite(eps) else 0.0
    per_size = {m: size_stats([r["sizes"][i] for r in main], truth, attacks, delta) for i, m in enumerate(sizes)}
    metrics = headline_metrics(per_size, sizes, attacks, main, truth, eps, delta)
    metrics["accuracy_baseline"] = majority_baseline(truth)  # the coin's own majority among the targets
    more, series["risk"] = risk_summary(main)
    metrics.update(more)
    series.update(size_series(per_size, sizes, attacks))
    series["privacy_utility"] = privacy_utility_points(per_size, sizes, context["generator"],
                                                       metrics["claimed_epsilon"], len(main))
    if qrecs and "recon" in attacks:
        series["accuracy_vs_queries"] = queries_curve(qrecs, main, per_size[sizes[-1]]["recon"],
                                                      metrics["queries_used"])
    # a release from a file was made from every original record, not from config["n"] of them
    n = original_rows(config) if is_file(config) else config["n"]
    series["example"] = example_game(main[0], sizes, n, attacks)
    return metrics, series


def size_stats(rows: list[dict], truth: np.ndarray, attacks: list[str], delta: float) -> dict:
    """One synthetic size over all games: utility (mean, s.d.) and, per attack, accuracy with its interval,
    AUC, TPR at 10% FPR, the empirical-ε lower bound and the ROC; ``best`` names the most accurate attack."""
    mre = np.array([x["mre_gt10"] for x in rows], dtype=float)
    mre = mre[~np.isnan(mre)]  # NaN: no 3-way cell of D' holds more than 10 records
    stats = {"mre_gt10": float(mre.mean()) if mre.size else float("nan"),
             "tvd3": float(np.mean([x["tvd3"] for x in rows])),
             "mre_gt10_sd": float(mre.std()) if mre.size else float("nan"),
             "tvd3_sd": float(np.std([x["tvd3"] for x in rows]))}
    frac = np.array([x.get("sample_equivalent", np.nan) for x in rows], dtype=float)
    stats["sample_equivalent"] = float(np.nanmean(frac)) if np.isfinite(frac).any() else float("nan")
    for a in attacks:
        guesses = np.array([x[f"{a}_guess"] for x in rows])
        scores = np.array([x[f"{a}_score"] for x in rows])
        curve = roc(truth, scores)
        stats[a] = {**accuracy_summary(guesses == truth), "auc": curve["auc"],
                    "tpr_at_fpr_0.1": tpr_at_fpr(truth, scores, 0.1),
                    "empirical_epsilon_low": best_threshold_epsilon(truth, scores, delta), "roc": curve}
    stats["best"] = max(attacks, key=lambda a: stats[a]["accuracy"])
    if "recon" in attacks:
        stats["recon_all"] = float(np.mean([x["recon_all"] for x in rows]))
    return stats


def headline_metrics(per_size: dict, sizes: list[int], attacks: list[str], main: list[dict], truth: np.ndarray,
                     eps, delta: float) -> dict:
    """The run's metrics: the strongest attack at the largest size, every attack's accuracy when several ran,
    the all-records reconstruction accuracy, per-size accuracy and utility, and mean per-game seconds."""
    top = per_size[sizes[-1]]
    head = top[top["best"]]
    metrics = {"accuracy": head["accuracy"], "accuracy_ci_low": head["accuracy_ci_low"],
               "accuracy_ci_high": head["accuracy_ci_high"], "auc": head["auc"],
               "tpr_at_fpr_0.1": head["tpr_at_fpr_0.1"], "mre_gt10": top["mre_gt10"], "tvd3": top["tvd3"],
               "sample_equivalent": top.get("sample_equivalent"),
               "claimed_epsilon": eps if eps is not None and math.isfinite(eps) else None,
               "claimed_delta": delta, "empirical_epsilon_low": head["empirical_epsilon_low"],
               "games_done": len(main), "target_secret_one_rate": float(truth.mean()),
               "target_kept_original_rate": float(np.mean([r["truth"] == r["original"] for r in main]))}
    if len(attacks) > 1:
        for a in attacks:
            metrics[f"accuracy_{a}"] = top[a]["accuracy"]
            metrics[f"auc_{a}"] = top[a]["auc"]
        metrics["accuracy_max"] = head["accuracy"]
    if "recon" in attacks:
        metrics["recon_all_records_accuracy"] = top["recon_all"]
        ex = [r["example"] for r in main if r["example"]]
        metrics["queries_used"] = float(np.mean([e["queries"] for e in ex]))
        metrics["queries_available"] = float(np.mean([e["available"] for e in ex]))
    for m in sizes:
        st = per_size[m]
        metrics[f"accuracy_at_{m}"] = st[st["best"]]["accuracy"]
        metrics[f"mre_gt10_at_{m}"] = st["mre_gt10"]
        metrics[f"tvd3_at_{m}"] = st["tvd3"]
    for part in ("fit", "sample", "attack"):
        metrics[f"{part}_seconds"] = float(np.mean([r[f"{part}_seconds"] for r in main]))
    return metrics


def size_series(per_size: dict, sizes: list[int], attacks: list[str]) -> dict:
    """Accuracy (with interval) and AUC against m per attack (and their maximum), the ROC at the largest m, and
    the utility errors against m."""
    top = per_size[sizes[-1]]
    by_size = {a: {k: [per_size[m][a][k] for m in sizes] for k in CI_KEYS + ("auc",)} for a in attacks}
    if len(attacks) > 1:
        by_size["max"] = {k: [per_size[m][per_size[m]["best"]][k] for m in sizes] for k in CI_KEYS + ("auc",)}
    rocs = {a: {"fpr": top[a]["roc"]["fpr"], "tpr": top[a]["roc"]["tpr"], "auc": top[a]["auc"]} for a in attacks}
    utility = {k: [per_size[m][k] for m in sizes] for k in ("mre_gt10", "tvd3", "mre_gt10_sd", "tvd3_sd")}
    return {"by_size": by_size, "roc": rocs, "utility": utility}


def privacy_utility_points(per_size: dict, sizes: list[int], gen: dict, eps, games: int) -> list[dict]:
    """One point of the privacy–utility scatter per synthetic size: the strongest attack's accuracy (with its
    interval) against the utility errors."""
    points = []
    for m in sizes:
        st = per_size[m]
        best = st[st["best"]]
        points.append({"generator": gen["name"], "title": gen["title"], "epsilon": eps, "m": m,
                       "accuracy": best["accuracy"], "attack": st["best"], "ci_low": best["accuracy_ci_low"],
                       "ci_high": best["accuracy_ci_high"], "mre_gt10": st["mre_gt10"], "tvd3": st["tvd3"],
                       "games": games})
    return points


def queries_curve(qrecs: list[dict], main: list[dict], recon_top: dict, queries_used: float) -> dict:
    """Reconstruction accuracy against the number of queries q (the query-sweep games), ending with the chosen
    setting itself (all queries, or q = ratio·n) taken from the main games."""
    by_q: dict[int, list] = {}
    for r in qrecs:
        for p in r["points"]:
            by_q.setdefault(p["q"], []).append(p["guess"] == r["truth"])
    curve = {"q": [], **{k: [] for k in CI_KEYS}, "games": []}
    for q in sorted(by_q):
        s = accuracy_summary(by_q[q])
        curve["q"].append(q)
        for k in CI_KEYS:
            curve[k].append(s[k])
        curve["games"].append(len(by_q[q]))
    curve["q"].append(queries_used)
    for k in CI_KEYS:
        curve[k].append(recon_top[k])
    curve["games"].append(len(main))
    return curve


def example_game(first: dict, sizes: list[int], n: int, attacks: list[str]) -> dict:
    """The first game, told as a story on the page: the target, its secret, each attack's guess and score."""
    return {"game": first["game"], "target": first["target"], "truth": first["truth"],
            "original": first["original"], "unique_targets": first["unique_targets"], "m": sizes[-1], "n": n,
            "guesses": {a: first["sizes"][-1][f"{a}_guess"] for a in attacks},
            "scores": {a: first["sizes"][-1][f"{a}_score"] for a in attacks},
            "t_u_by_size": [x.get("recon_score") for x in first["sizes"]], "recon": first["example"]}


def exposure_table(config: dict, context: dict, records: list[dict], attacks: list[str]):
    """Who is exposed in the synthetic-data game: every attacked training record of every game, traced to its row
    (:mod:`core.scenarios.synthetic.exposure`), with the guesses of the attack whose risk against the control set
    is the largest."""
    main = sorted((r for r in records if r["kind"] == "main"), key=lambda r: r["game"])
    if not main:
        return None
    _, risk = risk_summary(main)
    head = risk.get("headline") if risk else None
    return exposure_from_records(config, context, main, head) if head else None
