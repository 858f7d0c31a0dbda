"""AppTest for the second reidentification page (TB mechanism, downcoding, composition)."""
import pytest
from apptest_helpers import open_page

PAGE = "pages/12_More_reidentification_demos.py"


@pytest.fixture
def app():
    return open_page(PAGE)


def test_page_renders_all_three_tabs(app):
    assert not app.exception
    assert not app.error
    assert len(app.get("plotly_chart")) >= 4   # TB heights, downcoding cells, composition bars + class sizes
    assert len(app.dataframe) >= 3 * 2
    assert any("2-anonymous" in s.value for s in app.success)
    assert any("Salil has TB** — correct" in w.value for w in app.warning)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Cells downcoded to exact"] == "4"
    assert metrics["% unique in A"] == "0.0" and float(metrics["% unique in A ⋈ B"]) > 0


def test_other_world_and_bad_input_show_messages_not_tracebacks(app):
    app.toggle(key="rm.tb").set_value(False).run()
    assert not app.exception
    assert any("Salil has no TB** — correct" in w.value for w in app.warning)
    # 6 records, k = 4: too many tables to try, so the k input stops at 3 and says why (it used to accept 4
    # and then always fail)
    app.number_input(key="rm.k_dc.slide").set_value(4).run()
    assert not app.exception
    assert not app.error
    assert any("above the maximum 3" in w.value for w in app.warning)
    assert app.number_input(key="rm.k_dc.slide").value == 3
    assert len(app.get("plotly_chart")) >= 3  # the other tabs still draw
