"""Figures of the reconstruction scenario (CS208 lecture 2, Dinur–Nissim)."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .common import PALETTE, band, base_layout

CHOSEN = "#ff7f0e"

UNIT_LABEL = {"gaussian": "Gaussian noise σ", "rounding": "rounding base R", "subsample": "subsample size t"}


def _mark_chosen(fig: go.Figure, x: float, metrics: dict, text: str) -> None:
    """The sidebar's setting: a dashed line at x and, once measured, its accuracy with the 95% interval."""
    fig.add_vline(x=x, line=dict(color=CHOSEN, dash="dot", width=2))
    acc = metrics.get("accuracy")
    if acc is not None:
        lo, hi = metrics.get("accuracy_ci_low", acc), metrics.get("accuracy_ci_high", acc)
        fig.add_trace(go.Scatter(x=[x], y=[acc], mode="markers", name=text,
                                 marker=dict(color=CHOSEN, size=13, symbol="star", line=dict(color="black", width=1)),
                                 error_y=dict(type="data", symmetric=False, array=[hi - acc], arrayminus=[acc - lo],
                                              color=CHOSEN),
                                 hovertemplate=f"{text}<br>accuracy=%{{y:.3f}}<extra></extra>"))
    else:
        fig.add_annotation(x=x, y=1.0, text=text, showarrow=False, yanchor="bottom", font=dict(color=CHOSEN))


THEORY = PALETTE[3]
BOUND = "#444444"


def _segments(xs, ys):
    """Runs of consecutive defined points (a curve with None where its formula does not apply)."""
    run: list[tuple] = []
    for x, y in zip(xs, ys or []):
        if y is None:
            if run:
                yield run
            run = []
        else:
            run.append((x, y))
    if run:
        yield run


def _add_theory(fig: go.Figure, xs, curves: dict, theory: dict, measured: bool) -> None:
    """Closed-form guides (:func:`core.scenarios.reconstruction.theory_curves`): the DP bound with the region
    no attacker can reach shaded above it, the least-squares prediction, and — before any game — the expected
    majority guess."""
    for i, seg in enumerate(_segments(xs, curves.get("dp_bound"))):
        x, y = [p[0] for p in seg], [p[1] for p in seg]
        fig.add_trace(go.Scatter(x=x + x[::-1], y=y + [1.05] * len(y), fill="toself", mode="lines",
                                 line=dict(width=0), fillcolor="rgba(68,68,68,0.10)", hoverinfo="skip",
                                 name="out of reach for any attacker (DP)", showlegend=i == 0,
                                 legendgroup="dp"))
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name="DP bound (best possible attacker)",
                                 line=dict(color=BOUND, dash="dash", width=1.5), showlegend=i == 0,
                                 legendgroup="dp", hovertemplate="%{x:.3g}: at most %{y:.3f}<extra>DP bound</extra>"))
    for i, seg in enumerate(_segments(xs, curves.get("ls"))):
        fig.add_trace(go.Scatter(x=[p[0] for p in seg], y=[p[1] for p in seg], mode="lines",
                                 name="least-squares theory Φ(√(m−n−1)/4σ)", showlegend=i == 0, legendgroup="ls",
                                 line=dict(color=THEORY, dash="dashdot", width=2),
                                 hovertemplate="%{x:.3g}: %{y:.3f}<extra>least-squares theory</extra>"))
    if not measured:
        fig.add_hline(y=theory["majority"], line=dict(color="grey", dash="dot"),
                      annotation_text=f"majority guess ≈ {theory['majority']:.2f}",
                      annotation_position="bottom left")


def accuracy_vs_ratio(series: dict, metrics: dict, chosen: float | None = None,
                      theory: dict | None = None) -> go.Figure:
    """Bits recovered vs m/n with its 95% band; ``chosen`` marks the sidebar's m/n; ``theory`` (from
    :func:`core.scenarios.reconstruction.theory_curves`) adds the closed-form guides — alone, before any game."""
    cur = series.get("accuracy_vs_query_ratio") or {"x": []}
    fig = go.Figure()
    if theory is not None:
        _add_theory(fig, theory["ratio"]["x"], theory["ratio"], theory, measured=bool(cur["x"]))
    if cur["x"]:
        band(fig, cur["x"], cur["ci_low"], cur["ci_high"], PALETTE[0], "95% CI")
        fig.add_trace(go.Scatter(x=cur["x"], y=cur["accuracy"], mode="lines+markers", name="attack",
                                 line=dict(color=PALETTE[0]),
                                 customdata=cur["trials"], hovertemplate="m/n=%{x}<br>accuracy=%{y:.3f}"
                                 "<br>trials=%{customdata}<extra></extra>"))
        fig.add_trace(go.Scatter(x=cur["x"], y=cur["majority"], mode="lines", name="majority-class guess",
                                 line=dict(color="grey", dash="dot")))
    fig.add_vline(x=1.0, line=dict(color=PALETTE[1], dash="dash"),
                  annotation_text="m = n", annotation_position="bottom right")
    if chosen is not None:
        _mark_chosen(fig, chosen, metrics, f"chosen: m/n = {chosen:g}")
    base_layout(fig, "Bits recovered vs queries per person", "query ratio m/n",
                "fraction of secret bits recovered")
    fig.update_yaxes(range=[0.4, 1.05])
    if cur["x"] or theory is not None:
        top = max(cur["x"]) if cur["x"] else max(theory["ratio"]["x"])
        fig.update_xaxes(range=[0, max(top, chosen or 0) * 1.05])
    return fig


def accuracy_vs_level(series: dict, metrics: dict, chosen: float | None = None,
                      theory: dict | None = None) -> go.Figure:
    """Bits recovered vs the defence level with its 95% band; ``chosen`` (absolute units) marks the sidebar's
    level when the sweep is of the chosen defence; ``theory`` adds the closed-form guides (alone before any
    game: pass ``series={}``)."""
    cur = series.get("accuracy_vs_defense_level") or {"x": []}
    defense = series.get("sweep_defense") or (theory["level"]["defense"] if theory else "gaussian")
    sqrt_n = series["theory"]["sqrt_n"] if "theory" in series else theory["sqrt_n"]
    fig = go.Figure()
    if theory is not None and theory["level"]["defense"] == defense:
        _add_theory(fig, theory["level"]["x"], theory["level"], theory, measured=bool(cur["x"]))
    if cur["x"]:
        band(fig, cur["x"], cur["ci_low"], cur["ci_high"], PALETTE[2], "95% CI")
        fig.add_trace(go.Scatter(x=cur["x"], y=cur["accuracy"], mode="lines+markers", name="attack",
                                 line=dict(color=PALETTE[2]), customdata=list(zip(cur["rmse"], cur["trials"])),
                                 hovertemplate="level=%{x}<br>accuracy=%{y:.3f}<br>answer RMSE=%{customdata[0]:.2f}"
                                 "<br>trials=%{customdata[1]}<extra></extra>"))
        fig.add_trace(go.Scatter(x=cur["x"], y=cur["majority"], mode="lines", name="majority-class guess",
                                 line=dict(color="grey", dash="dot")))
    if defense == "subsample":
        title = "Bits recovered vs subsample size (smaller t = more protection)"
    else:
        fig.add_vline(x=sqrt_n if defense == "gaussian" else sqrt_n * 12 ** 0.5,
                      line=dict(color=PALETTE[1], dash="dash"),
                      annotation_text="noise std = √n" if defense == "gaussian" else "error std = √n",
                      annotation_position="bottom right")  # the chosen level's label sits on top
        title = "Bits recovered vs noise (fails near √n)"
    if chosen is not None:
        sym = {"gaussian": "σ", "rounding": "R", "subsample": "t"}.get(defense, "level")
        _mark_chosen(fig, chosen, metrics, f"chosen: {sym} = {chosen:.3g}")
    base_layout(fig, title, UNIT_LABEL.get(defense, "defence level"), "fraction of secret bits recovered")
    fig.update_yaxes(range=[0.4, 1.05])
    if defense == "subsample":
        fig.update_xaxes(autorange="reversed")
    return fig


def accuracy_vs_rmse(series: dict) -> go.Figure:
    pts = series["accuracy_vs_rmse"]
    fig = go.Figure()
    for i, (kind, label) in enumerate((("level", "defence-level sweep"), ("ratio", "m/n sweep"))):
        sel = [p for p in pts if p["kind"] == kind]
        if sel:
            fig.add_trace(go.Scatter(x=[p["rmse"] for p in sel], y=[p["accuracy"] for p in sel], mode="markers",
                                     name=label, marker=dict(color=PALETTE[i + 2], opacity=0.6)))
    fig.add_vline(x=series["theory"]["sqrt_n"], line=dict(color=PALETTE[1], dash="dash"),
                  annotation_text="√n", annotation_position="top right")
    base_layout(fig, "Privacy–utility trade-off (one dot per game)",
                "answer RMSE (utility loss)", "fraction of bits recovered (privacy loss)")
    return fig


def trials_histogram(series: dict) -> go.Figure:
    """Accuracy of every trial at the chosen setting; the count axis has whole-number ticks only."""
    acc = [t["accuracy"] for t in series["trials"]]
    fig = go.Figure(go.Histogram(x=acc, xbins=dict(start=0.0, end=1.0001, size=0.02), marker_color=PALETTE[0],
                                 name="trials"))
    base_layout(fig, "Accuracy of each trial at the chosen setting", "fraction of bits recovered", "trials")
    fig.update_xaxes(range=[0.3, 1.02])
    counts, _ = np.histogram(acc, bins=np.arange(0.0, 1.0201, 0.02)) if acc else (np.zeros(1), None)
    top = int(counts.max()) if len(counts) else 1
    fig.update_yaxes(tick0=0, dtick=max(1, math.ceil(top / 6)), tickformat="d", rangemode="tozero")
    return fig


HEATMAP_RATIOS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
HEATMAP_NOISE = (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5)  # σ in units of √n


def heatmap_grid(n: int) -> dict[str, list]:
    """The (m/n, σ) grid of the heatmap, σ = c·√n for the c above."""
    return {"query_ratio": list(HEATMAP_RATIOS), "defense_level": [round(c * n ** 0.5, 4) for c in HEATMAP_NOISE]}


def accuracy_heatmap(sweep: dict, chosen: tuple | None = None) -> go.Figure:
    """Fraction of bits recovered over (m/n, σ/√n) from a ``core.runtime.sweep`` result.

    ``chosen = (m/n, σ)`` (σ absolute, None when the sidebar's defence is not Gaussian noise) outlines the
    nearest cell (or column) of the sidebar's setting."""
    n = sweep["config"]["n"]
    ratios = sweep["grid"]["query_ratio"]
    levels = sweep["grid"]["defense_level"]
    acc = {(r["query_ratio"], r["defense_level"]): r["accuracy"] for r in sweep["rows"]}
    z = [[acc.get((q, lv)) for q in ratios] for lv in levels]
    fig = go.Figure(go.Heatmap(x=[str(q) for q in ratios], y=[f"{lv / n ** 0.5:.2f}" for lv in levels], z=z,
                               zmin=0.5, zmax=1.0, colorscale="RdBu", colorbar=dict(title="bits<br>recovered"),
                               text=[[None if v is None else f"{v:.2f}" for v in row] for row in z],
                               texttemplate="%{text}", hovertemplate="m/n=%{x}<br>σ/√n=%{y}<br>"
                               "accuracy=%{z:.3f}<extra></extra>"))
    base_layout(fig, f"Where reconstruction works: m/n × noise (n = {n}, {sweep['config']['solver']})",
                "query ratio m/n", "Gaussian noise σ / √n")
    if chosen is not None:
        ratio, sigma = chosen
        i = min(range(len(ratios)), key=lambda j: abs(ratios[j] - ratio))
        if sigma is None:
            y0, y1, text = -0.5, len(levels) - 0.5, f"chosen m/n ≈ {ratios[i]:g}"
        else:
            j = min(range(len(levels)), key=lambda t: abs(levels[t] - sigma))
            y0, y1, text = j - 0.5, j + 0.5, "chosen setting"
        fig.add_shape(type="rect", x0=i - 0.5, x1=i + 0.5, y0=y0, y1=y1, line=dict(color=CHOSEN, width=4))
        fig.add_annotation(x=i, y=y1, text=text, showarrow=False, yanchor="bottom",
                           font=dict(color="black"), bgcolor="rgba(255,255,255,0.8)")
    return fig


SCALING_N = (100, 400, 1600)
SCALING_C = (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)  # σ / √n


def scaling_grid() -> dict[str, list]:
    return {"n": list(SCALING_N), "defense_level": list(SCALING_C)}


def scaling_figure(sweep: dict) -> go.Figure:
    """Accuracy vs σ/√n for several n: if only σ/√n matters, the curves coincide."""
    fig = go.Figure()
    for i, n in enumerate(sweep["grid"]["n"]):
        rows = sorted((r for r in sweep["rows"] if r["n"] == n), key=lambda r: r["defense_level"])
        if rows and "accuracy_ci_low" in rows[0]:
            band(fig, [r["defense_level"] for r in rows], [r["accuracy_ci_low"] for r in rows],
                 [r["accuracy_ci_high"] for r in rows], PALETTE[i % 8], f"95% CI, n = {n}")
        fig.add_trace(go.Scatter(x=[r["defense_level"] for r in rows], y=[r["accuracy"] for r in rows],
                                 mode="lines+markers", name=f"n = {n}", line=dict(color=PALETTE[i % 8])))
    fig.add_vline(x=1.0, line=dict(color=PALETTE[1], dash="dash"), annotation_text="σ = √n",
                  annotation_position="top left")
    base_layout(fig, f"Only σ/√n matters (m/n = {sweep['config']['query_ratio']:g}, {sweep['config']['solver']})",
                "Gaussian noise σ / √n", "fraction of bits recovered")
    fig.update_yaxes(range=[0.4, 1.02])
    return fig
