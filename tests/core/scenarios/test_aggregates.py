"""Census data, Table-1 releases and the aggregates scenario (DeSIA paper, seed 000).

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
import math

import numpy as np
import pandas as pd
import pytest

from core.attacks.aggregates.desia import DeSIA, noise_slack
from core.attacks.aggregates.desia_stochastic import StochasticModule
from core.data.census import (
    CENRACE,
    binary_columns,
    load_csv,
    load_ppmf,
    national_age_sex,
    national_race,
    split_block,
    synthetic_block,
    unique_on_nonsensitive,
)
from core.errors import DataError, ParameterError
from core.measure.metrics import auc_ci
from core.plots.aggregates import plain_summary, roc_all, sweep_figure
from core.releases.census_tables import make_release, marginal_pool, noisy_answers, sf1_pool
from core.runtime.games import run
from core.scenario import get
from core.scenarios.aggregates.data import max_ratio, pool_size
from core.theory.dp_roc import max_auc, per_person_epsilon, release_sensitivity, roc_bound

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


# ------------------------------------------------------------------------ the scenario's edges: typed errors,
# the what-if m/s range, the DP bound, AUC intervals, the noise-bounded DeSIA solver, the plain-language sentence
TINY = {"block_size": 40, "blocks": 1, "shadows": 100, "attack": "desia", "query_ratio": 0.5, "time_limit": 20}


# ------------------------------------------------------------------------------------ DP bound
def test_roc_bound_known_values():
    f = np.array([0.0, 0.1, 0.25, 0.5, 1.0])
    assert np.allclose(roc_bound(f, 0.0), f)                       # ε = 0: the diagonal
    assert roc_bound([0.1], math.log(2))[0] == pytest.approx(0.2)   # e^ε·FPR branch
    assert roc_bound([0.5], math.log(3))[0] == pytest.approx(1 - 0.5 / 3)  # 1 − e^{−ε}(1 − FPR) branch
    assert roc_bound([0.0], 1.0, 0.05)[0] == pytest.approx(0.05)    # δ lifts the origin
    assert max_auc(math.log(3)) == pytest.approx(0.75)              # e^ε/(1+e^ε)
    assert max_auc(0.0) == pytest.approx(0.5)
    assert max_auc(1.0, 1e-9) == pytest.approx(max_auc(1.0), abs=1e-4)  # numeric area = closed form
    with pytest.raises(ParameterError):
        roc_bound([0.1], -1.0)


def test_release_sensitivity_counts_the_cells_one_person_moves():
    pool = sf1_pool()
    by_name = dict(zip(pool.names, pool.masks))
    total, hisp = by_name["P1:total"], by_name["P9:hispanic"]
    white_any = by_name["P6:White_any"]
    card = pool.cardinalities
    # the total and a race cell do not depend on Hispanic origin: changing it moves nothing
    assert release_sensitivity([total, white_any], card, "aia") == 0
    assert release_sensitivity([total, white_any], card, "mia") == 2
    # "how many Hispanic" moves by one when a person's Hispanic value flips
    assert release_sensitivity([total, hisp, white_any], card, "aia") == 1
    assert per_person_epsilon(0.5, 6) == 3.0 and per_person_epsilon(0.0, 6) == math.inf


# ------------------------------------------------------------------------------------ AUC CI
def test_auc_ci_covers_and_is_honest_with_few_targets():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    s = y * 0.5 + rng.normal(size=400)
    lo, hi = auc_ci(y, s)
    from sklearn.metrics import roc_auc_score
    assert lo < roc_auc_score(y, s) < hi and 0.05 < hi - lo < 0.15
    lo4, hi4 = auc_ci([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])          # AUC 1 on 4 targets
    assert hi4 == 1.0 and lo4 < 0.2


# ------------------------------------------------------------------------------------ typed errors
def test_too_few_shadows_is_a_parameter_error_not_a_cv_crash():
    rng = np.random.default_rng(1)
    D, aux = split_block(synthetic_block(400, rng).records, 0.1, rng)
    rel, _ = make_release(D, sf1_pool(), 0.5, rng)
    ms = StochasticModule(shadows=12).fit(rel, aux, rng)
    with pytest.raises(ParameterError, match="shadows"):
        ms.predict_proba(D[0, :-1])
    with pytest.raises(ParameterError):  # and the widget cannot offer that few
        get("aggregates").resolve({"shadows": 20})


def test_non_binary_sensitive_column_names_the_yes_no_columns(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    path = tmp_path / "p.csv"
    pd.DataFrame({"zip": rng.integers(0, 7, n), "age": rng.integers(18, 80, n),
                  "smoker": rng.choice(["yes", "no"], n)}).to_csv(path, index=False)
    assert binary_columns(path) == ["smoker"]
    with pytest.raises(DataError, match="'smoker'"):
        run("aggregates", {**TINY, "data": "csv", "data_path": str(path), "sensitive_column": "zip"}, seed=0)


def test_query_ratio_beyond_the_pool_is_refused_with_the_largest_allowed():
    assert 640 <= pool_size() <= 660 and max_ratio(454) == pytest.approx(1.43)
    sc = get("aggregates")
    with pytest.raises(ParameterError, match="largest m/s is 1.43"):
        sc.resolve({"block_size": 454, "query_ratio": 2.0})
    cfg = sc.resolve({"block_size": 200, "query_ratio": 2.0})       # m = 400 > s: the what-if regime
    assert cfg["query_ratio"] == 2.0
    p = sc.param("query_ratio")
    for bad in (0.0, 4.05):
        with pytest.raises(ParameterError):
            p.validate(bad)


def test_more_cells_than_people_runs_and_sweep_marks_the_paper_regime():
    m = run("aggregates", {**TINY, "query_ratio": 1.5}, seed=0).metrics
    assert m["targets"] > 10 and m["deterministic_errors"] == 0
    sc = get("aggregates")
    xs = [r for r, _ in sc._settings(sc.resolve({"block_size": 454, "sweep": "query_ratio"}))]
    assert xs == [0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.25]           # 1.25·454 = 568 cells ≤ pool
    xs = [r for r, _ in sc._settings(sc.resolve({"block_size": 600, "sweep": "query_ratio"}))]
    assert xs == [0.05, 0.1, 0.25, 0.5, 0.75, 1.0]                  # 1.25·600 = 750 > pool


# ------------------------------------------------------------------------------------ noise
def test_noise_slack_known_values():
    assert noise_slack(0.0, 100) == 0
    assert noise_slack(10.0, 150) == 1          # ln(150/1e-3)/10 − ½ = 0.69 → 1
    assert noise_slack(1.0, 150) == 12          # 11.92 − ½ → 12
    # the bound holds: P(some |round(Lap)| > b) ≤ α over the m cells
    rng = np.random.default_rng(0)
    b = noise_slack(2.0, 100)
    worst = np.abs(np.round(rng.laplace(0, 1 / 2.0, size=(2000, 100)))).max(axis=1)
    assert np.mean(worst > b) <= 0.003


def test_bounded_solver_never_rules_out_the_truth_under_noise():
    rng = np.random.default_rng(5)
    D, aux = split_block(synthetic_block(1000, rng).records, 0.1, rng)
    D[:, -1] = rng.integers(0, 2, len(D))
    for seed in range(20):  # the first release (fixed seeds) with at least one count changed by the noise
        rel, _ = make_release(D, sf1_pool(), 0.75, np.random.default_rng(seed), epsilon=10.0)
        if np.any(rel.answers != rel.evaluate(D)):
            break
    assert np.any(rel.answers != rel.evaluate(D))
    targets = np.flatnonzero(unique_on_nonsensitive(D))[:25]
    outs = {}
    for mode in ("exact", "bounded"):
        att = DeSIA(shadows=100, time_limit=20, md_noise=mode, stochastic=False)
        att.fit(rel, aux, np.random.default_rng(0))
        outs[mode] = [att.attack(D[t, :-1], np.random.default_rng(1)) for t in targets]
    # exact equalities: one noisy count makes the program infeasible, M_D is silent for everyone
    assert all(o.md_status == "infeasible" and not o.settled for o in outs["exact"])
    # bounded: the true block satisfies every widened count, so a first solution always exists
    assert all(o.first_value >= 0 for o in outs["bounded"])
    assert all(o.prediction == D[t, -1] for o, t in zip(outs["bounded"], targets) if o.settled)


# ------------------------------------------------------------------------------------ metrics, plots, text
def test_metrics_carry_claimed_and_empirical_epsilon_and_the_roc_draws_the_bound():
    r = run("aggregates", {**TINY, "epsilon": 1.0}, seed=0)
    m = r.metrics
    bound = r.series["dp_bound"]
    assert bound["epsilon_per_aggregate"] == 1.0 and bound["cells_per_person"] >= 1
    assert m["claimed_epsilon"] == pytest.approx(bound["cells_per_person"] * 1.0)
    assert m["empirical_epsilon_low"] >= 0 and m["auc_ci_low"] <= m["auc"] <= m["auc_ci_high"]
    names = [t.name or "" for t in roc_all(r.series).data]
    assert any(n.startswith("DP bound") for n in names)
    exact = run("aggregates", TINY, seed=0)
    assert exact.metrics["claimed_epsilon"] is None and "dp_bound" not in exact.series
    assert not any((t.name or "").startswith("DP bound") for t in roc_all(exact.series).data)


def test_sweep_figure_draws_confidence_bands():
    series = {"sweep": {"x": [0.25, 0.5, 1.0, 1.25], "param": "query_ratio", "paper_max": 1.0,
                        "DeSIA": [0.6, 0.7, 0.8, 0.85], "n": {"DeSIA": [100] * 4},
                        "ci": {"DeSIA": [[0.5, 0.7], [0.6, 0.8], [0.7, 0.9], [0.75, 0.95]]}}}
    fig = sweep_figure(series)
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(bands) == 1 and max(bands[0].y) == 0.95 and min(bands[0].y) == 0.5
    assert any("paper" in (a.text or "") for a in fig.layout.annotations)


def test_plain_summary_sentence():
    m = {"accuracy": 0.72, "targets": 300, "auc_ci_low": 0.66, "deterministic_count": 12,
         "deterministic_errors": 0}
    text = plain_summary(m, {"task": "aia", "sensitive": "Hispanic"})
    assert "Hispanic origin right **72%** of the time, against 50% by chance" in text
    assert "certain" in text and "luck" not in text
    text = plain_summary({**m, "auc_ci_low": 0.45, "deterministic_count": 0}, {"sensitive": "smoker"})
    assert "a person's smoker" in text and "luck" in text
    assert plain_summary({}, {}) is None
    # a default threshold at 50% must not hide scores that rank people well (AUC 0.64)
    text = plain_summary({"accuracy": 0.5, "auc": 0.643, "auc_ci_low": 0.55, "targets": 141}, {"sensitive": "Hispanic"})
    assert "right **50%** of the time" in text and "puts the right one first **64%** of the time" in text


def test_stop_is_seen_inside_a_unit_of_work_not_only_between_chunks():
    polls = []

    def cancel():  # the 4th poll is inside the first DeSIA unit (2 in prepare, 1 before the first chunk)
        polls.append(1)
        return len(polls) >= 4

    res = run("aggregates", {**TINY, "batch": 1000}, seed=0, cancel=cancel)
    assert res.cancelled and res.games_done == 0 and len(polls) >= 4
