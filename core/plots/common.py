"""Figure builders used by several scenarios."""
from __future__ import annotations

import re
import plotly.graph_objects as go
import plotly.io as pio

# Okabe & Ito's colour-blind-safe palette (distinct under protanopia, deuteranopia and tritanopia), without its
# yellow, which is unreadable on white; two dark extras from Paul Tol's "muted" scheme.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#332288", "#882255")
# Series differ by line style and marker shape as well as colour (WCAG 1.4.1: colour is never the only cue).
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross", "triangle-down")
PATTERNS = ("", "/", "x", ".", "\\", "+", "-", "|")
TEMPLATE = "plotly_white"


def with_template(fig: go.Figure) -> go.Figure:
    """``fig`` with the lab's template (``TEMPLATE``), assigned without re-validating it.

    Assigned through plotly's validators (``update_layout(template=...)``), the template's ~7 kB are validated and
    deep-copied again for every figure, and the template the figure was created with (Streamlit's, process-wide
    default once Streamlit is imported) deep-copied too: about 18 ms a figure, a third to two thirds of the time a
    lab's script takes to build its first chart. A registered template was validated when plotly built it, so it
    is set here the way plotly sets its default template on every new figure (``BaseFigure.
    _initialize_layout_template``): with the layout's validation off for that one assignment, about 1 ms. The
    layout still holds its own copy of the template (plotly copies the template's properties on assignment).
    A plotly without that switch gets the validated path."""
    layout = fig.layout
    if not isinstance(getattr(layout, "_validate", None), bool):
        return fig.update_layout(template=TEMPLATE)
    before, layout._validate = layout._validate, False
    try:
        layout.template = pio.templates[TEMPLATE]
    finally:
        layout._validate = before
    return fig


def base_layout(fig: go.Figure, title: str, x: str, y: str, height: int = 420) -> go.Figure:
    with_template(fig)
    fig.update_layout(title=dict(text=title, x=0.0, xanchor="left"), height=height,
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


def distinguish(fig: go.Figure) -> go.Figure:
    """Give every series a line style, marker shape or bar pattern of its own, in legend order, where its builder
    did not set one, so no two series differ by colour alone. Traces of one series (same name, e.g. repeated in
    several panels) share a style; bands and unnamed helper traces keep theirs."""
    style: dict[str, int] = {}
    for tr in fig.data:
        if tr.type not in ("scatter", "bar") or getattr(tr, "fill", None) in ("toself", "tonexty", "tozeroy"):
            continue
        if not tr.name and tr.showlegend is False:
            continue
        i = style.setdefault(str(tr.name), len(style))
        if tr.type == "bar":
            if not (tr.marker and tr.marker.pattern and tr.marker.pattern.shape):
                tr.marker.pattern.shape = PATTERNS[i % len(PATTERNS)]
            continue
        mode = tr.mode or "lines"
        if "lines" in mode and not (tr.line and tr.line.dash):
            tr.line.dash = DASHES[i % len(DASHES)]
        if "markers" in mode and not (tr.marker and tr.marker.symbol):
            tr.marker.symbol = SYMBOLS[i % len(SYMBOLS)]
    return fig


def strip_markup(value) -> str:

    return re.sub(r"<[^>]+>", " ", str(value or "")).replace("  ", " ").strip()


def describe(fig: go.Figure) -> str:
    """The chart in one sentence for a screen reader: its title, axes and series."""
    title = strip_markup(fig.layout.title.text) or "Chart"
    x = strip_markup(fig.layout.xaxis.title.text) if fig.layout.xaxis and fig.layout.xaxis.title else ""
    y = strip_markup(fig.layout.yaxis.title.text) if fig.layout.yaxis and fig.layout.yaxis.title else ""
    names = [strip_markup(t.name) for t in fig.data if t.name and t.showlegend is not False]
    text = f"Chart: {title}."
    if x or y:
        text += f" Horizontal axis: {x or 'unnamed'}; vertical axis: {y or 'unnamed'}."
    if names:
        text += f" {len(names)} series: " + "; ".join(dict.fromkeys(names)) + "."
    return text + " Its data follow as a table."


def figure_rows(fig: go.Figure, max_rows: int = 300) -> tuple[list[dict], bool]:
    """The chart's plotted points as rows ``{series, x, y}`` (at most ``max_rows``, evenly thinned; the flag says
    whether rows were left out). Bands, heat maps and other traces without x/y points are skipped."""
    series = []
    for tr in fig.data:
        xs, ys = getattr(tr, "x", None), getattr(tr, "y", None)
        if xs is None or ys is None or tr.type not in ("scatter", "bar", "scattergl") \
                or getattr(tr, "fill", None) == "toself":
            continue
        series.append((strip_markup(tr.name) or tr.type, list(zip(xs, ys))))
    per = max(2, max_rows // max(1, len(series)))
    rows: list[dict] = []
    thinned = False
    for name, pts in series:
        if len(pts) > per:  # evenly spaced, first and last kept
            pts = [pts[round(k * (len(pts) - 1) / (per - 1))] for k in range(per)]
            thinned = True
        rows += [{"series": name, "x": x, "y": y} for x, y in pts]
    return rows, thinned


# Trace types Plotly draws with WebGL: each chart holding one takes a WebGL context, and a browser keeps only
# so many per page (Chromium blanks the oldest beyond its limit), so a page keeps to MAX_WEBGL_CHARTS of them.
WEBGL_TYPES = frozenset({"scattergl", "scatterpolargl", "splom", "parcoords", "scatter3d", "surface", "mesh3d",
                         "cone", "streamtube", "volume", "isosurface", "scattermap", "choroplethmap", "densitymap",
                         "scattermapbox", "choroplethmapbox", "densitymapbox"})
MAX_WEBGL_CHARTS = 6
_SVG_TWIN = {"scattergl": go.Scatter, "scatterpolargl": go.Scatterpolar}  # the same trace drawn as SVG


def uses_webgl(fig: go.Figure) -> bool:
    return any(tr.type in WEBGL_TYPES for tr in fig.data)


def without_webgl(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` with its WebGL scatter traces drawn as SVG (same data and style, slower beyond ~10⁴
    points). Trace types without an SVG twin (3-D, maps) are kept."""
    if not any(tr.type in _SVG_TWIN for tr in fig.data):
        return fig
    out = go.Figure(layout=fig.layout)
    for tr in fig.data:
        twin = _SVG_TWIN.get(tr.type)
        if twin is None:
            out.add_trace(tr)
            continue
        props = tr.to_plotly_json()
        props.pop("type", None)
        out.add_trace(twin(**props))
    return out
