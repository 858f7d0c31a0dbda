"""The lab's one CSV reader: format detection, caps checked before parsing, the same messages on every path."""
import os
import threading
import time

import numpy as np
import pandas as pd
import pytest

from core.cancel import stop_check
from core.data import census, traces
from core.data.dataset import CsvFormat, detect_format, load_csv, read_table
from core.errors import Cancelled, DataError
from core.reid import people

EURO = "Name;Größe;Gewicht;Stadt\nAnna;1,62;58,5;Köln\nBernd;1,80;81,25;Zürich\nCem;1,75;1.072,5;Wien\n"


def test_semicolon_file_with_decimal_commas_reads_as_numbers():
    frame = read_table(EURO.encode("cp1252"))
    fmt = frame.attrs["csv_format"]
    assert (fmt.delimiter, fmt.decimal, fmt.encoding) == (";", ",", "cp1252")
    assert frame.columns.tolist() == ["Name", "Größe", "Gewicht", "Stadt"]
    assert frame["Größe"].tolist() == [1.62, 1.80, 1.75]
    assert frame["Gewicht"].tolist() == [58.5, 81.25, 1072.5]  # dots as thousands separators
    assert frame["Stadt"].tolist() == ["Köln", "Zürich", "Wien"]


def test_override_wins_over_detection():
    # read with a point as decimal mark, the comma numbers stay text (the user's explicit choice)
    frame = read_table(EURO.encode("utf-8"), fmt=CsvFormat("utf-8", ";", "."))
    assert frame["Größe"].dtype == object
    with pytest.raises(DataError, match="not valid UTF-16"):
        read_table(EURO.encode("utf-8"), fmt=CsvFormat("utf-16", ";", ","))


@pytest.mark.parametrize("encoding,expected", [("utf-8-sig", "utf-8-sig"), ("utf-16", "utf-16"),
                                               ("utf-16-le", "utf-16-le"), ("utf-8", "utf-8"),
                                               ("cp1252", "cp1252")])
def test_encodings_are_detected(encoding, expected):
    raw = "naïve,b\n1,é\n".encode(encoding)
    fmt, _ = detect_format(raw)
    assert fmt.encoding == expected
    assert read_table(raw).columns.tolist() == ["naïve", "b"]


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_separators_are_detected(sep):
    raw = sep.join(["a", "b", "c"]) + "\n" + sep.join(["1", "x", "2.5"]) + "\n"
    frame = read_table(raw.encode())
    assert frame.attrs["csv_format"].delimiter == sep
    assert frame["c"].tolist() == [2.5]


def test_a_comma_file_keeps_point_decimals():
    fmt, _ = detect_format(b"a,b\n1.5,2\n3.25,4\n")
    assert (fmt.delimiter, fmt.decimal) == (",", ".")


def test_column_cap_is_checked_on_the_header_before_the_body(tmp_path):
    wide = ",".join(f"c{i}" for i in range(100_000)).encode() + b"\n" + b"1," * 99_999 + b"1\n"
    start = time.monotonic()
    with pytest.raises(DataError, match="100,000 columns; the lab reads at most 500"):
        read_table(wide)
    assert time.monotonic() - start < 5  # refused without parsing (the parse took minutes)
    path = tmp_path / "wide.csv"
    path.write_bytes(wide)
    for reader in (census.csv_columns, census.binary_columns, lambda p: load_csv(p),
                   lambda p: people.load_people_csv(str(p))):
        with pytest.raises(DataError, match="at most 500"):
            reader(path)


def test_cell_cap():
    raw = b"a,b,c,d\n" + b"1,2,3,4\n" * 300
    assert len(read_table(raw, max_cells=1200)) == 300
    with pytest.raises(DataError, match="more than 1,000 cells"):
        read_table(raw, max_cells=1000)


def test_census_header_goes_through_the_reader(tmp_path):
    path = tmp_path / "u16.csv"
    path.write_bytes("a,b\n1,2\n".encode("utf-16"))
    assert census.csv_columns(path) == ["a", "b"]  # not 'ÿþa'
    path.write_bytes(b'"first\nname",b\nx,1\n')
    assert census.csv_columns(path) == ["first\nname", "b"]  # a quoted newline in a header
    path.write_bytes(os.urandom(4096))
    with pytest.raises(DataError, match="binary data"):
        census.csv_columns(path)
    path.write_bytes(EURO.encode())
    assert census.csv_columns(path) == ["Name", "Größe", "Gewicht", "Stadt"]


def test_binary_columns_has_the_size_cap(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_bytes(b"a,b\n" + b"1,2\n" * 1000)
    monkeypatch.setattr("core.data.dataset.MAX_BYTES", 1000)
    import core.data.dataset as ds
    monkeypatch.setattr(ds.read_table, "__kwdefaults__", {**ds.read_table.__kwdefaults__, "max_bytes": 1000})
    with pytest.raises(DataError, match="larger than 1,000 bytes"):
        census.binary_columns(path)


def test_people_csv_accepts_a_check_in_file():
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"user": rng.integers(0, 40, n), "timestamp": pd.date_range(
        "2024-01-01", periods=n, freq="37min").astype(str), "lat": 45.4 + rng.random(n) * 0.1,
        "lon": 9.1 + rng.random(n) * 0.1})
    p = people.load_people_csv(frame.to_csv(index=False).encode())
    assert "lat" in p.quasi_identifiers and p.sensitive == "lon"
    assert p.hierarchies["lat"].height == 4  # bands of 0.001°, 0.002°, 0.004°, then suppressed


def test_every_path_gives_the_same_message_for_the_same_fault(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"\x00\x01\x02" * 50)
    messages = []
    for reader in (lambda: read_table(str(path), name="bad.csv"), lambda: load_csv(str(path), name="bad.csv"),
                   lambda: census.binary_columns(path), lambda: census.load_csv(path, "a"),
                   lambda: people.load_people_csv(str(path), name="bad.csv"),
                   lambda: traces.load_trace_csv(str(path), np.random.default_rng(0))):
        with pytest.raises(DataError) as info:
            reader()
        messages.append(str(info.value).split(": ", 1)[1])
    assert len(set(messages)) == 1, messages


def test_parse_stops_when_asked():
    raw = b"a,b\n" + b"1,x\n" * 100_000
    stop = threading.Event()
    stop.set()
    with stop_check(stop.is_set), pytest.raises(Cancelled):
        read_table(raw)
    assert len(read_table(raw)) == 100_000  # outside a stop check the same file reads
