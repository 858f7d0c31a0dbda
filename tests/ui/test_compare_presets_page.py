"""AppTest: the presets page lists every preset, runs one beside the paper's value, and opens one in its lab."""

import pytest
from lab_paths import ROOT
from streamlit.testing.v1 import AppTest

from core.studies.presets import link_params, load_presets
from core.scenario import all_scenarios, get


def _presets(**params):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page("pages/70_Paper_presets.py").run()
    assert not at.exception, at.exception
    return at


def test_presets_page_lists_presets_and_marks_missing_scenarios():
    at = _presets(preset="dinur-nissim-sqrt-n")
    heads = [m.value for m in at.markdown if m.value.startswith("#### ")]
    assert heads[0].startswith("#### Dinur–Nissim: reconstruction breaks down")  # the linked preset comes first
    assert any("Location membership" in h for h in heads) and any("DeSIA" in h for h in heads)
    missing = {"synthetic", "ml-models"} - set(all_scenarios())
    assert any("not part of this build" in i.value for i in at.info) == bool(missing)
    assert any("Synthetic data" in h for h in heads) and any("51 groups" in h for h in heads)
    # run the first card here: ours beside the paper's 0.59
    at.button(key="preset.run.dinur-nissim-sqrt-n").click().run()
    assert not at.exception, at.exception
    ours = next(m for m in at.metric if m.label.startswith("Ours"))
    assert abs(float(ours.value) - 0.59) < 0.06
    assert "vs paper" in ours.delta


def test_open_in_lab_carries_the_configuration():
    at = _presets()
    at.button(key="preset.open.dinur-nissim-sqrt-n").click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key="reconstruction.defense").value == "gaussian"
    assert at.selectbox(key="reconstruction.noise_unit").value == "sqrt_n"
    assert at.selectbox(key="reconstruction.solver").value == "lsq"
    assert at.number_input(key="reconstruction.defense_level").value == 1.0
    assert at.query_params["defense"] == ["gaussian"] or at.query_params["defense"] == "gaussian"


@pytest.mark.parametrize("name", sorted(load_presets()))
def test_a_presets_link_reopens_its_lab_with_the_presets_configuration(name):
    # A link opens the lab at the page's own start (Scenario.page_defaults) with the link's values on top; the
    # result must be the preset, also where the preset's value is a parameter's default but not the page's start
    # (desia-fig1's block of 454 people used to reopen as the aggregates page's 200).
    preset = load_presets()[name]
    sc = get(preset["scenario"])
    link = link_params(preset)
    opened = {**sc.defaults(), **sc.page_defaults,
              **{k: sc.param(k).parse(v) for k, v in link.items() if k != "seed"}}
    assert sc.resolve(opened) == sc.resolve(preset["params"])
    assert int(link.get("seed", 0)) == int(preset.get("seed", 0))


def test_the_desia_link_carries_the_papers_block_size():
    link = link_params(load_presets()["desia-fig1"])
    assert link["block_size"] == "454"  # a parameter's default, but not where the aggregates page starts


def test_a_preset_above_the_servers_limits_offers_the_command_instead_of_a_run_button(tmp_path, monkeypatch):
    # a strict server: the 10⁶-row synthetic presets (≈ 590 s estimated) are over its limit, so their cards say so
    # and give the command, while a cheap preset keeps its Run button
    limits = tmp_path / "lab_settings.toml"
    limits.write_text("[server]\nmax_run_seconds = 120\n")
    monkeypatch.setenv("LAB_SETTINGS", str(limits))
    monkeypatch.setenv("LAB_STORE", str(tmp_path / "store"))  # nothing stored: the estimate decides
    at = _presets()
    keys = {b.key for b in at.button}
    assert "preset.run.synthetic-rap-1e6" not in keys and "preset.run.dinur-nissim-sqrt-n" in keys
    heavy = [c.value for c in at.caption if c.value.startswith("Too heavy for this server")]
    assert heavy and all("the server allows" in c for c in heavy)


def test_a_costly_preset_offers_a_quick_look_that_says_how_much_less_it_tells(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_STORE", str(tmp_path / "store"))
    at = _presets()
    keys = {b.key for b in at.button}
    assert "preset.quick.synthetic-rap-1e6" in keys and "preset.run.synthetic-rap-1e6" not in keys
    said = next(c.value for c in at.caption if c.value.startswith("The full preset (300 games"))
    assert "±0.04 at an accuracy of 0.87" in said and "30 games" in said and "±0.13" in said
