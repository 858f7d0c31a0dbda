"""The ML-models lab's per-record table: ids that lead back to the user's file, z-score scaling of numeric inputs,
and the record card's comparison with differentially private runs."""
from __future__ import annotations

import numpy as np
import pandas as pd

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


# ----------------------------------------------------------------- numeric scaling
def test_zscore_uses_the_training_records_statistics_only():
    from core.models.target_model import Encoder

    rng = np.random.default_rng(0)
    train = pd.DataFrame({"hours": rng.normal(40, 10, 500), "gain": rng.exponential(900, 500),
                          "job": rng.choice(["a", "b"], 500)})
    test = pd.DataFrame({"hours": rng.normal(60, 5, 200), "gain": rng.exponential(100, 200),
                         "job": rng.choice(["a", "b"], 200)})
    enc = Encoder(["job"], ["hours", "gain"], "zscore").fit(train, test)
    Xtr, Xte = enc.transform(train), enc.transform(test)
    assert Xtr.shape == (500, 4)
    assert np.allclose(Xtr[:, 2:].mean(axis=0), 0, atol=1e-5) and np.allclose(Xtr[:, 2:].std(axis=0), 1, atol=1e-5)
    mean, sd = train[["hours", "gain"]].mean().to_numpy(), train[["hours", "gain"]].std(ddof=0).to_numpy()
    assert np.allclose(Xte[:, 2:], (test[["hours", "gain"]].to_numpy() - mean) / sd, atol=1e-4)
    assert Xte[:, 2].mean() > 1.5  # the held-out records sit where the training statistics put them
    # min-max (the default) is unchanged: (x − min)/(max − min) over every record; the one-hot part is shared
    mm = Encoder(["job"], ["hours", "gain"]).fit(train, test)
    both = pd.concat([train, test])["hours"]
    assert np.allclose(mm.transform(test)[:, 2], (test["hours"] - both.min()) / (both.max() - both.min()), atol=1e-6)
    assert (mm.transform(train)[:, :2] == Xtr[:, :2]).all()


def test_zscore_changes_the_models_inputs_and_nothing_else():
    from core.scenario import get, prepare_rng

    sc = get("ml-models")
    base = {"groups": 4, "n_per_group": 150, "targeting": "none"}
    ctx = {s: sc.prepare(sc.resolve({**base, "scaling": s}), prepare_rng(7)) for s in ("minmax", "zscore")}
    d = ctx["minmax"]["data"]
    assert d is ctx["zscore"]["data"]  # the same population (and record ids) whatever the scaling
    k = len(d.numeric)
    a, b = ctx["minmax"]["X"], ctx["zscore"]["X"]
    assert k == 2 and (a[:, :-k] == b[:, :-k]).all() and not np.allclose(a[:, -k:], b[:, -k:])
    assert np.allclose(b[:, -k:].mean(axis=0), 0, atol=1e-5) and (a[:, -k:].min(axis=0) >= 0).all()
    runs = {s: run("ml-models", {**base, "scaling": s, "epochs": 40}, seed=7) for s in ("minmax", "zscore")}
    ea, eb = runs["minmax"].exposure["columns"], runs["zscore"].exposure["columns"]
    assert ea["id"] == eb["id"] and ea["secret"] == eb["secret"] and ea["subgroup"] == eb["subgroup"]
    assert runs["zscore"].config["scaling"] == "zscore"
    # the network sees other inputs, so it learns another function: other confidences, other accuracies
    assert ea["score"] != eb["score"]
    assert runs["minmax"].metrics["train_accuracy"] != runs["zscore"].metrics["train_accuracy"]


def test_the_report_states_the_scaling():
    from core.output.report import html_report

    res = run("ml-models", {"groups": 3, "n_per_group": 100, "targeting": "none", "model": "forest",
                            "scaling": "zscore"}, seed=2)
    page = html_report([res])
    assert "scaling" in page and "zscore" in page
