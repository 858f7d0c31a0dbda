"""Figures of the lessons: the reveal's prediction-against-measurement line and the class view's distribution
of predictions (a step's own plot is one of the labs' figures: :mod:`core.studies.lessons.lesson_plots`)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import PALETTE, base_layout


# ------------------------------------------------------------------------------------------------- the reveal
def _axis(step, values) -> tuple[float, float, float]:
    """(scale, low, high) of a step's number line in display units."""
    p = step.predict
    scale = 100.0 if p.percent else 1.0
    if p.kind == "choice":
        edges = [e for o in p.options for e in (o.low, o.high) if e is not None]
        lo, hi = min(edges + list(values)), max(edges + list(values))
        pad = 0.1 * (hi - lo or 1)
        return scale, scale * (lo - pad), scale * (hi + pad)
    lo, hi = min([p.low, *values]), max([p.high, *values])
    return scale, scale * lo, scale * hi


def reveal_figure(step, answer, truth: float) -> go.Figure:
    """One line: the prediction with its tolerance band (or the chosen option's range) and the measurement."""
    p = step.predict
    scale, lo, hi = _axis(step, [truth])
    fig = go.Figure()
    if p.kind == "choice":
        for i, o in enumerate(p.options):
            a = scale * (o.low if o.low is not None else lo / scale)
            b = scale * (o.high if o.high is not None else hi / scale)
            chosen = answer is not None and int(answer) == i
            fig.add_shape(type="rect", x0=a, x1=b, y0=-0.4, y1=0.4, line=dict(width=1, color="#555"),
                          fillcolor="rgba(31,119,180,0.35)" if chosen else "rgba(200,200,200,0.25)")
            fig.add_annotation(x=(a + b) / 2, y=0.55, text=o.label + (" (your answer)" if chosen else ""),
                               showarrow=False, font=dict(size=11))
    elif answer is not None:
        a = float(answer)
        fig.add_shape(type="rect", x0=scale * (a - p.tolerance), x1=scale * (a + p.tolerance), y0=-0.3, y1=0.3,
                      line=dict(width=0), fillcolor="rgba(31,119,180,0.25)")
        fig.add_trace(go.Scatter(x=[scale * a], y=[0], mode="markers", name="your prediction (band: tolerance)",
                                 marker=dict(size=16, color=PALETTE[0], symbol="diamond")))
    fig.add_trace(go.Scatter(x=[scale * truth], y=[0], mode="markers", name="measured at the lesson's seed",
                             marker=dict(size=18, color=PALETTE[1], symbol="x")))
    base_layout(fig, "Your prediction and the measurement", _answer_axis(step), "", height=220)
    fig.update_yaxes(visible=False, range=[-1, 1])
    fig.update_xaxes(range=[lo, hi])
    fig.update_layout(legend=dict(orientation="h", y=-0.5), margin=dict(t=50, b=40))
    return fig


# --------------------------------------------------------------------------------------------- the class view
def class_distribution(step, answers: list, truth: float | None) -> go.Figure:
    """The class's predictions for one step against the measured value (a histogram; for a choice, the count
    per option with the right one marked)."""
    p = step.predict
    fig = go.Figure()
    if p.kind == "choice":
        counts = [sum(1 for a in answers if int(a) == i) for i in range(len(p.options))]
        right = p.option_for(truth) if truth is not None else None
        colors = [PALETTE[2] if i == right else PALETTE[0] for i in range(len(p.options))]
        labels = [o.label + (" ✓ measured" if i == right else "") for i, o in enumerate(p.options)]
        fig.add_trace(go.Bar(x=labels, y=counts, marker_color=colors, name="students"))
        base_layout(fig, f"Step {step.number}: answers ({len(answers)})", "", "students", height=300)
        fig.update_xaxes(type="category")
    else:
        scale = 100.0 if p.percent else 1.0
        xs = np.asarray([float(a) for a in answers]) * scale
        fig.add_trace(go.Histogram(x=xs, name="predictions", marker_color=PALETTE[0], opacity=0.8,
                                   xbins=dict(size=max(p.step * scale, (p.high - p.low) * scale / 30))))
        fig.add_trace(go.Scatter(x=xs, y=np.zeros(len(xs)) - 0.15, mode="markers", name="each prediction",
                                 marker=dict(symbol="line-ns-open", size=14, color=PALETTE[0])))
        if truth is not None:
            fig.add_vrect(x0=scale * (truth - p.tolerance), x1=scale * (truth + p.tolerance),
                          fillcolor="rgba(44,160,44,0.15)", line_width=0)
            fig.add_vline(x=scale * truth, line=dict(color=PALETTE[1], width=3),
                          annotation_text="measured", annotation_position="top")
        base_layout(fig, f"Step {step.number}: predictions ({len(answers)}) against the measurement",
                    _answer_axis(step), "students", height=300)
        fig.update_xaxes(range=[scale * p.low, scale * p.high])
    return fig


def _answer_axis(step) -> str:
    """The answer axis in the student's words (the step's question, not the engine's metric name)."""
    unit = "%" if step.predict.percent else step.predict.unit
    return f"step {step.number}: {step.title}" + (f" ({unit})" if unit else "")
