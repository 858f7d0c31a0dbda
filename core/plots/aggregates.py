"""Figures of the aggregate-statistics scenario (DeSIA paper Figs. 1, 6, 8 and Table 3)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..attacks.declaration import labels as attack_labels
from .common import PALETTE, band, base_layout, roc_figure
from ..theory.dp_roc import roc_bound_curve
from ..theory.dp_roc import max_auc


def _order() -> tuple[str, ...]:
    """The attacks' legend labels in their declared order (core/attacks/aggregates/__init__.py)."""
    return tuple(attack_labels("aggregates").values())


def _tag(series: dict) -> str:
    return " (synthetic data)" if series.get("synthetic", True) else ""


def roc_all(series: dict) -> go.Figure:
    """All attacks' ROC curves on one plot, with the log-log low-FPR inset (paper Fig. 1).

    With noise (ε > 0) the release's own DP claim is drawn too: no attack's ROC can rise above the
    (ε, δ) region of :func:`core.theory.dp_roc.roc_bound` for the per-person ε.
    """
    roc = series.get("roc", {})
    order = _order()
    names = [n for n in order if n in roc] + [n for n in roc if n not in order and n != "Random guess"]
    curves = {n: (roc[n]["fpr"], roc[n]["tpr"], roc[n]["auc"]) for n in names}
    sensitive = series.get("sensitive") or "Hispanic"
    task = "membership" if series.get("task") == "mia" else f"attribute ({sensitive}) inference"
    fig = roc_figure(curves, title=f"ROC, {task}{_tag(series)}", inset=True)
    bound = series.get("dp_bound")
    if bound and math.isfinite(bound.get("epsilon", math.inf)):
        f, t = roc_bound_curve(bound["epsilon"], bound.get("delta", 0.0))
        label = (f"DP bound, ε = {bound['epsilon']:.3g} per person "
                 f"({bound['epsilon_per_aggregate']:g} × {bound['cells_per_person']} cells)")
        style = dict(color="black", dash="dash", width=1.5)
        fig.add_trace(go.Scatter(x=f, y=t, mode="lines", name=label, line=style))
        keep = f > 0
        fig.add_trace(go.Scatter(x=f[keep], y=np.maximum(t[keep], 1e-6), mode="lines", line=style,
                                 xaxis="x2", yaxis="y2", showlegend=False, hoverinfo="skip"))
    return fig


def plain_summary(metrics: dict, series: dict) -> str | None:
    """One plain-language sentence saying what the current result means for the release (None: nothing yet).

    Uses the main attack's accuracy (share of targets whose value it guesses right, at its default threshold)
    against the 50 % of a coin flip, and its AUC in words (a default threshold can sit at 50 % while the scores
    still rank people well), and says whether the difference is within the statistical uncertainty of the AUC.
    """
    acc = metrics.get("accuracy")
    n = metrics.get("targets")
    if acc is None or not n or (isinstance(acc, float) and math.isnan(acc)):
        return None
    if series.get("task") == "mia":
        secret = "whether a person's record is in the block"
    else:
        sensitive = series.get("sensitive") or "Hispanic"
        secret = "a person's Hispanic origin" if sensitive == "Hispanic" else f"a person's {sensitive}"
    text = (f"With these settings an attacker who sees the published counts guesses {secret} right "
            f"**{acc:.0%}** of the time, against 50% by chance")
    auc = metrics.get("auc")
    if auc is not None and not math.isnan(auc):
        # accuracy is read at one fixed threshold; the ranking (AUC) shows what the scores know beyond it
        text += f"; of two people with different values it puts the right one first **{auc:.0%}** of the time"
    lo = metrics.get("auc_ci_low")
    settled = metrics.get("deterministic_count") or 0
    if settled:
        wrong = metrics.get("deterministic_errors") or 0
        text += (f", and is **certain** about {settled} of the {n} people attacked"
                 + (" (rightly so)" if not wrong else f" ({wrong} of them wrongly: noisy counts fooled the solver)"))
    if lo is not None and not math.isnan(lo) and lo <= 0.5:
        text += " — a difference this run cannot tell apart from luck"
    return text + "."


def _band(fig, xs, cis, color):
    pts = [(x, c) for x, c in zip(xs, cis) if c is not None and c[0] is not None and not math.isnan(c[0])]
    if len(pts) >= 2:
        band(fig, [p[0] for p in pts], [p[1][0] for p in pts], [p[1][1] for p in pts], color, "95% CI")


def sweep_figure(series: dict) -> go.Figure | None:
    """AUC vs m/s (paper Fig. 6) or AUC vs ε (Fig. 8)."""
    sw = series.get("sweep")
    if not sw:
        return None
    fig = go.Figure()
    xs = sw["x"]
    is_eps = sw["param"] == "epsilon"
    labels = [("no noise" if x == 0 else f"{x:g}") for x in xs] if is_eps else xs
    order = _order()
    names = [n for n in order if n in sw] + [n for n in sw if n not in order and isinstance(sw[n], list)
                                              and n not in ("x", "claimed_epsilon")]
    cis = sw.get("ci", {})
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        _band(fig, labels, cis.get(name, []), color)
        ns = sw.get("n", {}).get(name, [None] * len(xs))
        custom = [[c[0], c[1], k] if c else [None, None, k] for c, k in zip(cis.get(name, [None] * len(xs)), ns)]
        fig.add_trace(go.Scatter(x=labels, y=sw[name], mode="lines+markers", name=name, customdata=custom,
                                 line=dict(color=color),
                                 hovertemplate=f"{name}: AUC %{{y:.3f}} (95% CI %{{customdata[0]:.3f}}–"
                                               "%{customdata[1]:.3f}, %{customdata[2]} targets)<extra></extra>"))
    fig.add_hline(y=0.5, line=dict(color="grey", dash="dot"), annotation_text="random guess",
                  annotation_position="bottom right")
    if is_eps and sw.get("claimed_epsilon"):
        caps = [None if e is None else max_auc(e) for e in sw["claimed_epsilon"]]
        fig.add_trace(go.Scatter(x=labels, y=caps, mode="lines", name="highest AUC the DP claim allows",
                                 line=dict(color="black", dash="dash", width=1)))
    if not is_eps and sw.get("paper_max") is not None and max(xs) >= sw["paper_max"]:
        fig.add_vrect(x0=min(xs), x1=sw["paper_max"], fillcolor="rgba(0,0,0,0.05)", line_width=0,
                      annotation_text="paper's regime (m < s)", annotation_position="top left")
        fig.add_vline(x=sw["paper_max"], line=dict(color="grey", dash="dash", width=1),
                      annotation_text="m = s: beyond the paper →", annotation_position="top right")
    title = ("AUC vs ε per aggregate" if is_eps else "AUC vs query ratio m/s") + _tag(series)
    base_layout(fig, title + " · bands: 95% CI", "ε per aggregate (Laplace, rounded)" if is_eps
                else "m/s (released cells per person)", "AUC")
    if is_eps:
        fig.update_xaxes(type="category")
    fig.update_yaxes(range=[0.25, 1.0])
    return fig


def ablation_table(series: dict) -> pd.DataFrame:
    """Table 3: which DeSIA element matters."""
    rows = series.get("ablation") or []
    df = pd.DataFrame(rows)
    if not df.empty:
        for c in ("AUC", "TPR@10%FPR", "TPR@1%FPR"):
            df[c] = df[c].round(3)
    return df


def ablation_figure(series: dict) -> go.Figure | None:
    df = ablation_table(series)
    if df.empty:
        return None
    labels = [f"{r['find feasible value']} · c_t {r['uniqueness c_t']} · verify {r['verification']} · "
              f"M_S {r['stochastic M_S']}" for _, r in df.iterrows()]
    fig = go.Figure(go.Bar(x=df["AUC"], y=labels, orientation="h", marker_color=PALETTE[0],
                           text=df["AUC"], textposition="outside"))
    fig.add_vline(x=0.5, line=dict(color="grey", dash="dot"))
    base_layout(fig, "Ablation (paper Table 3)" + _tag(series), "AUC", "", height=320)
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(range=[0, 1])
    return fig


# ------------------------------------------------------------------ before any attack
PREVIEW_TITLE = "Before any attack: who can be attacked"
ROC_PREVIEW_MAX_EPSILON = math.log(99.0)  # above it the DP region allows an AUC over 0.99: nothing to see


def secret_cells(preview: dict) -> go.Figure:
    """The data under attack (:func:`core.scenarios.aggregates.block_preview`): targets by the number of
    released cells that move with their secret (attribute inference) or contain their record (membership).
    Attribute inference: the 0 bar is grey (no attack can beat a coin flip on those targets); with noise, the
    right axis gives the most any attack can reach on a target with k such cells, e^{εk}/(1+e^{εk})."""
    hist = preview["moved"]
    aia = preview["task"] == "aia"
    sensitive = preview.get("sensitive") or "Hispanic"
    colors = ["#bbbbbb" if (aia and k == 0) else PALETTE[0] for k in hist["k"]]
    what = f"cells that change with the target's {sensitive}" if aia else "cells that contain the target's record"
    fig = go.Figure(go.Bar(x=hist["k"], y=hist["targets"], marker_color=colors, name="targets",
                           hovertemplate="%{y} targets: %{x} released " + what + "<extra></extra>"))
    if aia and preview.get("untouched"):
        fig.add_annotation(x=0, y=preview["untouched"], text="a coin flip<br>for every attack", showarrow=True,
                           arrowhead=2, ax=0, ay=-38, font=dict(size=12), bgcolor="rgba(255,255,255,0.85)")
    bound = preview.get("bound")
    if bound:
        fig.add_trace(go.Scatter(x=bound["k"], y=bound["accuracy"], mode="lines+markers", yaxis="y2",
                                 name=f"most any attack can reach (ε = {preview['epsilon']:g} per cell)",
                                 line=dict(color="black", dash="dash", width=1.5),
                                 hovertemplate="k = %{x}: accuracy ≤ %{y:.1%}<extra>DP bound</extra>"))
        fig.update_layout(yaxis2=dict(title="accuracy bound on such a target", overlaying="y", side="right",
                                      range=[0.45, 1.02], tickvals=[0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
                                      tickformat=".0%", showgrid=False))
    sub = (f"targets by the released cells that move with their {sensitive}" if aia else
           "targets by the released cells that contain their record")
    base_layout(fig, f"{PREVIEW_TITLE}{_tag(preview)}<br><sup>{sub}</sup>",
                f"released {what} (of {preview['cells']} per release)",
                "targets" if preview["releases"] <= preview["blocks"] else "targets (summed over releases)")
    fig.update_xaxes(dtick=1, range=[-0.6, max(hist["k"]) + 0.6])
    fig.update_layout(bargap=0.15, margin=dict(r=70 if bound else 20))
    return fig


def roc_bound_preview(preview: dict) -> go.Figure | None:
    """The ROC frame of :func:`roc_all` before any attack: chance diagonal and the region the release's
    per-person ε allows. None without noise, or when that ε allows an AUC above 0.99 (the region would be the
    whole square: the caption says so in words instead)."""
    claimed = preview.get("claimed")
    if not claimed or not claimed.get("epsilon", math.inf) <= ROC_PREVIEW_MAX_EPSILON:
        return None
    return roc_all({"roc": {}, "dp_bound": claimed, "task": preview["task"], "sensitive": preview["sensitive"],
                    "synthetic": preview["synthetic"]})


def tradeoff_figure(curves: dict, sensitive: str = "the secret") -> go.Figure:
    """One chart for the approval meeting: attack success (AUC: the DP cap and the run's measured value) and the
    expected error of a published count, against ε per cell, with the chosen ε marked."""
    from plotly.subplots import make_subplots

    fig = make_subplots(specs=[[{"secondary_y": True}]])
    eps = curves["epsilon"]
    if any(b is not None for b in curves["auc_bound"]):
        fig.add_trace(go.Scatter(x=eps, y=curves["auc_bound"], mode="lines", name="best any attack can do (DP cap)",
                                 line=dict(color="black", dash="dash", width=2)), secondary_y=False)
    fig.add_trace(go.Scatter(x=eps, y=curves["count_error"], mode="lines", name="expected error of a count",
                             line=dict(color=PALETTE[4], width=3, dash="dot")), secondary_y=True)
    chosen = curves["chosen"]
    auc, (lo, hi) = curves.get("auc"), curves.get("auc_ci") or (None, None)
    if chosen > 0 and auc is not None and not math.isnan(auc):
        err = None if lo is None or hi is None else dict(type="data", symmetric=False, array=[hi - auc],
                                                         arrayminus=[auc - lo], color=PALETTE[0])
        fig.add_trace(go.Scatter(x=[chosen], y=[auc], mode="markers", name="this run's attack AUC (95% CI)",
                                 marker=dict(color=PALETTE[0], size=12, symbol="diamond"), error_y=err),
                      secondary_y=False)
    if chosen > 0:
        fig.add_vline(x=chosen, line=dict(color="#444", width=1.5), annotation_text=f"chosen ε = {chosen:g}",
                      annotation_position="bottom left")
    fig.add_hline(y=0.5, line=dict(color="grey", dash="dot"), annotation_text="coin flip (AUC 0.5)",
                  annotation_position="bottom right", secondary_y=False)
    base_layout(fig, "Attack success and count error against ε per cell", "ε per cell (log scale)",
                "attack AUC (0.5 = coin flip)", height=460)
    fig.update_xaxes(type="log")
    low = min([0.45] + [v - 0.03 for v in (lo, auc) if v is not None and not math.isnan(v)])
    fig.update_yaxes(range=[low, 1.02], secondary_y=False)
    errs = [e for e in curves["count_error"] if e > 0]
    decades = [10.0 ** d for d in range(math.floor(math.log10(min(errs))), math.ceil(math.log10(max(errs))) + 1)]
    fig.update_yaxes(title_text="expected error of a count (log)", type="log", secondary_y=True, showgrid=False,
                     tickvals=decades, ticktext=[f"{d:g}" for d in decades])
    return fig
