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
    # the MST/AIM/PrivBayes grid: a quick look at all six points, not a run of its first one
    grid = next(b for b in at.button if b.key == "_sweep.preset.sweep.synthetic-mst-aim-privbayes.go")
    assert grid.label == "Quick look here (6 points × 3 games)"
    assert "preset.run.synthetic-mst-aim-privbayes" not in keys and "preset.quick.synthetic-mst-aim-privbayes" not in keys
    said = next(c.value for c in at.caption if "3 games at each of the 6 points" in c.value)
    assert "at an accuracy of 0.50" in said  # the preset's paper value is a 3-way TVD (0.335), not an accuracy


SWEEP_PRESET = '''
[noise-sweep]
title = "A comparison preset: reconstruction at three noise levels"
scenario = "reconstruction"
page = "Reconstruction_attack"
metric = "accuracy"
metric_label = "bits recovered at the first point"
paper_value = 0.59
source = "a test"
explanation = "Every point of the grid is played."
sweep_columns = { accuracy = "bits recovered" }
[noise-sweep.params]
n = 40
query_ratio = 2.0
defense = "gaussian"
noise_unit = "sqrt_n"
defense_level = 1.0
solver = "lsq"
trials = 3
sweeps = false
[noise-sweep.sweep]
defense_level = [0.05, 0.5, 1.0]
'''


def test_a_comparison_preset_plays_every_point_of_its_grid(tmp_path, monkeypatch):
    """The MST/AIM/PrivBayes preset is a grid (3 generators × 2 ε): the page must play all its points, not the
    first. A cheap grid of the same shape stands in for it here (three noise levels of the reconstruction demo),
    played for real through the worker pool."""
    import core.studies.presets as presets_module

    toml = tmp_path / "presets.toml"
    toml.write_text(SWEEP_PRESET, encoding="utf-8")
    real = presets_module.load_presets
    monkeypatch.setattr(presets_module, "load_presets", lambda path=toml: real(path))
    monkeypatch.setenv("LAB_STORE", str(tmp_path / "store"))
    at = _presets()
    assert "preset.run.noise-sweep" not in {b.key for b in at.button}  # not a one-point run button
    at.button(key="_sweep.preset.sweep.noise-sweep.go").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    assert list(table["defense_level"]) == [0.05, 0.5, 1.0]  # every point, in grid order
    bits = [float(v.split()[0]) for v in table["bits recovered"]]
    assert bits[0] > 0.9 and bits[0] > bits[2]  # small noise reconstructs, σ = √n does not: real runs
    caption = next(c.value for c in at.caption if c.value.startswith("Every point of the grid, 3 of 3"))
    assert "defense_level 1.0" in caption  # the table's text alternative
    assert any(m.label.startswith("Ours, first point") for m in at.metric)


def test_the_mst_aim_privbayes_preset_is_a_grid_of_six_points():
    from core.studies.presets import sweep_base, sweep_points, sweep_table

    p = load_presets()["synthetic-mst-aim-privbayes"]
    points = sweep_points(p)
    base = sweep_base(p)  # what the sweep fixes: everything but the grid's own parameters
    assert "generator" not in base and "epsilon" not in base and base["n"] == 1000
    assert {(q["generator"], q["epsilon"]) for q in points} == {(g, e) for g in ("mst", "aim", "privbayes")
                                                               for e in (1.0, 10.0)}
    rows = [{**q, "tvd3": 0.3, "accuracy": 0.6, "accuracy_ci_low": 0.4, "accuracy_ci_high": 0.8, "games_done": 6,
             "risk": 0.01, "risk_ci_low": -0.02, "risk_ci_high": 0.04} for q in points]
    table = sweep_table(p, {"rows": rows})
    assert len(table) == 6 and table[0]["generator"] == "mst" and table[0]["epsilon"] == 1.0
    assert table[0]["attack accuracy"] == "0.600 (95% CI 0.400–0.800, 6 games)"
    assert table[0]["3-way TVD (lower = more useful)"] == "0.300"
