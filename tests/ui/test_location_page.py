"""AppTest: the location membership page runs its default, shows the bound, and rejects bad input.

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
import json

from apptest_helpers import chart_titles, open_page

PAGE = "pages/20_Location_membership.py"


def test_location_page_default_small_run():
    at = open_page(PAGE, games=2000, shadow_sweep_max=1000, observations=20)
    assert not at.exception, at.exception
    titles = chart_titles(at)
    assert any("vs number of observations" in t for t in titles)
    assert any(t.startswith("ROC") for t in titles)
    assert any("training shadow" in t for t in titles)
    labels = {m.label: m.value for m in at.metric}
    assert abs(float(labels["DP bound"]) - 0.864) < 1e-3  # k = 20, ε = 0.5 (spec §5.2)
    acc = float(labels["Accuracy (two-threshold)"])
    assert 0.80 < acc < float(labels["DP bound"])
    # the bound is drawn on the accuracy plot
    spec = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    names = {tr.get("name") for s in spec for tr in s["data"]}
    assert any(n and n.startswith("DP bound") for n in names)
    # a unit of this run is a batch of thousands of games (a sweep point or a further attacked user): the status
    # must not call it a game (it said "Done: 17 games" beside "50000 test games")
    said = [s.proto.label for s in at.get("status")] + [c.value for c in at.caption]
    done = [t for t in said if t.startswith(("Done:", "Stored result"))]
    assert done and "game batches" in done[0] and " games" not in done[0], said


def test_location_page_bad_combination_shows_message():
    at = open_page(PAGE, games=1000, shadow_sweep_max=0, observations=5)
    at.selectbox(key="location.mechanism").select("gaussian").run()
    at.slider(key="location.epsilon").set_value(2.0).run()
    assert not at.exception
    assert any("classic" in e.value for e in at.error)


def test_location_page_mlp_button_trains_and_shows_weights():
    at = open_page(PAGE, games=1000, shadow_sweep_max=0, observations=5, train_shadows=400)
    assert not at.exception, at.exception
    button = next(b for b in at.button if "Train the MLP" in b.label)
    button.click().run(timeout=180)
    assert not at.exception, at.exception
    titles = chart_titles(at)
    assert any(t.startswith("MLP weights") for t in titles)
    assert any("validation accuracy" in t for t in titles)
    labels = {m.label: m.value for m in at.metric}
    assert 0.55 < float(labels["Accuracy (mlp)"]) < float(labels["DP bound"])


def test_first_view_names_the_epsilon_in_force_and_keeps_the_legend_beside_the_chart():
    at = open_page(PAGE, games=2000, shadow_sweep_max=0, observations=20, epsilon=0.7)
    assert not at.exception, at.exception
    text = " ".join(m.value for m in list(at.markdown) + list(at.info))
    assert "At ε = 0.7 per observation, an attacker who sees 20 of a person's check-ins" in text
    first = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert first["layout"]["title"]["text"].startswith("Membership accuracy vs number of observations")
    assert "ε = 0.7 per observation" in first["layout"]["title"]["text"]
    assert first["layout"]["legend"]["orientation"] == "v" and first["layout"]["legend"]["x"] > 1  # beside it
