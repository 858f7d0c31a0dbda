"""Ticks for real DP deployments on any chart whose x axis is ε (the ε explorer, the ε ladder, the synthetic-data
accuracy-vs-ε chart).

The ticks come in as data (``core.studies.choosing_epsilon.deployment_registry.ticks()``: one dict per deployment with ``epsilon``,
``comparable``, ``reason`` and ``hover``), so figure builders stay free of file reading. Each tick is a short
vertical mark along the bottom of the plot on an overlay axis fixed to [0, 1] (so it never moves the chart's own
y range); hovering shows organisation, product, unit, period and source. Deployments whose unit of privacy is not
a whole person are drawn grey, and their hover says why.
"""
from __future__ import annotations

import math

import plotly.graph_objects as go

AXIS = "y9"            # overlay axis of the ticks (far from the y2 that some charts use)
COLOR = "#222222"
GREY = "#9e9e9e"
LEVELS = (0.03, 0.08, 0.13)  # staggered heights, so deployments with equal ε stay hoverable


def add_deployment_ticks(fig: go.Figure, ticks: list[dict] | None, x_range: tuple[float, float] | None = None,
                         log_x: bool = True) -> go.Figure:
    """Draw ``ticks`` (see module doc) on ``fig``; only those within ``x_range`` when given. Returns ``fig``."""
    if not ticks:
        return fig
    shown = [t for t in ticks if t.get("epsilon") and t["epsilon"] > 0
             and (x_range is None or x_range[0] <= t["epsilon"] <= x_range[1])]
    if not shown:
        return fig
    shown.sort(key=lambda t: t["epsilon"])
    heights, last = [], None
    for t in shown:  # stagger deployments closer than 8% in ε
        close = last is not None and abs(math.log(t["epsilon"] / last[0])) < 0.08
        level = (last[1] + 1) % len(LEVELS) if close else 0
        heights.append(LEVELS[level])
        last = (t["epsilon"], level)
    for ok, name, color in ((True, "real deployments (unit: a person)", COLOR),
                            (False, "real deployments, other unit (greyed)", GREY)):
        idx = [i for i, t in enumerate(shown) if bool(t.get("comparable", True)) == ok]
        if not idx:
            continue
        fig.add_trace(go.Scatter(
            x=[shown[i]["epsilon"] for i in idx], y=[heights[i] for i in idx], yaxis=AXIS, mode="markers",
            name=name, marker=dict(symbol="line-ns", size=16, line=dict(width=3 if ok else 2, color=color),
                                   color=color, opacity=1.0 if ok else 0.7),
            customdata=[shown[i]["hover"] for i in idx], hovertemplate="%{customdata}<extra></extra>",
            meta="deployments"))
    fig.update_layout(**{"yaxis9": dict(overlaying="y", range=[0, 1], visible=False, fixedrange=True)})
    return fig


def deployment_summary(ticks: list[dict] | None, epsilon: float, k: int = 3) -> str:
    """Text alternative of the ticks near ``epsilon``: 'Nearest real deployments: …' (plain text, no Markdown)."""
    if not ticks or not epsilon or epsilon <= 0:
        return ""
    near = sorted(ticks, key=lambda t: abs(math.log(t["epsilon"] / epsilon)))[:k]
    parts = [f"{t['organisation']} {t['product']} (ε = {t['epsilon']:.3g} per {t['unit']}"
             + ("" if t.get("comparable", True) else ", not a whole person") + ")" for t in near]
    return "Nearest real deployments: " + "; ".join(parts) + "."
