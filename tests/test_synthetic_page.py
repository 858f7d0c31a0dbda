"""AppTest: the synthetic-data page runs a small game, draws the trade-off scatter and the one-game panel, and
refuses bad input with a message."""
from apptest_helpers import chart_titles, open_page

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


def test_page_rejects_query_ratio_beyond_what_k_offers():
    at = open_page(PAGE, games=2, synth_size=100, n=200, query_k=2, query_ratio=50)
    assert not at.exception, at.exception
    assert any("query_ratio" in e.value for e in at.error)
