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
    """The frame as a CSV file with a blank line after data row ``blank_after`` (a reader skips it; the rows under
    it keep their numbers in the file, the blank line counted)."""
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
    # id 1 = the first data row under the header; the blank line is row 701 of the file, as a spreadsheet counts
    assert np.unique(ids).size == ids.size and ids.min() >= 1 and ids.max() <= len(frame) + 1 and 701 not in ids
    rows = frame.iloc[np.where(ids > 701, ids - 2, ids - 1)]
    assert not rows[["age", "married", "region", "income"]].isna().any().any()
    assert "islands" not in set(rows["region"]) and any("Left out 1" in n for n in res.series["notes"])
    assert set(info["sensitive_values"]) == {"yes", "no"}
    assert rows["married"].tolist() == ex["columns"]["secret"]  # the file's own values, not codes
    # every column the attacker knows, as the file writes it (the model's output, income, among them)
    assert rows["region"].tolist() == ex["columns"]["region"]
    assert rows["income"].tolist() == ex["columns"]["income"]
    assert rows["age"].astype(str).tolist() == ex["columns"]["age"] and "married" not in ex["known"]
    assert np.mean(np.array(ex["columns"]["guess"]) == rows["married"].to_numpy()) == res.metrics["accuracy"]
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


# ----------------------------------------------------------------- the record card beside DP runs
RECON = {"n": 14, "query_ratio": 0.6, "trials": 2, "sweeps": False}


@pytest.fixture(scope="module")
def recon_runs():
    """One seed, three releases of the same people: exact answers (no DP), and Gaussian noise at two levels."""
    return {level: run("reconstruction", {**RECON, **({"defense": "gaussian", "defense_level": level} if level else {})},
                       seed=5).to_dict(records=False) for level in (0.0, 1.0, 3.0)}


def test_which_runs_are_dp_releases():
    from core.measure.records import dp_release
    from core.scenarios.synthetic.data import DP_GENERATORS

    assert "privbayes" in DP_GENERATORS
    assert dp_release(run("reconstruction", {**RECON, "defense": "rounding", "defense_level": 2.0}, seed=1)) is None
    eps, delta = dp_release(run("reconstruction", {**RECON, "defense": "gaussian", "defense_level": 1.0}, seed=1))
    assert 0 < eps < 20 and delta == 1e-5
    assert dp_release(run("synthetic", {"n": 200, "games": 2, "synth_size": 100, "dataset": "acs-like",
                                        "generator": "privbayes", "epsilon": 1.0}, seed=1)) == (1.0, 0.0)
    assert dp_release(run("synthetic", {"n": 200, "games": 2, "synth_size": 100, "dataset": "acs-like"}, seed=1)) \
        is None
    assert dp_release({"metrics": {"claimed_epsilon": float("inf")}}) is None  # the ML lab's models claim none
    assert dp_release({"metrics": {"claimed_epsilon": 0.5, "claimed_delta": 1e-6}}) == (0.5, 1e-6)


def _row(result: dict, i: int) -> dict:
    cols = result["exposure"]["columns"]
    return {c: cols[c][i] for c in cols}


def test_a_dp_run_shows_what_it_measured_for_the_record_next_to_its_bound(recon_runs):
    from core.measure.records import counterfactual, dp_comparisons

    noisy = recon_runs[1.0]
    rec = _row(noisy, 3)
    (c,) = dp_comparisons(rec, noisy)
    eps, delta = noisy["metrics"]["release_epsilon"], noisy["metrics"]["release_delta"]
    cols = noisy["exposure"]["columns"]
    prior = np.mean([s == rec["guess"] for s in cols["secret"]])
    same = [ok for g, ok in zip(cols["guess"], cols["correct"]) if g == rec["guess"]]
    assert c["this_run"] and (c["epsilon"], c["delta"]) == (eps, delta)
    assert (c["guess"], c["score"], c["tier"], c["correct"]) == (rec["guess"], rec["score"], rec["tier"],
                                                                 rec["correct"])
    assert c["prior"] == pytest.approx(prior) and c["bound"] == pytest.approx(counterfactual(eps, delta, prior))
    assert c["hit_n"] == len(same) and c["hit_rate"] == pytest.approx(np.mean(same))
    assert 0 <= c["hit_low"] <= c["hit_rate"]
    assert dp_comparisons(_row(recon_runs[0.0], 3), recon_runs[0.0]) == []  # exact answers: no DP to compare


def test_pinned_dp_runs_of_the_same_lab_show_the_same_record(recon_runs):
    from core.measure.records import counterfactual, dp_comparisons

    exact = recon_runs[0.0]
    rec = _row(exact, 5)
    other_lab = {**recon_runs[1.0], "scenario": "location"}
    pins = [recon_runs[1.0], exact, other_lab, recon_runs[3.0]]
    found = dp_comparisons(rec, exact, pins, ["#1", "#2", "#3", "#4"])
    assert [c["run"] for c in found] == ["#1", "#4"]  # not the current run itself, not another lab's people
    for c, pin in zip(found, (recon_runs[1.0], recon_runs[3.0])):
        there = _row(pin, 5)
        assert there["id"] == rec["id"] and c["secret"] == rec["secret"]
        assert (c["guess"], c["score"], c["tier"]) == (there["guess"], there["score"], there["tier"])
        assert c["epsilon"] == pin["metrics"]["release_epsilon"]
        assert c["bound"] == pytest.approx(counterfactual(c["epsilon"], c["delta"], c["prior"]))
    assert found[0]["epsilon"] > found[1]["epsilon"]  # more noise, smaller ε
    # the same id naming somebody else (another truth or other known attributes) is not the same record
    changed = {**recon_runs[1.0], "exposure": {**recon_runs[1.0]["exposure"]}}
    cols = {k: list(v) for k, v in changed["exposure"]["columns"].items()}
    cols["secret"][5] = 1 - cols["secret"][5]
    changed["exposure"]["columns"] = cols
    assert dp_comparisons(rec, exact, [changed], ["#1"]) == []
    known = changed["exposure"]["known"][0]
    cols["secret"][5] = rec["secret"]
    cols[known][5] = "someone else"
    assert dp_comparisons(rec, exact, [changed], ["#1"]) == []


def test_the_ml_page_offers_the_scaling_and_its_card_speaks_the_datas_words():
    from apptest_helpers import open_page

    at = open_page("pages/50_ML_models.py", groups=3, n_per_group=100, model="forest", targeting="none",
                   scaling="zscore")
    assert not at.exception, at.exception
    box = next(s for s in at.selectbox if s.label == "Numeric scaling")
    assert box.value == "zscore" and "training records' mean" in box.help
    captions = " ".join(c.value for c in at.caption)
    assert "synthetic census" in captions and "secret = MAR" in captions
    truth = next(m for m in at.metric if m.label == "Truth")
    assert truth.value in ("married", "single")
    assert not any("Pin a run of this lab" in c.value for c in at.caption)  # the lab has no DP release to pin
