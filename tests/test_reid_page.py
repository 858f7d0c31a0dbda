"""AppTest for the reidentification lecture page."""
import pytest
from apptest_helpers import open_page

PAGE = "pages/11_Reidentification_lecture.py"


@pytest.fixture
def app():
    return open_page(PAGE)


def test_page_renders_every_demo(app):
    assert not app.exception
    assert not app.error
    assert len(app.get("plotly_chart")) >= 8  # linkage ×3, k-anonymity, Netflix, differencing, exact ×3
    texts = " ".join(s.value for s in app.success)
    assert "3-anonymous" in texts
    codes = " ".join(c.value for c in app.code)
    assert "x1 + x2 + x3 = 2" in codes and "x_1 =" in codes


def test_condition_preset_flags_homogeneity(app):
    app.radio(key="reid.kdata").set_value("condition").run()
    assert not app.exception
    assert any("homogeneous class" in w.value for w in app.warning)


def test_synthetic_town_and_bad_system(app):
    app.radio(key="reid.source").set_value("synthetic").run()
    assert not app.exception
    app.text_area[0].set_value("x1 + x2 = 1").run()
    assert not app.exception
    assert any("queries" in e.value for e in app.error)


def test_netflix_rate_curves_on_demand(app):
    n = len(app.get("plotly_chart"))
    app.toggle[0].set_value(True).run()
    assert not app.exception
    assert len(app.get("plotly_chart")) == n + 1
