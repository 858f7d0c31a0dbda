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
from dataclasses import dataclass, field

import pandas as pd

from ..errors import DataError
from .dataset import MAX_BYTES, CsvFormat, detect_format, read_bytes, read_table

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
    """An upload as the lab read it: format (detected and used), the table and a summary per column."""

    name: str
    detected: CsvFormat
    fmt: CsvFormat
    frame: pd.DataFrame
    columns: list[ColumnSummary] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return len(self.frame)

    def preview(self, n: int = PREVIEW_ROWS) -> pd.DataFrame:
        return self.frame.head(n)

    def column_table(self) -> pd.DataFrame:
        return pd.DataFrame([{"column": c.name, "type": c.kind, "distinct values": c.distinct,
                              "missing": c.missing, "examples": c.examples} for c in self.columns])

    def summary(self, column: str) -> ColumnSummary:
        return next(c for c in self.columns if c.name == column)

    def normalised_csv(self, columns: list[str] | None = None) -> bytes:
        """The table (or only ``columns``, in the file's order) as UTF-8, comma-separated, with decimal points:
        what the engine reads (numbers stay numbers, codes such as ``02130`` stay text)."""
        frame = self.frame
        if columns is not None:
            unknown = [c for c in columns if c not in frame.columns]
            if unknown:
                raise DataError(f"{self.name}: no column(s) {', '.join(map(str, unknown))}")
            frame = frame[[c for c in frame.columns if c in set(columns)]]
        buf = io.StringIO()
        frame.to_csv(buf, index=False, lineterminator="\n")
        return buf.getvalue().encode("utf-8")


def inspect_upload(source, name: str = "upload", *, encoding: str | None = None, delimiter: str | None = None,
                   decimal: str | None = None, max_bytes: int = MAX_BYTES) -> TableImport:
    """Read an upload (bytes, file object or path) with the detected format, or the parts the user chose.

    Raises :class:`DataError` (one line) on an unreadable file or a table without a data row."""
    raw = read_bytes(source, name=name, max_bytes=max_bytes)
    if not raw.strip():
        raise DataError(f"{name}: the file is empty")
    detected, _ = detect_format(raw, name)
    try:
        fmt = CsvFormat(encoding or detected.encoding, delimiter or detected.delimiter,
                        decimal or (detected.decimal if (delimiter or detected.delimiter) != "," else "."))
    except DataError as exc:
        raise DataError(f"{name}: {exc}") from None
    frame = read_table(raw, name=name, fmt=fmt, max_bytes=max_bytes)
    if frame.empty:
        raise DataError(f"{name}: the file has a header but no data rows")
    frame.attrs.clear()  # the format lives on the TableImport (attrs would travel into every preview table)
    return TableImport(name, detected, fmt, frame, [_summary(frame[c], c) for c in frame.columns])


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
