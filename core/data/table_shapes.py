"""What in an uploaded table is not a person's data: identifier columns, empty columns, summary rows.

A spreadsheet of people often carries, besides the people, a row number or a record ID, a comment column
filled on a few rows, and a "Total" line at the bottom. Read as data, an ID becomes a quasi-identifier that
singles out everyone (every value is unique), a comment column makes the labs that need complete rows drop
almost all of them, and a Total row is attacked as if it were a person. The import step
(:mod:`core.data.table_import`) shows what these functions find, ignores it by default, and lets the user
override each choice; nothing here changes the table.

* :func:`identifier_columns` — unique on every row and either named like an identifier (``id``, ``ID``,
  ``person_id``, ``PersonID``, ``rownames``…), a run of consecutive integers (a row number), codes with
  leading zeros (``00417``), or text that never repeats (names, e-mail addresses; not dates, which are facts an
  attacker links on).
* :func:`empty_columns` — every cell missing, or at least :data:`MOSTLY_EMPTY` of them; with the number of rows
  keeping the column would drop in a lab that needs complete rows.
* :func:`summary_rows` — a row whose text cell says "Total", "Summe", "Gesamt"… (:data:`SUMMARY_WORDS`), or a last
  row whose every numeric cell is the sum of the rows above it (a spreadsheet's sum line without a label).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Share of missing cells from which a column is "mostly empty" and ignored unless the user keeps it.
MOSTLY_EMPTY = 0.8
#: Words (lower-case, whole cell) that mark a summary line in the spreadsheets of several languages.
SUMMARY_WORDS = ("total", "totals", "grand total", "sum", "summe", "gesamt", "insgesamt", "gesamtsumme",
                 "total général", "total general", "totaal", "totale", "totalt", "yhteensä", "suma", "razem",
                 "subtotal", "sub-total", "zwischensumme", "sous-total", "all", "overall")
#: Column-name words that say "identifier" (whole words of the name; ``PersonID`` splits into person + id).
ID_WORDS = ("id", "ids", "rownames", "rowname", "index", "idx", "uuid", "guid", "key", "rowid", "recid",
            "record", "respondent", "caseid", "serial", "seqn", "pid", "uid")
_LEADING_ZERO = re.compile(r"^0\d+$")
_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}")  # a date of birth is a quasi-identifier, not an ID


@dataclass(frozen=True)
class ColumnNote:
    """Why a column is ignored by default: ``kind`` is "identifier", "empty" or "mostly empty"; ``why`` one line;
    ``drops``: rows a lab needing complete rows would lose if the column were kept (its missing cells)."""

    column: str
    kind: str
    why: str
    drops: int


@dataclass(frozen=True)
class SummaryRow:
    """A row that sums or totals the others. ``position``: its place in the table as read (0 = first data row);
    ``row``: its number in the user's file (1 = the first data row under the header); ``why``: one line."""

    position: int
    row: int
    why: str


def name_words(name: str) -> list[str]:
    """The words of a column name, lower-case: ``PersonID`` → person, id; ``person_id`` → person, id."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(name))
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def named_like_id(name: str) -> bool:
    words = name_words(name)
    return bool(words) and (words[-1] in ID_WORDS or words[0] in ("id", "rownames", "index", "uuid"))


def _why_identifier(col: pd.Series, name: str) -> str | None:
    present = col.dropna()
    n = len(col)
    if n < 2 or len(present) < 0.95 * n or present.nunique() != len(present):
        return None  # an identifier names every row, once
    if named_like_id(name):
        return "unique on every row and named like an identifier"
    if pd.api.types.is_integer_dtype(present) or (pd.api.types.is_float_dtype(present)
                                                  and present.eq(present.round()).all()):
        values = np.sort(present.to_numpy(dtype=float))
        if len(values) > 2 and np.all(np.diff(values) == 1):
            return "consecutive whole numbers, one per row: a row number"
        return None  # distinct measurements (an income, a weight) are data
    text = present.astype(str).str.strip()
    if text.str.match(_LEADING_ZERO).all():
        return "codes with leading zeros, one per row"
    if not pd.api.types.is_numeric_dtype(present) and n >= 20 and not text.str.match(_DATE).mean() > 0.5:
        return "text that never repeats (a name or a code): it singles out every row and says nothing else"
    return None


def identifier_columns(frame: pd.DataFrame) -> list[ColumnNote]:
    """The columns that identify rows rather than describe people (see the module docstring)."""
    out = []
    for c in frame.columns:
        why = _why_identifier(frame[c], str(c))
        if why is not None:
            out.append(ColumnNote(str(c), "identifier", why, int(frame[c].isna().sum())))
    return out


def empty_columns(frame: pd.DataFrame, mostly: float = MOSTLY_EMPTY) -> list[ColumnNote]:
    """Columns with every cell missing, or at least ``mostly`` of them missing."""
    out = []
    n = max(1, len(frame))
    for c in frame.columns:
        missing = int(frame[c].isna().sum())
        if missing == len(frame):
            out.append(ColumnNote(str(c), "empty", "every cell is empty", missing))
        elif missing >= mostly * n:
            out.append(ColumnNote(str(c), "mostly empty", f"{missing / n:.0%} of its cells are empty", missing))
    return out


def _summary_word(value) -> str | None:
    if not isinstance(value, str):
        return None
    cell = re.sub(r"[\s:.*]+$", "", value.strip().lower())
    if cell in SUMMARY_WORDS or re.match(r"^(grand |sub-?)?(total|summe|gesamt)\b", cell):
        return value.strip()
    return None


def summary_rows(frame: pd.DataFrame) -> list[SummaryRow]:
    """Rows that total the others. Only text columns are searched for the words (a "Total" in a column of
    numbers would have made it a text column), and a sum line without a word must be the last row, with at
    least one numeric column whose other cells are not all zero."""
    out: dict[int, SummaryRow] = {}
    text_cols = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    for c in text_cols:
        col = frame[c]
        counts = col.value_counts()  # each distinct cell once: a word repeated on many rows is a category
        for value in counts.index[counts.to_numpy() == 1]:
            word = _summary_word(value)
            if word is None:
                continue
            pos = int(np.flatnonzero(col.eq(value).to_numpy())[0])
            out.setdefault(pos, SummaryRow(pos, pos + 1, f"says {word[:30]!r} in column {c}"))
    last = len(frame) - 1
    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    if last >= 2 and last not in out and numeric:
        sums = []
        for c in numeric:
            body, tail = frame[c].iloc[:last], frame[c].iloc[last]
            if pd.isna(tail):
                continue
            total = float(body.sum())
            if not np.isclose(float(tail), total, rtol=1e-6, atol=1e-6) or body.abs().sum() == 0:
                sums = []
                break
            sums.append(str(c))
        if sums:
            out[last] = SummaryRow(last, last + 1, "its " + ", ".join(sums[:3]) + " equal the sum of the rows above")
    return [out[k] for k in sorted(out)]
