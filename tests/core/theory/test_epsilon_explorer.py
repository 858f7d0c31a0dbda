import json
import math

import pytest
from lab_paths import ROOT
from streamlit.testing.v1 import AppTest

from apptest_helpers import chart_titles

from core.errors import ParameterError
from core.theory.epsilon_explorer import explain_epsilon, posterior_bound


def test_known_values():
    d = explain_epsilon(0.5, 0.0, 60)
    assert d["numbers"]["accuracy_bound_k"] == pytest.approx(0.9725, abs=5e-4)  # docs/specs/seed001_location_mia.md §5.2
    assert d["numbers"]["accuracy_bound_1"] == pytest.approx(math.exp(0.5) / (1 + math.exp(0.5)), abs=1e-9)
    assert posterior_bound(0.5, math.log(3)) == pytest.approx(0.75)
    assert d["numbers"]["laplace_scale_count"] == 2.0
    assert explain_epsilon(1.0, 1e-5)["numbers"]["gaussian_sigma_count_analytic"] == pytest.approx(3.7306, abs=2e-3)


def test_monotone_in_epsilon_and_k():
    curves = explain_epsilon(1.0, 0.0, 40)["accuracy_bound"]
    assert curves["0.1"][-1] < curves["1"][-1] < curves["5"][-1]
    assert all(b >= a - 1e-12 for a, b in zip(curves["1"], curves["1"][1:]))  # steps come in pairs (odd k = even k)
    for r in explain_epsilon(0.5, 0.0, 20)["roc_bound"].values():
        assert all(t >= f - 1e-12 for f, t in zip(r["fpr"], r["tpr"]))


def test_reconstruction_rule_follows_sqrt_n():
    weak = explain_epsilon(10.0, 1e-5, 10, n=1000)["reconstruction"]
    strong = explain_epsilon(0.1, 1e-5, 10, n=100)["reconstruction"]
    assert weak["sigma_over_sqrt_n"] < strong["sigma_over_sqrt_n"]
    assert "fail" in strong["verdict"]


def test_bad_inputs():
    for kwargs, name in (({"epsilon": 0}, "epsilon"), ({"epsilon": 1, "delta": 1.5}, "delta"),
                         ({"epsilon": 1, "k_max": 0}, "observations")):
        with pytest.raises(ParameterError) as info:
            explain_epsilon(**kwargs)
        assert info.value.param == name


def test_page_renders_and_reacts():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/05_Epsilon_explorer.py").run()
    assert not at.exception
    # the three bound charts, then the icon array and the belief-vs-ε chart with real deployments
    assert len(at.get("plotly_chart")) == 5
    before = {m.label: m.value for m in at.metric}
    at.select_slider(key="eps.epsilon").set_value(5.0).run()
    after = {m.label: m.value for m in at.metric}
    assert float(after["Max odds factor e^ε"]) > float(before["Max odds factor e^ε"])


def test_home_page_draws_the_bound_it_teases():
    """The home page's chart is the ε explorer's bound at ε = 1 (and so loads the chart library before any lab)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert chart_titles(at) == ["Best possible membership-inference accuracy"]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    chosen = [t for t in spec["data"] if t["name"] == "ε = 1"][0]
    assert chosen["y"][0] == pytest.approx(0.5)                            # k = 0: no release, a coin flip
    assert chosen["y"][1] == pytest.approx(math.e / (1 + math.e), abs=1e-9)  # one ε = 1 release: e^ε/(1+e^ε)
