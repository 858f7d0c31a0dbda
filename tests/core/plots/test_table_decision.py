"""Choosing ε for a table release: tolerances → a range of ε per person, three options, one chart with count error
on its own axis, and a board report whose printed page 1 holds the three options in plain words."""
import math
import re

import pytest

from core.errors import ParameterError
from core.studies.choosing_epsilon import board_report
from core.plots.table_decision import decision_figure
from core.studies.choosing_epsilon import table_epsilon as td
from core.theory.dp_accuracy import dp_auc_bound


def test_range_meets_both_tolerances_and_options_straddle_the_recommendation():
    d = td.decide(11, 10, False, 0.8, 0.4, typical_count=3)
    # rounded Laplace: |error| > 10 with probability exp(−ε_cell·10.5) = 0.2 at the accuracy limit
    assert math.exp(-d["epsilon_accuracy"] / 11 * 10.5) == pytest.approx(0.2)
    assert dp_auc_bound(1, d["epsilon_privacy"]) == pytest.approx(0.9, abs=1e-3)
    assert d["feasible"] and d["recommended"] == pytest.approx(d["epsilon_accuracy"])
    below, rec, above = d["options"]
    assert below["epsilon_per_person"] < rec["epsilon_per_person"] < above["epsilon_per_person"]
    assert not below["meets_accuracy"] and rec["meets_accuracy"] and rec["meets_privacy"]
    for o in d["options"]:
        assert o["epsilon_per_person"] == pytest.approx(11 * o["epsilon_per_cell"])
        assert o["deployments"] and all("Census" in r["organisation"] and r["unit_kind"] == "person"
                                        for r in o["deployments"])
        assert o["error_bound"] >= 0 and "50% is guessing" in o["attack_words"]


def test_conflicting_tolerances_say_so_and_bad_input_is_refused():
    d = td.decide(11, 2, False, 0.99, 0.05)
    assert not d["feasible"] and "No ε meets both" in td.summary_sentence(d)
    for bad in ({"confidence": 1.0}, {"advantage": 0.6}, {"error": 0.2}):
        args = {"cells": 11, "error": 10, "relative": False, "confidence": 0.9, "advantage": 0.3, **bad}
        with pytest.raises(ParameterError):
            td.decide(**args)


def test_chart_keeps_count_error_off_the_attack_axis_and_marks_the_chosen_epsilon():
    d = td.decide(11, 10, False, 0.8, 0.4, typical_count=3, chosen=2.0)
    fig = decision_figure(d)
    error_traces = [t for t in fig.data if t.name and t.name.startswith("count error")]
    attack_traces = [t for t in fig.data if t.name and t.name.startswith("attack success")]
    assert error_traces and all(t.yaxis == "y2" for t in error_traces)
    assert attack_traces and all(t.yaxis in (None, "y") for t in attack_traces)
    assert any(s.x0 == 2.0 for s in fig.layout.shapes)  # the chosen ε
    assert any(s.type == "rect" and s.x0 == pytest.approx(d["epsilon_accuracy"])
               and s.x1 == pytest.approx(d["epsilon_privacy"]) for s in fig.layout.shapes)  # the range meeting both
    assert fig.layout.xaxis.title.text.startswith("ε per person")


@pytest.mark.browser
def test_board_report_page_one_holds_three_options_and_no_bare_jargon(tmp_path):
    from browser_helpers import printed_pages

    d = td.decide(11, 10, False, 0.8, 0.4, typical_count=3)
    path = tmp_path / "board.html"
    path.write_text(board_report.board_html(d, figure=decision_figure(d)), encoding="utf-8")
    pages = printed_pages(path)
    first = pages[0]
    assert "Which privacy-loss level (ε) to approve" in first and "The decision" in first
    for name in ("Option A", "Option B: recommended", "Option C"):
        assert name in first, name
    assert first.count("per person (") >= 3 and first.count("Closest comparable deployments") == 3
    assert "2020 Census" in first and "synthetic" in first and "Caveats" in first
    assert not re.search(r"\bAUC\b", first) and "Technical details" not in first
    rest = " ".join(pages[1:])
    assert "Technical details" in rest and "AUC (area under the ROC curve)" in rest
