"""Figures of the aggregate-statistics scenario (DeSIA paper Figs. 1, 6, 8 and Table 3)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .common import PALETTE, base_layout, roc_figure

ORDER = ("DeSIA", "CIP-rand", "CIP-init", "RAP-rand", "RAP-init")


def _tag(series: dict) -> str:
    return " (synthetic data)" if series.get("synthetic", True) else ""


def roc_all(series: dict) -> go.Figure:
    """All attacks' ROC curves on one plot, with the log-log low-FPR inset (paper Fig. 1)."""
    roc = series.get("roc", {})
    names = [n for n in ORDER if n in roc] + [n for n in roc if n not in ORDER and n != "Random guess"]
    curves = {n: (roc[n]["fpr"], roc[n]["tpr"], roc[n]["auc"]) for n in names}
    task = "membership" if series.get("task") == "mia" else "attribute (Hispanic) inference"
    fig = roc_figure(curves, title=f"ROC, {task}{_tag(series)}", inset=True)
    return fig


def sweep_figure(series: dict) -> go.Figure | None:
    """AUC vs m/s (paper Fig. 6) or AUC vs ε (Fig. 8)."""
    sw = series.get("sweep")
    if not sw:
        return None
    fig = go.Figure()
    xs = sw["x"]
    is_eps = sw["param"] == "epsilon"
    labels = [("no noise" if x == 0 else f"{x:g}") for x in xs] if is_eps else xs
    names = [n for n in ORDER if n in sw] + [n for n in sw if n not in ORDER and n not in ("x", "param")]
    for i, name in enumerate(names):
        fig.add_trace(go.Scatter(x=labels, y=sw[name], mode="lines+markers", name=name,
                                 line=dict(color=PALETTE[i % len(PALETTE)])))
    fig.add_hline(y=0.5, line=dict(color="grey", dash="dot"), annotation_text="random guess")
    title = ("AUC vs ε per aggregate" if is_eps else "AUC vs query ratio m/s") + _tag(series)
    base_layout(fig, title, "ε per aggregate (Laplace, rounded)" if is_eps else "m/s (released cells per person)",
                "AUC")
    if is_eps:
        fig.update_xaxes(type="category")
    fig.update_yaxes(range=[0.3, 1.0])
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
