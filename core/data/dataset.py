"""Categorical datasets: a DataFrame plus an explicit, ordered domain per column.

Attacks on aggregates and reconstructions reason about *domains* (every value a
column can take, including values absent from the sample), so a
:class:`Dataset` carries them explicitly and can hand out integer codes.
:func:`load_csv` turns a user's file into one, with clear errors: size cap,
encoding, missing values, and numeric columns binned into quantile ranges or
high-cardinality text columns refused.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import IO

import numpy as np
import pandas as pd

from ..errors import DataError

MAX_BYTES = 50 * 1024 * 1024
MAX_ROWS = 500_000
MAX_CATEGORIES = 200


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

    * ``source``: a path, raw bytes, or a binary/text file object (e.g. a Streamlit upload).
    * Encoding: UTF-8 (with or without BOM), falling back to Latin-1.
    * ``missing``: ``"drop"`` rows with a missing value, ``"category"`` to keep them as a
      ``"(missing)"`` value, or ``"error"``.
    * Numeric columns with more than ``max_categories`` distinct values are binned into
      ``numeric_bins`` quantile intervals; text columns with more than ``max_categories``
      distinct values are refused (they are identifiers, not attributes).
    """
    raw = _read_bytes(source, max_bytes, name)
    text = None
    for enc in ("utf-8-sig", "latin-1"):
        try:
            text = raw.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    try:
        frame = pd.read_csv(io.StringIO(text), nrows=max_rows + 1, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise DataError(f"{name}: not a readable CSV ({str(exc).splitlines()[0]})") from None
    if len(frame) > max_rows:
        raise DataError(f"{name}: more than {max_rows:,} rows; sample it first")
    if frame.shape[1] < 1 or frame.empty:
        raise DataError(f"{name}: the file has no data rows")
    frame.columns = [str(c).strip() for c in frame.columns]
    if len(set(frame.columns)) != len(frame.columns):
        raise DataError(f"{name}: repeated column names")
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
        elif missing == "category":
            frame = frame.astype(object).where(frame.notna(), "(missing)")
        else:
            cols = [c for c in frame.columns if frame[c].isna().any()]
            raise DataError(f"{name}: missing values in {', '.join(cols)}")
    domain: dict[str, tuple] = {}
    out = {}
    for col in frame.columns:
        series = frame[col]
        nunique = series.nunique()
        if nunique > max_categories:
            if pd.api.types.is_numeric_dtype(series):
                binned = pd.qcut(series, q=numeric_bins, duplicates="drop")
                cats = [str(c) for c in binned.cat.categories]
                out[col] = binned.astype(str)
                domain[col] = tuple(cats)
                continue
            raise DataError(f"{name}: column {col!r} has {nunique:,} distinct values "
                            f"(more than {max_categories}); drop it or bin it before uploading")
        values = sorted(series.unique(), key=_sort_key)
        out[col] = series
        domain[col] = tuple(values)
    return Dataset(pd.DataFrame(out).reset_index(drop=True), domain, name)


def _sort_key(v):
    return (0, float(v), "") if isinstance(v, (int, float, np.integer, np.floating)) else (1, 0.0, str(v))


def _read_bytes(source, max_bytes: int, name: str) -> bytes:
    if isinstance(source, bytes):
        raw = source
    elif isinstance(source, str):
        try:
            with open(source, "rb") as fh:
                raw = fh.read(max_bytes + 1)
        except OSError as exc:
            raise DataError(f"{name}: cannot open {source!r} ({exc.strerror})") from None
    else:
        raw = source.read(max_bytes + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
    if len(raw) > max_bytes:
        raise DataError(f"{name}: larger than {max_bytes // (1024 * 1024)} MB")
    if not raw.strip():
        raise DataError(f"{name}: the file is empty")
    return raw
