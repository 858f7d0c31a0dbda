"""The synthetic lab's risk through the scenario: an independent by-hand count agrees with it on NonPrivate and on
an exact copy, and the exposure table reads back from an uploaded file with an id column."""
from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

from core.runtime.games import run
from core.scenario import get, prepare_rng
from core.scenarios.synthetic.data import _synthetic, clear_caches

FAST = {"n": 300, "games": 2, "synth_size": 300, "attack": "dcr", "query_sweep": False, "proxy_scores": False}


def _by_hand_dcr(S: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
    """Adv_dcr's expected success counted by hand, independently of the lab's code: collapse the synthetic rows
    by their known columns with pandas (each keeps its most common secret; a tie is half a win either way),
    then for each record compare, over every collapsed row, the squared distance of (x | 0) and (x | 1); the
    nearer value is the guess, a tie half a win."""
    frame = pd.DataFrame(S)
    secret = frame.columns[-1]
    groups = frame.groupby(list(frame.columns[:-1]))[secret].agg(["sum", "count"]).reset_index()
    Z = groups.iloc[:, :-2].to_numpy(dtype=float)
    ones, count = groups["sum"].to_numpy(float), groups["count"].to_numpy(float)
    wins = 0.0
    for x, truth in zip(X.astype(float), y):
        d2 = ((Z - x) ** 2).sum(axis=1)
        best = {}
        for b in (0, 1):
            # a group's value is 1 when ones > half, 0 when fewer, either (half each) on a tie
            d_if_1 = d2 + (b - 1) ** 2
            d_if_0 = d2 + b ** 2
            mode_one, tie = ones > count / 2, ones == count / 2
            cand = np.where(mode_one, d_if_1, d_if_0)
            cand_tie = np.minimum(d_if_1, d_if_0)
            best[b] = min(cand[~tie].min() if (~tie).any() else np.inf, cand_tie[tie].min() if tie.any() else np.inf)
        if best[0] == best[1]:
            wins += 0.5
        else:
            wins += float((0 if best[0] < best[1] else 1) == truth)
    return wins / len(y)


@pytest.mark.parametrize("generator", ["nonprivate", "exactcopy"])
def test_the_labs_inference_risk_and_a_count_by_hand_agree(generator):
    clear_caches()
    config = {**FAST, "generator": generator}
    result = run("synthetic", config, seed=4)
    sc = get("synthetic")
    full = sc.resolve(config)
    context = sc.prepare(full, prepare_rng(4))
    train_hand, control_hand, n_t, n_c = 0.0, 0.0, 0, 0
    for rec in result.records:
        if rec["kind"] != "main":
            continue
        r = rec["records"]
        S = _synthetic(context, full, rec["game"])["S"]
        codes = context["codes"]
        T, C = codes[r["train_rows"]], codes[r["control_rows"]]
        assert T[:, -1].tolist() == r["train_truth"]  # the people's own secrets, read from the data's rows
        train_hand += _by_hand_dcr(S, T[:, :-1], T[:, -1]) * len(T)
        control_hand += _by_hand_dcr(S, C[:, :-1], C[:, -1]) * len(C)
        n_t, n_c = n_t + len(T), n_c + len(C)
    rt, rc = train_hand / n_t, control_hand / n_c
    m = result.metrics
    # the lab flips a coin on a tie where the count by hand takes half a win: agreement to sampling of the ties
    assert m["dcr_success_train"] == pytest.approx(rt, abs=0.03)
    assert m["dcr_success_control"] == pytest.approx(rc, abs=0.03)
    assert m["dcr_risk"] == pytest.approx((rt - rc) / (1 - rc), abs=0.06)
    assert m["risk_ci_low"] > 0.3  # both releases copy their records: a clear leak, never hidden by the control
    if generator == "exactcopy":
        assert rt == pytest.approx(1.0, abs=0.02)
        assert m["linkability_risk_ci_low"] > 0.5


def _write_people(path, n=420, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        age = int(rng.integers(18, 90))
        region = rng.choice(["north", "south", "east", "west"])
        edu = rng.choice(["none", "school", "degree"])
        sex = rng.choice(["F", "M"])
        smoker = "yes" if rng.random() < (0.2 + 0.4 * (edu == "none") + 0.1 * (sex == "M")) else "no"
        rows.append({"id": f"P{i:05d}", "person_number": i + 1, "age": age, "region": region, "edu": edu,
                     "sex": sex, "smoker": smoker})
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return rows


def test_every_exposed_person_reads_back_from_the_file_and_an_id_column_is_never_an_attribute(tmp_path):
    path = tmp_path / "people.csv"
    rows = _write_people(path)
    config = {**FAST, "n": 200, "dataset": "csv", "data_path": str(path), "secret": "smoker", "attack": "all"}
    result = run("synthetic", config, seed=1)
    table = result.exposure
    assert table is not None
    known = table["known"]
    assert "id" not in known and "person_number" not in known
    assert set(known) == {"age", "region", "edu", "sex"}
    cols = table["columns"]
    assert table["total"] == 2 * 199  # every training record but the coin-flipped target, in each game
    for i, rid in enumerate(cols["id"]):
        row = int(rid.split("-row")[1])  # row 1 = the first data row under the header
        person = rows[row - 1]
        assert cols["secret"][i] == person["smoker"]  # the person's own value, not a coin-flipped 0/1
        for name in known:
            assert str(cols[name][i]) == str(person[name])  # ages as written, not the generator's bins
        assert cols["guess"][i] in ("yes", "no")
        assert cols["correct"][i] == (cols["guess"][i] == person["smoker"])
    assert result.metrics["baseline_train"] > 0.5


def test_an_id_column_named_by_the_import_is_ignored_and_none_keeps_every_column(tmp_path):
    from core.errors import DataError, ParameterError
    from core.scenarios.synthetic.data import identifier_columns, read_csv_rows

    path = tmp_path / "people.csv"
    _write_people(path, n=420)
    raw = read_csv_rows(str(path), path.stat().st_mtime)
    assert identifier_columns(raw) == ["id", "person_number"]
    assert identifier_columns(raw, "person_number") == ["person_number"]
    assert identifier_columns(raw, "none") == []
    with pytest.raises(ParameterError):
        identifier_columns(raw, "nope")
    # keeping the text id as an attribute is refused by the import (a value per person is no category)
    with pytest.raises(DataError):
        get("synthetic").check(get("synthetic").resolve({"dataset": "csv", "data_path": str(path),
                                                         "secret": "smoker", "identifiers": "none", "n": 50}))


def test_the_exact_copy_preset_looks_protected_to_the_dcr_proxy_and_leaks_to_the_attacks():
    """The preset's own release (1,000 training records verbatim), one game, Adv_dcr only (no LP, to be quick):
    SDMetrics' DCR overfitting protection, computed with its subsampling, calls it protected; the attacks'
    risks against the control set are near 1; the CAP proxy, which does attack, flags it."""
    from core.studies.presets import load_presets
    from core.scenarios.synthetic.risk_views import proxies_table

    preset = load_presets()["synthetic-exact-copy"]
    assert preset["params"]["generator"] == "exactcopy" and preset["metric"] == "risk"
    result = run("synthetic", {**preset["params"], "games": 1, "attack": "dcr"}, seed=0)
    m = result.metrics
    assert m["dcr_overfitting_protection"] >= 0.8
    assert m["risk_ci_low"] > 0.9 and m["linkability_risk_ci_low"] > 0.9 and m["singling_out_risk_ci_low"] > 0.9
    assert m["disclosure_protection"] < 0.2
    table = proxies_table(m, result.series)
    reads = dict(zip(table["score"], table["reads as"]))
    assert reads["DCR overfitting protection (SDMetrics)"] == "looks protected"
