"""The report a board reads: a title in words, the verdict first, technical details after, readable names, a
clean PDF; and sentences that stay meaningful at large ε."""
import re

import pytest

from core.output import plain_language as say
from core.output import report
from core.runtime.games import run

AGG = {"blocks": 1, "block_size": 100, "shadows": 200, "targets": 20, "query_ratio": 0.5, "epsilon": 1.0}


@pytest.fixture(scope="module")
def agg_result():
    return run("aggregates", AGG, 0)


def test_large_epsilon_sentences_say_the_guarantee_is_void_with_the_number():
    assert say.pct(0.99966) == "99.97%" and say.pct(0.999999) == "99.9999%" and say.pct(0.5) == "50%"
    import math
    acc8 = math.exp(8) / (1 + math.exp(8))
    s = say.epsilon_explorer(8, 1, acc8, acc8)
    assert "practically void" in s and "99.97%" in s and "100.0%" not in s and "more than" not in s
    s = say.epsilon_explorer(0.5, 1, 0.6225, 0.6225)
    assert "no attacker can tell" in s and "62%" in s
    assert "practically void" in say.cap(0.995) and "99.5%" in say.cap(0.995)
    assert say.cap(0.7) == "no attack can guess right more than 70% of the time"


def test_report_opens_with_the_verdict_and_keeps_details_for_later(agg_result):
    text = report.html_report([agg_result])
    k = agg_result.metrics["cells_per_person"]
    title = f"What an attacker learns from the published block counts at ε = {k:g} per person (1 per cell)"
    assert f"<title>{title}</title>" in text and f"<h1>{title}</h1>" in text
    summary = text[text.index("<section class='summary'>"):text.index("<section class='technical'>")]
    assert "against 50% by chance" in summary  # the page's own sentence
    assert re.search(r"Chosen ε = 1 per cell\. One person's record can change up to \d+ released cells, so the "
                     r"guarantee for a person adds up to ε = 1 × \d+", summary)
    assert re.search(r"Attack success \(attack AUC\): 0\.\d{3}, 95% interval 0\.\d{3} – 0\.\d{3}", summary)
    assert "a published count is off by 0.96 on average" in summary  # utility: 1 / (2 sinh ½)
    details = text[text.index("<section class='technical'>"):]
    assert "Technical details" in details and "python -m core run aggregates" in details
    assert "AUC, 95% interval, low" in details and ">auc_ci_low<" not in details  # readable names
    assert report.readable("tpr_at_fpr_0.01") == "TPR at FPR 0.01"


def test_summary_hook_lines_are_escaped_and_a_failing_hook_is_skipped(agg_result):
    def odds(result):
        return ["Odds <b>sentence</b> at ε = 1"]

    def broken(result):
        raise RuntimeError("boom")

    report.register_summary_hook(odds)
    report.register_summary_hook(broken)
    try:
        text = report.html_report([agg_result])
    finally:
        report.SUMMARY_HOOKS.clear()
    assert "Odds &lt;b&gt;sentence&lt;/b&gt; at ε = 1" in text
    assert text.index("Odds &lt;b&gt;") < text.index("Technical details")


@pytest.mark.browser
def test_report_prints_to_pdf_with_the_verdict_on_page_one(agg_result, tmp_path):
    from browser_helpers import printed_pages

    path = tmp_path / "report.html"
    path.write_text(report.html_report([agg_result]), encoding="utf-8")
    pages = printed_pages(path)
    first = pages[0]
    assert "What an attacker learns from the published block counts at ε = " in first and "(1 per cell)" in first
    assert "Attack success" in first and "95% interval" in first and "off by 0.96 on average" in first
    assert "Technical details" not in first  # details start on their own page
    rest = " ".join(pages[1:])
    assert "Technical details" in rest and len(pages) >= 2
