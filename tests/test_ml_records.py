"""The ML-models lab's per-record table: ids that lead back to the user's file, z-score scaling of numeric inputs,
and the record card's comparison with differentially private runs."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import disparity_population as P
from core.data.table_import import inspect_upload
from core.runtime.games import run


def _upload_like(seed: int = 3, n: int = 2000) -> pd.DataFrame:
    """A table as an analyst would bring it: text and numbers, missing cells in the role columns and in a feature,
    and one group too small to keep."""
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east", "west"], n)
    region[:12] = "islands"  # 12 records: under the minimum group size once split, so the group is left out
    married = rng.choice(["yes", "no"], n)
    age = rng.integers(18, 90, n).astype(float)
    income = np.where((age > 40) ^ (married == "yes") ^ (rng.random(n) < 0.2), "high", "low")
    frame = pd.DataFrame({"age": age, "job": rng.choice(["a", "b", "c"], n), "region": region,
                          "married": married, "income": income})
    frame.loc[rng.choice(n, 40, replace=False), "married"] = np.nan
    frame.loc[rng.choice(n, 30, replace=False), "region"] = np.nan
    frame.loc[rng.choice(n, 25, replace=False), "income"] = np.nan
    frame.loc[rng.choice(n, 20, replace=False), "age"] = np.nan
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _csv_bytes(frame: pd.DataFrame, blank_after: int) -> bytes:
    """The frame as a CSV file with a blank line after data row ``blank_after`` (a reader skips it)."""
    lines = frame.to_csv(index=False, lineterminator="\n").splitlines()
    lines.insert(blank_after + 1, "")
    return ("\n".join(lines) + "\n").encode()


def test_uploaded_records_keep_the_row_of_the_users_file(tmp_path):
    frame = _upload_like()
    # as the page does: the import step reads the upload, the engine reads its normalised copy
    table = inspect_upload(_csv_bytes(frame, blank_after=700), "people.csv")
    assert table.rows == len(frame)
    path = tmp_path / "people.csv"
    path.write_bytes(table.normalised_csv())
    res = run("ml-models", {"dataset": "csv", "data_path": str(path), "label": "income", "sensitive": "married",
                            "group": "region", "model": "forest", "targeting": "none", "max_records": 1000},
              seed=4)
    ex = res.exposure
    info = res.series["info"]
    ids = np.array(ex["columns"]["id"])
    assert len(ids) == ex["total"] == 1000  # the training cap applies after the rows with missing values went
    assert np.unique(ids).size == ids.size and ids.min() >= 1 and ids.max() <= len(frame)
    rows = frame.iloc[ids - 1]  # id 1 = the first data row under the header
    assert not rows[["age", "married", "region", "income"]].isna().any().any()
    assert "islands" not in set(rows["region"]) and any("Left out 1" in n for n in res.series["notes"])
    values = info["sensitive_values"]
    secret = [values[v] for v in ex["columns"]["secret"]]
    assert rows["married"].tolist() == secret
    assert rows["region"].tolist() == ex["columns"]["subgroup"]
    assert rows["income"].tolist() == [info["label_values"][v] for v in ex["columns"]["label"]]
    assert any("first row under the header" in n for n in ex["notes"])


def test_built_in_populations_number_their_records_stably():
    tv = P.tv16("votetrump", "bornagain", "state", seed=2, max_train=3000)
    full = P._tv16_frame()
    rows = full.loc[tv.train_rows - 1]
    assert (rows["bornagain"].to_numpy() == tv.s).all() and (rows["state"].astype(str) == [
        tv.group_names[g] for g in tv.g]).all()
    again = P.tv16("votetrump", "bornagain", "state", seed=2, max_train=3000)
    assert (again.train_rows == tv.train_rows).all()
    syn = P.synthetic(60, seed=5, n_groups=4)
    assert np.unique(syn.train_rows).size == syn.train_rows.size == 240 and syn.train_rows.min() >= 1
    assert (P.synthetic(60, seed=5, n_groups=4).train_rows == syn.train_rows).all()
