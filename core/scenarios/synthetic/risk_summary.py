"""From the games' every-record attacks (:mod:`core.scenarios.synthetic.records_game`) to the run's risk metrics
and its exposure table.

Per inference attack: its success on the training records and on the control records, pooled over games, the
majority baseline of each set (the accuracy of always guessing the commonest secret) and the risk against the
control set with its interval (:func:`core.measure.synthetic_risk.control_risk`). The headline ``risk`` is the
largest of the inference attacks' risks (like the paper's Acc_max, the best of several attacks: a slight upward
bias when they are many and close). Singling out and linkability get their own risk; SDMetrics' proxy scores are
averaged over the games that computed them.
"""
from __future__ import annotations

import math

import numpy as np

from ...measure.synthetic_risk import control_risk, majority_baseline, risk_metrics

OTHER_RISKS = ("singling_out", "linkability")  # the release risks' record keys (their declared key, - as _)


def _pooled(recs: list[dict], get) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    t, tg, c, cg = [], [], [], []
    for r in recs:
        got = get(r)
        if got is None:
            continue
        train, control = got
        t += list(train)
        tg += [r["game"]] * len(train)
        c += list(control)
        cg += [r["game"]] * len(control)
    return np.array(t, float), np.array(tg, int), np.array(c, float), np.array(cg, int)


def risk_summary(main: list[dict]) -> tuple[dict, dict]:
    """(metrics, series["risk"]) from the main game records; ({}, {}) when no game attacked every record."""
    recs = [r["records"] for r in main if r.get("records")]
    if not recs:
        return {}, {}
    metrics: dict = {}
    per: dict = {}
    train_truth = np.concatenate([np.asarray(r["train_truth"]) for r in recs])
    control_truth = np.concatenate([np.asarray(r["control_truth"]) for r in recs])
    metrics["baseline_train"] = majority_baseline(train_truth)
    metrics["baseline_control"] = majority_baseline(control_truth)
    metrics["records_attacked"] = float(np.mean([len(r["train_truth"]) for r in recs]))
    metrics["control_records"] = float(np.mean([len(r["control_truth"]) for r in recs]))
    inference = list(recs[0]["attacks"])  # the inference attacks played, in the order they were declared
    for a in inference:

        def outcomes(r, a=a):
            x = r["attacks"][a]
            return (np.asarray(x["train_guess"]) == np.asarray(r["train_truth"]),
                    np.asarray(x["control_guess"]) == np.asarray(r["control_truth"]))

        res = _risk(recs, outcomes)
        per[a] = res
        metrics.update(risk_metrics(f"{a.replace('-', '_')}_", res))
    for kind in OTHER_RISKS:
        if kind in recs[0]:
            res = _risk(recs, lambda r, k=kind: (r[k]["train"], r[k]["control"]))
            per[kind] = res
            metrics.update(risk_metrics(f"{kind}_", res))
    inference = [a for a in inference if math.isfinite(per[a]["risk"])]
    series = {"per_attack": per, "headline": None, "proxies": {}}
    if inference:
        top = max(inference, key=lambda a: per[a]["risk"])
        series["headline"] = top
        metrics.update({"risk": per[top]["risk"], "risk_ci_low": per[top]["risk_ci_low"],
                        "risk_ci_high": per[top]["risk_ci_high"], "success_train": per[top]["train_rate"],
                        "success_control": per[top]["control_rate"]})
    proxies = [r["proxies"] for r in recs if r.get("proxies")]
    for key in ("dcr_overfitting_protection", "dcr_closer_to_training", "disclosure_protection"):
        vals = [p[key] for p in proxies if p.get(key) is not None and np.isfinite(p[key])]
        if vals:
            metrics[key] = float(np.mean(vals))
            series["proxies"][key] = float(np.mean(vals))
    series["proxy_games"] = len(proxies)
    return metrics, series


def _risk(recs: list[dict], outcomes) -> dict:
    t, tg, c, cg = _pooled(recs, outcomes)
    return control_risk(t, c, train_games=tg, control_games=cg)
