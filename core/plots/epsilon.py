"""Figures of the ε explorer."""
from __future__ import annotations

import plotly.graph_objects as go

from .common import DASHES, PALETTE, base_layout
from .deployments import add_deployment_ticks


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


def belief_vs_epsilon_figure(curve: dict, ticks: list | None = None) -> go.Figure:
    """The attacker's best belief against ε (log), with the chosen ε marked and real deployments as ticks."""
    fig = go.Figure()
    p = curve["prior"]
    fig.add_trace(go.Scatter(x=curve["epsilon"], y=curve["belief"], mode="lines", line=dict(color=PALETTE[1], width=3),
                             name=f"highest belief after the release (prior {p:.0%})",
                             hovertemplate="ε = %{x:.3g}<br>at most %{y:.1%} sure<extra></extra>"))
    fig.add_hline(y=p, line=dict(color="grey", dash="dot"), annotation_text=f"prior {p:.0%}",
                  annotation_position="bottom left")
    if curve.get("chosen"):
        chosen, y = curve["chosen"]["epsilon"], curve["chosen"]["belief"]
        fig.add_trace(go.Scatter(x=[chosen], y=[y], mode="markers", name=f"your ε = {chosen:g}",
                                 marker=dict(size=13, color="black", symbol="diamond"),
                                 hovertemplate="your ε = %{x:g}<br>at most %{y:.1%} sure<extra></extra>"))
    base_layout(fig, "Attacker's certainty vs ε, and real deployments", "ε (log scale)",
                "attacker's highest belief", height=440)
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    return add_deployment_ticks(fig, ticks, (curve["epsilon"][0], curve["epsilon"][-1]))  # last: own y axis


def icon_array_figure(prior: float, posterior: float) -> go.Figure:
    """Two 10×10 icon arrays of 100 people: the attacker's belief before (prior) and the most it can be after the
    release. Filled and open circles (not colour alone) tell the two groups apart."""
    fig = go.Figure()
    for panel, (share, title) in enumerate(((prior, "before the release"), (posterior, "after it, at most"))):
        n = int(round(100 * share))
        xs = [(i % 10) + panel * 12 for i in range(100)]
        ys = [9 - i // 10 for i in range(100)]
        fig.add_trace(go.Scatter(x=xs[:n], y=ys[:n], mode="markers", hoverinfo="skip",
                                 marker=dict(symbol="circle", size=15, color=PALETTE[1] if panel else PALETTE[0]),
                                 name=f"{title}: {n} in 100", showlegend=True))
        fig.add_trace(go.Scatter(x=xs[n:], y=ys[n:], mode="markers", hoverinfo="skip", showlegend=False,
                                 marker=dict(symbol="circle-open", size=15, color="#8a8a8a")))
        fig.add_annotation(x=4.5 + panel * 12, y=10.4, text=f"<b>{title}: {n} in 100</b>", showarrow=False)
    fig.update_layout(template="plotly_white", height=330, margin=dict(l=10, r=10, t=40, b=10),
                      xaxis=dict(visible=False, range=[-1, 22]), yaxis=dict(visible=False, range=[-1, 11]),
                      legend=dict(orientation="h", y=-0.05),
                      title=dict(text="100 people: how likely the attacker thinks each is in the data", x=0))
    return fig


def decision_figure(data: dict) -> go.Figure:
    """Decision flips against ε: the threshold rule's closed form, the player's rounds, the attacker's best guessing
    chance at the same ε, and the ε from which decisions stay the same for ≥ 95% of regions."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=data["epsilon"], y=data["flip_rate"], mode="lines", line=dict(color=PALETTE[0], width=3),
                             name=f"decisions that flip, threshold rule (closed form, {data['mechanism']})",
                             hovertemplate="ε = %{x:.3g}<br>%{y:.1%} of decisions flip<extra></extra>"))
    fig.add_trace(go.Scatter(x=data["epsilon"], y=data["attacker"], mode="lines",
                             line=dict(color=PALETTE[1], width=2, dash="dash"),
                             name="attacker's best chance to tell if a person is in the data",
                             hovertemplate="ε = %{x:.3g}<br>attacker right at most %{y:.1%}<extra></extra>"))
    if data["rounds"]:
        fig.add_trace(go.Scatter(x=[r["epsilon"] for r in data["rounds"]], y=[r["flip_rate"] for r in data["rounds"]],
                                 mode="markers", marker=dict(size=13, color="black", symbol="x"),
                                 name="your decisions (one mark per round)",
                                 hovertemplate="ε = %{x:g}<br>your flips: %{y:.0%}<extra></extra>"))
    fig.add_hline(y=0.05, line=dict(color="grey", dash="dot"), annotation_text="5% of decisions flip",
                  annotation_position="top left")
    if data.get("agreement_epsilon"):
        e = data["agreement_epsilon"]
        fig.add_vline(x=e, line=dict(color=PALETTE[2], width=2),
                      annotation_text=f"ε ≥ {e:.3g}: ≥ 95% of decisions unchanged", annotation_position="top left")
    base_layout(fig, "What noise does to your decisions, and what ε gives an attacker", "ε (log scale)",
                "share of decisions / attacker's chance", height=460)
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    return fig
