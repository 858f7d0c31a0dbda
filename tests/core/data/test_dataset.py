import numpy as np
import pandas as pd
import pytest

from core.data.dataset import Dataset, load_csv
from core.errors import DataError


def test_load_csv_builds_domains_and_codes(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("sex,age,zip\nF,30,02138\nM,41,02139\nF,30,02139\n")
    d = load_csv(str(p))
    assert d.columns == ["sex", "age", "zip"]
    assert d.domain["sex"] == ("F", "M") and d.domain["age"] == (30, 41)
    codes = d.codes()
    assert codes.shape == (3, 3) and codes[:, 0].tolist() == [0, 1, 0]
    back = Dataset.from_codes(codes, d.domain)
    assert back.frame["sex"].tolist() == ["F", "M", "F"]


def test_numeric_high_cardinality_is_binned_text_is_refused():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"income": rng.normal(50_000, 10_000, 1000).round(), "g": rng.integers(0, 2, 1000)})
    d = load_csv(frame.to_csv(index=False).encode(), numeric_bins=4)
    assert len(d.domain["income"]) == 4
    ids = pd.DataFrame({"name": [f"person{i}" for i in range(300)], "g": [0, 1] * 150})
    with pytest.raises(DataError, match="name.*300 distinct"):
        load_csv(ids.to_csv(index=False).encode())


def test_missing_values_policies():
    raw = b"a,b\n1,x\n,y\n3,z\n"
    assert len(load_csv(raw)) == 2
    assert "(missing)" in load_csv(raw, missing="category").domain["a"]
    with pytest.raises(DataError, match="missing values in a"):
        load_csv(raw, missing="error")


def test_size_cap_encoding_and_garbage():
    with pytest.raises(DataError, match="larger than"):
        load_csv(b"a\n" + b"1\n" * 2_000_000, max_bytes=1024 * 1024)
    latin = "name,city\nx,Zürich\ny,Genève\n".encode("latin-1")
    assert "Zürich" in load_csv(latin).domain["city"]
    with pytest.raises(DataError, match="empty"):
        load_csv(b"   ")
    with pytest.raises(DataError):
        load_csv(b'a,b\n1,2,3,4\n"unterminated')


def test_dataset_rejects_values_outside_domain():
    with pytest.raises(DataError, match="outside its domain"):
        Dataset(pd.DataFrame({"a": [1, 2]}), {"a": (1,)})


# ---------------------------------------------------------------- the one CSV reader
import io  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402

from core.data import census, dataset, traces  # noqa: E402
from core.data.dataset import read_table  # noqa: E402
from core.reid import people  # noqa: E402


class Endless(io.RawIOBase):
    """A file object that never ends (like /dev/zero or a pipe that keeps writing)."""

    def readable(self):
        return True

    def readinto(self, b):
        b[:] = b"1," * (len(b) // 2) + b"1" * (len(b) % 2)
        return len(b)


LOADERS = {
    "dataset": lambda src: load_csv(src),
    "census": lambda src: census.load_csv(src, "s"),
    "trace": lambda src: traces.load_trace_csv(src, np.random.default_rng(0)),
    "geojson": lambda src: traces.load_social_pulse_geojson(src, np.random.default_rng(0)),
    "people": lambda src: people.load_people_csv(src),
}


@pytest.mark.parametrize("loader", list(LOADERS))
def test_endless_device_file_and_directory_are_refused_quickly(loader, tmp_path):
    start = time.perf_counter()
    with pytest.raises(DataError, match="not a regular file"):
        LOADERS[loader]("/dev/zero")
    with pytest.raises(DataError, match="is a directory"):
        LOADERS[loader](str(tmp_path))
    assert time.perf_counter() - start < 2.0


def test_endless_stream_stops_at_the_byte_cap():
    start = time.perf_counter()
    with pytest.raises(DataError, match="larger than 1 MB"):
        read_table(Endless(), max_bytes=2**20)
    with pytest.raises(DataError, match="larger than"):
        load_csv(Endless(), max_bytes=2**20)
    assert time.perf_counter() - start < 5.0


def test_size_cap_on_paths_is_checked_before_reading(tmp_path):
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:  # sparse 60 MB file: refused from its size, not by reading it
        fh.truncate(60 * 2**20)
    with pytest.raises(DataError, match="larger than 50 MB"):
        load_csv(str(big))
    with pytest.raises(DataError, match="larger than"):
        people.load_people_csv(str(big))


def test_row_cap():
    with pytest.raises(DataError, match="more than 1,000 rows"):
        read_table(b"a\n" + b"1\n" * 1001, max_rows=1000)
    assert len(read_table(b"a\n" + b"1\n" * 1000, max_rows=1000)) == 1000


def test_leading_zero_codes_stay_text_everywhere(tmp_path):
    raw = b"zip,age,s\n" + b"02130,30,x\n10001,41,y\n02130,52,x\n" * 4
    frame = read_table(raw)
    assert frame["zip"].tolist()[:2] == ["02130", "10001"] and frame["age"].dtype.kind == "i"
    d = load_csv(raw)
    assert d.domain["zip"] == ("02130", "10001") and d.domain["age"] == (30, 41, 52)
    p = people.load_people_csv(raw)
    assert "02130" in set(p.table["zip"])
    path = tmp_path / "c.csv"
    path.write_bytes(raw)
    pop = census.load_csv(path, "s")
    assert pop.value_labels["zip"] == ["02130", "10001"]
    # a numeric column stays numeric (and is binned when it has many values)
    assert read_table(b"x\n0\n0.5\n-3\n")["x"].tolist() == [0.0, 0.5, -3.0]


def test_encodings_latin1_cp1252_utf16_and_bom():
    latin = "zip,city\n01234,Zürich\n05678,Genève\n".encode("latin-1")
    assert read_table(latin)["city"].tolist() == ["Zürich", "Genève"]
    cp = "a,b\n1,“quoted” €\n".encode("cp1252")
    assert read_table(cp)["b"].tolist() == ["“quoted” €"]
    for enc in ("utf-16", "utf-8-sig"):
        assert read_table("naïve,b\n1,é\n".encode(enc)).columns.tolist() == ["naïve", "b"]
    p = people.load_people_csv("name,ville,hiv\nAnn,Zürich,Y\nBob,Genève,N\nCat,Zürich,N\n".encode("latin-1"))
    assert set(p.table["ville"]) == {"Zürich", "Genève"}


def test_bad_files_give_one_line_data_errors():
    for raw, msg in ((b"", "empty"), (b"\x00\x01\x02", "binary"), (b"a,a\n1,2\n", "repeated column"),
                     (b"a,b\n1,2\n3,4,5,6\n", "not a readable CSV"), (b",\n1,2\n", "name the columns")):
        with pytest.raises(DataError, match=msg) as info:
            read_table(raw)
        assert "\n" not in str(info.value)
    with pytest.raises(DataError, match="no file given"):
        read_table("")


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="not a regular file"):
        load_csv(str(fifo))


def test_a_vanished_file_is_named_without_its_server_folder(tmp_path):
    # an upload lives in a private folder under the user's own file name; once it is gone, the message a page
    # shows names the file the user knows and says what to do, never the folder the server keeps it in
    folder = tmp_path / "upload-0123abcd"
    folder.mkdir()
    path = folder / "my survey.csv"
    with pytest.raises(DataError) as err:
        dataset.read_bytes(str(path), name="Upload")
    text = str(err.value)
    assert "'my survey.csv'" in text and "upload it again" in text
    assert str(tmp_path) not in text and "upload-0123abcd" not in text
