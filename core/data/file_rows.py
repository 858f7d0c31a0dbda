"""A person in a user's file, as the file writes them: the text of chosen cells of chosen rows.

Every lab that takes a CSV names an exposed person by the file's row — row 1 is the first data row under the
header, the way a spreadsheet user counts once the header is frozen — and shows that person's own cells
(``"32"``, ``"Female"``, an empty cell as ``""``), never the lab's codes, bins or generalisations. The text is
read from the same file the engine read (for an upload, the normalised file the import step saved), with the
same format detection and the same row order as :func:`core.data.dataset.read_table`.

Two counts of rows meet here. A lab knows a person by their *position*: the row's place in the table
:func:`~core.data.dataset.read_table` returns (0 = the first row it reads). The user knows them by their *file
row*. The two differ wherever the file has rows the reader skips: blank lines (a spreadsheet shows them as empty
rows, and counts them), and, in the normalised file the import step saves for an upload, the rows it dropped (a
"Total" line in the middle, a row with every cell empty), which it writes there as blank lines so that the file
rows of the user's own file survive the normalisation. :func:`row_numbers` gives, for each position, its file
row; every lab names a person by it.
"""
from __future__ import annotations

import csv
import hashlib
import io
import os
import re
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from ..basics.idle import on_idle
from ..errors import DataError
from .dataset import _decoded, read_bytes


@lru_cache(maxsize=8)
def _text_frame(path: str, _stamp: tuple) -> pd.DataFrame:
    return _parse(read_bytes(path, name=os.path.basename(path)), os.path.basename(path))


_BYTES: dict[str, pd.DataFrame] = {}
on_idle(_text_frame.cache_clear)  # an upload's rows, kept for the exposure panels: not past an idle spell
on_idle(_BYTES.clear)


def _bytes_frame(digest: str, raw: bytes) -> pd.DataFrame:
    if digest not in _BYTES:
        while len(_BYTES) >= 4:
            _BYTES.pop(next(iter(_BYTES)))
        _BYTES[digest] = _parse(raw, "upload")
    return _BYTES[digest]


def _parse(raw: bytes, name: str) -> pd.DataFrame:
    fmt, text = _decoded(raw, name, None)
    frame = pd.read_csv(io.StringIO(text), sep=fmt.delimiter, dtype=str, keep_default_na=False,
                        skipinitialspace=True, engine="c")
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def text_frame(path) -> pd.DataFrame:
    """The whole file as text (every cell a string, empty cells ``""``), one row per data row; ``path`` may be
    the file's bytes (an upload the page holds in memory)."""
    if isinstance(path, (bytes, bytearray, memoryview)):
        raw = bytes(path)
        return _bytes_frame(hashlib.sha256(raw).hexdigest(), raw)
    try:
        st = os.stat(path)
    except OSError:
        raise DataError(f"cannot read {os.path.basename(str(path))!r}: no such file") from None
    return _text_frame(os.fspath(path), (st.st_mtime_ns, st.st_size))


_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


def record_numbers(text: str, delimiter: str) -> np.ndarray | None:
    """For each row the reader returns (blank lines skipped), its number among the rows under the header, blank
    lines counted (1 = the first); None when the file has no blank line (the numbers are then 1, 2, 3…).

    A record is blank as pandas' reader sees it: no field, or one field of white space only (a line holding
    only separators is a row of empty cells, not blank). Records, not lines: a quoted cell spanning two lines
    is one row, as in a spreadsheet. A file the ``csv`` module cannot split gives None."""
    if not _BLANK_LINE.search(text) and not text.lstrip(" \t\r\f\v").startswith("\n"):
        return None
    space = "".join(c for c in " \t\r\f\v" if c != delimiter)
    out, n, header = [], 0, False
    try:
        for fields in csv.reader(io.StringIO(text), delimiter=delimiter, skipinitialspace=True):
            blank = not fields or (len(fields) == 1 and not fields[0].strip(space))
            if not header:
                header = not blank
                continue
            n += 1
            if not blank:
                out.append(n)
    except csv.Error:
        return None
    return np.asarray(out, dtype=np.int64)


@lru_cache(maxsize=8)
def _numbers(path: str, _stamp: tuple) -> np.ndarray | None:
    fmt, text = _decoded(read_bytes(path, name=os.path.basename(path)), os.path.basename(path), None)
    return record_numbers(text, fmt.delimiter)


def row_numbers(path, positions: Sequence[int], rows: int | None = None) -> list[int]:
    """The file row (1 = the first data row under the header, blank lines counted) of each position (0 = the
    first row :func:`core.data.dataset.read_table` returns) of the file at ``path`` (or its bytes). ``rows``: how
    many rows the reader returned (default: :func:`text_frame`'s count); a file the ``csv`` module splits into
    another number of rows than pandas is numbered by position, as before blank lines were counted, rather
    than wrongly."""
    positions = [int(p) for p in positions]
    if isinstance(path, (bytes, bytearray, memoryview)):
        fmt, text = _decoded(bytes(path), "upload", None)
        numbers = record_numbers(text, fmt.delimiter)
    else:
        try:
            st = os.stat(path)
        except OSError:
            raise DataError(f"cannot read {os.path.basename(str(path))!r}: no such file") from None
        numbers = _numbers(os.fspath(path), (st.st_mtime_ns, st.st_size))
    if numbers is not None and len(numbers) != (len(text_frame(path)) if rows is None else rows):
        numbers = None
    if numbers is None:
        return [p + 1 for p in positions]
    if positions and (min(positions) < 0 or max(positions) >= len(numbers)):
        raise DataError(f"row {max(positions) + 1:,} is not in the file ({len(numbers):,} data rows)")
    return numbers[positions].tolist() if positions else []


def file_cells(path, positions: Sequence[int], columns: Iterable[str]) -> dict[str, list[str]]:
    """``{column: [its text at each position]}``; ``positions`` count from 0 (the first row the reader returns;
    :func:`row_numbers` turns them into the user's row numbers)."""
    frame = text_frame(path)
    index = [int(p) for p in positions]
    if index and (min(index) < 0 or max(index) >= len(frame)):
        raise DataError(f"row {max(index) + 1 if max(index) >= len(frame) else min(index) + 1} is not in the file "
                        f"({len(frame):,} data rows)")
    out = {}
    for c in columns:
        if c not in frame.columns:
            raise DataError(f"no column {c!r} in the file")
        values = frame[c].to_numpy()
        out[c] = [str(values[i]) for i in index]
    return out


def in_file(column: str) -> str:
    """The exposure table's name for a column's value as the file writes it, beside a value the game drew."""
    return f"{column} (your file)"
