"""AppTest: the aggregate-statistics page runs a small default, labels synthetic numbers, rejects bad input."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
PAGE = "pages/30_Aggregate_statistics.py"


def _page(**params):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(PAGE)
    for key, value in params.items():
        at.query_params[key] = str(value)
    return at.run()


def _titles(at):
    return [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]


def test_page_small_run_shows_roc_ablation_and_synthetic_label():
    at = _page(block_size=100, shadows=200, attack="desia", query_ratio=0.5)
    assert not at.exception, at.exception
    titles = _titles(at)
    assert any(t.startswith("ROC") and "synthetic" in t for t in titles)
    assert any("Synthetic census blocks" in c.value for c in at.caption)
    labels = {m.label: m.value for m in at.metric}
    assert labels["Wrong settled answers"] in ("0", 0)
    assert len(at.dataframe) >= 1  # the ablation table
    assert any("AUC vs" in r.label or "Experiment" in r.label for r in at.radio)


def test_page_rejects_bad_combination_with_a_message():
    at = _page(block_size=100, shadows=200, attack="desia", query_ratio=0.5)
    at.selectbox(key="aggregates.task").select("mia").run()
    at.toggle(key="aggregates.ablation").set_value(True).run()
    assert not at.exception
    assert any("ablation" in e.value for e in at.error)
