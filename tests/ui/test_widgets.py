"""Widgets offer only values the engine accepts; out-of-range numbers are explained; inactive parameters are
disabled; the plain-language layer and the glossary are consistent."""
import re

import pytest
from lab_paths import ROOT
from streamlit.testing.v1 import AppTest

from core.output import plain_language as say
from core.params import Param
from core.scenario import all_scenarios
from ui.widgets.widget_limits import valid_range


# ----------------------------------------------------------------- ranges
def test_valid_range_open_bounds():
    assert valid_range("float", 0.0, 10.0, 0.05, low_open=True) == (0.05, 10.0)
    assert valid_range("float", 0.0, 1.0, 0.1, low_open=True, high_open=True) == (0.1, 0.9)
    assert valid_range("float", 0.05, 8.0, 0.05) == (0.05, 8.0)
    assert valid_range("float", 0.0, 1.0, 0.3) == (0.0, 0.9)   # last step that does not pass the top
    assert valid_range("int", 0, 10, 3, low_open=True, high_open=True) == (3, 9)
    assert valid_range("int", 5, 2000, 5) == (5, 2000)
    lo, hi = valid_range("float", 0.0, 0.1, None, low_open=True, high_open=True)
    assert 0.0 < lo and hi < 0.1


@pytest.mark.parametrize("name", sorted(all_scenarios()))
def test_every_param_widget_range_is_valid(name):
    """The first and last value any generated widget offers pass the engine's own validation."""
    for p in all_scenarios()[name].params:
        if p.kind not in ("int", "float") or p.choices is not None:
            continue
        lo, hi = valid_range(p.kind, p.low, p.high, p.step, p.low_open, p.high_open)
        for v in (lo, hi):
            if v is not None:
                p.validate(v)  # raises ParameterError if the widget could offer a refused value


def test_open_bound_param_never_offers_its_bound():
    p = Param("eps", "float", 0.5, low=0.0, high=10.0, low_open=True, step=0.05)
    lo, _ = valid_range(p.kind, p.low, p.high, p.step, p.low_open, p.high_open)
    assert lo == pytest.approx(0.05)
    with pytest.raises(Exception):
        p.validate(0.0)


# ----------------------------------------------------------------- pages
def _page(path, **query):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(path)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def _slider_bounds(at, key):
    w = at.slider(key=key)
    return w.proto.min, w.proto.max


def test_location_epsilon_slider_starts_above_zero():
    at = _page("pages/20_Location_membership.py", games="200", shadow_sweep_max="0", observations="3",
               train_shadows="100")
    assert not at.exception, at.exception
    lo, hi = _slider_bounds(at, "location.epsilon")
    assert lo == pytest.approx(0.05) and hi == pytest.approx(10.0)  # ε = 0 is never offered
    at.slider(key="location.epsilon").set_value(lo).run()
    assert not at.exception and not at.error


def test_inactive_parameters_are_disabled_with_a_note():
    at = _page("pages/10_Reconstruction_attack.py", n="20", trials="2", sweeps="false")
    assert not at.exception, at.exception
    level = at.number_input(key="reconstruction.defense_level")
    assert level.disabled  # defence none: the level has no effect
    assert "Inactive" in level.help and "defense" in level.help
    assert at.selectbox(key="reconstruction.noise_unit").disabled
    assert not at.selectbox(key="reconstruction.lp_method").disabled  # solver lp: active
    at.selectbox(key="reconstruction.defense").select("gaussian").run()
    assert not at.number_input(key="reconstruction.defense_level").disabled
    assert not at.selectbox(key="reconstruction.noise_unit").disabled
    at.selectbox(key="reconstruction.solver").select("lsq").run()
    assert at.selectbox(key="reconstruction.lp_method").disabled


def test_out_of_range_number_is_explained_and_corrected():
    at = _page("pages/05_Epsilon_explorer.py")
    at.number_input(key="eps.n").set_value(99_999_999).run()
    assert not at.exception, at.exception
    msgs = " ".join(w.value for w in at.warning)
    assert "above the maximum 100,000" in msgs and "10 to 100,000" in msgs
    assert at.number_input(key="eps.n").value == 100_000
    text = " ".join(m.value for m in at.markdown)
    assert "about n = 100000 people" in text  # the corrected value is the one used
    # a value in range clears the message
    at.number_input(key="eps.n").set_value(500).run()
    assert not any("maximum" in w.value for w in at.warning)


def test_link_with_out_of_range_value_is_explained():
    at = _page("pages/05_Epsilon_explorer.py", **{"eps.n": "5"})
    assert not at.exception, at.exception
    assert any("below the minimum 10" in w.value for w in at.warning)
    assert at.number_input(key="eps.n").value == 10  # the field shows the value in use


# ----------------------------------------------------------------- plain language + glossary
def test_plain_sentences_from_numbers():
    s = say.reconstruction({"accuracy": 0.98, "majority_baseline": 0.5, "accuracy_ci_low": 0.97,
                            "release_epsilon": None})
    assert "recovers 98% of the secret bits, against 50% by guessing" in s
    assert "no differential-privacy guarantee" in s
    s = say.reconstruction({"accuracy": 0.52, "majority_baseline": 0.5, "accuracy_ci_low": 0.49,
                            "release_epsilon": 0.3})
    assert "no better than guessing" in s and "guarantee" not in s
    s = say.location({"accuracy": 0.72, "accuracy_ci_low": 0.70, "dp_bound_accuracy": 0.86}, 20)
    assert "right 72% of the time, against 50% by chance" in s and "no attack exceeds 86%" in s
    s = say.epsilon_explorer(0.5, 60, 0.6225, 0.9725)
    assert "62%" in s and "97%" in s and "little protection" in s
    assert say.pct(0.996) == "99.6%"
    # status lines ("Done: 1 game in …") put the noun in the right number
    assert say.count(1, "game") == "1 game" and say.count(0, "game") == "0 games"
    assert say.count(12_000, "game") == "12,000 games" and say.count(2, "query", "queries") == "2 queries"


def test_glossary_terms_and_every_link_resolve():
    entries = say.glossary()
    anchors = {a for _, a, _ in entries}
    assert {"auc", "roc", "tpr-at-fpr", "epsilon", "delta", "dp-bound", "lrt", "shadow-model", "cip", "rap",
            "ppmf", "clopper-pearson-interval", "meta-classifier", "k-anonymity", "quasi-identifier",
            "reconstruction-attack", "synthetic-data", "query-ratio", "empirical-epsilon", "f-dp", "ad",
            "disparity", "bcorr"} <= anchors
    assert all(len(body) > 40 for _, _, body in entries)
    assert say.term("auc") == "[AUC](/Glossary#auc)"
    with pytest.raises(KeyError):
        say.term("no-such-term")
    files = list((ROOT / "content").glob("*.md")) + list((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
    used = {a for f in files for a in re.findall(r"/Glossary#([a-z0-9-]+)", f.read_text(encoding="utf-8"))}
    assert used and used <= anchors, used - anchors


def test_glossary_page_has_an_anchor_per_term():
    at = _page("pages/90_Glossary.py")
    assert not at.exception, at.exception
    headers = at.subheader
    assert len(headers) == len(say.glossary())
    assert {h.proto.anchor for h in headers} == {a for _, a, _ in say.glossary()}
    at.text_input(key="glossary.q").input("shadow").run()
    assert 1 <= len(at.subheader) < len(say.glossary())


def test_interval_caution_speaks_only_when_the_interval_reaches_guessing():
    wide = say.interval_caution(0.56, 0.47, 0.65, 0.5, "the reconstruction", "Play more trials.")
    assert wide is not None and "too wide to say how well the reconstruction works" in wide
    assert wide.endswith("Play more trials.") and "47.0%" in wide and "50.0%" in wide
    assert say.interval_caution(0.9, 0.85, 0.95, 0.5) is None  # clearly above guessing: nothing to say
    assert say.interval_caution(0.9, float("nan"), 0.95, 0.5) is None  # no interval, no claim


def test_interval_caution_says_an_attack_below_guessing_is_worse_not_uncertain():
    """A narrow interval wholly below the most-common-value guess (an upload whose secret 93% of people share)
    is not a small-sample problem: the caution says the attack does worse, and gives no advice to play more."""
    below = say.interval_caution(0.332, 0.313, 0.351, 0.927, "the attack", "Use more records.")
    assert below is not None and "below the 92.7% of guessing the most common value" in below
    assert "does worse than that simple guess" in below
    assert "too wide" not in below and "Use more records" not in below
    edge = say.interval_caution(0.90, 0.85, 0.927, 0.927)  # the interval's top reaches the guess: still unclear
    assert edge is not None and "too wide" in edge


def test_every_lab_stops_its_controls_where_the_server_would_refuse(tmp_path, monkeypatch):
    """A link asking for more games than the server accepts at the other settings is corrected on the page, with
    the reason, instead of refused after the fact; a control whose whole range is affordable stays as it was."""
    from apptest_helpers import open_page

    from core.cost import largest_affordable
    from core.basics.settings import settings
    from core.scenario import get

    limits = tmp_path / "lab_settings.toml"  # a strict server, so the largest accepted run stays small
    limits.write_text("[server]\nmax_run_seconds = 20\n")
    monkeypatch.setenv("LAB_SETTINGS", str(limits))
    sc = get("synthetic")
    config = sc.resolve(dict(sc.page_defaults))
    top = largest_affordable(sc.estimate_cost, config, "games", 1, 1000, 1, 20, settings().max_run_bytes)
    at = open_page("pages/40_Synthetic_data.py", games=900, run=True)
    assert not at.exception
    field = at.number_input(key="synthetic.games")
    assert field.value == top < 900 and "the command line has no such limit" in field.help
    assert any("is above the maximum" in w.value for w in at.sidebar.warning)
    assert not any("the server allows" in e.value for e in at.error), [e.value for e in at.error]
