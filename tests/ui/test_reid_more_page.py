"""AppTest for the second reidentification page (TB mechanism, downcoding, composition), three lazy tabs."""
import pytest
from apptest_helpers import chart_titles, open_page

PAGE = "pages/12_More_reidentification_demos.py"
REL, DOWN, COMP = "1 · Privacy is relational", "2 · Downcoding", "3 · Composition"


@pytest.fixture
def app():
    return open_page(PAGE)


def open_tab(app, label):
    app.session_state["rm.tab"] = label
    return app.run()


def test_only_the_open_demo_runs(app):
    # a fast first view: a new visitor's browser gets the first demo's chart, not all four
    assert not app.exception and not app.error
    assert len(chart_titles(app)) == 1
    assert any("Salil has TB** — correct" in w.value for w in app.warning)
    assert any("2-anonymous" in s.value for s in app.success)
    assert not app.metric  # the metric rows belong to the other two demos


def test_every_demo_renders_in_its_tab(app):
    open_tab(app, DOWN)
    assert not app.exception and not app.error
    assert len(chart_titles(app)) == 1 and len(app.dataframe) >= 3
    assert {m.label: m.value for m in app.metric}["Cells downcoded to exact"] == "4"
    open_tab(app, COMP)
    assert not app.exception and not app.error
    assert len(chart_titles(app)) == 2 and len(app.dataframe) >= 2
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["% unique in A"] == "0.0" and float(metrics["% unique in A ⋈ B"]) > 0


def test_a_closed_tab_keeps_its_controls(app):
    app.number_input(key="rm.k_rel").set_value(3).run()
    open_tab(app, COMP)
    open_tab(app, REL)
    assert app.number_input(key="rm.k_rel").value == 3


def test_other_world_and_bad_input_show_messages_not_tracebacks(app):
    app.toggle(key="rm.tb").set_value(False).run()
    assert not app.exception
    assert any("Salil has no TB** — correct" in w.value for w in app.warning)
    # 6 records, k = 4: too many tables to try, so the k input stops at 3 and says why (it used to accept 4
    # and then always fail)
    open_tab(app, DOWN)
    app.number_input(key="rm.k_dc.slide").set_value(4).run()
    assert not app.exception
    assert not app.error
    assert any("above the maximum 3" in w.value for w in app.warning)
    assert app.number_input(key="rm.k_dc.slide").value == 3
    assert len(app.get("plotly_chart")) == 1  # the demo still draws
