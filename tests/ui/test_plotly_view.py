"""The lab's own chart view (ui/charts/plotly_view.py): which figures it draws, the bundle it draws them with, and in a
real browser, that a lab's charts of scatter and bar traces come through it and say so when the bundle fails."""
from __future__ import annotations

import hashlib
import json
import urllib.request

import plotly.graph_objects as go
import pytest

from ui.charts import plotly_view
from ui.charts.first_view import SIGNAL_KEY

# plotly.js's partial bundles as the npm packages plotly.js-basic-dist-min and plotly.js-cartesian-dist-min 4.1.1
# publish them: the lab serves those files unmodified, so any change to one is a mistake or an update that must come
# with a new hash.
BUNDLE_SHA256 = {"basic": "99784e3abfb07b142a15e521a439e6d9addceadb3f79553fd24c72774f0649ba",
                 "cartesian": "79542150855a52c567260e3137095dbe2b744e6d702a5cabe67da246942fba7a"}


@pytest.mark.parametrize("name", list(plotly_view.BUNDLES))
def test_each_bundle_is_plotly_js_own_partial_bundle_unmodified(name):
    data = (plotly_view.STATIC / plotly_view.BUNDLES[name][0]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == BUNDLE_SHA256[name]
    assert data.startswith(f"/**\n* plotly.js ({name} - minified) v".encode())
    assert "MIT License" in (plotly_view.STATIC / "plotly-LICENSE.txt").read_text(encoding="utf-8")


def test_the_bundles_are_the_same_plotly_js_as_the_pinned_plotly_package():
    # figures are written by the plotly package for its own plotly.js; a newer pin needs the matching bundles
    versions = {plotly_view.bundle_version(plotly_view.STATIC / file) for file, _ in plotly_view.BUNDLES.values()}
    assert versions == {plotly_view.full_bundle_version()} == {"4.1.1"}


def test_a_figure_takes_the_smallest_bundle_that_holds_all_its_traces():
    assert plotly_view.bundle_for(go.Figure([go.Scatter(y=[1, 2]), go.Bar(y=[3]), go.Pie(values=[1, 2])])) == "basic"
    assert plotly_view.bundle_for(go.Figure([go.Scatter(y=[1]), go.Heatmap(z=[[1]])])) == "cartesian"
    assert plotly_view.bundle_for(go.Figure(go.Histogram(x=[1, 2]))) == "cartesian"
    assert plotly_view.bundle_for(go.Figure()) is None  # nothing to draw: Streamlit's element shows the empty axes
    assert plotly_view.bundle_for(go.Figure(go.Scattergl(y=[1]))) is None  # WebGL: in neither bundle
    assert plotly_view.bundle_for(go.Figure([go.Bar(y=[1]), go.Funnel(y=["a"], x=[1])])) is None


def test_a_bundle_of_another_plotly_js_is_not_used(monkeypatch, tmp_path):
    other = tmp_path / "plotly-basic.min.js"
    other.write_text("/**\n* plotly.js (basic - minified) v3.0.0\n*/\n", encoding="utf-8")
    assert plotly_view.bundle_version.__wrapped__(other) == "3.0.0"  # the version as the bundle's header states it
    monkeypatch.setattr(plotly_view, "bundle_version", lambda path: "3.0.0")
    assert plotly_view.bundle_for(go.Figure(go.Scatter(y=[1]))) is None


def test_a_session_without_javascript_gets_streamlits_element(monkeypatch):
    # AppTest is not a browser: every chart stays st.plotly_chart, so the pages' figures are tested as before
    from streamlit.testing.v1 import AppTest

    def app():
        import plotly.graph_objects as go

        from ui.widgets.page_widgets import chart
        chart(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])), "one")
        chart(go.Figure(go.Heatmap(z=[[0, 1]])), "two")

        chart(go.Figure(go.Bar(y=[1])), "three", config={"displayModeBar": False})

    at = AppTest.from_function(app).run()
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 3 and all(c.proto.theme == "" for c in charts)  # drawn as the figure is, no theme
    assert json.loads(charts[2].proto.config) == {"displayModeBar": False}  # Plotly's options reach either view


@pytest.mark.browser
def test_plotlys_options_reach_a_chart_of_the_labs_view(server, browser):
    # the home page's teaser hides its mode bar (config={"displayModeBar": False}) and is drawn by the lab's view
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.goto(server, wait_until="domcontentloaded")
    page.wait_for_selector(".lab-plotly .main-svg", timeout=120_000)
    assert page.locator(".lab-plotly .modebar").count() == 0
    page.close()


@pytest.mark.browser
def test_a_labs_scatter_and_bar_charts_come_through_the_basic_bundle(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    loaded: list[str] = []
    page.on("response", lambda r: loaded.append(r.url) if "plotly" in r.url.lower() and r.url.endswith(".js")
            else None)
    page.goto(f"{server}/Location_membership", wait_until="domcontentloaded")
    page.wait_for_selector(".lab-plotly .main-svg", timeout=120_000)
    # the page's full run follows its first view (ui/charts/first_view.py): measure the chart once that run has ended
    page.locator(f".st-key-{SIGNAL_KEY}").wait_for(state="detached", timeout=120_000)
    page.wait_for_function("() => document.querySelector('[data-testid=stApp]')"
                           ".getAttribute('data-test-script-state') === 'notRunning'", timeout=120_000)
    chart = page.locator(".lab-plotly:has(.main-svg)").first
    chart.wait_for(state="visible", timeout=60_000)
    assert any(url.endswith("/" + plotly_view.BUNDLE) for url in loaded), loaded  # the basic bundle, not more
    assert not any("PlotlyChart" in url for url in loaded), "Streamlit's full Plotly came before the first plot"
    # the chart fills its column and has the figure's height
    box = chart.bounding_box()
    assert box["width"] > 500 and box["height"] >= 300, box
    assert not errors, errors
    page.close()


@pytest.mark.browser
def test_the_bundle_is_served_as_javascript_and_a_failed_load_says_so(server, browser):
    src = f"{server}/component/ui.charts.plotly_view.lab_plotly_files/{plotly_view.BUNDLE}"
    with urllib.request.urlopen(src, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("application/javascript")
        assert response.read(40).startswith(b"/**\n* plotly.js (basic")
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.route(f"**/{plotly_view.BUNDLE}", lambda route: route.abort())
    page.goto(f"{server}/Location_membership", wait_until="domcontentloaded")
    page.get_by_text("This chart could not be drawn: its drawing library did not load").first.wait_for(
        timeout=120_000)
    page.close()
