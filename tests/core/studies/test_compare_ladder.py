"""The ε ladder: parsing, rows against the bound, and the explorer section in AppTest."""
import json

import pytest
from lab_paths import ROOT
from streamlit.testing.v1 import AppTest

from core.errors import ParameterError
from core.studies.choosing_epsilon.ladder import crossing, ladder_base, ladder_rows, ladder_scenarios, parse_epsilons
from core.runtime.sweep import sweep


def test_parse_and_scenarios():
    assert "location" in ladder_scenarios() and "reconstruction" not in ladder_scenarios()
    assert parse_epsilons("2, 0.5 1;0.5", "location") == [0.5, 1.0, 2.0]
    for bad in ("", "0", "abc", "11"):
        with pytest.raises(ParameterError):
            parse_epsilons(bad, "location")


def test_location_ladder_rows_rise_with_epsilon_and_respect_the_bound():
    base = {**ladder_base("location"), "games": 2000}
    out = sweep("location", base, {"epsilon": [0.1, 1.0, 5.0]}, seed=1)
    lad = ladder_rows("location", out)
    rows = lad["rows"]
    assert [r["epsilon"] for r in rows] == [0.1, 1.0, 5.0]
    acc = [r["attack"] for r in rows]
    assert acc[0] < acc[1] < acc[2] + 1e-9
    for r in rows:
        assert r["attack_ci_low"] <= r["bound"] + 1e-9  # never significantly above what DP allows
        assert r["empirical_epsilon_low"] <= r["per_person_epsilon"]
    assert rows[0]["utility"] == pytest.approx(10.0)  # Laplace scale 1/ε per count
    assert crossing(lad, margin=0.1) == 0.1 and crossing(lad, margin=0.01) is None


def test_ladder_section_on_the_explorer_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.query_params["ladder_eps"] = "0.2, 3"
    at.switch_page("pages/05_Epsilon_explorer.py").run()
    assert not at.exception, at.exception
    assert at.text_input(key="ladder.eps").value == "0.2, 3"  # restored from the link
    next(b for b in at.button if b.label.startswith("Run the ladder")).click().run()
    assert not at.exception, at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    ladder = next(s for s in specs if s["layout"]["title"]["text"].startswith("ε ladder"))
    names = [tr.get("name", "") for tr in ladder["data"]]
    assert any(n.startswith("measured") for n in names) and any(n.startswith("DP bound") for n in names)
    assert any(n.startswith("utility error") for n in names)


# Two rungs per lab, light settings: enough to see the attack fall with ε and the utility column filled.
LIGHT = {"location": {"games": 1500}, "aggregates": {"targets": 30, "block_size": 100, "blocks": 2, "shadows": 200},
         "synthetic": {}}


# the synthetic and aggregates ladders fit generators and solve reconstructions at every rung: tens of seconds
SLOW_LADDERS = {"synthetic", "aggregates"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_LADDERS else n
                                  for n in sorted(ladder_scenarios())])
def test_every_ladder_has_a_band_and_utility_and_does_not_rise_as_epsilon_falls(name):
    from core.scenario import get

    known = {p.name for p in get(name).params}
    base = {**ladder_base(name), **{k: v for k, v in LIGHT.get(name, {}).items() if k in known}}
    out = sweep(name, base, {"epsilon": [0.2, 8.0]}, seed=3)
    lad = ladder_rows(name, out)
    rows = lad["rows"]
    assert [r["epsilon"] for r in rows] == [0.2, 8.0]
    for r in rows:
        assert r["attack"] is not None, r
        assert r["utility"] is not None, r  # the data's cost is on every rung
        assert r["attack_ci_low"] is not None and r["attack_ci_high"] is not None, r
        assert r["attack_ci_low"] <= r["attack"] <= r["attack_ci_high"]
    # less ε (more noise) never buys the attacker a significant gain
    assert rows[0]["attack"] <= rows[1]["attack_ci_high"] + 1e-9
    # and the data lose more as ε falls
    assert rows[0]["utility"] >= rows[1]["utility"]


def test_per_person_total_is_named_in_words():
    from core.studies.choosing_epsilon.ladder import ladder_table, per_person_sentence

    lad = {"scenario": "aggregates", "attack_label": "attack AUC", "utility_label": "mean count error per cell",
           "rows": [{"epsilon": 0.5, "attack": 0.6, "per_person_epsilon": 4.5, "cells_per_person": 9,
                     "utility": 2.0, "attack_ci_low": None}]}
    assert per_person_sentence(lad) == ("The ladder's ε is per released cell. One person can be in up to 9 released "
                                        "cells, and the guarantee adds up over them: ε = 0.5 per released cell "
                                        "protects a person with ε = 0.5 × 9 = 4.5. The DP bound uses that "
                                        "per-person total.")
    table = ladder_table(lad)
    assert table == [{"ε per cell / unit (the ladder's ε)": 0.5, "attack AUC": 0.6,
                      "mean count error per cell": 2.0, "cells one person can change": 9}]
    lad["rows"][0].update(per_person_epsilon=0.5, cells_per_person=None)
    assert per_person_sentence(lad) == ""
    loc = {"scenario": "location", "rows": [{"epsilon": 0.5, "per_person_epsilon": 5.0}]}
    assert "ε = 0.5 per observation protects a person with ε = 0.5 × 10 = 5" in per_person_sentence(loc)
