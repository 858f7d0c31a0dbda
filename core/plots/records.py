"""Who is exposed: the per-record score distribution, coloured by tier, with a text alternative."""
from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from ..basics.words import shorten
from .common import base_layout

TIER_COLORS = {"certified": "#1a7f37", "probable": "#b35900", "guess": "#6e7781"}  # ≥ 4.5:1 on white
BINS = 40


def _columns(table) -> dict:
    return table["columns"] if isinstance(table, dict) else table.columns


def score_histogram(table, bins: int = BINS) -> go.Figure:
    """Stacked histogram of every kept row's score, one colour per tier. Bins are counted here, so the browser
    gets 3 × ``bins`` bars whatever the number of records (10⁴ rows or more draw as fast as 10)."""
    cols = _columns(table)
    score = np.asarray(cols["score"], dtype=float)
    tier = np.asarray(cols["tier"])
    finite = np.isfinite(score)
    lo, hi = (float(score[finite].min()), float(score[finite].max())) if finite.any() else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    centers = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure()
    for name, color in TIER_COLORS.items():
        counts, _ = np.histogram(score[finite & (tier == name)], bins=edges)
        fig.add_trace(go.Bar(x=centers, y=counts, width=(edges[1] - edges[0]), name=name, marker_color=color,
                             hovertemplate=f"{name}: %{{y}} with score ≈ %{{x:.3g}}<extra></extra>"))
    fig.update_layout(barmode="stack", bargap=0.02)
    return base_layout(fig, "Who is exposed: score per record, by tier", "score (higher = more exposed)",
                       "records", height=320)


def score_summary(table) -> str:
    """The histogram in words (its text alternative): counts per tier and the score range of each."""
    cols = _columns(table)
    score = np.asarray(cols["score"], dtype=float)
    tier = np.asarray(cols["tier"])
    parts = []
    for name in TIER_COLORS:
        s = score[tier == name]
        if s.size:
            parts.append(f"{s.size:,} {name} (score {np.nanmin(s):.3g}–{np.nanmax(s):.3g}, median "
                         f"{np.nanmedian(s):.3g})")
        else:
            parts.append(f"0 {name}")
    return f"Score distribution of {score.size:,} records: " + "; ".join(parts) + "."


def group_chart(groups: dict) -> go.Figure:
    """Per group (e.g. per attacked user): the attack's AUC with its 95% interval as error bars, against a known
    attribute of the group (the mean clean count λ of a user's cells) or, without one, each group in turn; the
    run's reference levels (the DP bound, the best possible attack) as dashed lines. Group names can come from an
    uploaded file: they are escaped and shortened before plotly sees them."""
    cols = groups["columns"]
    names = [html.escape(shorten(str(v), 40)) for v in cols[groups.get("unit", "user")]]
    x_name, y_name = groups["x"], groups["y"]
    x = names if x_name == groups.get("unit", "user") else cols[x_name]
    y = np.asarray(cols[y_name], dtype=float)
    lo = np.asarray(cols[groups["y_low"]], dtype=float)
    hi = np.asarray(cols[groups["y_high"]], dtype=float)
    fig = go.Figure(go.Scatter(
        x=x, y=y, mode="markers", name=f"{y_name} per {groups.get('unit', 'user')} (95% interval)",
        marker={"size": 9, "color": "#0b5cad"}, text=names,
        error_y={"type": "data", "symmetric": False, "array": hi - y, "arrayminus": y - lo, "color": "#0b5cad"},
        hovertemplate="%{text}: " + y_name + " %{y:.3f}<extra></extra>"))
    dashes = ("dash", "dot", "dashdot")
    ends = [x[0], x[-1]] if x is names else [float(np.nanmin(x)), float(np.nanmax(x))]
    for i, ref in enumerate(groups.get("references", []) if len(x) else []):
        fig.add_trace(go.Scatter(x=ends, y=[ref["value"]] * 2, mode="lines", hoverinfo="skip",
                                 name=f"{ref['label']} ({ref['value']:.3f})",
                                 line={"dash": dashes[i % 3], "color": "#222" if i == 0 else "#6e7781"}))
    title = groups.get("title", f"{y_name} per {groups.get('unit', 'group')}")
    return base_layout(fig, title, x_name, y_name, height=360)
