"""Formula-safe CSV downloads: what a spreadsheet would evaluate is neutralised, wherever the blanks and whichever
the width of the sign; the table toolbar's verbatim export is off, so the safe download is the only one."""
from __future__ import annotations

import csv
import io
import tomllib

import pandas as pd
import pytest
from lab_paths import ROOT

from core.output import safe_csv


@pytest.mark.parametrize("cell", [" =1+1", "\n=1+1", "\r\n+cmd", "  \n @SUM(A1)", "\u00a0-2+3", "＝1+1",
                                  "＋cmd", "－1+1", "＠SUM(A1)", "\u3000＝HYPERLINK(\"http://x\")", "=1", "\t"])
def test_cells_a_spreadsheet_would_evaluate_get_an_apostrophe(cell):
    assert safe_csv.neutralise(cell) == "'" + cell
    text = safe_csv.to_csv(pd.DataFrame({"c": [cell]}))
    assert next(csv.reader(io.StringIO(text.split("\n", 1)[1]))) == ["'" + cell]  # survives the round trip


@pytest.mark.parametrize("cell", ["-3", " -3", "\n+1.5e3", "safe", " safe", "a=b", "", " ", "１=1"])
def test_plain_text_and_plain_numbers_are_left_alone(cell):
    assert safe_csv.neutralise(cell) == cell


def test_column_names_are_treated_like_cells():
    assert safe_csv.to_csv(pd.DataFrame({" =cmd": [1]})).splitlines()[0] == '"\' =cmd"'


def test_the_table_toolbar_export_is_off_where_the_safe_download_exists():
    import streamlit.config as config

    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert settings["client"]["disableDataExport"] is True
    assert config.get_option("client.disableDataExport") in (True, False)  # the option exists in this Streamlit
    # every page that shows a table of records also offers the formula-safe download
    for page in sorted((ROOT / "pages").glob("*.py")):
        text = page.read_text()
        if "st.dataframe(" in text and "Compare_runs" not in page.name:
            assert "download_table(" in text, page.name
