"""AppTest: the synthetic-data page runs a small game, draws the trade-off scatter and the one-game panel, and
refuses bad input with a message."""
from apptest_helpers import before_first_chart, chart_titles, open_page

PAGE = "pages/40_Synthetic_data.py"


def test_page_small_run_draws_tradeoff_roc_and_one_game():
    at = open_page(PAGE, games=3, synth_size=100, n=300)
    assert not at.exception, at.exception
    titles = chart_titles(at)
    assert any(t.startswith("Privacy–utility trade-off") for t in titles), titles
    assert any(t.startswith("ROC at m = 100") for t in titles), titles
    assert any("vs synthetic data size" in t for t in titles), titles
    assert any("number of queries" in t for t in titles), titles
    text = " ".join(m.value for m in at.markdown)
    assert "guesses a target's `votetrump` right" in text
    assert "CCES 2016" in " ".join(c.value for c in at.caption)
    assert "t_u =" in text  # the one-game panel shows the LP's value for the target
    labels = {m.label for m in at.metric}
    assert {"Target accuracy [95% CI]", "All-records accuracy (low variance)", "AUC", "MRE>10", "3-TVD",
            "Claimed ε"} <= labels
    assert "metric" not in before_first_chart(at)  # the trade-off chart first, its numbers under it
    # every record attacked against a control set: the risk leads the numbers, the three risks and the proxy
    # scores are tables of their own, with words saying what each measures
    assert {"Inference risk vs control [95% CI]", "Right on training vs control records",
            "Majority baseline"} <= labels
    assert "Against a control set, Adv_recon" in text
    heads = [h.value for h in at.subheader]
    assert "The three risks, against a control set" in heads and "Proxy scores beside the attacks" in heads
    risks = next(d.value for d in at.dataframe if "risk of" in d.value.columns)
    assert list(risks["risk of"])[1:] == ["Singling out", "Linkability"]


def test_page_rejects_query_ratio_beyond_what_k_offers():
    at = open_page(PAGE, games=2, synth_size=100, n=200, query_k=2, query_ratio=50)
    assert not at.exception, at.exception
    assert any("query_ratio" in e.value for e in at.error)



def test_the_x_axis_choice_outlives_a_run_that_draws_no_chart(monkeypatch):
    """The radio is drawn only under a finished run's chart. A run the server refuses draws no chart, yet the
    page's script goes on to its end (the comparison below), and Streamlit forgets a widget such a run did not
    draw: the choice must still be there when the next run draws the chart again."""
    import ui.runs.page_runs

    at = open_page(PAGE, games=2, synth_size=100, n=200)
    assert not at.exception, at.exception
    at.radio(key="synthetic.metric_choice").set_value("tvd3").run()
    assert not at.exception, at.exception
    seed = at.session_state["synthetic.seed"]
    monkeypatch.setattr(ui.runs.page_runs, "_limits", lambda: {"max_seconds": 1e-9, "max_bytes": 1})
    at.session_state["synthetic.seed"] = seed + 1  # a run not yet stored, refused by the server's limits
    at.run()
    assert not at.exception, at.exception
    assert at.error and not [r for r in at.radio if r.key == "synthetic.metric_choice"]
    monkeypatch.undo()
    at.session_state["synthetic.seed"] = seed  # the stored run again: its chart, and the radio under it
    at.run()
    assert not at.exception, at.exception
    assert at.radio(key="synthetic.metric_choice").value == "tvd3"


def test_a_release_you_already_have_is_offered_with_your_csv_only():
    at = open_page(PAGE, games=2, synth_size=100, n=200)
    assert not at.exception, at.exception
    assert "a release you already have (file)" not in at.selectbox(key="synthetic.generator").options  # built-in
    at.selectbox(key="synthetic.dataset").set_value("csv").run()
    assert not at.exception, at.exception
    generator = at.selectbox(key="synthetic.generator")
    assert "a release you already have (file)" in generator.options
    generator.set_value("file").run()
    assert not at.exception, at.exception
    # two uploads, the original and the release; until both are there the page says what is missing
    text = " ".join(m.value for m in at.info) + " ".join(m.value for m in at.markdown)
    assert "Upload a CSV" in text or "Upload the synthetic release" in text
