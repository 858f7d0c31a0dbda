"""Plotly figures of the location-aggregate membership scenario (Liu et al.; spec seed001 §6).

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..attacks.declaration import labels as attack_labels
from .common import PALETTE, band

NAMES = attack_labels("location")  # each attack's legend label, from its declaration (core/attacks/location/)
COLORS = {"one-threshold": PALETTE[0], "two-threshold": PALETTE[1], "mlp": PALETTE[2], "lrt": PALETTE[3]}
BOUND = dict(color="black", dash="dash", width=2)
OPTIMUM = dict(color="#7f7f7f", dash="dot", width=2)


def _attacker_note(info: dict | None) -> str:
    if not info:
        return ""
    who = "informed attacker" if info.get("attacker") == "informed" else "auxiliary attacker"
    note = f"{who}, {info.get('mechanism', '')}"
    if info.get("attacker") == "auxiliary":
        note += ", synthetic data" if info.get("synthetic", True) else ", uploaded data"
    return note


def _band(fig: go.Figure, curve: dict, metric: str, name: str) -> None:
    """The 95% band of a measured curve: Clopper–Pearson for accuracy, Hanley–McNeil for the AUC."""
    lo, hi = ("ci_low", "ci_high") if metric == "accuracy" else ("auc_ci_low", "auc_ci_high")
    if curve.get(lo) and len(curve[lo]) == len(curve["x"]):
        band(fig, curve["x"], curve[lo], curve[hi], COLORS.get(name, "#7f7f7f"), f"95% CI {name}")


def epsilon_note(theory: dict) -> str:
    """'ε = 0.5 per observation' (with δ for the Gaussian mechanism): the guarantee the curves are drawn for."""
    eps = theory.get("epsilon")
    if eps is None:
        return ""
    return f"ε = {eps:g} per observation" + (f", δ = {theory['delta']:.0e}" if theory.get("delta") else "")


def accuracy_vs_observations(theory: dict, series: dict | None = None, metric: str = "accuracy",
                             legend_side: bool = False) -> go.Figure:
    """Fig. 1/6/13: accuracy (or AUC) vs k, with the DP bound and the informed optimum. The subtitle names the ε
    in force; ``legend_side`` puts the legend beside the plot (the page's first, full-width view)."""
    fig = go.Figure()
    info = (series or {}).get("info")
    if metric == "accuracy":
        fig.add_trace(go.Scatter(x=theory["k"], y=theory["dp_bound"], name="DP bound (Kairouz, optimal composition)",
                                 line=BOUND, line_shape="hv"))
        fig.add_trace(go.Scatter(x=theory["k"], y=theory["optimal"], name="Best possible, informed (exact LRT)",
                                 line=OPTIMUM))
        if not series or (info or {}).get("attacker") == "informed":
            for key, label, dash in (("one_threshold", "One-threshold, theory", "dashdot"),
                                     ("two_threshold", "Two-threshold, theory", "longdashdot")):
                att = key.replace("_", "-")
                fig.add_trace(go.Scatter(x=theory["k"], y=theory[key], name=label, opacity=0.5,
                                         line=dict(color=COLORS[att], width=1, dash=dash)))
    else:
        fig.add_trace(go.Scatter(x=theory["k"], y=theory["dp_bound_auc"], name="DP bound on AUC (any ε-DP test)",
                                 line=BOUND))
        fig.add_trace(go.Scatter(x=theory["k"], y=theory["optimal_auc"], name="Best possible AUC, informed",
                                 line=OPTIMUM))
    for name, c in ((series or {}).get("observations") or {}).items():
        _band(fig, c, metric, name)
        fig.add_trace(go.Scatter(x=c["x"], y=c[metric], mode="lines+markers",
                                 name=f"{NAMES.get(name, name)} (measured)", line=dict(color=COLORS.get(name))))
    title = ("Membership accuracy vs number of observations" if metric == "accuracy"
             else "AUC vs number of observations")
    parts = (epsilon_note(theory), _attacker_note(info) or "closed form, informed attacker")
    note = " · ".join(x for x in parts if x)
    legend = dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top") if legend_side else \
        dict(orientation="h", y=-0.25)
    fig.update_layout(title=f"{title}<br><sup>{note}</sup>", xaxis_title="observations k "
                      "(positive cells of the target)", yaxis_title="balanced accuracy" if metric == "accuracy"
                      else "AUC", legend=legend, height=480, margin=dict(t=60, r=20))
    fig.update_yaxes(range=[0.45, 1.01])
    return fig


def roc_curves(series: dict) -> go.Figure:
    """Fig. 18: ROC at the requested k, log–log, against the optimal and the DP-bound ROC."""
    fig = go.Figure()
    k = series.get("info", {}).get("k")
    dp = series.get("roc_dp")
    if dp:
        fig.add_trace(go.Scatter(x=dp["fpr"], y=dp["tpr"], name="DP bound (any ε-DP test)", line=BOUND))
    opt = series.get("roc_optimal")
    if opt:
        fig.add_trace(go.Scatter(x=opt["fpr"], y=opt["tpr"], name="Best possible, informed", line=OPTIMUM))
    for name, r in series.get("roc", {}).items():
        fig.add_trace(go.Scatter(x=r["fpr"], y=r["tpr"], name=NAMES.get(name, name), line=dict(color=COLORS.get(name))))
    grid = np.geomspace(1e-5, 1, 50)
    fig.add_trace(go.Scatter(x=grid, y=grid, name="random guess", line=dict(color="lightgray", width=1)))
    fig.update_layout(title=f"ROC at k = {k} observations<br><sup>{_attacker_note(series.get('info'))}, "
                            "log–log</sup>",
                      xaxis_title="false-positive rate", yaxis_title="true-positive rate",
                      xaxis_type="log", yaxis_type="log", height=480, legend=dict(orientation="h", y=-0.25))
    fig.update_xaxes(range=[-4.5, 0])
    fig.update_yaxes(range=[-3, 0.02])
    return fig


def score_histograms(series: dict) -> go.Figure:
    """Fig. 8/10: score distributions of member and non-member test aggregates, per attack."""
    hists = series.get("histograms", {})
    names = list(hists)
    fig = make_subplots(rows=1, cols=max(1, len(names)), subplot_titles=[NAMES.get(n, n) for n in names])
    for j, name in enumerate(names, start=1):
        h = hists[name]
        edges = np.asarray(h["edges"])
        mid = (edges[:-1] + edges[1:]) / 2
        for label, key, color in (("members (b = 1)", "members", PALETTE[1]),
                                  ("non-members (b = 0)", "non_members", PALETTE[0])):
            counts = np.asarray(h[key], float)
            dens = counts / max(counts.sum(), 1) / np.diff(edges)
            fig.add_trace(go.Bar(x=mid, y=dens, width=np.diff(edges), name=label, marker_color=color,
                                 opacity=0.55, showlegend=j == 1, legendgroup=key), row=1, col=j)
    fig.update_layout(barmode="overlay", height=360, legend=dict(orientation="h", y=-0.2),
                      title=f"Attack scores at k = {series.get('info', {}).get('k')}: members vs non-members")
    fig.update_yaxes(title_text="density", row=1, col=1)
    return fig


def accuracy_vs_shadows(series: dict, metric: str = "accuracy") -> go.Figure:
    """Fig. 22: accuracy vs number of training shadow aggregates at the requested k."""
    fig = go.Figure()
    for name, c in series.get("shadows", {}).items():
        _band(fig, c, metric, name)
        fig.add_trace(go.Scatter(x=c["x"], y=c[metric], mode="lines+markers", name=NAMES.get(name, name),
                                 line=dict(color=COLORS.get(name))))
    info = series.get("info", {})
    k = info.get("k")
    suffix = "" if metric == "accuracy" else "_auc"
    if info.get("dp_bound" + suffix) is not None:
        fig.add_hline(y=info["dp_bound" + suffix], line=BOUND, annotation_text="DP bound",
                      annotation_position="bottom right")
        fig.add_hline(y=info["optimal" + suffix], line=OPTIMUM, annotation_text="best possible (informed)",
                      annotation_position="bottom left")
    fig.update_layout(title=f"{'Accuracy' if metric == 'accuracy' else 'AUC'} vs training shadow aggregates"
                            f"<br><sup>k = {k}, {_attacker_note(series.get('info'))}</sup>",
                      xaxis_title="training shadow aggregates (log scale)", yaxis_title=metric,
                      xaxis_type="log", height=420, legend=dict(orientation="h", y=-0.25))
    return fig


def mlp_weights(series: dict) -> go.Figure:
    """Figs. 12/15: learned first-layer weights (inputs × hidden units, units ordered by their
    strongest input), hidden biases and output weights."""
    m = series["mlp"]
    W = np.asarray(m["W1"], float)
    # Axis names live in the subplot titles: an x-axis title between two rows would sit on the next title.
    fig = make_subplots(rows=4, cols=1, row_heights=[0.55, 0.15, 0.15, 0.15], vertical_spacing=0.07,
                        subplot_titles=["first-layer weights W1 (rows: input cell, columns: hidden unit)",
                                        "hidden biases (per hidden unit)", "output weights (per hidden unit)",
                                        "effective weight of each input cell (linearised network)"])
    lim = float(np.abs(W).max()) or 1.0
    fig.add_trace(go.Heatmap(z=W, colorscale="RdBu", zmin=-lim, zmax=lim, zmid=0,
                             colorbar=dict(len=0.5, y=0.75, title="weight"),
                             hovertemplate="input %{y}<br>hidden %{x}<br>w = %{z:.3f}<extra></extra>"), row=1, col=1)
    units = np.arange(W.shape[1])
    fig.add_trace(go.Bar(x=units, y=m["b1"], marker_color="#7f7f7f", showlegend=False), row=2, col=1)
    fig.add_trace(go.Bar(x=units, y=m["W2"], marker_color=PALETTE[2], showlegend=False), row=3, col=1)
    fig.update_yaxes(title_text="input cell", autorange="reversed", row=1, col=1)
    if "effective" in m:
        fig.add_trace(go.Bar(x=np.arange(len(m["effective"])), y=m["effective"], marker_color="#1f77b4",
                             showlegend=False), row=4, col=1)
        fig.update_xaxes(title_text="input cell", row=4, col=1)
    fig.update_layout(height=900, margin=dict(t=110), title=(f"MLP weights — diagonal dominance {m['dominance']:.2f}<br><sup>"
                                         f"{m['uniform_dominance']:.2f} = every unit sums all cells (one-threshold "
                                         "rule); 1 = one cell per unit (two-threshold rule)</sup>"))
    return fig


def mlp_training(series: dict) -> go.Figure:
    h = series["mlp"]["history"]
    fig = go.Figure(go.Scatter(x=h["epoch"], y=h["val_accuracy"], mode="lines", name="validation accuracy",
                               line=dict(color=COLORS["mlp"])))
    fig.add_vline(x=series["mlp"]["best_epoch"], line_dash="dot", annotation_text="kept (early stopping)")
    fig.update_layout(title="MLP training: validation accuracy per epoch", xaxis_title="epoch",
                      yaxis_title="accuracy on validation shadows", height=320)
    return fig
