"""Figure builders used by several scenarios."""
from __future__ import annotations

import plotly.graph_objects as go

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
TEMPLATE = "plotly_white"


def base_layout(fig: go.Figure, title: str, x: str, y: str, height: int = 420) -> go.Figure:
    fig.update_layout(template=TEMPLATE, title=dict(text=title, x=0.0, xanchor="left"), height=height,
                      xaxis_title=x, yaxis_title=y, legend=dict(orientation="h", y=-0.2),
                      margin=dict(l=60, r=20, t=60, b=60))
    return fig


def band(fig: go.Figure, x, low, high, color: str, name: str) -> None:
    """A shaded confidence band between ``low`` and ``high``."""
    fig.add_trace(go.Scatter(x=list(x) + list(x)[::-1], y=list(high) + list(low)[::-1], fill="toself", mode="lines",
                             fillcolor=_rgba(color, 0.15), line=dict(width=0), hoverinfo="skip",
                             name=name, showlegend=False))


def roc_figure(curves: dict[str, tuple], title: str = "ROC curve", log: bool = False,
               inset: bool = False) -> go.Figure:
    """ROC curves ``{name: (fpr, tpr, auc)}`` with the chance diagonal; optional log-log low-FPR inset."""
    fig = go.Figure()
    for i, (name, (fpr, tpr, auc)) in enumerate(curves.items()):
        label = f"{name} (AUC {auc:.3f})" if auc is not None else name
        fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines", name=label, line=dict(color=PALETTE[i % 8]),
                                 line_shape="hv"))
        if inset:
            fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines", line=dict(color=PALETTE[i % 8]), line_shape="hv",
                                     xaxis="x2", yaxis="y2", showlegend=False, hoverinfo="skip"))
    lo = 1e-3 if log else 0.0
    fig.add_trace(go.Scatter(x=[lo, 1], y=[lo, 1], mode="lines", name="random guess",
                             line=dict(color="grey", dash="dot")))
    base_layout(fig, title, "false positive rate", "true positive rate")
    if log:
        fig.update_xaxes(type="log", range=[-3, 0])
        fig.update_yaxes(type="log", range=[-3, 0])
    if inset:
        # A log-log low-FPR panel beside the linear ROC (the regime that matters for privacy).
        fig.add_trace(go.Scatter(x=[1e-3, 1], y=[1e-3, 1], mode="lines", line=dict(color="grey", dash="dot"),
                                 xaxis="x2", yaxis="y2", showlegend=False, hoverinfo="skip"))
        fig.update_layout(
            xaxis=dict(domain=[0.0, 0.56]),
            xaxis2=dict(domain=[0.68, 1.0], anchor="y2", type="log", range=[-3, 0], title="FPR (log scale)"),
            yaxis2=dict(domain=[0.0, 1.0], anchor="x2", type="log", range=[-3, 0], title="TPR (log scale)"),
            annotations=[dict(text="low-FPR zoom (log–log)", x=0.84, y=1.06, xref="paper", yref="paper",
                              showarrow=False, font=dict(size=12))])
    return fig


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    return f"rgba({r},{g},{b},{alpha})"
