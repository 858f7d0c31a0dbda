"""Figures of the ML-models lab (Kabir, Craig & Mehnaz, arXiv 2504.04033): who is most exposed, and why."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..measure.metrics import clopper_pearson_many
from .common import PALETTE, band, base_layout

RISK_COLOR, ACTUAL_COLOR, BASE_COLOR = PALETTE[1], PALETTE[0], "#7f7f7f"


def _pct(values) -> list:
    return [None if v is None or not np.isfinite(v) else 100 * v for v in np.asarray(values, float)]


def population_rho(preview: dict) -> go.Figure:
    """Per-group correlation between the sensitive attribute and the label (ground truth, before any model)."""
    names, rho = preview["groups"], np.asarray(preview["rho"], float)
    order = np.argsort(rho)
    fig = go.Figure(go.Bar(x=[names[i] for i in order], y=rho[order], marker_color=PALETTE[0],
                           customdata=np.asarray(preview["n"])[order],
                           hovertemplate="%{x}<br>ρ = %{y:.3f}<br>%{customdata} records<extra></extra>",
                           name="measured ρ in the training data"))
    if preview.get("rho_target") is not None:
        tgt = np.asarray(preview["rho_target"], float)[order]
        fig.add_trace(go.Scatter(x=[names[i] for i in order], y=tgt, mode="markers", name="sampler's target ρ",
                                 marker=dict(color="black", symbol="line-ew-open", size=12)))
    base_layout(fig, "Correlation between the sensitive attribute and the label, per group (ground truth)",
                "group", "Pearson ρ (s, y)", height=360)
    fig.update_xaxes(showticklabels=len(names) <= 30)
    return fig


def group_bars(series: dict, max_groups: int = 51) -> go.Figure:
    """Groups sorted by the attacker's predicted risk (AD), with the actual attack accuracy beside it."""
    g = series["groups"]
    order = g["order"][:max_groups]
    names = [g["name"][i] for i in order]
    acc = np.asarray(g["accuracy"], float)[order]
    n = np.asarray(g["n"], float)[order]
    correct = np.asarray(g["correct"], float)[order]
    low, high = clopper_pearson_many(correct, n)  # one vectorised call: the 51 groups' root searches took ~0.25 s
    err_hi = [100 * (h - a) if m > 0 else None for h, a, m in zip(high, acc, n)]
    err_lo = [100 * (a - lo) if m > 0 else None for lo, a, m in zip(low, acc, n)]
    risk = np.asarray(g["risk"], float)[order]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=names, y=_pct(acc), name="actual attack accuracy (needs the true s)",
                         marker_color=ACTUAL_COLOR,
                         error_y=dict(type="data", array=err_hi, arrayminus=err_lo, thickness=1, width=2),
                         hovertemplate="%{x}<br>accuracy %{y:.1f}%<extra></extra>"))
    fig.add_trace(go.Scatter(x=names, y=risk, name="predicted risk from AD (attacker, no s needed)", yaxis="y2",
                             mode="lines+markers", marker=dict(color=RISK_COLOR, size=6),
                             line=dict(color=RISK_COLOR, width=1),
                             hovertemplate="%{x}<br>risk score %{y:.3f} rad<extra></extra>"))
    base_layout(fig, "Groups ranked by the attacker's predicted risk (left = most exposed), with the actual "
                "accuracy", "group (sorted by angular difference)", "attack accuracy (%)", height=440)
    lo = np.nanmin(acc) * 100 if np.isfinite(acc).any() else 40
    fig.update_layout(yaxis=dict(range=[max(0, lo - 8), 100]),
                      yaxis2=dict(title="risk score (oriented AD, rad)", overlaying="y", side="right",
                                  showgrid=False), bargap=0.15)
    labelled = len(names) <= 30
    fig.update_xaxes(showticklabels=labelled, tickangle=-45)
    if labelled:  # slanted group names take a height of their own: the legend goes under them and the axis title,
        # at the figure's foot (plotly widens the bottom margin for it), not at a fixed place over the names
        fig.update_layout(legend=dict(orientation="h", yref="container", y=0, yanchor="bottom"))
    return fig


def ad_scatter(series: dict) -> go.Figure:
    """Paper Fig. 5: angular difference of each group vs the group's attack accuracy."""
    g = series["groups"]
    ad, acc = np.asarray(g["ad"], float), np.asarray(g["accuracy"], float)
    r = series["ranking"]
    fig = go.Figure(go.Scatter(x=ad, y=_pct(acc), mode="markers", text=g["name"], name="group",
                               marker=dict(color=g["rho"], colorscale="RdBu", cmid=0, size=9, showscale=True,
                                           colorbar=dict(title="ρ(s, y)")),
                               hovertemplate="%{text}<br>AD %{x:.3f} rad<br>accuracy %{y:.1f}%<extra></extra>"))
    ok = np.isfinite(ad) & np.isfinite(acc)
    if ok.sum() >= 3:
        m, b = np.polyfit(ad[ok], 100 * acc[ok], 1)
        xs = np.array([ad[ok].min(), ad[ok].max()])
        fig.add_trace(go.Scatter(x=xs, y=m * xs + b, mode="lines", name="least-squares line",
                                 line=dict(color="black", dash="dash")))
    title = (f"Angular difference vs attack accuracy<br><sup>per group · Kendall τ {r['kendall']:.2f}, "
             f"Spearman {r['spearman']:.2f}</sup>" if r.get("kendall") is not None and np.isfinite(r["kendall"])
             else "Angular difference vs attack accuracy")
    base_layout(fig, title, "angular difference AD (rad)", "attack accuracy (%)", height=420)
    return fig


def kappa_curve(series: dict) -> go.Figure:
    """Accuracy on the targeted records vs the budget κ, with the untargeted accuracy and 95% bands."""
    sw = sorted(series["kappa_sweep"], key=lambda s: s["kappa"])
    x = [s["fraction"] for s in sw]
    fig = go.Figure()
    band(fig, x, _pct([s["ci_low"] for s in sw]), _pct([s["ci_high"] for s in sw]), RISK_COLOR, "targeted CI")
    fig.add_trace(go.Scatter(x=x, y=_pct([s["accuracy"] for s in sw]), mode="lines+markers",
                             name=f"targeted (most exposed values of {series['best_attribute']})",
                             line=dict(color=RISK_COLOR), customdata=[s["kappa"] for s in sw],
                             hovertemplate="κ %{customdata}<br>%{x:.1%} of records<br>%{y:.1f}%<extra></extra>"))
    u = series["untargeted"]
    xs = [min(x), 1.0]
    band(fig, xs, [100 * u["ci_low"]] * 2, [100 * u["ci_high"]] * 2, ACTUAL_COLOR, "untargeted CI")
    fig.add_trace(go.Scatter(x=xs, y=[100 * u["accuracy"]] * 2, mode="lines", name="untargeted (everyone)",
                             line=dict(color=ACTUAL_COLOR, dash="dash")))
    if series.get("nested"):
        ns = series["nested"]
        fig.add_trace(go.Scatter(x=[n["fraction"] for n in ns], y=[100 * n["accuracy"] for n in ns],
                                 mode="lines+markers", name="nested attributes",
                                 text=[f"depth {n['depth']}: {n['attribute']}" for n in ns],
                                 line=dict(color=PALETTE[2], dash="dot"),
                                 hovertemplate="%{text}<br>%{x:.1%} of records<br>%{y:.1f}%<extra></extra>"))
    base_layout(fig, "Targeted vs untargeted accuracy<br><sup>as the budget κ shrinks (95% bands)</sup>",
                "fraction of records targeted (κ, log scale)", "attack accuracy (%)", height=420)
    ticks = [1, 0.75, 0.5, 0.25, 0.1, 0.05, 0.02, 0.01]
    fig.update_xaxes(type="log", autorange="reversed", tickvals=ticks, ticktext=[f"{t:.0%}" for t in ticks])
    return fig


def confidence_scatter(series: dict, group: int) -> go.Figure:
    """Paper Fig. 3/9: confidence with s = s₁ (x) vs with s = s₀ (y) for one group, per-class lines."""
    info = series["info"]
    sc = series["scatter"][group]
    s_names, y_names = info["sensitive_values"], info["label_values"]
    fig = go.Figure()
    x, y, cls = np.asarray(sc["x"]), np.asarray(sc["y"]), np.asarray(sc["cls"])
    for c, color in ((0, PALETTE[0]), (1, PALETTE[4])):
        m = cls == c
        fig.add_trace(go.Scatter(x=x[m], y=y[m], mode="markers", name=f"{y_names[c]} (records)",
                                 marker=dict(color=color, size=5, opacity=0.5)))
        line = sc["lines"][str(c)]
        if line["slope"] is not None and np.isfinite(line["slope"]) and m.any():
            xs = np.array([x[m].min(), x[m].max()])
            fig.add_trace(go.Scatter(x=xs, y=line["intercept"] + line["slope"] * xs, mode="lines",
                                     name=f"{y_names[c]}: slope {line['slope']:.2f}",
                                     line=dict(color=color, width=3)))
    g = series["groups"]
    ad = g["ad"][group]
    ad_txt = f"AD = {ad:.2f} rad" if ad is not None and np.isfinite(ad) else "AD undefined"
    base_layout(fig, f"{g['name'][group]}: the model's confidence with each sensitive value ({ad_txt}, "
                f"ρ = {g['rho'][group]:.2f})", f"confidence when s = {s_names[1]}",
                f"confidence when s = {s_names[0]}", height=440)
    fig.update_xaxes(range=[0.45, 1.02])
    fig.update_yaxes(range=[0.45, 1.02])
    return fig


def bcorr_bars(series: dict) -> go.Figure:
    """Per-group attack accuracy before and after BCorr (groups in the order of their original correlation)."""
    g, bc = series["groups"], series["bcorr"]
    order = np.argsort(-np.nan_to_num(np.abs(np.asarray(bc["rho_before"], float)), nan=-1.0), kind="stable")
    names = [g["name"][i] for i in order]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=names, y=_pct(np.asarray(g["accuracy"], float)[order]), name="before (original data)",
                         marker_color=RISK_COLOR))
    fig.add_trace(go.Bar(x=names, y=_pct(np.asarray(bc["group_accuracy"], float)[order]),
                         name=f"after BCorr (every group at ρ* = {bc['rho_star']:.2f})", marker_color=PALETTE[2]))
    floor = bc.get("asrd_noise_floor")
    note = f"; identical groups of these sizes would still differ by ≈ {100 * floor:.1f} by chance" if floor else ""
    base_layout(fig, f"BCorr: attack accuracy per group before and after<br><sup>ASRD {100 * _nz(series, 'asrd'):.1f} "
                f"→ {100 * bc['asrd']:.1f} points{note}</sup>", "group (most correlated first)",
                "attack accuracy (%)", height=440)
    acc = np.asarray(g["accuracy"] + bc["group_accuracy"], float)
    fig.update_layout(barmode="group", yaxis=dict(range=[max(0, np.nanmin(acc) * 100 - 8), 100]))
    fig.update_xaxes(showticklabels=len(names) <= 30)
    return fig


def _nz(series: dict, key: str) -> float:
    acc = np.asarray(series["groups"]["accuracy"], float)
    acc = acc[np.isfinite(acc)]
    return float(acc.max() - acc.min()) if acc.size else float("nan")
