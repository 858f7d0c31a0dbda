"""AppTest for the reidentification lecture page (five demos in lazy tabs: only the open one runs)."""
import pytest
from apptest_helpers import chart_titles, open_page

PAGE = "pages/11_Reidentification_lecture.py"
LINK, KANON, NETFLIX, DIFF, EXACT = ("1 · Linkage", "2 · k-anonymity", "3 · Netflix (no QIs)", "4 · Differencing",
                                     "5 · Exact reconstruction (n = 5)")


@pytest.fixture
def app():
    return open_page(PAGE)


def open_tab(app, label):
    app.session_state["reid.tab"] = label
    return app.run()


def test_only_the_open_demo_runs(app):
    # a fast first view: a new visitor gets the linkage demo's three charts (and its who-is-exposed panel's
    # score chart), not all nine
    assert not app.exception and not app.error
    assert chart_titles(app) == ["% unique per QI combination", "Equivalence-class sizes", "Release ⋈ voter list",
                                 "Who is exposed: score per record, by tier"]


def test_every_demo_renders_in_its_tab(app):
    seen, codes = {}, {}
    for label in (KANON, NETFLIX, DIFF, EXACT):
        open_tab(app, label)
        assert not app.exception and not app.error, label
        seen[label] = chart_titles(app)
        codes[label] = " ".join(c.value for c in app.code)
    assert seen[KANON] == ["Class sizes vs k", "Distinct sensitive values per class",  # the Condition table
                           "Who is exposed: score per record, by tier"]  # and who its homogeneous class exposes
    assert len(seen[NETFLIX]) == 1 and seen[NETFLIX][0].startswith("Scores: eccentricity")
    assert seen[DIFF] == ["Two large counts, one person's bit"]
    assert len(seen[EXACT]) == 3
    assert "x1 + x2 + x3 = 2" in codes[EXACT] and "x_1 =" in codes[DIFF]
    open_tab(app, KANON)
    # the tab opens on the slide's Condition table: 4-anonymous, and its all-Cancer class is flagged
    assert "4-anonymous" in " ".join(s.value for s in app.success)
    assert any("homogeneous class" in w.value for w in app.warning)


def test_a_link_opens_its_tab():
    at = open_page(PAGE, **{"reid.tab": DIFF})
    assert not at.exception
    assert chart_titles(at) == ["Two large counts, one person's bit"]


def test_a_closed_tab_keeps_its_controls(app):
    app.slider(key="reid.rel").set_value(0.8).run()
    open_tab(app, DIFF)
    open_tab(app, LINK)
    assert app.slider(key="reid.rel").value == 0.8


def test_condition_preset_flags_homogeneity(app):
    open_tab(app, KANON)
    app.radio(key="reid.kdata").set_value("condition").run()
    assert not app.exception
    assert any("homogeneous class" in w.value for w in app.warning)


def test_synthetic_town_and_bad_system(app):
    app.radio(key="reid.source").set_value("synthetic").run()
    assert not app.exception
    open_tab(app, EXACT)
    app.text_area(key="reid.exact.system").set_value("x1 + x2 = 1").run()
    assert not app.exception
    assert any("queries" in e.value for e in app.error)


def test_netflix_rate_curves_on_demand(app):
    open_tab(app, NETFLIX)
    n = len(app.get("plotly_chart"))
    app.toggle(key="reid.nf.curves").set_value(True).run()
    assert not app.exception
    assert len(app.get("plotly_chart")) == n + 1
