"""Charts a screen reader and a colour-blind reader can use: styles beyond colour, a sentence and a data table."""
import plotly.graph_objects as go

from core.plots.common import DASHES, PALETTE, SYMBOLS, describe, distinguish, figure_rows


def _lum(h):
    r, g, b = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    f = lambda c: c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4  # noqa: E731
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)


def test_palette_has_no_red_green_pair_and_reads_on_white():
    assert "#d62728" not in PALETTE and "#2ca02c" not in PALETTE  # the red/green pair colour-blind readers confuse
    for c in PALETTE:  # WCAG 1.4.11: graphical objects ≥ 3:1 against the white plot background
        assert 1.05 / (_lum(c) + 0.05) >= 2.0, c


def test_series_differ_by_dash_and_marker_and_explicit_styles_are_kept():
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name="a", mode="lines+markers"),
                     go.Scatter(x=[0, 1], y=[1, 0], name="b", mode="lines+markers"),
                     go.Scatter(x=[0, 1], y=[1, 1], name="bound", line=dict(dash="dash")),
                     go.Scatter(x=[0, 1, 1, 0], y=[0, 0, 1, 1], fill="toself", showlegend=False),
                     go.Scatter(x=[2, 3], y=[0, 1], name="a", showlegend=False, mode="lines")])
    distinguish(fig)
    a, b, bound, band, a2 = fig.data
    assert (a.line.dash, b.line.dash) == (DASHES[0], DASHES[1]) and a.marker.symbol != b.marker.symbol
    assert bound.line.dash == "dash" and band.line.dash is None
    assert a2.line.dash == a.line.dash  # the same series in another panel keeps its style
    bars = distinguish(go.Figure([go.Bar(x=[1], y=[1], name="m"), go.Bar(x=[1], y=[2], name="n")]))
    assert bars.data[0].marker.pattern.shape != bars.data[1].marker.pattern.shape
    assert SYMBOLS[0] == a.marker.symbol


def test_text_alternative_names_title_axes_series_and_lists_points():
    fig = go.Figure([go.Scatter(x=list(range(1000)), y=list(range(1000)), name="<b>long</b>"),
                     go.Scatter(x=[1, 2], y=[3, 4], name="short")])
    fig.update_layout(title="ROC<br><sub>sub</sub>", xaxis_title="FPR", yaxis_title="TPR")
    text = describe(fig)
    assert text.startswith("Chart: ROC sub.") and "Horizontal axis: FPR; vertical axis: TPR." in text
    assert "2 series: long; short." in text and "<" not in text
    rows, thinned = figure_rows(fig, max_rows=100)
    assert thinned and {r["series"] for r in rows} == {"long", "short"}
    long = [r for r in rows if r["series"] == "long"]
    assert long[0]["x"] == 0 and long[-1]["x"] == 999 and len(long) == 50
    assert figure_rows(go.Figure([go.Scatter(x=[1], y=[2], name="p")]))[1] is False


def test_every_chart_goes_through_the_helper_that_adds_its_text_alternative():
    from lab_paths import ROOT

    root = ROOT
    files = [root / "app.py", *(root / "pages").glob("*.py"), *(root / "ui").rglob("*.py")]
    direct = [str(f.relative_to(root)) for f in files
              if f.name != "page_widgets.py" and "plotly_chart(" in f.read_text(encoding="utf-8")]
    assert not direct, f"draw charts with ui.widgets.page_widgets.chart / figure, not st.plotly_chart: {direct}"


def test_group_ranking_legend_clears_slanted_group_names():
    """With its groups named under the bars (30 or fewer, slanted), the ranking chart's legend sits at the figure's
    foot, under the names and the axis title, instead of at a fixed height that the names overran."""
    from core.plots.ml_models import group_bars

    def series(k):
        acc = [0.5 + i / (2 * k) for i in range(k)]
        return {"groups": {"order": list(range(k))[::-1], "name": [f"Occupation-number-{i}" for i in range(k)],
                           "accuracy": acc, "n": [100] * k, "correct": [round(100 * a) for a in acc],
                           "risk": [i / k for i in range(k)]}}

    named = group_bars(series(14))
    assert named.layout.xaxis.showticklabels is True
    legend = named.layout.legend
    assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom")
    unnamed = group_bars(series(40))  # too many to name: no names under the bars, the usual legend place
    assert unnamed.layout.xaxis.showticklabels is False and unnamed.layout.legend.yref is None
    assert unnamed.layout.legend.y == -0.2
