"""Figures of the ε explorer."""
from __future__ import annotations

import plotly.graph_objects as go

from .common import DASHES, PALETTE, base_layout


def accuracy_bound_figure(data: dict) -> go.Figure:
    fig = go.Figure()
    chosen = f"{data['epsilon']:g}"
    for i, (eps, ys) in enumerate(data["accuracy_bound"].items()):
        bold = eps == chosen
        fig.add_trace(go.Scatter(x=data["observations"], y=ys, mode="lines", name=f"ε = {eps}" + (" (chosen)" if bold else ""),
                                 line=dict(color="black" if bold else PALETTE[i % 8], width=4 if bold else 2,
                                           # each other ε its own dash, so no two curves differ by colour alone
                                           dash="solid" if bold else DASHES[1 + i % (len(DASHES) - 1)])))
    fig.add_hline(y=0.5, line=dict(color="grey", dash="dash"), annotation_text="coin flip",
                  annotation_position="bottom right")
    base_layout(fig, "Best possible membership-inference accuracy", "observations of the person (k-fold composition)",
                "max balanced accuracy of any attack")
    fig.update_yaxes(range=[0.45, 1.01])
    return fig


def roc_bound_figure(data: dict) -> go.Figure:
    fig = go.Figure()
    for i, (name, r) in enumerate(data["roc_bound"].items()):
        fig.add_trace(go.Scatter(x=r["fpr"], y=r["tpr"], mode="lines", name=name, line=dict(color=PALETTE[i % 8])))
    fig.add_trace(go.Scatter(x=[1e-4, 1], y=[1e-4, 1], mode="lines", name="coin flip", line=dict(color="grey", dash="dot")))
    base_layout(fig, f"Best possible ROC at ε = {data['epsilon']:g} per observation", "false-positive rate (log)",
                "max true-positive rate (log)")
    fig.update_xaxes(type="log", range=[-4, 0])
    fig.update_yaxes(type="log", range=[-4, 0])
    return fig


def posterior_figure(data: dict) -> go.Figure:
    p = data["posterior"]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=p["prior"], y=p["bound"], mode="lines", name=f"max posterior at ε = {data['epsilon']:g}",
                             line=dict(color=PALETTE[1], width=3)))
    fig.add_trace(go.Scatter(x=p["prior"], y=p["prior"], mode="lines", name="no release (posterior = prior)",
                             line=dict(color="grey", dash="dot")))
    base_layout(fig, "How far one release can move a belief about one person", "attacker's prior belief",
                "highest belief after the release")
    return fig
