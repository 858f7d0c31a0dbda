"""AppTest: the aggregate-statistics page runs a small default, labels synthetic numbers, rejects bad input."""
from apptest_helpers import before_first_chart, chart_titles, open_page

from core.scenario import get

PAGE = "pages/30_Aggregate_statistics.py"


def test_page_small_run_shows_roc_ablation_and_synthetic_label():
    at = open_page(PAGE, block_size=100, shadows=200, attack="desia", query_ratio=0.5)
    assert not at.exception, at.exception
    titles = chart_titles(at)
    assert any(t.startswith("ROC") and "synthetic" in t for t in titles)
    assert any("Synthetic census blocks" in c.value for c in at.caption)
    labels = {m.label: m.value for m in at.metric}
    assert labels["Wrong settled answers"] in ("0", 0)
    assert len(at.dataframe) >= 1  # the ablation table
    assert any("AUC vs" in r.label or "Experiment" in r.label for r in at.radio)
    # the ROC right under the sentence, its numbers under it: a new tab draws everything above its first chart first
    assert "metric" not in before_first_chart(at)


def test_page_rejects_bad_combination_with_a_message():
    at = open_page(PAGE, block_size=100, shadows=200, attack="desia", query_ratio=0.5)
    at.selectbox(key="aggregates.task").select("mia").run()
    at.toggle(key="aggregates.ablation").set_value(True).run()
    assert not at.exception
    assert any("ablation" in e.value for e in at.error)


# ----------------------------------------------------------------- the generic-CSV path
def _csv(n=400, seed=0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"zip": rng.integers(0, 7, n), "age": rng.integers(18, 80, n),
                       "sex": rng.choice(["F", "M"], n), "smoker": rng.choice(["yes", "no"], n)})
    return df.to_csv(index=False).encode()


def _sliders(at):
    return {s.key: s.value for s in at.slider}


def test_choosing_generic_csv_keeps_every_parameter_and_the_link():
    at = open_page(PAGE, block_size=100, shadows=200, attack="desia", query_ratio=0.5)
    before = _sliders(at)
    link = dict(at.query_params)
    at.radio(key="aggregates.source_choice").set_value("Generic CSV").run()
    assert not at.exception
    assert any("Upload a CSV" in i.value for i in at.info)
    assert _sliders(at) == before  # the widgets stay, with their values (they used to vanish and reset)
    at.radio(key="aggregates.source_choice").set_value("Synthetic census blocks").run()
    assert _sliders(at) == before and at.slider(key="aggregates.query_ratio").value == 0.5
    assert dict(at.query_params) == link


def test_generic_csv_defaults_to_a_yes_no_column_and_titles_the_roc_with_it():
    at = open_page(PAGE, timeout=240, run=False, block_size=60, shadows=100, attack="desia", query_ratio=0.5,
                   blocks=1)
    at.session_state["aggregates.source_choice"] = "Generic CSV"  # no synthetic run first
    at.run()
    assert any("Upload a CSV" in i.value for i in at.info)
    at.file_uploader[0].set_value(("people.csv", _csv(), "text/csv")).run()
    assert not at.exception
    sel = at.selectbox(key="aggregates.sensitive")
    # two-valued columns only, not "zip"; the import step suggests the one whose name says sensitive
    assert list(sel.options) == ["sex", "smoker"] and sel.value == "smoker"
    assert any(c.value.startswith("Suggested: two values") for c in at.sidebar.caption)
    assert not at.error, [e.value for e in at.error]
    titles = chart_titles(at)
    assert any(t.startswith("ROC") and "(smoker)" in t for t in titles), titles
    assert not any("Hispanic" in t for t in titles)
    sentence = [m.value for m in list(at.markdown) + list(at.info) if "against 50% by chance" in m.value]
    assert sentence and "a person's smoker" in sentence[0]


def test_few_targets_get_a_warning_with_the_confidence_interval():
    at = open_page(PAGE, block_size=40, shadows=200, attack="desia", query_ratio=0.5, blocks=1, targets=4)
    assert not at.exception
    warn = [w.value for w in at.warning if "targets" in w.value]
    assert warn and "confidence interval" in warn[0], [w.value for w in at.warning]


def test_a_link_keeps_a_value_that_differs_from_the_page_default():
    at = open_page(PAGE, block_size=100, shadows=200, attack="desia", query_ratio=0.5, blocks=1)
    assert not at.exception
    assert at.query_params["attack"] == ["desia"] or at.query_params["attack"] == "desia"
    # where the page starts (not the scenario's defaults): blocks=1 and rap_steps=100 need no place in the link
    assert at.session_state["aggregates.rap_steps"] == 100 != get("aggregates").param("rap_steps").default
    assert "blocks" not in at.query_params and "rap_steps" not in at.query_params
    assert at.query_params["block_size"] in (["100"], "100")


def test_accuracy_side_at_the_chosen_epsilon_with_a_tolerance_and_one_tradeoff_chart():
    at = open_page(PAGE, block_size=100, shadows=200, attack="desia", query_ratio=0.5, epsilon=1.0, targets=20)
    assert not at.exception, at.exception
    assert any(h.value == "What the published counts lose" for h in at.subheader)
    text = " ".join(m.value for m in list(at.markdown) + list(at.info))
    assert "At ε = 1 per cell a published count is off by 0.96 on average" in text  # 1 / (2 sinh ½)
    assert "so each person is protected by ε = 1 ×" in text
    labels = {m.label: m.value for m in at.metric}
    assert "Cells off by > 1 (expected)" in labels
    assert labels["Cells off by > 1 (expected)"] == "22.3%"  # e^-1.5
    assert "Attack success and count error against ε per cell" in chart_titles(at)
    at.number_input(key="aggregates.tolerance").set_value(3).run()
    labels = {m.label: m.value for m in at.metric}
    assert labels["Cells off by > 3 (expected)"] == "3.0%"  # e^-3.5


def test_header_follows_the_data_after_a_generic_upload():
    at = open_page(PAGE, run=False, block_size=60, shadows=100, attack="desia", query_ratio=0.5, blocks=1)
    at.session_state["aggregates.source_choice"] = "Generic CSV"
    at.run()
    head = at.markdown[0].value  # the summary under the title
    assert "Hispanic" not in head and "the column you choose" in head
