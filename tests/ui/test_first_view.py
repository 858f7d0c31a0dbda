"""A new tab's first plot: at most six WebGL charts a page, a first view that ends at its first chart only in a
browser (and comes back in full once the browser has drawn it), and Plotly's JavaScript fetched early."""
from __future__ import annotations

import contextlib
import json
import textwrap

import plotly.graph_objects as go
import pytest
from lab_paths import ROOT
from streamlit.testing.v1 import AppTest

from core.plots.common import MAX_WEBGL_CHARTS, uses_webgl, without_webgl
from ui.charts.first_view import SIGNAL_KEY


def test_without_webgl_draws_the_same_points_and_style_as_svg():
    fig = go.Figure([go.Scattergl(x=[1, 2], y=[3, 4], name="a", mode="markers", marker=dict(color="#0072B2")),
                     go.Bar(x=[1], y=[2], name="b")])
    fig.update_layout(title="t")
    svg = without_webgl(fig)
    assert uses_webgl(fig) and not uses_webgl(svg)
    assert [t.type for t in svg.data] == ["scatter", "bar"]
    assert list(svg.data[0].x) == [1, 2] and list(svg.data[0].y) == [3, 4] and svg.data[0].name == "a"
    assert svg.data[0].marker.color == "#0072B2" and svg.layout.title.text == "t"
    plain = go.Figure([go.Scatter(x=[1], y=[1])])
    assert without_webgl(plain) is plain


def _script(body: str) -> str:
    return textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import plotly.graph_objects as go
        import streamlit as st
        from ui.widgets.page_widgets import chart
        from ui.charts.first_view import page_run
        with page_run():
    """) + textwrap.indent(textwrap.dedent(body), "    ")


def _specs(at) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def test_a_page_keeps_to_six_webgl_charts_and_draws_the_rest_as_svg():
    at = AppTest.from_string(_script("""
        for i in range(9):
            chart(go.Figure(go.Scattergl(x=[0, 1, 2], y=[i, i, i])), f"gl-{i}")
        st.session_state["_draw_tick"] = st.session_state.get("_draw_tick", 0) + 1  # as a live redraw does
        chart(go.Figure(go.Scattergl(x=[0, 1], y=[0, 0])), "gl-0")  # the same chart redrawn: not a new context
    """), default_timeout=30).run()
    assert not at.exception
    kinds = [spec["data"][0].get("type", "scatter") for spec in _specs(at)]
    assert len(kinds) == 10  # every chart is drawn: outside a browser the first view is never cut short
    assert kinds.count("scattergl") == MAX_WEBGL_CHARTS + 1  # six charts, plus the redraw of the first
    assert kinds[:MAX_WEBGL_CHARTS] == ["scattergl"] * MAX_WEBGL_CHARTS
    assert kinds[MAX_WEBGL_CHARTS:9] == ["scatter"] * 3 and kinds[9] == "scattergl"
    assert [spec["data"][0]["y"] for spec in _specs(at)][7] == [7, 7, 7]  # the same points, as SVG
    at.run()  # the next run counts afresh
    assert [spec["data"][0].get("type") for spec in _specs(at)].count("scattergl") == MAX_WEBGL_CHARTS + 1


def test_a_browsers_first_view_ends_at_its_first_chart_and_returns_in_full_once_drawn(monkeypatch):
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)  # as a browser's session
    at = AppTest.from_string(_script("""
        st.title("A lab")
        chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), "headline")
        st.markdown("below the headline")
        chart(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])), "second")
    """), default_timeout=30).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1 and not at.markdown  # the headline only, and the signal
    assert at.title[0].value == "A lab" and not at.expander  # its text alternative comes with the full run
    at.session_state[fv.DRAWN] = True  # what the signal's callback records once the browser has drawn the chart
    at.run()
    assert len(at.get("plotly_chart")) == 2 and at.markdown[0].value == "below the headline"
    assert [e.label for e in at.expander] == ["Chart as text and data table"] * 2
    at.run()  # every later run of the session is drawn in full at once
    assert len(at.get("plotly_chart")) == 2


def test_a_browsers_first_view_sends_its_chart_before_the_sidebar_computed_from_the_sidebars_values(monkeypatch):
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)
    at = AppTest.from_string(_script("""
        n = st.sidebar.slider("points", 1, 9, 4, key="n")
        st.sidebar.markdown("sidebar text")
        chart(go.Figure(go.Scatter(x=list(range(n)), y=[1] * n)), "headline")
        st.markdown("below the headline")
    """), default_timeout=30).run()
    assert not at.exception
    assert not at.sidebar.slider and not at.sidebar.markdown  # held back, then dropped: the rerun sends them
    assert len(_specs(at)[0]["data"][0]["x"]) == 4  # computed from the value the slider will show
    at.session_state[fv.DRAWN] = True
    at.run()
    assert at.sidebar.slider[0].value == 4 and at.sidebar.markdown[0].value == "sidebar text"
    assert len(at.get("plotly_chart")) == 1 and at.markdown[0].value == "below the headline"


_DEFERRED = """
    from ui.charts.first_view import deferred
    st.title("A lab")
    with deferred(st.expander("What is happening here?")):
        st.markdown("a long explanation")
    st.markdown("above the chart")
    if st.session_state.get("no_data"):
        st.info("upload a file")
        st.stop()
    chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), "headline")
"""


def test_a_collapsed_expanders_text_waits_for_the_full_view_and_its_label_does_not(monkeypatch):
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)
    at = AppTest.from_string(_script(_DEFERRED), default_timeout=30).run()
    assert not at.exception
    assert [e.label for e in at.expander] == ["What is happening here?"]  # the label: nothing moves later
    assert [m.value for m in at.markdown] == ["above the chart"]  # its text is held back, the rest is not
    assert len(at.get("plotly_chart")) == 1
    at.session_state[fv.DRAWN] = True
    at.run()
    assert at.expander[0].markdown[0].value == "a long explanation"


def test_a_first_view_that_stops_before_its_chart_still_sends_the_deferred_text(monkeypatch):
    """A lab awaiting an upload stops before any chart: its explanation is what the visitor reads meanwhile."""
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)
    at = AppTest.from_string(_script(_DEFERRED), default_timeout=30)
    at.session_state["no_data"] = True
    at.run()
    assert not at.exception and not at.get("plotly_chart")
    assert at.expander[0].markdown[0].value == "a long explanation"


def test_outside_a_browser_a_deferred_container_is_drawn_at_once():
    at = AppTest.from_string(_script(_DEFERRED), default_timeout=30).run()
    assert at.expander[0].markdown[0].value == "a long explanation" and len(at.get("plotly_chart")) == 1


def test_a_linked_value_held_back_by_the_first_view_reaches_the_browser_with_its_control(monkeypatch):
    """A link sets a control's value through session state; Streamlit tells the browser that value only in the
    run that set it, which the first view did not send: the full run must send it again (set_value), or the
    browser shows the control's default while the page computes with the linked value."""
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)
    at = AppTest.from_string(_script("""
        if "linked" not in st.session_state:
            st.session_state["n"] = 40  # as a link sets it, once
            st.session_state["linked"] = True
        n = st.sidebar.number_input("People n", 1, 100, key="n")
        kind = st.sidebar.selectbox("Kind", ["a", "b"], key="kind")
        st.sidebar.button("Run", key="go")  # no value to resend
        chart(go.Figure(go.Scatter(x=list(range(n)), y=[1] * n)), "headline")
    """), default_timeout=30).run()
    assert not at.exception and not at.sidebar.number_input
    assert len(_specs(at)[0]["data"][0]["x"]) == 40
    at.session_state[fv.DRAWN] = True
    at.run()
    assert not at.exception
    box = at.sidebar.number_input[0].proto
    assert box.set_value and box.value == 40  # what the browser shows, not the default of 1
    assert at.sidebar.selectbox[0].value == "a" and at.sidebar.button[0].proto.label == "Run"
    at.run()  # later runs: the browser has the value, nothing is forced again
    assert not at.sidebar.number_input[0].proto.set_value and at.sidebar.number_input[0].value == 40


@pytest.mark.parametrize("ending", ["st.stop()", "raise ValueError('a failing page')", "st.markdown('no chart')",
                                    ("from ui.charts.first_view import watching_run\nwith watching_run():\n"
                                     "    chart(go.Figure(go.Scatter(x=[0], y=[0])), 'live')\n    st.stop()")])
def test_a_first_view_that_ends_without_its_chart_still_sends_the_sidebar(monkeypatch, ending):
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)
    at = AppTest.from_string(_script('st.sidebar.file_uploader("CSV file", key="up")\n' + ending),
                             default_timeout=30).run()
    assert len(at.sidebar.get("file_uploader")) == 1  # the control the visitor needs to go on
    assert (len(at.exception) == 1) == ending.startswith("raise")


@pytest.mark.parametrize("ending", ["", "st.stop()"])
def test_a_sidebar_the_browser_already_holds_is_never_held_back_again(monkeypatch, ending):
    """A first view without a chart (a link to a lab on the visitor's own file) sends its sidebar; the upload's
    run then draws the first chart. Holding the sidebar back in that run would make the browser drop the
    uploader, and the file with it. The labs end such a view with ``st.stop()`` (awaiting the upload), after
    which no Streamlit command works, session state included: the mark that the sidebar went out must still
    be kept."""
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)
    at = AppTest.from_string(_script(f"""
        if st.sidebar.toggle("Data uploaded", key="up"):
            chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), "on the upload")
        else:
            st.markdown("upload a file")
            {ending}
    """), default_timeout=30).run()
    assert len(at.sidebar.toggle) == 1 and not at.get("plotly_chart")
    at.sidebar.toggle[0].set_value(True).run()  # as an upload: the first chart, in a run of the same session
    assert len(at.get("plotly_chart")) == 1 and len(at.sidebar.toggle) == 1 and at.sidebar.toggle[0].value


def test_a_sidebar_with_an_uploader_is_held_back_like_any_other(monkeypatch):
    """A lab whose sidebar offers an upload (ML models does, whatever the data) but opens on built-in data
    draws its first chart before its sidebar, as every lab does: the uploader is sent with the full run."""
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)
    at = AppTest.from_string(_script("""
        st.sidebar.file_uploader("CSV file", key="up")
        st.sidebar.selectbox("Data", ["built-in", "your CSV"], key="data")
        chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), "headline")
    """), default_timeout=30).run()
    assert not at.exception and not at.sidebar.get("file_uploader") and not at.sidebar.selectbox
    at.session_state[fv.DRAWN] = True
    at.run()
    assert len(at.sidebar.get("file_uploader")) == 1 and at.sidebar.selectbox[0].value == "built-in"


def test_charts_drawn_while_a_run_is_watched_or_in_a_fragment_never_end_the_view(monkeypatch):
    import ui.charts.first_view as fv

    monkeypatch.setattr(fv, "_runs_javascript", lambda: True)
    at = AppTest.from_string(_script("""
        from ui.charts.first_view import watching_run
        with watching_run():  # a live run's progress: stopping here would cancel the run
            chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), "live")
        st.markdown("after the run")

        @st.fragment
        def part():  # the signal would rerun the fragment alone, never what follows it
            chart(go.Figure(go.Scatter(x=[0, 1], y=[1, 1])), "in-fragment")
        part()
        st.markdown("after the fragment")
    """), default_timeout=30).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2 and [m.value for m in at.markdown] == ["after the run",
                                                                                  "after the fragment"]


@contextlib.contextmanager
def _new_tab(chromium, url: str):
    """A page opened at ``url`` in a tab of a fresh browser context (closed afterwards)."""
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1600})
    try:
        page = ctx.new_page()
        page.goto(url, wait_until="commit")
        yield page
    finally:
        ctx.close()


def _resources(page, part: str) -> list[str]:
    return page.evaluate("part => performance.getEntriesByType('resource').map(e => e.name)"
                         ".filter(n => n.includes(part))", part)


@pytest.mark.browser
def test_a_new_tab_draws_its_first_chart_then_the_whole_page(server, browser):
    with _new_tab(browser, f"{server}/Location_membership") as page:
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
        # the rest follows: every chart of the page's default view, the signal gone
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 5",
                               timeout=120_000)
        # the signal leaves the page when the full run ends (Streamlit clears what a run no longer draws)
        page.locator(f".st-key-{SIGNAL_KEY}").wait_for(state="detached", timeout=120_000)
        # each chart keeps its text alternative (a chart's comes just after it, so waited for, not counted at once)
        page.get_by_text("Chart as text and data table").nth(4).wait_for(state="attached", timeout=60_000)
        # the sidebar's controls, held back on the first view, come with the full run
        page.locator("[data-testid=stSidebarUserContent] [data-testid=stSlider]").first.wait_for(timeout=60_000)
        # its charts (all scatter) drawn with plotly.js's basic bundle from the lab's server, never the full chunk
        loaded = _resources(page, "/plotly-basic.min.js")
        assert loaded and all(n.startswith(server) for n in loaded)
        assert not _resources(page, "/static/js/PlotlyChart.") and not _resources(page, "plotly-cartesian")
        # served by serve.py, a deep link asks the app's root for its health once, not the page's path first
        assert _resources(page, "_stcore/health") == [f"{server}/_stcore/health"]
        gl = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot')]"
                           ".filter(el => el.querySelector('canvas.gl-canvas')).length")
        assert gl <= MAX_WEBGL_CHARTS


@pytest.mark.browser
def test_a_page_without_a_chart_has_plotly_loaded_for_its_first_one(server, browser):
    with _new_tab(browser, f"{server}/Glossary") as page:
        # the served head loads the bundle most charts are drawn with (ui/server/page_head.py), and it runs
        page.wait_for_function("() => window.Plotly && window.Plotly.version === '4.1.1'", timeout=30_000)
        assert _resources(page, "/plotly-basic.min.js")
        assert page.locator(".js-plotly-plot").count() == 0  # no chart asked for it
