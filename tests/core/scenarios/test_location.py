"""Location-aggregate membership inference (seed 001): known values from the spec's analytic
section, Monte-Carlo games with fixed seeds, data invariants, and rejected input.

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
import io
import math

import numpy as np
import pytest

from core.runtime import games
from core.attacks.location.likelihood_ratio import LikelihoodRatioAttack
from core.attacks.location.location_common import CellPool, noise, sample_counts
from core.attacks.location.meta_classifier import MetaClassifierMLP, theorem5_weights, weight_summary
from core.attacks.location.one_threshold import OneThresholdAttack
from core.attacks.location.two_threshold import TwoThresholdAttack
from core.data.traces import clip_per_epoch, generate_traces, load_trace_csv
from core.errors import DataError, LabError, ParameterError
from core.releases.gaussian import Gaussian
from core.scenario import get
from core.theory import dp_accuracy as T

DELTA = 1 / 3998


# ------------------------------------------------------------------ theory (spec §3, §5)
@pytest.mark.parametrize("eps,delta", [(0.5, 0.0), (0.25, 1e-3), (1.0, DELTA)])
def test_stable_binomial_form_equals_kairouz_theorem(eps, delta):
    for k in list(range(1, 40)) + [60, 80, 100]:
        assert abs(T.dp_expected_accuracy(k, eps, delta) - T.kairouz_accuracy(k, eps, delta)) < 1e-12


def test_dp_bound_known_values_and_staircase():
    table = {1: .6225, 5: .7206, 10: .7785, 20: .8640, 60: .9725, 100: .9934, 168: .9994}
    for k, v in table.items():
        assert abs(T.dp_expected_accuracy(k, 0.5) - v) < 6e-5
    assert abs(T.dp_expected_accuracy(60, 0.5, DELTA) - .9729) < 1e-4  # Gaussian column of §5.3
    for j in range(1, 30):
        assert T.dp_expected_accuracy(2 * j, 0.5) == pytest.approx(T.dp_expected_accuracy(2 * j - 1, 0.5), abs=1e-12)


def test_informed_closed_forms_match_spec_tables():
    lap = 2.0  # Laplace scale C/ε at ε = 0.5
    assert T.one_threshold_informed_accuracy(60, "laplace", lap) == pytest.approx(.9145, abs=6e-5)
    assert T.two_threshold_informed_accuracy(60, "laplace", lap) == pytest.approx(.9580, abs=6e-5)
    assert T.two_threshold_informed_clt(60, "laplace", lap) == pytest.approx(.9605, abs=6e-5)
    assert T.per_cell_fpr_informed("laplace", lap) == pytest.approx(.3894, abs=6e-5)
    classic = Gaussian(0.5, DELTA, calibration="classic").sigma
    analytic = Gaussian(0.5, DELTA, calibration="analytic").sigma
    assert classic == pytest.approx(8.2543, abs=1e-3) and analytic == pytest.approx(5.4023, abs=1e-3)
    assert T.gdp_accuracy(60, classic) == pytest.approx(.6805, abs=6e-5)
    assert T.two_threshold_informed_accuracy(60, "gaussian", classic) == pytest.approx(.6454, abs=6e-5)
    assert T.gdp_accuracy(60, analytic) == pytest.approx(.7633, abs=6e-5)
    assert T.two_threshold_informed_accuracy(60, "gaussian", analytic) == pytest.approx(.7155, abs=6e-5)
    # exact LRT vs the spec's Monte-Carlo column (±0.001 sampling error there)
    for k, v in {5: .7023, 20: .8514, 60: .9634, 100: .9897}.items():
        assert T.laplace_lrt_accuracy(k, 0.5) == pytest.approx(v, abs=1.5e-3)
    # the optimum lies between two-threshold and the DP bound (spec §5.2 reading)
    for k in (10, 60, 168):
        assert T.two_threshold_informed_accuracy(k, "laplace", lap) < T.laplace_lrt_accuracy(k, 0.5) \
            < T.dp_expected_accuracy(k, 0.5)


def test_dp_roc_bound_is_rr_staircase_and_gives_the_bound():
    r, rr = T.dp_roc_bound(60, 0.5), T.rr_optimal_roc(60, 0.5)
    inner = slice(1, -1)
    assert np.allclose(np.interp(rr["fpr"][inner], r["fpr"], r["tpr"]), rr["tpr"][inner], atol=1e-9)
    for delta in (0.0, DELTA):
        r = T.dp_roc_bound(60, 0.5, delta)
        acc = 0.5 + 0.5 * np.max(np.asarray(r["tpr"]) - np.asarray(r["fpr"]))
        assert acc == pytest.approx(T.dp_expected_accuracy(60, 0.5, delta), abs=1e-9)


# --------------------------------------------------------------- noise, pools, data
def test_float32_noise_laws():
    rng = np.random.default_rng(0)
    x = noise("laplace", 2.0, (400_000,), rng)
    assert np.isfinite(x).all() and x.dtype == np.float32
    assert x.var() == pytest.approx(8.0, rel=0.02)
    assert (x >= 0.5).mean() == pytest.approx(0.5 * math.exp(-0.25), abs=0.003)
    g = noise("gaussian", 3.0, (400_000,), rng)
    assert g.std() == pytest.approx(3.0, rel=0.01)


def test_sample_counts_is_sampling_without_replacement():
    rng = np.random.default_rng(1)
    everyone = CellPool(50, np.ones((50, 2), np.uint8))
    assert (sample_counts(everyone, 20, 1000, rng) == 20).all()  # exactly G contributors
    rows = np.zeros((30, 3), np.uint8)
    rows[:, 0] = 1
    rows[:10, 1] = 1
    rows[::3, 2] = 1
    pool = CellPool(200, rows)
    c = sample_counts(pool, 80, 40_000, rng)
    for j, K in enumerate(rows.sum(0)):
        mean, var = 80 * K / 200, 80 * (K / 200) * (1 - K / 200) * (200 - 80) / (200 - 1)
        assert c[:, j].mean() == pytest.approx(mean, abs=4 * math.sqrt(var / 40_000))
        assert c[:, j].var() == pytest.approx(var, rel=0.05)
    with pytest.raises(DataError):
        sample_counts(pool, 201, 5, rng)


def test_clipping_keeps_at_most_c_sites_per_user_and_hour():
    rng = np.random.default_rng(2)
    u, e, s = rng.integers(0, 40, 3000), rng.integers(0, 20, 3000), rng.integers(0, 6, 3000)
    for clip in (1, 2):
        uu, ss, ee = clip_per_epoch(u, s, e, rng, clip)
        _, per_col = np.unique(uu * 20 + ee, return_counts=True)
        assert per_col.max() == clip
        assert set(np.unique(uu * 20 + ee)) == set(np.unique(u * 20 + e))  # no active hour lost
    tr = generate_traces(np.random.default_rng(3), n_users=2000)
    assert tr.max_per_epoch() == 1
    assert tr.dense(0).sum(axis=0).max() <= 1
    assert (tr.observations_per_user() >= 1).all()


def test_csv_loader_grid_window_and_validation():
    rng = np.random.default_rng(4)
    text = ("user,timestamp,lat,lon\n"
            "a,1385654400,45.40,9.08\n"      # same user & hour, two sites -> one kept
            "a,1385654500,45.53,9.27\n"
            "b,1385659800,45.45,9.15\n"
            "b,1385600000,45.45,9.15\n")     # 15 hours earlier: outside a 10-hour window
    tr = load_trace_csv(io.StringIO(text), rng, n_epochs=10)
    assert (tr.n_users, tr.n_sites, tr.n_epochs) == (2, 96, 10)
    assert tr.user.size == 2 and tr.max_per_epoch() == 1
    sites = load_trace_csv(io.StringIO("uid,time,site\n1,0,x\n1,3600,y\n2,3600,x\n"), rng, n_epochs=5)
    assert sites.n_sites == 2 and sites.user.size == 3
    iso = load_trace_csv(io.StringIO("user,timestamp,site\n1,2013-11-28T17:10:00Z,a\n"
                                     "2,2013-11-28 18:59:00+00:00,b\n"), rng, n_epochs=3)
    assert sorted(iso.epoch.tolist()) == [1, 2]
    for bad, msg in (("user,lat,lon\n1,2,3\n", "timestamp"),
                     ("user,timestamp\n1,5\n", "site"),
                     ("user,timestamp,site\n1,not-a-date,3\n", "cannot be parsed"),
                     ("user,timestamp,lat,lon\n1,5,95,9\n", "latitude")):
        with pytest.raises(DataError, match=msg):
            load_trace_csv(io.StringIO(bad), rng)


# ----------------------------------------------------------------------- attacks
def test_threshold_attacks_and_lrt_informed_monte_carlo():
    rng = np.random.default_rng(5)
    k, n = 60, 20_000
    y = np.repeat([1, 0], n // 2)
    ys = np.repeat([1, 0], 1000)
    Xs = noise("laplace", 2.0, (2000, k), rng) + ys[:, None]
    X = noise("laplace", 2.0, (n, k), rng) + y[:, None]
    one = OneThresholdAttack().fit(Xs, ys)
    two = TwoThresholdAttack().fit(Xs, ys)
    lrt = LikelihoodRatioAttack("laplace", 2.0).fit_informed(k)
    assert one.threshold_ == pytest.approx(30, abs=3)
    assert np.allclose(two.cell_thresholds_, 0.5, atol=0.4)
    assert one.accuracy(X, y) == pytest.approx(.9149, abs=0.01)
    assert two.accuracy(X, y) == pytest.approx(.9580, abs=0.01)
    assert (lrt.predict(X, rng) == y).mean() == pytest.approx(.9634, abs=0.01)
    # the mixture form with a point mass at 0 equals the informed closed form
    mix = LikelihoodRatioAttack("laplace", 2.0).fit_pool(10_000, np.zeros(k, int), 100)
    assert np.allclose(mix.score(X[:500]), lrt.score(X[:500]), atol=1e-9)
    assert one.threshold_for_fpr(0.01) > one.threshold_


def test_theorem5_mlp_encodes_two_threshold_rule():
    rng = np.random.default_rng(6)
    k = 20
    X = noise("laplace", 2.0, (20_000, k), rng) + np.repeat([1, 0], 10_000)[:, None]
    mlp = MetaClassifierMLP()
    mlp.coefs_, mlp.intercepts_ = theorem5_weights(k, 0.5, a=200.0, b=200.0, final_threshold=10.5)
    mlp.mean_, mlp.std_ = np.zeros(k, np.float32), np.ones(k, np.float32)
    step = ((X >= 0.5).sum(axis=1) >= 10.5).astype(np.int8)
    assert (mlp.predict(X) == step).mean() >= 0.999
    ws = weight_summary(*mlp.raw_weights())
    assert ws["dominance"] == pytest.approx(1.0) and np.allclose(ws["thresholds"], 0.5)


def test_mlp_trains_with_early_stopping():
    rng = np.random.default_rng(7)
    k = 10

    def shadows(n):
        y = np.repeat([1, 0], n // 2)
        return noise("laplace", 2.0, (n, k), rng) + y[:, None], y

    (X, y), (Xv, yv), (Xt, yt) = shadows(2000), shadows(1000), shadows(10_000)
    mlp = MetaClassifierMLP(seed=0, max_epochs=40, patience=5).fit(X, y, Xv, yv)
    assert 1 <= mlp.best_epoch_ <= len(mlp.history_["epoch"]) <= 40
    acc = mlp.score(Xt, yt)
    assert 0.66 < acc < T.laplace_lrt_accuracy(k, 0.5) + 0.01  # one-threshold level is 0.712


# ---------------------------------------------------------------------- scenario
SMALL = {"games": 20_000, "shadow_sweep_max": 0, "observations": 60}


def test_scenario_informed_laplace_and_gaussian_ranking():
    lap = games.run("location", SMALL, seed=11)
    m = lap.metrics
    assert m["dp_bound_accuracy"] == pytest.approx(.9725, abs=1e-4)
    assert m["two-threshold_accuracy"] == pytest.approx(.9580, abs=0.01)
    assert m["one-threshold_accuracy"] == pytest.approx(.9149, abs=0.01)
    assert m["two-threshold_accuracy"] > m["one-threshold_accuracy"] + 0.02
    assert m["accuracy"] == m["two-threshold_accuracy"] and 0 < m["tpr_at_fpr_0.01"] < 1
    assert lap.series["observations"]["lrt"]["x"] == [1, 2, 5, 10, 20, 30, 40, 50, 60]
    gau = games.run("location", {**SMALL, "mechanism": "gaussian", "attack": "one-threshold", "games": 10_000},
                    seed=11).metrics
    assert gau["one-threshold_accuracy"] == pytest.approx(.6805, abs=0.01)
    assert gau["one-threshold_accuracy"] > gau["two-threshold_accuracy"] + 0.01
    assert gau["dp_bound_accuracy"] == pytest.approx(.9729, abs=1e-4)
    tiny = {**SMALL, "observations": 5, "games": 2000}
    assert games.run("location", tiny, seed=5).metrics == games.run("location", tiny, seed=5).metrics


def test_scenario_auxiliary_sparse_data_two_threshold_wins():
    sc = get("location")
    cfg = {"attacker": "auxiliary", "games": 10_000, "shadow_sweep_max": 2_000, "observations": 20}
    res = games.run("location", cfg, seed=3)
    m = res.metrics
    assert m["mean_clean_count"] < 1.5  # sparse, tweet-like default (spec §1.2)
    assert m["two-threshold_accuracy"] > m["one-threshold_accuracy"]
    assert m["lrt_accuracy"] >= m["two-threshold_accuracy"] - 0.005
    assert m["lrt_accuracy"] < m["optimal_informed_accuracy"] + 0.01  # informed optimum bounds everyone
    config = sc.resolve(cfg)
    ctx = sc.prepare(config, games.prepare_rng(3))
    metrics, series = sc.summarize(config, ctx, res.records[:1])  # live prefix
    assert metrics["accuracy"] == m["accuracy"] and series["shadows"]["lrt"]["x"] == [2000]


@pytest.mark.parametrize("params,name", [
    ({"epsilon": 0}, "epsilon"), ({"attack": "svm"}, "attack"), ({"observations": 0}, "observations"),
    ({"mechanism": "gaussian", "epsilon": 2.0}, "calibration"),
    ({"attacker": "auxiliary", "group_size": 9000}, "group_size"), ({"delta": 0.5}, "delta"),
])
def test_bad_parameters_are_rejected_with_the_parameter_named(params, name):
    with pytest.raises(ParameterError) as info:
        get("location").resolve(params)
    assert info.value.param == name


def test_data_errors_are_clear():
    with pytest.raises(DataError, match="positive observations"):
        games.run("location", {"attacker": "auxiliary", "observations": 200, "users": 300,
                               "group_size": 100, "games": 200}, seed=0)
    with pytest.raises(LabError, match="not found"):
        games.run("location", {"attacker": "auxiliary", "trace_file": "/nonexistent.csv", "games": 200}, seed=0)
