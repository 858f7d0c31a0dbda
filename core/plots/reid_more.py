"""Plotly figures for the second reidentification page: the TB mechanism, downcoding, composition."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .common import PALETTE, base_layout
from .reid import class_size_histogram

RED, BLUE, GREEN, ORANGE, GREY = PALETTE[1], PALETTE[0], PALETTE[2], PALETTE[4], "#9e9e9e"


def relational_heights(heights: pd.DataFrame, columns: list[str], tops: dict[str, int]) -> go.Figure:
    """Heat map: the two worlds (rows) × published columns; colour = share of the hierarchy climbed."""
    z = np.asarray([[row[c] / max(tops[c], 1) for c in columns] for _, row in heights.iterrows()], dtype=float)
    text = [["exact" if row[c] == 0 else "*" if row[c] >= tops[c] else f"level {row[c]}" for c in columns]
            for _, row in heights.iterrows()]
    fig = go.Figure(go.Heatmap(z=z, x=columns, y=list(heights["world"]), text=text, texttemplate="%{text}",
                               colorscale=[[0, "#f0f4fa"], [1, RED]], zmin=0, zmax=1, showscale=False,
                               hovertemplate="%{y}<br>%{x}: %{text}<extra></extra>"))
    base_layout(fig, "Which columns A(x) generalised, in each world", "published column", "", height=260)
    fig.update_yaxes(autorange="reversed")
    return fig


_STATUS = {"published exact": 0, "not refined": 1, "refined": 2, "downcoded to exact": 3}


def downcoding_cells(status: pd.DataFrame, y: pd.DataFrame, z: pd.DataFrame) -> go.Figure:
    """Heat map records × attributes: grey = published exact, blue = not refined, orange = refined,
    red = downcoded to the exact value; text ``Y → Z``."""
    codes = status.map(_STATUS.get).to_numpy(dtype=float)
    text = [[(str(y.iat[i, j]) if y.iat[i, j] == z.iat[i, j] else f"{y.iat[i, j]} → {z.iat[i, j]}")
             for j in range(y.shape[1])] for i in range(y.shape[0])]
    scale = [[0.0, "#eeeeee"], [0.25, "#eeeeee"], [0.25, "#c6dbef"], [0.5, "#c6dbef"], [0.5, ORANGE],
             [0.75, ORANGE], [0.75, RED], [1.0, RED]]
    fig = go.Figure(go.Heatmap(z=codes, x=list(status.columns), y=[f"record {i}" for i in status.index],
                               text=text, texttemplate="%{text}", customdata=status.to_numpy(),
                               colorscale=scale, zmin=-0.5, zmax=3.5, showscale=False,
                               hovertemplate="%{y}, %{x}: %{text}<br>%{customdata}<extra></extra>"))
    base_layout(fig, "Downcoding: published Y → Z (red: exact value recovered, orange: refined)",
                "attribute", "", height=max(260, 40 * len(status) + 110))
    fig.update_yaxes(autorange="reversed")
    return fig


def composition_bars(summary: pd.DataFrame, k: int, paper: dict | None = None) -> go.Figure:
    """% unique and % not k-anonymous per table (raw QI sets, each release, the join). ``paper`` adds the
    paper's edX figures as a separate, hatched group of bars (labelled as the paper's, not ours) — not as
    reference lines, which would run through the bar labels."""
    fig = go.Figure()
    x = [t.replace(" ", "<br>") if len(t) > 12 else t for t in summary["table"]]
    paper_x = "edX release<br>(paper, real data)"
    for col, name, color, ref in (("pct_unique", "% unique", RED, "pct_unique"),
                                  ("pct_not_k_anonymous", f"% not {k}-anonymous", BLUE, "pct_not_k")):
        xs, ys = list(x), [float(v) for v in summary[col]]
        fig.add_trace(go.Bar(x=xs, y=ys, name=name, marker_color=color, legendgroup=col,
                             text=[f"{v:.1f}%" for v in ys], textposition="outside", cliponaxis=False,
                             hovertemplate="%{x}: %{y:.2f}%<extra>" + name + "</extra>"))
        if paper:
            label = name if ref == "pct_unique" else f"% not {paper['k']}-anonymous"
            fig.add_trace(go.Bar(x=[paper_x], y=[paper[ref]], name=f"{label} (edX, paper)", legendgroup=col,
                                 marker=dict(color="white", line=dict(color=color, width=2),
                                             pattern=dict(shape="/", fgcolor=color)),
                                 text=[f"{paper[ref]:.1f}%"], textposition="outside", cliponaxis=False,
                                 hovertemplate="%{x}: %{y:.2f}% (Cohen ’21, not computed here)<extra></extra>"))
    base_layout(fig, "Each release is k-anonymous; their join is not", "", "% of learners", height=500)
    fig.update_layout(margin=dict(b=150), legend=dict(y=-0.35))
    fig.update_layout(barmode="group")
    fig.update_xaxes(tickangle=0, categoryorder="array", categoryarray=x + ([paper_x] if paper else []))
    top = float(summary[["pct_unique", "pct_not_k_anonymous"]].max().max())
    if paper:
        top = max(top, float(paper["pct_unique"]), float(paper["pct_not_k"]))
    fig.update_yaxes(range=[0, min(110, top * 1.2 + 5)])
    return fig


def joined_class_sizes(hist: pd.DataFrame) -> go.Figure:
    """Records by equivalence-class size in the joined table (size 1 = unique, in red)."""
    return class_size_histogram(hist, "Equivalence classes of the join A ⋈ B")
