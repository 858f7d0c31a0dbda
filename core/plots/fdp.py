"""Decision figures: f-DP trade-off curves with measured ROCs, run comparisons, the ε ladder.

The guarantee of the chosen mechanism is drawn in ROC coordinates (TPR = 1 − f(FPR), :mod:`core.theory.fdp`):
every attack's ROC must stay inside the shaded region; the strongest measured ROC is drawn in it.
"""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..measure.audit import audit_result, claim_of
from ..measure.compare import run_label, scatter_points, strongest_roc
from ..theory import fdp
from .common import PALETTE, _rgba, band, base_layout
from .deployments import add_deployment_ticks


def _parts(result: Any) -> tuple[str, dict, dict, dict]:
    if isinstance(result, dict):
        return (result.get("scenario", ""), result.get("config") or {}, result.get("metrics") or {},
                result.get("series") or {})
    return result.scenario, result.config or {}, result.metrics or {}, result.series or {}


def guarantee_curves(result: Any) -> list[dict]:
    """Trade-off curves of the run's release in ROC coordinates: ``[{"name", "fpr", "tpr", "kind"}]``.

    ``kind`` = "claim" (the claimed (ε, δ) region), "composition" (tighter optimal composition of per-observation
    ε), "mechanism" (the exact curve of this mechanism: μ-GDP for Gaussian noise, the Laplace LRT).
    """
    name, config, metrics, series = _parts(result)
    out = []
    eps, delta = claim_of(result)
    grid = fdp.roc_grid()
    if eps is not None:
        r = fdp.tradeoff_roc(eps, min(delta, 1.0), fpr=grid)
        label = f"({eps:.3g}, {delta:.2g})-DP region" if delta else f"{eps:.3g}-DP region"
        out.append({"name": label, "kind": "claim", **r})
    if name == "location":
        k = config.get("observations")
        if series.get("roc_dp") and k and k > 1:
            out.append({"name": f"{k}-fold ε = {config.get('epsilon'):g} (optimal composition)", "kind": "composition",
                        "fpr": series["roc_dp"]["fpr"], "tpr": series["roc_dp"]["tpr"]})
        scale = metrics.get("noise_scale")
        if config.get("mechanism") == "gaussian" and scale:
            mu = fdp.gaussian_mu(scale, 1.0, int(k or 1))
            out.append({"name": f"this Gaussian mechanism: μ = {mu:.3g}-GDP", "kind": "mechanism",
                        **fdp.tradeoff_roc(mu=mu, fpr=grid)})
        elif series.get("roc_optimal"):
            out.append({"name": "this Laplace mechanism: exact optimal test", "kind": "mechanism",
                        "fpr": series["roc_optimal"]["fpr"], "tpr": series["roc_optimal"]["tpr"]})
    elif metrics.get("gdp_mu"):
        mu = float(metrics["gdp_mu"])
        out.append({"name": f"μ = {mu:.3g}-GDP", "kind": "mechanism", **fdp.tradeoff_roc(mu=mu, fpr=grid)})
    return out


def tradeoff_figure(result: Any, log: bool = False) -> go.Figure | None:
    """The mechanism's trade-off curve(s) with the strongest measured ROC inside; None without a ROC."""
    strongest = strongest_roc(result)
    if strongest is None:
        return None
    curves = guarantee_curves(result)
    fig = go.Figure()
    colors = {"claim": "#222222", "composition": "#7f7f7f", "mechanism": PALETTE[2]}
    for c in curves:
        style = dict(color=colors[c["kind"]], width=2.5 if c["kind"] == "claim" else 1.8,
                     dash={"claim": None, "composition": "dash", "mechanism": "dot"}[c["kind"]])
        fig.add_trace(go.Scatter(x=c["fpr"], y=c["tpr"], mode="lines", name=c["name"], line=style,
                                 fill="tozeroy" if c["kind"] == "claim" else None,
                                 fillcolor=_rgba("#1f77b4", 0.08) if c["kind"] == "claim" else None))
    attack, r = strongest
    verdict = audit_result(result)
    fig.add_trace(go.Scatter(x=r["fpr"], y=r["tpr"], mode="lines", line_shape="hv",
                             name=f"measured: {attack} (AUC {r['auc']:.3f})",
                             line=dict(color=PALETTE[1] if verdict.broken else PALETTE[0], width=2.5)))
    lo = 1e-4 if log else 0.0
    fig.add_trace(go.Scatter(x=[lo, 1], y=[lo, 1], mode="lines", name="random guess",
                             line=dict(color="grey", dash="dot", width=1)))
    eps, _ = claim_of(result)
    sub = ("no DP claim: nothing bounds the curve" if eps is None else
           "the measured curve must stay inside the shaded region")
    base_layout(fig, f"Privacy guarantee as a trade-off curve (f-DP) — {sub}", "false-positive rate (type-I error α)",
                "true-positive rate (1 − β)", height=460)
    if log:
        fig.update_xaxes(type="log", range=[-4, 0])
        fig.update_yaxes(type="log", range=[-4, 0])
    else:
        fig.update_xaxes(range=[0, 1])
        fig.update_yaxes(range=[0, 1.01])
    return fig


def roc_overlay(results: list[Any], labels: list[str] | None = None) -> go.Figure:
    """Strongest measured ROC of each run on one plot (legend: short labels ``#i scenario``)."""
    labels = labels or [short_label(r, i + 1) for i, r in enumerate(results)]
    fig = go.Figure()
    for i, (r, label) in enumerate(zip(results, labels)):
        s = strongest_roc(r)
        if s is None:
            continue
        attack, c = s
        fig.add_trace(go.Scatter(x=c["fpr"], y=c["tpr"], mode="lines", line_shape="hv",
                                 name=f"{label}: {attack} (AUC {c['auc']:.3f})",
                                 hovertemplate=f"{run_label(r, i + 1)}<br>FPR %{{x:.4f}}, TPR %{{y:.4f}}<extra></extra>",
                                 line=dict(color=PALETTE[i % len(PALETTE)], width=2)))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="random guess",
                             line=dict(color="grey", dash="dot", width=1)))
    base_layout(fig, "ROC of the strongest attack in each run", "false-positive rate", "true-positive rate",
                height=460)
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.01])
    return fig


def short_label(result: Any, index: int) -> str:
    name = result.get("scenario", "") if isinstance(result, dict) else result.scenario
    return f"#{index} {name}"


def privacy_utility_scatter(results: list[Any], labels: list[str] | None = None, y: str = "attack") -> go.Figure:
    """x = each run's utility error, y = its headline attack metric (or empirical ε); Pareto front joined."""
    pts = scatter_points(results, y=y)
    labels = labels or [short_label(r, i + 1) for i, r in enumerate(results)]
    fig = go.Figure()
    for i, p in enumerate(pts):
        if p["x"] is None or p["y"] is None:
            continue
        fig.add_trace(go.Scatter(
            x=[p["x"]], y=[p["y"]], mode="markers+text", text=[f"#{p['index'] + 1}"], textposition="top center",
            name=f"{labels[i]}: {p['x_label']} vs {p['y_label']}", marker=dict(size=16 if p["front"] else 11, color=PALETTE[i % len(PALETTE)],
                                         symbol="star" if p["front"] else "circle",
                                         line=dict(width=1.5, color="black" if p["front"] else "white")),
            hovertemplate=f"{p['label']}<br>{p['x_label']}: %{{x:.4g}}<br>{p['y_label']}: %{{y:.4g}}<extra></extra>"))
    front = sorted((p for p in pts if p["front"]), key=lambda p: p["x"])
    if len(front) > 1:
        fig.add_trace(go.Scatter(x=[p["x"] for p in front], y=[p["y"] for p in front], mode="lines",
                                 name="Pareto front (no run is better in both)",
                                 line=dict(color="black", dash="dash", width=1.5)))
    base_layout(fig, "Privacy vs utility (★ = Pareto-optimal, bottom-left is best)",
                "utility error (lower = more useful)", "leakage (lower = more private)", height=460)
    return fig


def ladder_figure(ladder: dict, deployments: list | None = None) -> go.Figure:
    """Measured attack accuracy (with 95% band), the DP accuracy bound and the utility error against ε; real
    deployments (``core.studies.choosing_epsilon.deployment_registry.ticks()``) as ticks along the ε axis, within the ladder's range."""
    rows = ladder["rows"]
    # ε per person on the axis where the lab knows it, so the registry's per-person deployments compare like units
    per_person = bool(rows) and all(r.get("epsilon_per_person") for r in rows)
    eps = [r["epsilon_per_person"] if per_person else r["epsilon"] for r in rows]
    fig = go.Figure()
    acc = [r.get("attack") for r in rows]
    if any(a is not None for a in acc):
        lo = [r.get("attack_ci_low") for r in rows]
        hi = [r.get("attack_ci_high") for r in rows]
        if all(v is not None for v in lo + hi):
            band(fig, eps, lo, hi, PALETTE[0], "95% CI")
        fig.add_trace(go.Scatter(x=eps, y=acc, mode="lines+markers", name=f"measured {ladder['attack_label']}",
                                 line=dict(color=PALETTE[0], width=2.5)))
    bound = [r.get("bound") for r in rows]
    if any(b is not None for b in bound):
        fig.add_trace(go.Scatter(x=eps, y=bound, mode="lines+markers", name="DP bound (best any attack can do)",
                                 line=dict(color="black", dash="dash")))
    fig.add_hline(y=0.5, line=dict(color="grey", dash="dot"), annotation_text="coin flip",
                  annotation_position="bottom right")
    util = [r.get("utility") for r in rows]
    if any(u is not None for u in util):
        fig.add_trace(go.Scatter(x=eps, y=util, mode="lines+markers", name=f"utility error: {ladder['utility_label']}",
                                 yaxis="y2", line=dict(color=PALETTE[4], width=2)))
        fig.update_layout(yaxis2=dict(title=f"{ladder['utility_label']} (lower = more useful)", overlaying="y",
                                      side="right", type="log" if ladder.get("utility_log") else "linear",
                                      showgrid=False, tickformat=".2g"))
    base_layout(fig, f"ε ladder — {ladder['scenario']}: what the attack reaches and what the data lose",
                "ε per person (log scale; ε per cell below)" if per_person else "ε (log scale)",
                ladder["attack_label"], height=480)
    fig.update_xaxes(type="log", tickvals=eps, ticktext=[f"{e:.3g}<br>({r['epsilon']:g}/cell)" if per_person
                                                         else f"{e:g}" for e, r in zip(eps, rows)])
    fig.update_layout(margin=dict(r=80))
    if eps:

        add_deployment_ticks(fig, deployments, (min(eps) / 1.5, max(eps) * 1.5))
    return fig
