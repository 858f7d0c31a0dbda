"""The decision chart for a table release: attack success and count error against ε per person, on two axes.

Left axis: attack success on the AUC scale (0.5 = guessing) — the cap ε-DP puts on any attack, the stakeholder's
tolerance, and the measured attack with its 95% band where a ladder ran. Right axis (its own, log scale): the count
error met by the chosen share of counts. Shaded: the range of ε per person meeting both tolerances. Ticks along the
bottom: the registry's deployments that protect a whole person (like units only). A vertical line: the chosen ε.
"""
from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import PALETTE, base_layout
from .deployments import add_deployment_ticks


def decision_figure(d: dict, deployments: list[dict] | None = None) -> go.Figure:
    c = d["curves"]
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=c["epsilon"], y=c["attack_cap"], mode="lines", name="attack success: the most "
                             "any attack can reach (DP cap)", line=dict(color="black", dash="dash", width=2)),
                  secondary_y=False)
    rows = [r for r in (d.get("ladder") or {}).get("rows", []) if r.get("attack") is not None
            and r.get("epsilon_per_person") and r.get("attack_ci_low") is not None]
    if rows:
        x = [r["epsilon_per_person"] for r in rows]
        fig.add_trace(go.Scatter(x=x + x[::-1], y=[r["attack_ci_high"] for r in rows]
                                 + [r["attack_ci_low"] for r in rows][::-1], fill="toself",
                                 fillcolor="rgba(31,119,180,0.2)", line=dict(width=0), hoverinfo="skip",
                                 name="measured attack: 95% band"), secondary_y=False)
        fig.add_trace(go.Scatter(x=x, y=[r["attack"] for r in rows], mode="lines+markers",
                                 name="measured attack (DeSIA)", line=dict(color=PALETTE[0], width=2.5)),
                      secondary_y=False)
    fig.add_hline(y=0.5 + d["advantage"], line=dict(color=PALETTE[3], dash="dot"), secondary_y=False,
                  annotation_text=f"your attack tolerance ({0.5 + d['advantage']:.2f})",
                  annotation_position="top right")
    fig.add_trace(go.Scatter(x=c["epsilon"], y=[max(e, 0.5) for e in c["error_bound"]], mode="lines",
                             name=f"count error met by {100 * d['confidence']:g}% of counts (right axis)",
                             line=dict(color=PALETTE[4], width=3, dash="dot")), secondary_y=True)
    fig.add_hline(y=d["abs_error"], line=dict(color=PALETTE[4], dash="dash", width=1), secondary_y=True,
                  annotation_text=f"your count tolerance (±{d['abs_error']:g})", annotation_position="bottom left")
    if d["feasible"]:  # after the traces: plotly skips shapes on a subplot that has no trace yet
        fig.add_vrect(x0=d["epsilon_accuracy"], x1=d["epsilon_privacy"], fillcolor="rgba(46,139,87,0.25)",
                      line_width=0, layer="below", annotation_text="meets both", annotation_position="top left")
    fig.add_vline(x=d["chosen"], line=dict(color="#444", width=1.5),
                  annotation_text=f"chosen ε = {d['chosen']:.3g} per person", annotation_position="top")
    base_layout(fig, "Attack success and count error against ε per person", "ε per person (log scale)",
                "attack success (AUC, 0.5 = guessing)", height=500)
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0.45, 1.02], secondary_y=False)
    ticks = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    top = max(c["error_bound"] + [d["abs_error"]])
    shown = [v for v in ticks if v <= top * 2]
    fig.update_yaxes(title_text="count error (±, log scale)", type="log", secondary_y=True, showgrid=False,
                     tickvals=shown, ticktext=["0" if v == 0.5 else f"{v:g}" for v in shown])
    if deployments:
        add_deployment_ticks(fig, deployments, (min(c["epsilon"]), max(c["epsilon"])))
    return fig


def text_alternative(d: dict) -> str:
    """The chart in words (WCAG: every chart has a text alternative)."""
    rng = (f"The shaded range, ε = {d['epsilon_accuracy']:.3g} to {d['epsilon_privacy']:.3g} per person, meets "
           "both tolerances." if d["feasible"] else "No range meets both tolerances.")
    return ("Text alternative: the dashed black curve (the most any attack can reach) rises from 0.5 at small ε "
            "towards 1 at large ε; the dotted count-error curve (right axis) falls as ε grows. " + rng
            + f" The vertical line marks the chosen ε = {d['chosen']:.3g} per person. Ticks along the bottom are "
            "real deployments whose ε protects a whole person.")
