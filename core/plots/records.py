"""Who is exposed: the per-record score distribution, coloured by tier, with a text alternative."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

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
