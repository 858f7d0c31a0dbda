"""The import step every CSV-taking lab shares: what the file is, what it holds, and which column could play
which role.

An analyst who brings a spreadsheet should see how the lab read it before anything runs: the detected
encoding, separator and decimal mark (each can be overridden), the first rows, and for every column its
type and number of distinct values. :func:`inspect_upload` reads the file once through the lab's one reader
(:func:`core.data.dataset.read_table`, with its caps), and :func:`suggest_roles` proposes a column for each
role the labs need — the binary secret or sensitive attribute, the model's label, the group attribute, the
quasi-identifiers — each with one line saying why. The lab then works on :meth:`TableImport.normalised_csv`
(UTF-8, comma-separated, decimal points), so the engine and the command line read exactly what the user saw.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..errors import DataError
from .dataset import MAX_BYTES, CsvFormat, _typed, decode_text, detect_format, read_bytes, read_table, upload_limits
from .file_rows import record_numbers
from .spreadsheet import is_workbook, refuse_other_formats, xlsx_to_csv
from .table_shapes import ColumnNote, SummaryRow, empty_columns, identifier_columns, summary_rows

PREVIEW_ROWS = 8
#: Words in a column's name that suggest a role (lower-case, matched as whole words or prefixes).
SENSITIVE_WORDS = ("sex", "female", "male", "gender", "race", "ethnic", "hispanic", "married", "marital",
                   "religio", "bornagain", "health", "disab", "smok", "hiv", "pregnan", "union", "citizen",
                   "vote", "ab", "abany")
LABEL_WORDS = ("income", "wage", "earn", "salary", "vote", "outcome", "label", "target", "class", "default",
               "approved", "employ", "y")
GROUP_WORDS = ("state", "region", "country", "county", "race", "racef", "educ", "edu", "occupation", "occup",
               "ethnic", "religion", "area", "city", "district", "party", "partyid")
QI_WORDS = ("age", "sex", "gender", "female", "zip", "postcode", "birth", "dob", "race", "ethnic", "state",
            "county", "city", "region", "marital", "married", "educ")


@dataclass
class ColumnSummary:
    name: str
    kind: str  # "number" or "text"
    distinct: int
    missing: int
    examples: str


@dataclass
class Suggestion:
    """A role's suggested column(s) and one line saying why."""

    columns: list[str]
    why: str

    @property
    def column(self) -> str:
        return self.columns[0]


@dataclass
class TableImport:
    """An upload as the lab read it: format (detected and used), the table and a summary per column.

    ``source`` is the whole table as read from the file; ``frame`` what the labs get: ``source`` without the
    ignored columns (``ignored``) and the dropped summary rows (``dropped``). ``notes`` and ``summaries`` are
    what :mod:`core.data.table_shapes` found (identifier, empty and mostly-empty columns; Total rows), whatever
    the user then chose. ``file_rows``: for each row of ``frame``, its number in the user's file (1 = the first
    data row under the header, blank lines counted as a spreadsheet counts them), so a row a lab names can be
    found in the file even after rows were dropped; ``empty_rows``: the file rows dropped because every cell is
    empty (a spreadsheet's blank row saved as ``,,,``)."""

    name: str
    detected: CsvFormat
    fmt: CsvFormat
    frame: pd.DataFrame
    columns: list[ColumnSummary] = field(default_factory=list)
    source: pd.DataFrame | None = None
    notes: list[ColumnNote] = field(default_factory=list)
    summaries: list[SummaryRow] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    workbook: bool = False
    yes_no: YesNo | None = None
    numbers: np.ndarray | None = None  # the file row of each row of ``source`` (None: 1, 2, 3…)
    empty_rows: list[int] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return len(self.frame)

    @property
    def file_rows(self) -> list[int]:
        """Each row of ``frame`` as its number in the user's file (1 = first data row under the header)."""
        if self.numbers is None:
            return [int(i) + 1 for i in self.frame.index]
        return self.numbers[self.frame.index.to_numpy()].tolist()

    @property
    def default_ignored(self) -> list[str]:
        """The columns ignored unless the user keeps them: every identifier, empty and mostly-empty column."""
        return [n.column for n in self.notes]

    def preview(self, n: int = PREVIEW_ROWS) -> pd.DataFrame:
        return self.frame.head(n)

    def column_table(self) -> pd.DataFrame:
        """One row per column of the file: type, distinct values, missing cells, examples and what the lab does
        with it ("used", or why it is ignored and how many rows keeping it would drop)."""
        notes = {n.column: n for n in self.notes}

        def use(c: ColumnSummary) -> str:
            note = notes.get(c.name)
            if self.yes_no is not None and c.name == self.yes_no.column and c.name not in self.ignored:
                return f"made yes/no: {self.yes_no.name}"
            if c.name not in self.ignored:
                return "used" if note is None else f"used (you kept it: {note.kind})"
            if note is None:
                return "ignored (your choice)"
            if note.kind == "identifier":
                return f"identifier — ignored ({note.why})"
            return f"{note.kind} — ignored ({note.why}; keeping it drops {note.drops:,} rows where all are needed)"

        return pd.DataFrame([{"column": c.name, "use": use(c), "type": c.kind, "distinct values": c.distinct,
                              "missing": c.missing, "examples": c.examples} for c in self.columns])

    def summary(self, column: str) -> ColumnSummary:
        return next(c for c in self.columns if c.name == column)

    def normalised_csv(self, columns: list[str] | None = None) -> bytes:
        """The table (or only ``columns``, in the file's order) as UTF-8, comma-separated, with decimal points:
        what the engine reads (numbers stay numbers, codes such as ``02130`` stay text).

        Every row of the user's file that is not a row of the table (a dropped "Total" line, an empty row, a
        blank line) is a blank line here: the reader skips it, and :func:`core.data.file_rows.row_numbers`
        counts it, so a lab that names row 17 of this file names row 17 of the user's file."""
        frame = self.frame
        if columns is not None:
            unknown = [c for c in columns if c not in frame.columns]
            if unknown:
                raise DataError(f"{self.name}: no column(s) {', '.join(map(str, unknown))}")
            frame = frame[[c for c in frame.columns if c in set(columns)]]
        buf = io.StringIO()
        frame.iloc[:0].to_csv(buf, index=False, lineterminator="\n")
        rows = np.asarray(self.file_rows, dtype=np.int64)
        gaps = np.diff(np.r_[0, rows]) - 1  # the file's rows missing before each kept row
        cuts = sorted({0, len(frame), *np.flatnonzero(gaps > 0).tolist()})
        for a, b in zip(cuts[:-1], cuts[1:]):
            buf.write("\n" * int(gaps[a]))
            frame.iloc[a:b].to_csv(buf, index=False, header=False, lineterminator="\n")
        return buf.getvalue().encode("utf-8")


@dataclass(frozen=True)
class YesNo:
    """A column made yes/no for a role that needs two values (a model's label, a secret): ``column`` above
    ``threshold`` (a number column), or ``column`` equal to ``value`` against every other value (a text column)."""

    column: str
    threshold: float | None = None
    value: str | None = None

    @property
    def name(self) -> str:
        """The new column's name: letters, digits, ``_`` and ``.`` only (no ``=`` or ``,``, which role
        parameters such as the secret's ``column=value`` would read as syntax)."""
        what = f"above_{self.threshold:g}" if self.threshold is not None else f"is_{self.value}"
        return re.sub(r"[^\w.]+", "_", f"{self.column}_{what}").strip("_")[:80]


def make_yes_no(frame: pd.DataFrame, rule: YesNo) -> pd.DataFrame:
    """``frame`` with ``rule.column`` replaced, in place, by its yes/no version (missing cells stay missing). The
    original column goes: a model that kept it beside its own label would read the answer off it."""
    if rule.column not in frame.columns:
        raise DataError(f"no column {rule.column!r} to make yes/no")
    col = frame[rule.column]
    if rule.threshold is not None:
        if not pd.api.types.is_numeric_dtype(col):
            raise DataError(f"{rule.column} is not a column of numbers; compare it with one of its values")
        yes = col > rule.threshold
    else:
        yes = col.astype(str).eq(str(rule.value))
    made = yes.map({True: "yes", False: "no"}).where(col.notna())
    if made.dropna().nunique() != 2:
        raise DataError(f"{rule.name}: every row falls on the same side; choose another "
                        + ("threshold" if rule.threshold is not None else "value"))
    out = frame.copy()
    out.insert(list(frame.columns).index(rule.column), rule.name, made)
    return out.drop(columns=rule.column)


def inspect_upload(source, name: str = "upload", *, encoding: str | None = None, delimiter: str | None = None,
                   decimal: str | None = None, max_bytes: int = MAX_BYTES, ignore: list[str] | None = None,
                   keep_summary_rows: bool = False, yes_no: YesNo | None = None) -> TableImport:
    """Read an upload (bytes, file object or path; CSV, TSV, text or ``.xlsx``) with the detected format, or the
    parts the user chose.

    ``ignore``: the columns left out of the table the labs get (default: the identifier, empty and mostly-empty
    columns :mod:`core.data.table_shapes` finds); ``keep_summary_rows``: keep "Total" lines (dropped by default);
    ``yes_no``: a column to make yes/no (:func:`make_yes_no`) for a role that needs two values.
    Raises :class:`DataError` (one line) on an unreadable file or a table without a data row."""
    refuse_other_formats(name)
    raw = read_bytes(source, name=name, max_bytes=max_bytes)
    if not raw.strip():
        raise DataError(f"{name}: the file is empty")
    workbook = is_workbook(name, raw)
    if workbook:  # the first worksheet as UTF-8 CSV text: the same detection, caps and typing as a CSV
        raw = xlsx_to_csv(raw, name, *upload_limits())
        encoding = delimiter = decimal = None
    detected, _ = detect_format(raw, name)
    try:
        fmt = CsvFormat(encoding or detected.encoding, delimiter or detected.delimiter,
                        decimal or (detected.decimal if (delimiter or detected.delimiter) != "," else "."))
    except DataError as exc:
        raise DataError(f"{name}: {exc}") from None
    source_frame = read_table(raw, name=name, fmt=fmt, max_bytes=max(max_bytes, len(raw)))
    if source_frame.empty:
        raise DataError(f"{name}: the file has a header but no data rows")
    source_frame.attrs.clear()  # the format lives on the TableImport (attrs would travel into every preview table)
    # the file row of each row read: blank lines are skipped by the reader but counted by a spreadsheet
    numbers = record_numbers(decode_text(raw, name, fmt.encoding), fmt.delimiter)
    if numbers is not None and len(numbers) != len(source_frame):
        numbers = None  # a file the two readers split differently: positions it is (never a wrong row silently)
    row_of = (lambda pos: int(numbers[pos])) if numbers is not None else (lambda pos: int(pos) + 1)
    empty = np.flatnonzero(source_frame.isna().all(axis=1).to_numpy()).tolist()  # ",,,,": nobody
    kept = np.setdiff1d(np.arange(len(source_frame)), empty)  # a Total line is looked for among the others
    summaries = [replace(s, position=int(kept[s.position]), row=row_of(kept[s.position]))
                 for s in summary_rows(source_frame.iloc[kept].reset_index(drop=True))]
    dropped = sorted(set(empty) | (set() if keep_summary_rows else {s.position for s in summaries}))
    body = source_frame.drop(index=dropped) if dropped else source_frame
    if dropped:  # a column that was text only because of its "Total" cell is a column of numbers again
        for c in body.columns:
            if not pd.api.types.is_numeric_dtype(body[c]):
                body[c] = _typed(body[c], ".")
            elif empty and pd.api.types.is_float_dtype(body[c]) and body[c].notna().all() \
                    and body[c].eq(body[c].round()).all():  # whole numbers, float only for an empty row's gap
                body[c] = body[c].astype(np.int64)
    ids = identifier_columns(body)
    notes = ids + [n for n in empty_columns(body) if n.column not in {i.column for i in ids}]
    ignored = [n.column for n in notes] if ignore is None else [c for c in body.columns if c in set(ignore)]
    frame = body.drop(columns=ignored)
    if yes_no is not None:
        try:
            frame = make_yes_no(frame, yes_no)
        except DataError as exc:
            raise DataError(f"{name}: {exc}") from None
    if frame.shape[1] == 0:
        raise DataError(f"{name}: every column is ignored; keep at least one")
    if frame.empty:
        raise DataError(f"{name}: no data rows are left once the summary rows are dropped")
    return TableImport(name, detected, fmt, frame, [_summary(body[c], c) for c in body.columns], source_frame,
                       notes, summaries, ignored, [s.row for s in summaries if s.position in dropped], workbook,
                       yes_no, numbers, [row_of(p) for p in empty])


def _summary(col: pd.Series, name: str) -> ColumnSummary:
    present = col.dropna()
    kind = "number" if pd.api.types.is_numeric_dtype(col) else "text"
    values = present.unique()[:3]
    examples = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)
    return ColumnSummary(str(name), kind, int(present.nunique()), int(col.isna().sum()), examples[:60])


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]


def _hits(name: str, words: tuple[str, ...]) -> bool:
    parts = _words(name)
    return any(p == w or (len(w) >= 4 and p.startswith(w)) for p in parts for w in words)


def _two_valued(frame: pd.DataFrame) -> list[tuple[str, float, str]]:
    """(column, minority share, "a / b") of the columns with exactly two values (missing ignored)."""
    out = []
    for c in frame.columns:
        counts = frame[c].dropna().value_counts()
        if len(counts) == 2:
            share = float(counts.iloc[-1] / counts.sum())
            out.append((str(c), share, f"{counts.index[0]} / {counts.index[1]}"))
    return out


def suggest_roles(frame: pd.DataFrame, min_group: int = 20) -> dict[str, Suggestion]:
    """A suggested column for each role the labs need, each with one line of why (roles a table cannot fill
    are left out): ``secret`` and ``sensitive`` (two-valued: what the attacker infers), ``label`` (a second
    two-valued column: what a model predicts), ``group`` (3–60 values, each with at least ``min_group``
    records: the groups whose exposure is compared) and ``quasi_identifiers`` (up to four low-cardinality
    facts an attacker can learn elsewhere, such as age and sex)."""
    out: dict[str, Suggestion] = {}
    n = len(frame)
    binary = _two_valued(frame)
    # the secret: a column whose name says sensitive, else the most balanced yes/no column
    if binary:
        ranked = sorted(binary, key=lambda b: (not _hits(b[0], SENSITIVE_WORDS), -b[1]))
        c, share, vals = ranked[0]
        reason = "its name suggests a sensitive fact" if _hits(c, SENSITIVE_WORDS) else "the most balanced one"
        # The guess's accuracy as a bar the attack must clear, not as a weakness: "only 92%" misread a skewed secret.
        why = (f"two values ({vals}; the rarer one is {share:.0%} of rows): {reason}; guessing the more common "
               f"value for everyone is right {1 - share:.0%} of the time")
        out["secret"] = Suggestion([c], why)
        out["sensitive"] = Suggestion([c], why)
        rest = [b for b in binary if b[0] != c]
        if rest:
            lab = sorted(rest, key=lambda b: (not _hits(b[0], LABEL_WORDS), -b[1]))[0]
            out["label"] = Suggestion([lab[0]], f"a second two-valued column ({lab[2]}): what the model predicts"
                                      + (", and its name says outcome" if _hits(lab[0], LABEL_WORDS) else ""))
    taken = {s.column for s in out.values()}
    # the group attribute
    best = None
    for c in frame.columns:
        if str(c) in taken:
            continue
        counts = frame[c].dropna().value_counts()
        k = len(counts)
        if not 3 <= k <= 60 or counts.iloc[-1] < min_group:
            continue
        score = (_hits(str(c), GROUP_WORDS), -abs(k - 10))
        if best is None or score > best[0]:
            best = (score, str(c), k, int(counts.iloc[-1]))
    if best is not None:
        _, c, k, smallest = best
        out["group"] = Suggestion([c], f"{k} values, the smallest with {smallest:,} records: groups large enough to "
                                       "compare how exposed each one is")
    # quasi-identifiers: demographic-sounding columns first, then other low-cardinality ones
    sensitive = out["sensitive"].column if "sensitive" in out else None
    candidates = []
    for c in frame.columns:
        c = str(c)
        if c == sensitive:
            continue
        k = frame[c].nunique()
        if k < 2 or k >= 0.9 * n or c.lower() in ("rownames", "id", "index"):  # constant, or a name / ID
            continue
        candidates.append((not _hits(c, QI_WORDS), k, c))
    qis = [c for *_, c in sorted(candidates)[:4]]
    if qis:
        named = [c for c in qis if _hits(c, QI_WORDS)]
        out["quasi_identifiers"] = Suggestion(
            qis, ("facts an attacker can learn elsewhere (" + ", ".join(named) + ")" if named else
                  "the columns with the fewest values besides the secret") + ": together they can single people out")
    return out
