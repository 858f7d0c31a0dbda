"""How a CSV file is written — encoding, separator, decimal mark — and how the lab detects it.

Used by the one reader, :func:`core.data.dataset.read_table`; see :class:`CsvFormat` and :func:`detect_format`.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from ..errors import DataError


ENCODINGS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8 with byte-order mark", "utf-16": "UTF-16",
             "utf-16-le": "UTF-16 (little-endian, no byte-order mark)",
             "utf-16-be": "UTF-16 (big-endian, no byte-order mark)", "cp1252": "Windows-1252",
             "latin-1": "Latin-1"}
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}
DECIMALS = {".": "point (1.5)", ",": "comma (1,5)"}


@dataclass(frozen=True)
class CsvFormat:
    """How a CSV file is written: its text encoding, the cell separator and the decimal mark.

    Spreadsheets in much of Europe save ``;``-separated files with decimal commas (``1,5``); Excel adds a
    byte-order mark to UTF-8 and some tools write UTF-16. :func:`detect_format` finds all three; a user can
    override any of them (the import step passes its choice back to :func:`read_table`).
    """

    encoding: str = "utf-8"
    delimiter: str = ","
    decimal: str = "."

    def __post_init__(self):
        if self.encoding not in ENCODINGS:
            raise DataError(f"unknown encoding {self.encoding!r}; known: {', '.join(ENCODINGS)}")
        if self.delimiter not in DELIMITERS:
            raise DataError(f"unknown separator {self.delimiter!r}; known: comma, semicolon, tab, vertical bar")
        if self.decimal not in DECIMALS:
            raise DataError(f"unknown decimal mark {self.decimal!r}; known: point or comma")
        if self.decimal == self.delimiter:
            raise DataError("the decimal mark cannot also be the separator")

    def describe(self) -> str:
        return (f"{ENCODINGS[self.encoding]} · separator: {DELIMITERS[self.delimiter]} · "
                f"decimal mark: {DECIMALS[self.decimal]}")


def _decode(raw: bytes, name: str, encoding: str | None) -> tuple[str, str]:
    if encoding is not None:
        if encoding not in ENCODINGS:
            raise DataError(f"{name}: unknown encoding {encoding!r}")
        try:
            return raw.decode(encoding), encoding
        except UnicodeDecodeError:
            raise DataError(f"{name}: not valid {ENCODINGS[encoding]} text; choose another encoding") from None
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            raise DataError(f"{name}: starts like UTF-16 but is not valid UTF-16 text") from None
    head = raw[:4096]
    if len(head) >= 4:  # UTF-16 without a byte-order mark: ASCII text with every other byte NUL
        odd, even = head[1::2], head[0::2]
        for zeros, enc in ((odd, "utf-16-le"), (even, "utf-16-be")):
            if zeros.count(0) >= 0.9 * len(zeros) and (odd if zeros is even else even).count(0) == 0:
                try:
                    return raw.decode(enc), enc
                except UnicodeDecodeError:
                    break
    for enc in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = raw.decode(enc)
        except UnicodeDecodeError:
            continue
        if enc == "utf-8-sig" and not raw.startswith(b"\xef\xbb\xbf"):
            enc = "utf-8"
        return text, enc
    raise DataError(f"{name}: cannot decode the file")  # pragma: no cover - latin-1 decodes any bytes


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_COMMA_NUMBER = re.compile(r"^[+-]?(?:\d+|\d{1,3}(?:\.\d{3})+)(?:,\d+)?$")
_SAMPLE_CHARS = 1 << 16
_SAMPLE_ROWS = 200


def _check_text(text: str, name: str) -> None:
    sample = text[:_SAMPLE_CHARS]
    if "\x00" in sample or len(_CONTROL.findall(sample)) > max(2, len(sample) // 100):
        raise DataError(f"{name}: binary data, not a CSV text file")


def _sample_rows(text: str, delimiter: str) -> list[list[str]]:
    sample = text[:_SAMPLE_CHARS]
    if len(text) > _SAMPLE_CHARS and "\n" in sample:
        sample = sample[:sample.rfind("\n")]  # whole lines only
    try:
        rows = []
        for row in csv.reader(io.StringIO(sample), delimiter=delimiter):
            if row:
                rows.append(row)
            if len(rows) >= _SAMPLE_ROWS:
                break
        return rows
    except csv.Error:
        return []


def detect_format(raw: bytes, name: str = "upload", encoding: str | None = None,
                  delimiter: str | None = None, decimal: str | None = None) -> tuple[CsvFormat, str]:
    """The file's :class:`CsvFormat` (any part given is kept, the others detected) and its decoded text.

    Separator: of comma, semicolon, tab and vertical bar, the one that splits the header into the most
    columns while (nearly) every sampled row has the header's width; a file no separator splits is one
    column. Decimal comma: only with a separator other than the comma, when some column's sampled cells are
    all numbers written with a decimal comma (``1,5``, ``1.234,5``) and at least one has the comma.
    """
    text, enc = _decode(raw, name, encoding)
    _check_text(text, name)
    if delimiter is None:
        best, best_score = ",", (-1.0, 0)
        for cand in DELIMITERS:
            rows = _sample_rows(text, cand)
            if not rows or len(rows[0]) < 2:
                continue
            width = len(rows[0])
            consistent = sum(len(r) == width for r in rows) / len(rows)
            if consistent < 0.9:
                continue
            score = (consistent, width)
            if score > best_score:
                best, best_score = cand, score
        delimiter = best
    if decimal is None:
        decimal = "."
        if delimiter != ",":
            rows = _sample_rows(text, delimiter)
            body = rows[1:]
            if body:
                width = len(rows[0])
                for j in range(width):
                    cells = [r[j].strip() for r in body if j < len(r) and r[j].strip()]
                    if cells and all(_COMMA_NUMBER.match(c) for c in cells) and any("," in c for c in cells):
                        decimal = ","
                        break
    return CsvFormat(enc, delimiter, decimal), text
