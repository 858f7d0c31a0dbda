"""Issue 8 (aggregate statistics): typed errors, the what-if m/s range, the DP bound, AUC intervals,
the noise-bounded DeSIA solver and the plain-language sentence."""
import math

import numpy as np
import pandas as pd
import pytest

from core.attacks.aggregates.desia import DeSIA, noise_slack
from core.attacks.aggregates.desia_stochastic import StochasticModule
from core.data.census import binary_columns, split_block, synthetic_block, unique_on_nonsensitive
from core.errors import DataError, ParameterError
from core.runtime.games import run
from core.measure.metrics import auc_ci
from core.plots.aggregates import plain_summary, roc_all, sweep_figure
from core.releases.census_tables import make_release, sf1_pool
from core.scenario import get
from core.scenarios.aggregates.data import max_ratio, pool_size
from core.theory.dp_roc import max_auc, per_person_epsilon, release_sensitivity, roc_bound

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
