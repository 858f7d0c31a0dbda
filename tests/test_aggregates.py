"""Census data, Table-1 releases and the aggregates scenario (DeSIA paper, seed 000)."""
import numpy as np
import pandas as pd
import pytest

from core.data.census import (CENRACE, load_csv, load_ppmf, national_age_sex, national_race, split_block,
                              synthetic_block, unique_on_nonsensitive)
from core.errors import DataError, ParameterError
from core.runtime.games import run
from core.releases.census_tables import make_release, marginal_pool, noisy_answers, sf1_pool
from core.scenario import get

SMALL = {"block_size": 120, "blocks": 3, "shadows": 200, "query_ratio": 0.5, "time_limit": 20}


def test_cenrace_order_and_national_distributions():
    assert len(CENRACE) == 63
    assert CENRACE[0] == {0} and CENRACE[5] == {5} and CENRACE[6] == {0, 1} and CENRACE[-1] == set(range(6))
    p_race = national_race()
    assert p_race.sum() == pytest.approx(1) and p_race[0] == pytest.approx(0.724, abs=0.002)
    assert p_race[[len(r) >= 2 for r in CENRACE]].sum() == pytest.approx(0.029, abs=0.003)
    p_age, male = national_age_sex()
    assert p_age[:18].sum() == pytest.approx(0.240, abs=0.01)   # 2010: 24.0 % under 18
    assert p_age[65:].sum() == pytest.approx(0.130, abs=0.01)   # 2010: 13.0 % aged 65+


def test_synthetic_block_follows_the_calibration():
    pop = synthetic_block(40000, np.random.default_rng(0), race_concentration=np.inf)
    r = pop.records
    assert pop.synthetic and r.shape == (40000, 4)
    assert np.mean(r[:, 2] == 0) == pytest.approx(0.724, abs=0.01)
    assert np.mean(r[:, 0] == 0) == pytest.approx(0.492, abs=0.01)
    assert np.mean(r[:, 1] < 18) == pytest.approx(0.240, abs=0.01)
    assert np.mean(r[:, 3]) == pytest.approx(0.163, abs=0.01)
    D, aux = split_block(r[:1000], 0.1, np.random.default_rng(1))
    assert len(D) == 100 and len(aux) == 900


def test_pool_sizes_and_cell_semantics():
    pool = sf1_pool()
    assert 640 <= len(pool) <= 660  # ≈650 distinct SF1 cells (spec §3.1)
    assert len(sf1_pool("rap_reference")) == 421
    rng = np.random.default_rng(2)
    D = synthetic_block(3000, rng).records
    rel, names = make_release(D, pool, 0.999 * len(pool) / 3000, rng)
    got = dict(zip(names, rel.answers))
    sex, age, race, hisp = D.T
    assert got["P1:total"] == 3000
    assert got["P12H:female_22-24"] == np.sum((sex == 1) & (age >= 22) & (age <= 24) & (hisp == 1))
    assert got["P11:nh_White+Asian"] == np.sum((age >= 18) & (race == CENRACE.index({0, 3})) & (hisp == 0))
    assert got["P7:h_Asian_any"] == np.sum(np.isin(race, [i for i, r in enumerate(CENRACE) if 3 in r]) & (hisp == 1))
    assert got["P12I:male_85+"] == np.sum((sex == 0) & (age >= 85) & (race == 0) & (hisp == 0))


def test_release_sampling_and_noise():
    rng = np.random.default_rng(3)
    D = synthetic_block(454, rng).records
    rel, names = make_release(D, sf1_pool(), 0.25, np.random.default_rng(9))
    assert rel.n_queries == round(0.25 * 454) == len(set(names))
    assert np.array_equal(rel.answers, rel.evaluate(D))
    again, _ = make_release(D, sf1_pool(), 0.25, np.random.default_rng(9))
    assert np.array_equal(again.answers, rel.answers)
    noisy = noisy_answers(np.full(20000, 10.0), 0.5, np.random.default_rng(0))
    assert np.all(noisy == np.round(noisy))
    assert np.mean(np.abs(noisy - 10)) == pytest.approx(2.0, abs=0.1)  # E|Lap(1/ε)| = 1/ε (+ rounding)
    with pytest.raises(ParameterError):
        make_release(D, sf1_pool(), 1.5, rng)
    with pytest.raises(ParameterError):
        sf1_pool().sample(1000, rng)


def test_marginal_pool_counts():
    pool = marginal_pool((2, 3, 4), ("a", "b", "c"), ways=2)
    assert len(pool) == 1 + (2 + 3 + 4) + (2 * 3 + 2 * 4 + 3 * 4)


def test_ppmf_loader(tmp_path):
    rows = []
    for blk, n in (("0001", 30), ("0002", 50), ("0003", 80)):
        for i in range(n):
            rows.append({"TABBLKST": "01", "TABBLKCOU": "001", "TABTRACTCE": "000100", "TABBLK": blk,
                         "QSEX": 1 + i % 2, "QAGE": i % 90, "CENRACE": 1 + i % 63, "CENHISP": 1 + (i % 3 == 0)})
    path = tmp_path / "ppmf.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    pop, block = load_ppmf(path, min_size=40, chunksize=37)
    assert block.endswith("0002") and len(pop) == 50 and not pop.synthetic
    assert pop.records[:, 3].sum() == sum(i % 3 == 0 for i in range(50))
    pd.DataFrame(rows).drop(columns="CENHISP").to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(DataError, match="CENHISP"):
        load_ppmf(tmp_path / "bad.csv")
    with pytest.raises(DataError, match="no block"):
        load_ppmf(path, min_size=1000)


def test_generic_csv_loader(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(18, 90, 200), "sex": rng.choice(["F", "M"], 200),
                       "smoker": rng.choice(["yes", "no"], 200)})
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    pop = load_csv(path, "smoker")
    assert pop.attributes == ("age", "sex", "smoker") and pop.cardinalities[1:] == (2, 2)
    assert pop.cardinalities[0] <= 10  # numeric age binned into quantiles
    with pytest.raises(DataError, match="not in"):
        load_csv(path, "income")
    with pytest.raises(DataError):
        load_csv(tmp_path / "missing.csv", "smoker")


@pytest.fixture(scope="module")
def small_run():
    return run("aggregates", SMALL, seed=5)


def test_scenario_run_is_correct_and_reproducible(small_run):
    m = small_run.metrics
    assert small_run.completed and m["targets"] > 100
    assert m["deterministic_errors"] == 0 and 0 <= m["deterministic_fraction"] <= 1
    for key in ("auc", "tpr_at_fpr_0.1", "tpr_at_fpr_0.01", "tpr_at_fpr_0.001"):
        assert 0 <= m[key] <= 1
    assert [r["find feasible value"] for r in small_run.series["ablation"]] == ["solver"] * 3
    again = run("aggregates", SMALL, seed=5)
    same = {k: v for k, v in m.items() if "seconds" not in k}
    assert {k: v for k, v in again.metrics.items() if "seconds" not in k} == same
    sc = get("aggregates")
    config = sc.resolve(SMALL)
    ctx = sc.prepare(config, np.random.default_rng(0))
    part, series = sc.summarize(config, ctx, small_run.records[:1])  # live plots on a prefix
    assert part["targets"] == len(small_run.records[0]["rows"]) and "roc" in series


def test_random_guess_reference_is_chance(small_run):
    assert abs(small_run.metrics["auc_random"] - 0.5) < 0.1


def test_mia_task_deterministic_answers_are_right():
    res = run("aggregates", {**SMALL, "task": "mia", "blocks": 1, "targets": 24}, seed=2)
    assert res.metrics["targets"] == 24 and res.metrics["deterministic_errors"] == 0


def test_bad_parameters_are_rejected():
    sc = get("aggregates")
    for bad in ({"query_ratio": 2.0}, {"query_ratio": 0.0}, {"attack": "gurobi"}, {"block_size": 5}, {"shadows": 1},
                {"data": "csv"}, {"data": "csv", "data_path": "/x.csv"}, {"task": "mia", "ablation": True},
                {"epsilon": -1}, {"nonsense": 1}):
        with pytest.raises(ParameterError):
            sc.resolve(bad)
    with pytest.raises(DataError):
        run("aggregates", {"data": "ppmf", "data_path": "/nonexistent.csv"}, seed=0)


def test_unique_targets_helper():
    recs = np.array([[0, 1, 0], [0, 1, 1], [1, 1, 0], [2, 0, 1]])
    assert unique_on_nonsensitive(recs).tolist() == [False, False, True, True]


def test_epsilon_sweep_and_rap_ablation_rows():
    from core.plots import aggregates as plots
    from core.scenarios.aggregates.data import EPS_GRID
    res = run("aggregates", {"block_size": 60, "blocks": 1, "shadows": 100, "query_ratio": 0.5, "sweep": "epsilon",
                             "ablation": True, "rap_steps": 20}, seed=3)
    sw = res.series["sweep"]
    assert sw["x"] == list(EPS_GRID) and len(sw["DeSIA"]) == len(EPS_GRID)
    fig = plots.sweep_figure(res.series)
    assert fig is not None and any(t.fill == "toself" for t in fig.data)  # 95% bands
    assert len(sw["ci"]["DeSIA"]) == len(EPS_GRID)
    # the highest AUC each point's per-person DP claim allows (none without noise)
    assert sw["claimed_epsilon"][0] is None and all(e > 0 for e in sw["claimed_epsilon"][1:])
    finds = [r["find feasible value"] for r in res.series["ablation"]]
    assert finds == ["solver"] * 3 + ["synthetic data (RAP)"] * 2
    # noisy releases never make the run fail; noiseless settled answers stay right
    noiseless = [r for rec in res.records if rec["epsilon"] == 0 for r in rec["rows"] if r.get("settled")]
    assert all(r["prediction"] == r["label"] for r in noiseless)
