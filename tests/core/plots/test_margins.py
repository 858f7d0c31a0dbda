"""Room for a chart's axes reserved before the browser draws it (core.plots.margins): each outer axis gets what its
labels and title need, inner panels and label-less axes get nothing, and a wider margin is never narrowed.
(tests/browser/test_browser.py checks in Chromium that the lab's charts are then drawn without a second pass.)"""
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.plots.common import base_layout
from core.plots.margins import (AXIS_PX, CHAR_PX, NUMERIC_LABEL_PX, X_AXIS_PX, X_OVERHANG_PX,
                                reserve_side_margins)


def _line() -> go.Figure:
    return base_layout(go.Figure(go.Scatter(x=[0, 1, 2], y=[0.1, 0.5, 0.9], name="attack")), "t", "x", "y")


def test_a_numeric_axis_with_a_title_gets_room_for_its_labels_and_title():
    fig = reserve_side_margins(_line())
    assert fig.layout.margin.l == AXIS_PX + NUMERIC_LABEL_PX  # 90 px: the measured need was 67-83 px
    assert fig.layout.margin.b == X_AXIS_PX[1]  # tick row and title under the plot (67 px measured)
    assert fig.layout.margin.r == 20  # base_layout's 20 px already covers the last tick's overhang
    assert fig.layout.margin.t == 60  # the top is not touched


def test_category_names_widen_the_left_margin_with_their_length():
    def bars(names):
        fig = go.Figure(go.Bar(x=[1] * len(names), y=names, orientation="h"))
        return reserve_side_margins(base_layout(fig, "t", "share", "")).layout.margin.l

    short, long_ = ["age", "sex"], ["age", "gender + race + birth_qrtr + zip"]
    assert bars(short) == AXIS_PX + round(CHAR_PX * 3)
    assert bars(long_) == AXIS_PX + round(CHAR_PX * len(long_[1]))
    assert bars(["x" * 500]) == 320  # capped: beyond it Plotly's own automargin decides


def test_an_inner_panel_adds_nothing_and_a_wider_margin_is_kept():
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1]), row=1, col=1)
    fig.add_trace(go.Bar(x=[1, 2], y=["a very long category name indeed", "b"], orientation="h"), row=1, col=2)
    fig.update_yaxes(title_text="share", row=1, col=1)
    reserve_side_margins(fig)
    assert fig.layout.margin.l == AXIS_PX + NUMERIC_LABEL_PX  # the right panel's long names sit inside the figure
    wide = _line().update_layout(margin=dict(l=200, b=150))
    reserve_side_margins(wide)
    assert (wide.layout.margin.l, wide.layout.margin.b) == (200, 150)


def test_an_axis_without_labels_or_title_leaves_the_margin_alone():
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="markers"))
    fig.update_layout(margin=dict(l=10, r=10, t=40, b=10))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(showticklabels=False)
    reserve_side_margins(fig)
    assert (fig.layout.margin.l, fig.layout.margin.r, fig.layout.margin.b) == (10, 10, 10)


def test_a_right_axis_and_an_unset_margin():
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1]), go.Scatter(x=[0, 1], y=[5, 9], yaxis="y2")])
    fig.update_layout(yaxis=dict(title="left"), yaxis2=dict(title="right", overlaying="y", side="right"),
                      xaxis=dict(title="x"))
    reserve_side_margins(fig)
    assert fig.layout.margin.l == fig.layout.margin.r == AXIS_PX + NUMERIC_LABEL_PX
    # unset, the bottom is Plotly's default 80 px, more than the x axis needs: left unset
    assert fig.layout.margin.b is None
    # a chart with no right axis and no right margin gets room for its last number's overhang
    plain = reserve_side_margins(go.Figure(go.Scatter(x=[0, 10_000], y=[0, 1])))
    assert plain.layout.margin.r == X_OVERHANG_PX


def test_slanted_category_names_deepen_the_bottom_margin():
    def depth(names):
        fig = go.Figure(go.Bar(x=names, y=[1] * len(names)))
        base_layout(fig, "t", "quasi-identifiers", "share").update_xaxes(tickangle=-30)
        return reserve_side_margins(fig).layout.margin.b

    assert depth(["age", "sex"]) == X_AXIS_PX[1] + round(CHAR_PX * 3 * 0.5)
    longest = "+ birth_quarter_of_year"
    assert depth(["age", longest]) == X_AXIS_PX[1] + round(CHAR_PX * len(longest) * 0.5)
