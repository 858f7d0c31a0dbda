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
