"""Categorical datasets: a DataFrame plus an explicit, ordered domain per column.

Attacks on aggregates and reconstructions reason about *domains* (every value a
column can take, including values absent from the sample), so a
:class:`Dataset` carries them explicitly and can hand out integer codes.
:func:`load_csv` turns a user's file into one, with clear errors: size cap,
encoding, missing values, and numeric columns binned into quantile ranges or
high-cardinality text columns refused.

Every CSV the lab reads — this loader, the census and trace loaders, the people
tables of the reidentification demos, pages and CLI — goes through
:func:`read_table`: a regular-file check and a byte cap *before* parsing (an
endless device file or a directory is refused at once), format detection
(:func:`detect_format`: UTF-8 with or without BOM, UTF-16, else
Windows-1252/Latin-1; comma, semicolon, tab or bar separators; decimal commas),
a column cap checked on the header before the body is parsed, a cap on cells
(both in ``lab_settings.toml``, ``[uploads]``), a row cap, and identifier-like
columns kept as text: cells are read as strings and a column becomes numeric
only when every value is a number and none is a code with a leading zero (ZIP
``02130`` stays ``"02130"``).
"""
from __future__ import annotations

import csv
import io
import os
import re
import stat
from dataclasses import dataclass
from typing import IO

import numpy as np
import pandas as pd

from ..basics.settings import settings
from ..errors import Cancelled, DataError
from .csv_format import (_COMMA_NUMBER, DECIMALS, DELIMITERS, ENCODINGS, CsvFormat, _check_text,  # noqa: F401
                         _decode, detect_format)
from ..cancel import checkpoint

MAX_BYTES = 50 * 1024 * 1024
MAX_ROWS = 500_000
MAX_CATEGORIES = 200
MISSING = "(missing)"  # the category of a missing cell with missing="category"


@dataclass
class Dataset:
    """A table whose every column is categorical with a known ordered domain."""

    frame: pd.DataFrame
    domain: dict[str, tuple]
    name: str = "dataset"

    def __post_init__(self):
        if self.frame.empty:
            raise DataError(f"{self.name}: the table has no rows")
        missing = [c for c in self.frame.columns if c not in self.domain]
        if missing:
            raise DataError(f"{self.name}: no domain for column(s) {', '.join(map(str, missing))}")
        for col, values in self.domain.items():
            if col not in self.frame.columns:
                raise DataError(f"{self.name}: domain names unknown column {col!r}")
            if len(values) == 0:
                raise DataError(f"{self.name}: column {col!r} has an empty domain")
            if len(set(values)) != len(values):
                raise DataError(f"{self.name}: column {col!r} has repeated domain values")
            outside = ~self.frame[col].isin(values)
            if outside.any():
                bad = self.frame.loc[outside, col].iloc[0]
                raise DataError(f"{self.name}: column {col!r} holds {bad!r}, which is outside its domain")

    @property
    def columns(self) -> list[str]:
        return list(self.frame.columns)

    @property
    def cardinalities(self) -> tuple[int, ...]:
        return tuple(len(self.domain[c]) for c in self.columns)

    def __len__(self) -> int:
        return len(self.frame)

    def codes(self) -> np.ndarray:
        """Integer codes, shape (rows, columns): ``domain[col].index(value)``."""
        out = np.empty((len(self.frame), len(self.columns)), dtype=np.int64)
        for j, col in enumerate(self.columns):
            lookup = {v: i for i, v in enumerate(self.domain[col])}
            out[:, j] = self.frame[col].map(lookup).to_numpy()
        return out

    @classmethod
    def from_codes(cls, codes: np.ndarray, domain: dict[str, tuple], name: str = "dataset") -> "Dataset":
        cols = list(domain)
        frame = pd.DataFrame({c: np.asarray(domain[c], dtype=object)[codes[:, j]] for j, c in enumerate(cols)})
        return cls(frame, domain, name)


def load_csv(source: str | bytes | IO, *, name: str = "upload", max_bytes: int = MAX_BYTES,
             max_rows: int = MAX_ROWS, max_categories: int = MAX_CATEGORIES, numeric_bins: int = 8,
             missing: str = "drop", columns: list[str] | None = None) -> Dataset:
    """Read a CSV into a :class:`Dataset`.

    * ``source``: a path, raw bytes, or a binary/text file object (e.g. a Streamlit upload);
      read by :func:`read_table` (size cap, regular files only, encodings, row cap, codes as text).
    * ``missing``: ``"drop"`` rows with a missing value, ``"category"`` to keep them as a
      ``"(missing)"`` value, or ``"error"``.
    * Numeric columns with more than ``max_categories`` distinct values are binned into
      ``numeric_bins`` quantile intervals; text columns with more than ``max_categories``
      distinct values are refused (they are identifiers, not attributes).
    """
    if missing not in ("drop", "category", "error"):
        raise DataError(f"{name}: missing must be drop, category or error, got {missing!r}")
    frame = read_table(source, name=name, max_bytes=max_bytes, max_rows=max_rows)
    if frame.shape[1] < 1 or frame.empty:
        raise DataError(f"{name}: the file has no data rows")
    if columns is not None:
        unknown = [c for c in columns if c not in frame.columns]
        if unknown:
            raise DataError(f"{name}: no column(s) {', '.join(unknown)}; the file has {', '.join(frame.columns)}")
        frame = frame[columns]
    if frame.isna().any().any():
        if missing == "drop":
            frame = frame.dropna()
            if frame.empty:
                raise DataError(f"{name}: every row has a missing value")
        elif missing == "error":
            cols = [c for c in frame.columns if frame[c].isna().any()]
            raise DataError(f"{name}: missing values in {', '.join(cols)}")
    domain: dict[str, tuple] = {}
    out = {}
    for col in frame.columns:
        series = frame[col]
        gaps = series.isna()
        nunique = series.nunique()
        if nunique > max_categories:
            if pd.api.types.is_numeric_dtype(series):
                binned = pd.qcut(series, q=numeric_bins, duplicates="drop")
                cats = [str(c) for c in binned.cat.categories]
                values = binned.astype(str).where(~gaps, MISSING)
                out[col] = values
                domain[col] = tuple(cats) + ((MISSING,) if gaps.any() else ())
                continue
            raise DataError(f"{name}: column {col!r} has {nunique:,} distinct values "
                            f"(more than {max_categories}); drop it or bin it before uploading")
        if gaps.any():  # missing="category": one more value, numbers kept as numbers beside it
            series = series.astype(object).where(~gaps, MISSING)
        values = sorted(series.unique(), key=_sort_key)
        out[col] = series
        domain[col] = tuple(values)
    return Dataset(pd.DataFrame(out).reset_index(drop=True), domain, name)


def _sort_key(v):
    return (0, float(v), "") if isinstance(v, (int, float, np.integer, np.floating)) else (1, 0.0, str(v))


# ------------------------------------------------------------------ the one reading function
_LEADING_ZERO = re.compile(r"^[+-]?0[0-9]")
_CHUNK = 1 << 20


def _regular_file(path: str, name: str, shown: str, *, missing: str, directory: str) -> os.stat_result:
    """``os.stat(path)`` when ``path`` is a regular file; else a one-line DataError that names it as ``shown``
    (``missing`` and ``directory``: the words for a file that is not there and for a folder)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise DataError(f"{name}: {missing}") from None
    except OSError as exc:
        raise DataError(f"{name}: cannot open {shown!r} ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise DataError(f"{name}: {shown!r} {directory}")
    if not stat.S_ISREG(info.st_mode):
        raise DataError(f"{name}: {shown!r} is not a regular file (a device, pipe or socket)")
    return info


def check_input_file(path: str, name: str) -> None:
    """Raise :class:`DataError` (one line, naming ``path`` as given) unless ``path`` is a regular file this process
    can read: the command line's check of every file parameter before it estimates or starts anything."""
    _regular_file(path, name, path, missing=f"no such file: {path!r}",
                  directory="is a directory; give the path of a CSV file")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise DataError(f"{name}: cannot read {path!r} ({exc.strerror or exc})") from None


def read_bytes(source, *, name: str = "upload", max_bytes: int = MAX_BYTES) -> bytes:
    """The raw bytes of ``source`` (path, bytes or file object), refusing more than ``max_bytes``.

    Paths must name a regular file (directories, devices such as ``/dev/zero``, FIFOs and sockets are
    refused before anything is read); file objects are read in chunks and abandoned past the cap.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not path:
            raise DataError(f"{name}: no file given")
        # Messages name the file, never its folder: an uploaded table lives in a private server folder under the
        # user's own file name, and a message shown on a page must not tell a visitor where the server keeps it.
        shown = os.path.basename(path.rstrip(os.sep)) or path
        info = _regular_file(path, name, shown, directory="is a directory, not a CSV file",
                             missing=f"file not found: {shown!r} (an uploaded file may have been cleared from the "
                                     "server: upload it again)")
        if info.st_size > max_bytes:
            raise DataError(f"{name}: larger than {_mb(max_bytes)} ({info.st_size / 2**20:,.1f} MB)")
        try:
            with open(path, "rb") as fh:
                raw = _read_capped(fh, max_bytes, name)
        except OSError as exc:
            raise DataError(f"{name}: cannot read {shown!r} ({exc.strerror or exc})") from None
    elif hasattr(source, "read"):
        raw = _read_capped(source, max_bytes, name)
    else:
        raise DataError(f"{name}: expected a path, bytes or a file, got {type(source).__name__}")
    if len(raw) > max_bytes:
        raise DataError(f"{name}: larger than {_mb(max_bytes)}")
    return raw


def _mb(n: int) -> str:
    return f"{n / 2**20:g} MB" if n >= 2**20 else f"{n:,} bytes"


def _read_capped(fh, max_bytes: int, name: str) -> bytes:
    parts, size = [], 0
    while True:
        try:
            chunk = fh.read(min(_CHUNK, max_bytes + 1 - size))
        except (OSError, ValueError) as exc:
            raise DataError(f"{name}: cannot read the file ({exc})") from None
        if not chunk:
            break
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8")
        parts.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise DataError(f"{name}: larger than {_mb(max_bytes)}")
    return b"".join(parts)


def decode_text(raw: bytes, name: str = "upload", encoding: str | None = None) -> str:
    """Text of a file in ``encoding``, or detected: UTF-16 (BOM, or NUL-interleaved ASCII), UTF-8 (BOM or
    not), else Windows-1252, else Latin-1."""
    return _decode(raw, name, encoding)[0]


def upload_limits() -> tuple[int, int]:
    """(most columns, most cells) a file may have: ``[uploads]`` in ``lab_settings.toml``."""
    s = settings()
    return s.upload_max_columns, s.upload_max_cells


def _header(text: str, fmt: CsvFormat, name: str, max_columns: int) -> list[str]:
    """The first record (quoted newlines allowed), checked before anything else is parsed."""
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=fmt.delimiter), [])
    except csv.Error as exc:
        raise DataError(f"{name}: not a readable CSV header ({exc})") from None
    if len(header) > max_columns:
        raise DataError(f"{name}: {len(header):,} columns; the lab reads at most {max_columns:,} "
                        "(uploads.max_columns in lab_settings.toml): keep the columns you need")
    names = [h.strip() for h in header]
    if not any(names):
        raise DataError(f"{name}: the first line must name the columns")
    seen = set()
    for n in names:
        if n and n in seen:
            raise DataError(f"{name}: repeated column name {n!r}")
        seen.add(n)
    return names


def read_header(source, *, name: str = "upload", max_bytes: int = MAX_BYTES, prefix_bytes: int = 1 << 20,
                fmt: CsvFormat | None = None) -> list[str]:
    """Column names of a CSV without parsing its body: a path is read only up to ``prefix_bytes`` (a PPMF
    file may be gigabytes); other sources are read whole under ``max_bytes``. Same detection, caps and
    messages as :func:`read_table`."""
    if isinstance(source, (str, os.PathLike)):
        read_bytes(source, name=name, max_bytes=1 << 62)  # the precise reason for a missing path, a device…
        with open(os.fspath(source), "rb") as fh:
            raw = fh.read(prefix_bytes)
        if len(raw) == prefix_bytes:  # do not cut a multi-byte character or a record in two
            cut = raw.rfind(b"\n")
            raw = raw[:cut + 1] if cut > 0 else raw
    else:
        raw = read_bytes(source, name=name, max_bytes=max_bytes)
    fmt, text = _decoded(raw, name, fmt)
    return _header(text, fmt, name, upload_limits()[0])


def _decoded(raw: bytes, name: str, fmt: CsvFormat | None) -> tuple[CsvFormat, str]:
    """The file's text and its format: the one given (its encoding checked), or the detected one."""
    if not raw.strip():
        raise DataError(f"{name}: the file is empty")
    if fmt is None:
        return detect_format(raw, name)
    text = decode_text(raw, name, fmt.encoding)
    _check_text(text, name)
    return fmt, text


def read_table(source, *, name: str = "upload", max_bytes: int = MAX_BYTES, max_rows: int = MAX_ROWS,
               nrows: int | None = None, fmt: CsvFormat | None = None, max_columns: int | None = None,
               max_cells: int | None = None) -> pd.DataFrame:
    """Read a CSV into a DataFrame: the one reading function of the lab (see the module docstring).

    ``fmt`` fixes the encoding, separator and decimal mark (default: :func:`detect_format`); the format
    used is left in ``frame.attrs["csv_format"]``. The header is checked against the column cap before the
    body is parsed, and the body is read in chunks — at most ``max_cells`` cells, with a stop check
    (:func:`core.cancel.checkpoint`) between chunks so a page whose session ends can abandon the parse.
    Columns whose every present value is a number (and none a leading-zero code) are numeric; all others
    stay text. Missing cells (empty, ``NA``, ``NaN``…) are NaN. Column names are stripped and must be
    distinct. Raises :class:`DataError` with a one-line reason on any unusable file.
    """
    cap_columns, cap_cells = upload_limits()
    max_columns = cap_columns if max_columns is None else max_columns
    max_cells = cap_cells if max_cells is None else max_cells
    fmt, text = _decoded(read_bytes(source, name=name, max_bytes=max_bytes), name, fmt)
    names = _header(text, fmt, name, max_columns)
    row_cap = min(max_rows, max(1, max_cells // max(1, len(names))))
    limit = row_cap + 1 if nrows is None else min(nrows, row_cap + 1)
    chunks, got = [], 0
    try:
        reader = pd.read_csv(io.StringIO(text), sep=fmt.delimiter, dtype=str, nrows=limit,
                             skipinitialspace=True, on_bad_lines="error", engine="c", low_memory=False,
                             chunksize=_CHUNK_ROWS)
        with reader:
            for chunk in reader:
                chunks.append(chunk)
                got += len(chunk)
                checkpoint("reading the file")
    except pd.errors.EmptyDataError:
        raise DataError(f"{name}: the file has no columns") from None
    except Cancelled:
        raise
    except Exception as exc:  # pandas raises ParserError, ValueError, OverflowError… on malformed input
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise DataError(f"{name}: not a readable CSV ({first[:200]})") from None
    del text
    frame = pd.concat(chunks, ignore_index=True) if len(chunks) > 1 else chunks[0] if chunks else \
        pd.DataFrame(columns=names, dtype=str)
    if nrows is None and len(frame) > row_cap:
        if row_cap < max_rows:
            raise DataError(f"{name}: more than {max_cells:,} cells ({len(names):,} columns × more than "
                            f"{row_cap:,} rows; uploads.max_cells in lab_settings.toml): sample it first")
        raise DataError(f"{name}: more than {max_rows:,} rows; sample it first")
    frame.columns = [str(c).strip() for c in frame.columns]
    if len(set(frame.columns)) != len(frame.columns):
        raise DataError(f"{name}: repeated column names")
    for col in frame.columns:
        frame[col] = _typed(frame[col], fmt.decimal)
        checkpoint("reading the file")
    frame.attrs["csv_format"] = fmt
    return frame


_CHUNK_ROWS = 20_000


def _typed(col: pd.Series, decimal: str = ".") -> pd.Series:
    """Strings → numbers only when every present value is a number and none is a leading-zero code.

    With a decimal comma, ``1.234,5`` (dots as thousands separators) reads as 1234.5."""
    present = col.dropna().str.strip()
    if present.empty:
        return col
    if present.str.match(_LEADING_ZERO).any():
        return col
    stripped = col.str.strip()
    if decimal == ",":
        if not present.str.match(_COMMA_NUMBER).all():
            return col
        stripped = stripped.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
        present = stripped.dropna()
    numbers = pd.to_numeric(present, errors="coerce")
    if numbers.isna().any() or not np.isfinite(numbers.to_numpy(dtype=float)).all():
        return col
    out = pd.to_numeric(stripped, errors="coerce")
    if pd.api.types.is_float_dtype(out) and out.dropna().eq(out.dropna().round()).all() and not col.isna().any() \
            and not present.str.contains(r"[.eE]").any():
        out = out.astype(np.int64)
    return out
