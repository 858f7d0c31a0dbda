"""Excel workbooks (``.xlsx``) as the CSV text the lab's one reader parses.

An analyst's table often arrives as a workbook. :func:`xlsx_to_csv` reads its first worksheet with openpyxl
(read-only and values only: formulas give their last computed value, nothing is evaluated or executed) and
writes it as UTF-8, comma-separated text with decimal points, so detection, caps, typing and the import
preview are the same as for a CSV. Whole numbers stored as ``3.0`` are written ``3``; dates as ISO text.
The caps of :func:`core.data.dataset.read_table` hold here too: at most ``max_cells`` cells are read, so a
workbook that unzips to millions of cells is refused without building them. Older ``.xls`` workbooks and
other formats are refused with "save it as CSV".
"""
from __future__ import annotations

import csv
import datetime as dt
import io

from ..errors import DataError

SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm")
REFUSED_SUFFIXES = (".xls", ".ods", ".numbers")


def is_workbook(name: str, raw: bytes) -> bool:
    """An ``.xlsx`` by its name, or any ZIP container named otherwise (a workbook renamed ``.csv``)."""
    return str(name).lower().endswith(SPREADSHEET_SUFFIXES) or raw[:4] == b"PK\x03\x04"


def refuse_other_formats(name: str) -> None:
    lower = str(name).lower()
    if lower.endswith(REFUSED_SUFFIXES):
        raise DataError(f"{name}: this spreadsheet format is not read here; save it as CSV (or as .xlsx) and "
                        "upload that")


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def xlsx_to_csv(raw: bytes, name: str, max_columns: int, max_cells: int) -> bytes:
    """The first worksheet of the workbook ``raw`` as UTF-8 CSV bytes (see the module docstring).

    Raises :class:`DataError` (one line) for a file openpyxl cannot open, an empty sheet, or a sheet beyond
    the caps. Trailing empty rows and columns (a formatted but unused range) are left out."""
    try:
        # openpyxl is needed only for an .xlsx upload
        import openpyxl
    except ImportError:  # pragma: no cover - openpyxl is in requirements.txt
        raise DataError(f"{name}: Excel files cannot be read on this server; save it as CSV and upload that") \
            from None
    try:
        book = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # zipfile.BadZipFile, KeyError, InvalidFileException… on a damaged or foreign file
        raise DataError(f"{name}: not a readable Excel workbook ({type(exc).__name__}); save it as CSV") from None
    try:
        sheet = book.worksheets[0] if book.worksheets else None
        if sheet is None:
            raise DataError(f"{name}: the workbook has no worksheet")
        rows, cells, width = [], 0, 0
        for values in sheet.iter_rows(values_only=True):
            row = [_cell(v) for v in values]
            while row and row[-1] == "":
                row.pop()
            if len(row) > max_columns:
                raise DataError(f"{name}: {len(row):,} columns; the lab reads at most {max_columns:,} "
                                "(uploads.max_columns in lab_settings.toml): keep the columns you need")
            cells += len(row)
            if cells > max_cells:
                raise DataError(f"{name}: more than {max_cells:,} cells (uploads.max_cells in lab_settings.toml): "
                                "sample it first")
            rows.append(row)
            width = max(width, len(row))
    finally:
        book.close()
    while rows and not any(rows[-1]):
        rows.pop()
    if not rows or width == 0:
        raise DataError(f"{name}: the first worksheet is empty")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow(row + [""] * (width - len(row)))
    return out.getvalue().encode("utf-8")
