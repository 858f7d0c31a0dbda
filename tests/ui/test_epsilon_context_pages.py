"""ε in context on the pages (AppTest): the explorer's odds with a movable prior and the accuracy-first picker, the
decision game played from clicks to export, and the gallery heading on the Paper presets page."""
import json

import pytest

from apptest_helpers import before_first_chart, chart_titles, open_page


def test_explorer_odds_follow_the_prior_and_accuracy_first_gives_epsilon():
    at = open_page("pages/05_Epsilon_explorer.py")
    assert not at.exception, at.exception
    infos = [i.value for i in at.info]
    assert any("50/50" in t and "62%" in t for t in infos)  # ε = 0.5: e^0.5/(1+e^0.5) = 62%
    assert "metric" not in before_first_chart(at)  # the two bound charts first, their numbers under them
    assert "Attacker's certainty vs ε, and real deployments" in chart_titles(at)
    spec = json.loads(at.get("plotly_chart")[4].proto.spec)
    ticks = [t for t in spec["data"] if t.get("meta") == "deployments"]
    assert ticks and any("Census" in h for t in ticks for h in t["customdata"])
    at.slider(key="eps.prior").set_value(10).run()
    assert any("10% chance" in i.value and "15%" in i.value for i in at.info)  # 0.1·e^0.5/(0.1·e^0.5+0.9)
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["ε per count, Laplace noise"]) == pytest.approx(0.3, abs=0.001)  # ln(20)/10
    assert float(metrics["ε per person, Laplace noise"]) == pytest.approx(0.3, abs=0.001)  # one count a person
    at.number_input(key="eps.acc.k").set_value(11).run()
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["ε per person, Laplace noise"]) == pytest.approx(11 * 0.2996, abs=0.01)
    assert any("protected by ε = 11 × 0.3 = 3.3 per person" in i.value for i in at.info)
    assert any("random sample" in i.value for i in at.info)
    captions = " ".join(c.value for c in at.caption)
    assert "In plain words — ε = 0.5" in captions


def test_decision_game_from_clicks_to_export():
    at = open_page("pages/06_Decision_game.py")
    assert not at.exception, at.exception
    # before any round: the closed form and the attacker's curve, with the ε of 95% agreement marked
    assert chart_titles(at) == ["What noise does to your decisions, and what ε gives an attacker"]
    # the chart above the game: a new tab draws it before the round's controls
    assert not {"select_slider", "slider", "button"} & set(before_first_chart(at))
    at.button(key="dg.deal").click().run()
    radios = list(at.radio)
    assert len(radios) == 12  # 6 regions, twice each
    for r in radios:
        r.set_value("Fund")  # one answer for every card: no decision can flip
    next(b for b in at.button if b.label.startswith("Reveal")).click().run()
    assert not at.exception, at.exception
    assert any("flipped for 0% of regions" in i.value for i in at.info)
    assert chart_titles(at) == ["What noise does to your decisions, and what ε gives an attacker"]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    mine = [t for t in spec["data"] if t["name"].startswith("your decisions")][0]
    assert mine["x"] == [0.1] and mine["y"] == [0.0]


def test_paper_presets_lists_the_gallery_under_its_own_heading():
    at = open_page("pages/70_Paper_presets.py")
    assert not at.exception, at.exception
    assert "Gallery of broken releases" in [h.value for h in at.header]
    texts = [m.value for m in at.markdown]
    titles = [t for t in texts if t.startswith("#### ")]
    gallery = titles.index(next(t for t in titles if "Known bug" in t))
    assert all("Known bug" in t or "Fixed twin" in t for t in titles[gallery:])
    assert not any("Known bug" in t or "Fixed twin" in t for t in titles[:gallery])
