"""A person in a user's file, as the file writes them: the text of chosen cells of chosen rows.

Every lab that takes a CSV names an exposed person by the file's row — row 1 is the first data row under the
header, the way a spreadsheet user counts once the header is frozen — and shows that person's own cells
(``"32"``, ``"Female"``, an empty cell as ``""``), never the lab's codes, bins or generalisations. The text is
read from the same file the engine read (for an upload, the normalised file the import step saved), with the
same format detection and the same row order as :func:`core.data.dataset.read_table`, so row ``r`` here is
row ``r`` there.
"""
from __future__ import annotations

import io
import os
from functools import lru_cache
from typing import Iterable, Sequence

import pandas as pd

from ..basics.idle import on_idle
from ..errors import DataError


@lru_cache(maxsize=8)
def _text_frame(path: str, _stamp: tuple) -> pd.DataFrame:
    from .dataset import read_bytes

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
    from .dataset import _decoded

    fmt, text = _decoded(raw, name, None)
    frame = pd.read_csv(io.StringIO(text), sep=fmt.delimiter, dtype=str, keep_default_na=False,
                        skipinitialspace=True, engine="c")
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def text_frame(path) -> pd.DataFrame:
    """The whole file as text (every cell a string, empty cells ``""``), one row per data row; ``path`` may be
    the file's bytes (an upload the page holds in memory)."""
    if isinstance(path, (bytes, bytearray, memoryview)):
        import hashlib

        raw = bytes(path)
        return _bytes_frame(hashlib.sha256(raw).hexdigest(), raw)
    try:
        st = os.stat(path)
    except OSError:
        raise DataError(f"cannot read {os.path.basename(str(path))!r}: no such file") from None
    return _text_frame(os.fspath(path), (st.st_mtime_ns, st.st_size))


def file_cells(path, rows: Sequence[int], columns: Iterable[str]) -> dict[str, list[str]]:
    """``{column: [its text in row r for r in rows]}``; ``rows`` count from 1 (the first data row)."""
    frame = text_frame(path)
    index = [int(r) - 1 for r in rows]
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
