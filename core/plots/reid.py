"""Plotly figures for the reidentification lecture demos (core.reid)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import PALETTE, base_layout

RED, BLUE, GREEN, GREY = PALETTE[1], PALETTE[0], PALETTE[2], "#9e9e9e"


# ----------------------------------------------------------------------------- linkage
def class_size_histogram(hist: pd.DataFrame, title: str = "Equivalence-class sizes") -> go.Figure:
    """Records by the size of their equivalence class; size 1 (unique) in red."""
    h = hist.copy()
    cap = 20
    big = h[h["class_size"] > cap]
    h = h[h["class_size"] <= cap]
    x = [str(int(v)) for v in h["class_size"]]
    y = list(h["n_records"])
    if len(big):
        x.append(f">{cap}")
        y.append(int(big["n_records"].sum()))
    colors = [RED if v == "1" else BLUE for v in x]
    fig = go.Figure(go.Bar(x=x, y=y, marker_color=colors,
                           hovertemplate="class size %{x}: %{y} records<extra></extra>"))
    base_layout(fig, title, "equivalence-class size (1 = unique)", "number of records", height=360)
    fig.update_xaxes(type="category")
    return fig


def uniqueness_by_combination(combos: pd.DataFrame, top: int = 31) -> go.Figure:
    """Horizontal bars: % of records unique on each QI combination."""
    d = combos.head(top).iloc[::-1]
    fig = go.Figure(go.Bar(x=d["pct_unique"], y=d["quasi_identifiers"], orientation="h",
                           marker_color=[PALETTE[(k - 1) % 8] for k in d["n_columns"]],
                           text=[f"{v:.1f}%" for v in d["pct_unique"]], textposition="outside",
                           hovertemplate="%{y}: %{x:.1f}% unique<extra></extra>"))
    base_layout(fig, "% unique per QI combination", "% of people unique", "",
                height=max(320, 26 * len(d) + 120))
    fig.update_xaxes(range=[0, 110])
    return fig


def linkage_funnel(metrics: dict) -> go.Figure:
    """Release size → unique in release → re-identified (one-to-one) → correctly re-identified."""
    n = metrics["n_release"]
    stages = ["released records", "unique in the release", "re-identified (one voter, one record)",
              "correctly re-identified"]
    vals = [n, metrics["pct_unique_release"] * n / 100, metrics["n_reidentified"], metrics["n_correct"]]
    fig = go.Figure(go.Funnel(y=stages, x=vals, marker_color=[GREY, BLUE, PALETTE[4], RED],
                              textinfo="value+percent initial"))
    base_layout(fig, "Release ⋈ voter list", "", "", height=360)
    return fig


# ----------------------------------------------------------------------------- k-anonymity
def class_sizes_vs_k(classes: pd.DataFrame, k: int, qis: list[str], max_bars: int = 60) -> go.Figure:
    """One bar per equivalence class (largest first is not useful here: smallest first), the k line."""
    c = classes.sort_values("size").head(max_bars)
    labels = [" | ".join(map(str, r)) for r in c[qis].itertuples(index=False)]
    hom = c["homogeneous"].to_numpy() if "homogeneous" in c else np.zeros(len(c), dtype=bool)
    colors = [RED if s < k else (PALETTE[4] if h else BLUE) for s, h in zip(c["size"], hom)]
    custom = c["sensitive_values"] if "sensitive_values" in c else [""] * len(c)
    fig = go.Figure(go.Bar(x=labels, y=c["size"], marker_color=colors, customdata=np.asarray(custom)[:, None],
                           hovertemplate="%{x}<br>size %{y}<br>%{customdata[0]}<extra></extra>"))
    fig.add_hline(y=k, line_dash="dash", line_color=RED, annotation_text=f"k = {k}", annotation_position="top left")
    title = "Class sizes vs k"
    if len(classes) > max_bars:
        title += f" ({max_bars} smallest of {len(classes)})"
    base_layout(fig, title, "class (generalised quasi-identifiers)", "records in class", height=380)
    fig.update_xaxes(type="category", tickangle=-30, showticklabels=len(c) <= 30)
    return fig


def distinct_sensitive(classes: pd.DataFrame, qis: list[str], max_bars: int = 60) -> go.Figure:
    """Distinct sensitive values per class (l-diversity); homogeneous classes (= 1) in orange."""
    c = classes.sort_values(["n_distinct_sensitive", "size"]).head(max_bars)
    labels = [" | ".join(map(str, r)) for r in c[qis].itertuples(index=False)]
    colors = [PALETTE[4] if h else GREEN for h in c["homogeneous"]]
    fig = go.Figure(go.Bar(x=labels, y=c["n_distinct_sensitive"], marker_color=colors,
                           customdata=np.asarray(c["sensitive_values"])[:, None],
                           hovertemplate="%{x}<br>%{y} distinct<br>%{customdata[0]}<extra></extra>"))
    base_layout(fig, "Distinct sensitive values per class",
                "class", "distinct sensitive values", height=360)
    fig.update_xaxes(type="category", tickangle=-30, showticklabels=len(c) <= 30)
    fig.update_yaxes(dtick=1, rangemode="tozero")
    return fig


# ----------------------------------------------------------------------------- differencing
def differencing_bits(bits: pd.DataFrame, max_points: int = 200) -> go.Figure:
    """Top: the two (large) answers per target; bottom: their difference, the recovered bit, vs the true bit."""
    b = bits.head(max_points)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.6, 0.4], vertical_spacing=0.08)
    fig.add_trace(go.Scatter(x=b["target"], y=b["answer_with_i"], mode="lines+markers", name="q(S ∪ {i})",
                             line=dict(color=BLUE), marker=dict(size=4)), row=1, col=1)
    fig.add_trace(go.Scatter(x=b["target"], y=b["answer_without_i"], mode="lines+markers", name="q(S)",
                             line=dict(color=GREY, dash="dot"), marker=dict(size=4)), row=1, col=1)
    fig.add_trace(go.Bar(x=b["target"], y=b["recovered_bit"], name="recovered x_i = difference",
                         marker_color=[GREEN if c else RED for c in b["correct"]]), row=2, col=1)
    fig.add_trace(go.Scatter(x=b["target"], y=b["true_bit"], mode="markers", name="true x_i",
                             marker=dict(color="black", symbol="line-ew-open", size=10)), row=2, col=1)
    base_layout(fig, "Two large counts, one person's bit", "", "", height=440)
    fig.update_yaxes(title_text="answer (count)", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="bit", tickvals=[0, 1], range=[-0.1, 1.2], row=2, col=1)
    fig.update_xaxes(title_text="person i", row=2, col=1)
    return fig


# ----------------------------------------------------------------------------- exact example
def query_matrix_heatmap(matrix: np.ndarray, answers, solution=None) -> go.Figure:
    """``M_S`` as a 0/1 grid with the answers on the right and the recovered x on top."""
    m, n = matrix.shape
    fig = go.Figure(go.Heatmap(z=matrix, x=[f"x{i + 1}" for i in range(n)], y=[f"S{j + 1}" for j in range(m)],
                               colorscale=[[0, "#f5f5f5"], [1, BLUE]], showscale=False, xgap=2, ygap=2,
                               text=matrix, texttemplate="%{text}",
                               hovertemplate="%{y} contains %{x}: %{z}<extra></extra>"))
    ans = [f"a{j + 1} = {int(a) if float(a).is_integer() else a}" for j, a in enumerate(answers)]
    for j, t in enumerate(ans):
        fig.add_annotation(x=n - 0.3, y=j, text=t, showarrow=False, xanchor="left")
    title = "Query matrix M (row j = indicator of S_j)"
    if solution is not None:
        title += "  ·  x̂ = (" + ", ".join(str(int(v)) for v in solution) + ")"
    base_layout(fig, title, "", "", height=80 + 45 * m)
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(range=[-0.5, n + 0.9], side="top")
    return fig


def brute_force_violations(candidates_table: pd.DataFrame, n_equations: int) -> go.Figure:
    """Equations satisfied by every candidate of {0,1}^n; candidates satisfying all of them in red."""
    d = candidates_table
    sat = n_equations - d["equations_violated"].to_numpy()
    fig = go.Figure(go.Bar(x=d["x̂"], y=sat, marker_color=[RED if v == n_equations else GREY for v in sat],
                           hovertemplate="x̂ = %{x}: %{y} equations satisfied<extra></extra>"))
    fig.add_hline(y=n_equations, line_dash="dash", line_color=RED, annotation_text="all equations",
                  annotation_position="top left")
    n_sol = int((sat == n_equations).sum())
    base_layout(fig, f"Brute force over {len(d)} candidates: {n_sol} fit every answer", "candidate x̂",
                "equations satisfied", height=360)
    fig.update_xaxes(type="category", showticklabels=len(d) <= 64, tickangle=-60)
    fig.update_yaxes(dtick=1, range=[0, n_equations + 0.6])
    return fig


def solutions_vs_queries(table: pd.DataFrame, n: int) -> go.Figure:
    """{0,1}-vectors consistent with the first m exact answers, and rank(M), against m."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=table["m"], y=table["n_consistent"], mode="lines+markers", name="consistent x̂",
                             line=dict(color=RED)))
    fig.add_trace(go.Scatter(x=table["m"], y=table["rank"], mode="lines+markers", name="rank of M", yaxis="y2",
                             line=dict(color=BLUE, dash="dot")))
    fig.add_vline(x=n, line_dash="dash", line_color=GREY, annotation_text="m = n")
    base_layout(fig, "Candidates left after m exact random counts", "number of queries m",
                "consistent vectors in {0,1}^n (log)", height=380)
    fig.update_layout(yaxis=dict(type="log", dtick=1),
                      yaxis2=dict(title="rank of M", overlaying="y", side="right", range=[0, n + 1], dtick=2,
                                  showgrid=False))
    return fig


# ----------------------------------------------------------------------------- Netflix (NS08)
def netflix_scores(scores: np.ndarray, best: int, second: int, eccentricity: float, phi: float,
                   target_index: int) -> go.Figure:
    """Histogram of score(aux, r') over x̂ with the top two records (and the true record) marked."""
    fig = go.Figure(go.Histogram(x=scores, nbinsx=60, marker_color=GREY, name="all records in x̂"))
    fig.update_yaxes(type="log")
    marks = [(best, "r'₁ (best)", RED), (second, "r'₂ (second)", BLUE)]
    if target_index >= 0 and target_index not in (best, second):
        marks.append((target_index, "true record", GREEN))
    for idx, name, color in marks:
        fig.add_vline(x=float(scores[idx]), line_color=color, line_width=2,
                      annotation_text=name, annotation_position="top right" if idx == best else "top left")
    verdict = "match" if eccentricity > phi else "⊥ (no match)"
    base_layout(fig, f"Scores: eccentricity (s₁ − s₂)/σ = {eccentricity:.2f} vs φ = {phi:g} → {verdict}",
                "score(aux, r')", "records (log)", height=380)
    return fig


def netflix_curves(curves: pd.DataFrame) -> go.Figure:
    """Re-identification and false-match rates against the number of aux ratings, one line per φ."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("correct re-identifications", "false matches"))
    for j, (phi, d) in enumerate(curves.groupby("phi")):
        c = PALETTE[j % 8]
        fig.add_trace(go.Scatter(x=d["n_aux"], y=d["reidentification_rate"], mode="lines+markers",
                                 name=f"φ = {phi:g}", line=dict(color=c)), row=1, col=1)
        fig.add_trace(go.Scatter(x=d["n_aux"], y=d["false_match_rate"], mode="lines+markers", showlegend=False,
                                 line=dict(color=c)), row=1, col=2)
    base_layout(fig, "Rates over random targets", "", "", height=380)
    fig.update_xaxes(title_text="ratings in aux")
    fig.update_yaxes(range=[0, 1.02], title_text="share of targets", row=1, col=1)
    fig.update_yaxes(range=[0, 1.02], row=1, col=2)
    return fig
