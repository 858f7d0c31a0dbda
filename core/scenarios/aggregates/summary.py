"""From the aggregate-statistics unit records to the run's metrics and plot series, in named steps.

Every attack's rows (one per attacked target: label, score, prediction) give its ROC, AUC and TPR at fixed FPRs
(pooled over all blocks and releases). The main attack (DeSIA when every attack runs) adds the AUC's 95% DeLong
interval, the empirical-ε lower bound of its scores (δ = 0: Laplace counts claim pure ε-DP) and, for DeSIA, the
share of targets its deterministic module settles (and how many of those it gets wrong: none, by construction).
The random-guess scores of the same targets give the chance line; DeSIA's records give the ablation table; a sweep
gives the AUC per sweep value with its interval.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...data.file_rows import file_cells, in_file, row_numbers
from ...measure import cluster_auc
from ...measure.metrics import best_threshold_epsilon
from ...measure.records import build, confidence
from ...theory import count_error
from .data import (_LABELS, ABLATION_ROWS, EMPIRICAL_DELTA, MIN_TARGETS_FOR_AUC, _claimed_epsilon, _release,
                   _roc_metrics)
from .per_person import cells_per_person, privacy_metrics


def summarize_runs(config: dict, context: dict, records: list[dict], settings: list[tuple]) -> tuple[dict, dict]:
    """The scenario's ``summarize``: metrics and series of a (possibly partial) run; ``settings`` holds the
    (query_ratio, ε) of each sweep value."""
    rows_by_attack = rows_per_attack(records)
    main = "desia" if config["attack"] == "all" else config["attack"]
    # 1 = every number comes from the synthetic census generator (not the paper's PPMF figures)
    metrics: dict[str, Any] = {"synthetic_data": int(bool(context["synthetic"]))}
    series: dict[str, Any] = {"synthetic": bool(context["synthetic"]), "task": config["task"],
                              "note": ("synthetic census blocks (PPMF schema, 2010 national distributions); "
                                       "not a reproduction of the paper's figures")
                              if context["synthetic"] else "user data"}
    if context.get("fit_notes"):  # what a user's file could not support, and what was played instead
        series["fit_notes"] = list(context["fit_notes"])
    curves = {}
    for att, rows in rows_by_attack.items():
        if att.startswith("ablation"):
            continue
        res = _roc_metrics(np.array([r["label"] for r in rows]), np.array([r["score"] for r in rows]))
        if res is not None:
            curves[att] = res["curve"]
            for name, val in res["metrics"].items():
                metrics[f"{name}_{att.replace('-', '_')}"] = val
        if att == main:
            metrics.update(main_attack_metrics(att, rows, res))
    random = random_reference(rows_by_attack.get(main, []))
    if random is not None:
        curves["random"] = random["curve"]
        metrics["auc_random"] = random["metrics"]["auc"]
    series["roc"] = {_LABELS.get(a, a): c for a, c in curves.items()}
    # the release's own claim: per-person ε from ε per aggregate and the cells one person can move
    claimed = _claimed_epsilon(context, config, 0, config["epsilon"]) if config["sweep"] == "none" else None
    metrics["claimed_epsilon"] = claimed["epsilon"] if claimed else None
    if config["sweep"] == "none":  # ε per person first: the total over a person's cells, ε per cell beside it
        metrics.update(privacy_metrics(context, config, 0, config["epsilon"]))
    if config["sweep"] == "none":
        cells = cell_counts(context, 0)
        metrics.update(count_error_metrics(config["epsilon"], cells))
        series["cells"] = cells
    if claimed and math.isfinite(claimed["epsilon"]):
        series["dp_bound"] = claimed
    series["sensitive"] = context.get("sensitive", "Hispanic")
    series["min_targets"] = MIN_TARGETS_FOR_AUC
    series["ablation"] = ablation_table(rows_by_attack) if config["task"] == "aia" else []
    if config["sweep"] != "none":
        series["sweep"] = sweep_series(config, context, rows_by_attack, settings)
    return metrics, series


def cell_counts(context: dict, setting: int) -> dict:
    """True and published counts of every released cell of one sweep value (all blocks and releases), rebuilt
    from each release's own seed — the very numbers the attacks saw."""
    true, published = [], []
    for cell in context["cells"]:
        if cell.get("setting", 0) != setting:
            continue
        rel = _release(context, cell)
        true += rel.evaluate(cell["D"]).astype(float).tolist()
        published += rel.answers.astype(float).tolist()
    return {"true": true, "published": published}


def count_error_metrics(epsilon: float, cells: dict) -> dict:
    """What the published counts lose at ε per cell: expected (closed form, rounded Laplace) and measured mean
    absolute and relative error per cell, and the share of cells not exactly right. ``utility_error`` is the
    measured mean absolute error (0 for exact counts), the number the comparison pages put on the x axis."""
    measured = count_error.measured_errors(cells["true"], cells["published"], 0.0)
    if epsilon > 0:
        expected = count_error.expected_abs_error("laplace-rounded", epsilon)
        expected_rel = count_error.expected_relative_error("laplace-rounded", epsilon, cells["true"])
        expected_off = count_error.prob_off_by_more("laplace-rounded", epsilon, 0.0)
    else:
        expected, expected_rel, expected_off = 0.0, 0.0, 0.0
    return {"utility_error": measured["abs_error"], "count_error_expected": expected,
            "count_error_measured": measured["abs_error"], "relative_error_expected": expected_rel,
            "relative_error_measured": measured["relative_error"], "cells_wrong_expected": expected_off,
            "cells_wrong_measured": measured["share_off"], "cells_released": measured["cells"]}


def rows_per_attack(records: list[dict]) -> dict[str, list[dict]]:
    """Every attacked target's row, grouped by attack, each tagged with its sweep value."""
    out: dict[str, list[dict]] = {}
    for rec in records:
        for row in rec["rows"]:
            # the cluster: targets of one block and one release share the release's noise, cells and shadows
            out.setdefault(row["attack"], []).append({**row, "setting": rec["setting"],
                                                      "cluster": f"{rec['block']}-{rec['release']}"})
    return out


def main_attack_metrics(att: str, rows: list[dict], res: dict | None) -> dict:
    """The headline attack: its ROC metrics with the AUC's DeLong interval and the empirical-ε lower bound, its
    accuracy, and for DeSIA the deterministic module's share of settled targets, its errors and timings."""
    y = np.array([r["label"] for r in rows])
    sc = np.array([r["score"] for r in rows])
    pred = np.array([r["prediction"] for r in rows])
    out: dict[str, Any] = {"targets": len(rows)}
    if res is not None:
        out.update(res["metrics"])
        # targets sharing a release are not independent draws: a two-stage bootstrap over releases and targets
        iv = cluster_auc.interval(y, sc, [r.get("cluster", "0") for r in rows])
        out["auc_ci_low"], out["auc_ci_high"], out["auc_ci_clusters"] = iv["low"], iv["high"], iv["clusters"]
        out["empirical_epsilon_low"] = float(best_threshold_epsilon(y, sc, delta=EMPIRICAL_DELTA))
    if att != "desia":
        out["accuracy"] = float(np.mean(pred == y))
        return out
    settled = np.array([bool(r.get("settled")) for r in rows])
    out["deterministic_fraction"] = float(settled.mean()) if len(rows) else 0.0
    out["deterministic_errors"] = int(np.sum(settled & (pred != y)))
    out["deterministic_count"] = int(settled.sum())
    out["timeouts"] = int(sum(r.get("md_status") == "timeout" for r in rows))
    rest = _roc_metrics(y[~settled], sc[~settled])
    if rest is not None:
        out["auc_not_deterministic"] = rest["metrics"]["auc"]
        out["tpr_at_fpr_0.001_not_deterministic"] = rest["metrics"]["tpr_at_fpr_0.001"]
    out["accuracy"] = float(np.mean(pred == y)) if len(rows) else float("nan")
    out["md_seconds_per_target"] = float(np.mean([r["sec_md"] for r in rows]))
    out["ms_seconds_per_target"] = float(np.mean([r["sec_ms"] for r in rows]))
    vals = [r["valid_auc"] for r in rows if r.get("valid_auc") is not None]
    if vals:
        out["shadow_validation_auc"] = float(np.nanmean(vals))
    return out


def random_reference(main_rows: list[dict]) -> dict | None:
    """The ROC of a random guess on the main attack's own targets (the chance line drawn beside it)."""
    if not main_rows:
        return None
    return _roc_metrics(np.array([r["label"] for r in main_rows]), np.array([r["random"] for r in main_rows]))


def ablation_table(rows_by_attack: dict[str, list[dict]]) -> list[dict]:
    """The paper's ablation (its Table 3) from DeSIA's own records: the full attack, the deterministic module
    with a random guess for unsettled targets, the first feasible value alone; plus the RAP rows when run."""
    des = rows_by_attack.get("desia", [])
    if not des:
        return []
    y = np.array([r["label"] for r in des])
    variants = {"desia": np.array([r["score"] for r in des]),
                "md_random": np.array([r["score"] if r["settled"] else 0.5 for r in des]),
                "md_first": np.array([float(r["first_value"]) if r["first_value"] >= 0
                                      else float(r["random"] >= 0.5) for r in des])}
    for att in ("ablation_rap_unique", "ablation_rap_majority"):
        rows = rows_by_attack.get(att, [])
        if rows:
            variants[att.replace("ablation_", "")] = (np.array([r["label"] for r in rows]),
                                                      np.array([r["score"] for r in rows]))
    table = []
    for find, uniq, verif, stoch, key in ABLATION_ROWS:
        if key not in variants:
            continue
        yy, ss = variants[key] if isinstance(variants[key], tuple) else (y, variants[key])
        res = _roc_metrics(yy, ss)
        if res is None:
            continue
        table.append({"find feasible value": find, "uniqueness c_t": uniq, "verification": verif,
                      "stochastic M_S": stoch, "AUC": res["metrics"]["auc"],
                      "TPR@10%FPR": res["metrics"]["tpr_at_fpr_0.1"],
                      "TPR@1%FPR": res["metrics"]["tpr_at_fpr_0.01"], "targets": int(len(yy))})
    return table


def sweep_series(config: dict, context: dict, rows_by_attack: dict[str, list[dict]], settings: list[tuple]) -> dict:
    """AUC with its 95% interval and the number of targets, per sweep value and attack; under an ε sweep also
    the per-person ε each value claims."""
    xs = [s[0] if config["sweep"] == "query_ratio" else s[1] for s in settings]
    sweep: dict[str, Any] = {"x": xs, "param": config["sweep"], "ci": {}, "n": {}}
    if config["sweep"] == "query_ratio":
        sweep["paper_max"] = 1.0  # the paper's regime: m < s
    for att, rows in rows_by_attack.items():
        if att.startswith("ablation"):
            continue
        aucs, cis, ns = [], [], []
        for v in range(len(xs)):
            sub = [r for r in rows if r["setting"] == v]
            yy = np.array([r["label"] for r in sub])
            ss = np.array([r["score"] for r in sub])
            res = _roc_metrics(yy, ss)
            aucs.append(None if res is None else res["metrics"]["auc"])
            if res is None:
                cis.append(None)
            else:
                iv = cluster_auc.interval(yy, ss, [r.get("cluster", "0") for r in sub])
                cis.append([iv["low"], iv["high"]])
            ns.append(len(sub))
        name = _LABELS.get(att, att)
        sweep[name], sweep["ci"][name], sweep["n"][name] = aucs, cis, ns
    if config["sweep"] == "epsilon":
        sweep["claimed_epsilon"] = [None if e == 0 else _claimed_epsilon(context, config, v, e)["epsilon"]
                                    for v, e in enumerate(xs)]
        sweep["cells_per_person"] = [cells_per_person(context, config, v) for v in range(len(xs))]
        sweep["count_error"] = [count_error_metrics(e, cell_counts(context, v))["count_error_measured"]
                                for v, e in enumerate(xs)]
    return sweep


def exposure_table(config: dict, context: dict, records: list[dict]):
    """Who is exposed in the aggregate-statistics game: one row per attacked target of the headline attack (DeSIA
    when every attack runs), with its block, release and row, its non-sensitive attributes (what the attacker
    knows), the secret (sensitive value, or membership), the guess and the confidence. Certified: the rows DeSIA's
    deterministic module settles — the release admits only one value for them, so they are never wrong.
    Probable: above the confidence that at most 1% of the wrong guesses reach."""
    main = "desia" if config["attack"] == "all" else config["attack"]
    rows = [(rec, row) for rec in records for row in rec["rows"] if row["attack"] == main]
    if not rows:
        return None
    labels = np.array([row["label"] for _, row in rows])
    pred = np.array([row["prediction"] for _, row in rows])
    score = np.array([row["score"] for _, row in rows], dtype=float)
    settled = np.array([bool(row.get("settled")) for _, row in rows])
    cells = context["cells"]
    names = [str(a) for a in context.get("attributes", ())][:-1]
    qi, file_rows = [], []
    for rec, row in rows:
        t = row.get("target")
        cell = cells[(rec["setting"] * config["blocks"] + rec["block"]) * config["releases"] + rec["release"]]
        qi.append(None if t is None else [int(v) for v in cell["D"][t, :-1]])
        where = cell.get("file_rows")
        file_rows.append(None if where is None or t is None else int(where[t]))  # its position in the file
    keys = [(rec["setting"], rec["block"], rec["release"], tuple(q) if q else None) for (rec, _), q in zip(rows, qi)]
    if context.get("data_path") and all(r is not None for r in file_rows):
        return _file_exposure(config, context, rows, file_rows, labels, pred, score, settled, keys, main)
    known: dict[str, list] = {"block": [rec["block"] for rec, _ in rows],
                              "release": [rec["release"] for rec, _ in rows],
                              "row": [row.get("target") for _, row in rows]}
    for j, name in enumerate(names):
        known[name] = [None if q is None or j >= len(q) else q[j] for q in qi]
    certification, reason = _certification(main)
    return build([f"b{rec['block']}-r{rec['release']}-{row.get('target')}" for rec, row in rows], labels.tolist(),
                 pred.tolist(), confidence(score, pred), certified=settled if main == "desia"
                 else None, certified_reason=reason, known=known, k=_shared(keys),
                 certification=certification, unit="target",
                 notes=["row = the target's row in its block's data; k = targets of the same block and release "
                        "sharing these attributes (targets are unique on them, so k = 1 unless a release repeats "
                        "them)."])


def _shared(keys: list) -> list[int]:
    counts: dict = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return [counts[key] for key in keys]


def _certification(main: str) -> tuple[dict, str]:
    if main == "desia":
        certification = {"available": True, "why": "Certified rows are those DeSIA's deterministic module settles: "
                         "every dataset consistent with the released counts gives them the same value."}
        reason = "DeSIA's deterministic module proves the released counts allow only this value for this person."
    else:
        certification = {"available": False, "why": f"The {main} attack gives no certificate; run DeSIA (or all "
                         "attacks) for the rows the release settles."}
        reason = ""
    return certification, reason


def _file_exposure(config, context, rows, file_rows, labels, pred, score, settled, keys, main):
    """The exposure table of a run on the user's file: each target named by its row in the file (1 = the first data
    row under the header) with its own cells as the file writes them. The game re-draws the secret uniformly (the
    paper's defender step, so a guess is right half the time by chance): ``secret`` is the drawn value, written
    as the file writes that value, and the person's own value sits beside it."""
    attrs = [str(a) for a in context["attributes"]]
    sensitive = attrs[-1]
    text = file_cells(context["data_path"], file_rows, attrs)
    file_rows = row_numbers(context["data_path"], file_rows)  # blank and dropped lines counted, as the user counts
    values = context.get("secret_values") or []
    word = (lambda v: values[int(v)] if 0 <= int(v) < len(values) else str(v)) if config["task"] == "aia" else \
        (lambda v: "member" if int(v) else "not a member")
    known: dict[str, list] = {}
    if config["blocks"] > 1 or config["releases"] > 1:
        known["block"] = [rec["block"] for rec, _ in rows]
        known["release"] = [rec["release"] for rec, _ in rows]
    known.update({a: text[a] for a in attrs[:-1]})
    known[in_file(sensitive)] = text[sensitive]
    certification, reason = _certification(main)
    secret_words = ("the value the game drew for the person (uniformly, as the paper's defender does)"
                    if config["task"] == "aia" else "whether the person was in the released block")
    return build(list(file_rows), [word(v) for v in labels.tolist()], [word(v) for v in pred.tolist()],
                 confidence(score, pred), certified=settled if main == "desia" else None, certified_reason=reason,
                 known=known, k=_shared(keys), certification=certification, unit="person",
                 notes=[f"id = the person's row in your file (1 = the first data row under the header); the columns "
                        f"show the person's own cells as the file writes them. secret = {secret_words}; "
                        f"{in_file(sensitive)} = the person's value in the file."])
