"""Synthetic-data lab (Annamalai et al. 2024): queries, LP, attacks, utility, game invariants, scenario, CLI."""
import inspect
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from lab_paths import ROOT

from core.attacks.synthetic.dcr import dcr_attack
from core.attacks.synthetic.infer import infer_attack
from core.attacks.synthetic.linear_reconstruction import ReconMatrix, linear_reconstruction
from core.data.sdg_surrogates import ACS_SCHEMA, FIRE_SCHEMA, surrogate
from core.errors import DataError, ParameterError
from core.runtime.games import run
from core.scenario import prepare_rng
from core.releases.kway_queries import KWayQueries, available_count, full_domain_count
from core.releases.synthesizers import SYNTHESIZERS
from core.scenario import get
from core.scenarios.synthetic import data as sdata
from core.measure.utility import UtilityQueries

SMALL = {"n": 200, "games": 2, "synth_size": 100, "dataset": "acs-like"}


def _sample(name="acs-like", n=300, seed=0):
    d = surrogate(name)
    codes = d.codes()
    rng = np.random.default_rng(seed)
    return codes[rng.choice(len(codes), n, replace=False)], d.cardinalities


# ------------------------------------------------------------------ queries
def test_full_domain_query_counts_match_the_paper():
    acs = [k for c, k in ACS_SCHEMA if c != "SEX"]
    fire = [k for c, k in FIRE_SCHEMA if c != "ALS Unit"]
    assert full_domain_count(acs, "3") == 4942 and full_domain_count(fire, "3") == 10293
    assert full_domain_count(acs, "4") == 135026 and full_domain_count(fire, "4") == 362710
    assert full_domain_count(acs, "2") <= 106 and full_domain_count(fire, "2") <= 158
    assert available_count(fire, "4") == 100_000
    # a QI matrix that shows every value reaches the bound
    X = np.column_stack([np.arange(60) % k for k in fire])
    assert KWayQueries.build(X, fire, "3").n_queries == 10293


def test_bincount_answers_equal_a_loop_of_masks():
    D, card = _sample(n=120)
    X = D[:, :-1]
    rng = np.random.default_rng(3)
    S = D[rng.integers(0, len(D), 500)]
    for k in ("2", "3", "4"):
        fam = KWayQueries.build(X, card[:-1], k, rng, max_4way=400)
        cs, cs1 = fam.counts(S[:, :-1], S[:, -1])
        A = fam.matrix(dense=True)
        j = 0
        for g in fam.groups:
            for cell in g.cells:
                vals, rest = [], int(cell)
                for s in g.strides:
                    vals.append(rest // s)
                    rest %= s
                mask = np.all(S[:, list(g.attrs)] == vals, axis=1)
                assert cs[j] == mask.sum() and cs1[j] == (mask & (S[:, -1] == 1)).sum()
                assert np.array_equal(A[j] == 1, np.all(X[:, list(g.attrs)] == vals, axis=1))
                j += 1
        assert j == fam.n_queries
    # conditional answers: P_S(y=1 | cell)·c_X(cell), 0 where the cell is absent from S
    fam = KWayQueries.build(X, card[:-1], "3")
    r = fam.answers(S, "conditional")
    cs, cs1 = fam.counts(S[:, :-1], S[:, -1])
    cx, _ = fam.counts(X)
    ok = cs > 0
    assert np.allclose(r[ok], cs1[ok] / cs[ok] * cx[ok]) and np.all(r[~ok] == 0)
    assert np.allclose(fam.answers(S, "marginal"), len(D) / len(S) * cs1)


def test_exact_answers_recover_a_planted_secret_vector():
    """S = D' (exact answers, conditional scaling gives r̂ = A y'): objective 0 and every bit back."""
    D, card = _sample(n=300, seed=1)
    fam = KWayQueries.build(D[:, :-1], card[:-1], "3")
    res = linear_reconstruction(fam, D, "conditional")
    assert res.objective == pytest.approx(0.0, abs=1e-5)
    assert np.mean((res.t >= 0.5) == D[:, -1]) >= 0.99
    ref = linear_reconstruction(fam, D, "conditional", lp_method="highs")
    assert ref.objective == pytest.approx(0.0, abs=1e-5)


def test_dense_lp_and_highs_reach_the_same_optimum_on_noisy_answers():
    D, card = _sample(n=200, seed=2)
    rng = np.random.default_rng(0)
    S = D[rng.integers(0, len(D), 300)]
    fam = KWayQueries.build(D[:, :-1], card[:-1], "3")
    a = linear_reconstruction(fam, S, lp_method="ipm")
    b = linear_reconstruction(fam, S, lp_method="highs")
    assert a.objective == pytest.approx(b.objective, rel=1e-6, abs=1e-6)


def test_conditional_scaling_beats_marginal():
    D, card = _sample(n=300, seed=4)
    fam = KWayQueries.build(D[:, :-1], card[:-1], "3")
    A = ReconMatrix.from_queries(fam)
    rng = np.random.default_rng(5)
    cond, marg = [], []
    for _ in range(3):
        S = D[rng.integers(0, len(D), 300)]
        for scaling, out in (("conditional", cond), ("marginal", marg)):
            t = linear_reconstruction(fam, S, scaling, A=A).t
            out.append(np.mean((t >= 0.5) == D[:, -1]))
    assert np.mean(cond) >= np.mean(marg) + 0.02, (cond, marg)


# ------------------------------------------------------------------ other attacks, utility
def test_dcr_paper_version_uses_the_mode_of_the_targets_qis():
    x = np.array([1, 2])
    S = np.array([[1, 2, 1], [1, 2, 1], [1, 2, 0], [0, 0, 0]])
    g, s = dcr_attack(S, x, np.random.default_rng(0))
    assert g == 1 and s > 0.5
    S2 = np.array([[1, 2, 0], [1, 2, 0], [1, 2, 1], [3, 3, 1]])
    assert dcr_attack(S2, x, np.random.default_rng(0))[0] == 0
    assert dcr_attack(S2, x, np.random.default_rng(0), variant="code")[0] == 0


def test_infer_single_class_and_learnable_signal():
    S = np.array([[0, 1, 1], [1, 1, 1]])
    assert infer_attack(S, np.array([0, 1]), np.random.default_rng(0)) == (1, 1.0)
    rng = np.random.default_rng(1)
    Q = rng.integers(0, 4, size=(400, 2))
    S = np.column_stack([Q, (Q[:, 0] >= 2).astype(int)])
    assert infer_attack(S, np.array([3, 0]), rng, n_estimators=20)[0] == 1
    assert infer_attack(S, np.array([0, 3]), rng, n_estimators=20)[0] == 0


def test_utility_is_zero_for_the_data_itself_and_decays_with_size():
    D, card = _sample(n=500, seed=6)
    U = UtilityQueries(D, card, np.random.default_rng(0))
    same = U.evaluate(D)  # (it also reports the equivalent sample: the data themselves are a 100% sample)
    assert {k: same[k] for k in ("mre_gt10", "tvd3")} == {"mre_gt10": 0.0, "tvd3": 0.0}
    rng = np.random.default_rng(1)
    vals = [U.evaluate(D[rng.integers(0, len(D), m)]) for m in (10, 100, 1000, 10000)]
    for key in ("mre_gt10", "tvd3"):
        assert all(a[key] > b[key] for a, b in zip(vals, vals[1:])), (key, vals)
    assert vals[-1]["tvd3"] < 0.05


# ------------------------------------------------------------------ game and scenario
def test_game_invariants():
    sc = get("synthetic")
    c = sc.resolve({"dataset": "acs-like", "n": 150, "games": 120})
    ctx = sc.prepare(c, prepare_rng(0))
    codes = ctx["codes"]
    truths, kept = [], []
    for g in range(120):
        game = sdata._game(ctx, c, g)
        D, u = game["D"], game["u"]
        same = np.all(D[:, :-1] == D[u, :-1], axis=1)
        assert same.sum() == 1  # target unique on its QIs
        truths.append(game["truth"])
        kept.append(game["truth"] == game["original"])
        # every row but u is an unaltered population record
        if g < 5:
            others = np.delete(D, u, axis=0)
            pop = {tuple(r) for r in codes}
            assert all(tuple(r) in pop for r in others)
    assert 0.37 < np.mean(truths) < 0.63 and 0.37 < np.mean(kept) < 0.63


def test_nonprivate_leaks_and_indhist_does_not():
    base = {"dataset": "acs-like", "n": 150, "games": 14, "synth_size": 1000}
    r = run("synthetic", {**base, "generator": "nonprivate"}, seed=0)
    m = r.metrics
    assert m["accuracy"] >= 0.8 and m["accuracy_ci_low"] > 0.5
    assert m["recon_all_records_accuracy"] > 0.95
    acc = r.series["by_size"]["recon"]["accuracy"]
    assert acc[-1] >= acc[0]  # more synthetic records, more leakage
    u = r.series["utility"]
    assert all(a > b for a, b in zip(u["mre_gt10"], u["mre_gt10"][1:]))  # utility improves with size
    assert m["claimed_epsilon"] is None
    eps = SYNTHESIZERS["indhist"].dp
    ind = run("synthetic", {**base, "generator": "indhist", "epsilon": 0.1 if eps else 0.0, "query_sweep": False},
              seed=0)
    assert ind.games_total == base["games"] and not ind.series["accuracy_vs_queries"]
    assert 0.25 <= ind.metrics["accuracy"] <= 0.75
    assert ind.metrics["accuracy"] < m["accuracy"]
    # paired curve: the q sweep re-used the same games and ends at the run's own q
    q = r.series["accuracy_vs_queries"]
    assert q["q"][:3] == [10, 100, 1000] and q["q"][-1] == m["queries_used"]


def test_attack_all_reports_each_attack_and_acc_max():
    r = run("synthetic", {**SMALL, "attack": "all"}, seed=1)
    m = r.metrics
    assert {"accuracy_recon", "accuracy_dcr", "accuracy_infer", "accuracy_max"} <= set(m)
    assert m["accuracy_max"] == max(m["accuracy_recon"], m["accuracy_dcr"], m["accuracy_infer"])
    assert r.series["example"]["guesses"].keys() == {"recon", "dcr", "infer"}
    again = run("synthetic", {**SMALL, "attack": "all"}, seed=1)
    assert again.metrics == m  # same seed, same numbers


@pytest.mark.parametrize("name", [pytest.param(k, marks=pytest.mark.slow) if k in ("aim", "mst") else k  # OpenDP fits:
                                  for k in sorted(k for k, c in SYNTHESIZERS.items() if c.dp)])  # minutes
def test_every_dp_generator_validates_and_reports_its_epsilon(name):
    sc = get("synthetic")
    with pytest.raises(ParameterError, match="epsilon"):
        sc.resolve({"generator": name})  # ε not set
    params = {**SMALL, "games": 1, "synth_size": 10, "attack": "dcr", "generator": name, "epsilon": 5.0}
    config = sc.resolve(params)
    gen = sdata.make_generator(config)
    assert gen.privacy[0] == pytest.approx(5.0)
    if "steps" in inspect.signature(SYNTHESIZERS[name].__init__).parameters:
        return  # iterative (RAP-style) fits take minutes on 2 cores: the claim is checked, the fit is not
    r = run("synthetic", params, seed=0)
    assert r.metrics["claimed_epsilon"] == pytest.approx(5.0)


def test_epsilon_refused_for_a_non_dp_generator():
    with pytest.raises(ParameterError, match="not differentially private"):
        get("synthetic").resolve({"generator": "nonprivate", "epsilon": 1.0})


def test_query_ratio_capped_at_what_k_offers():
    sc = get("synthetic")
    with pytest.raises(ParameterError, match="query_ratio"):
        sc.resolve({"dataset": "acs-like", "query_k": "2", "query_ratio": 1.0})
    r = run("synthetic", {**SMALL, "query_ratio": 0.5}, seed=0)
    assert r.metrics["queries_used"] == 100


def test_csv_secret_must_be_binary_and_bad_files_are_refused(tmp_path):
    rng = np.random.default_rng(0)
    rows = ["a,b,c,colour"] + [f"{rng.integers(5)},{rng.integers(4)},{rng.integers(3)},{['red', 'green', 'blue'][i % 3]}"
                               for i in range(300)]
    path = tmp_path / "people.csv"
    path.write_text("\n".join(rows))
    sc = get("synthetic")
    with pytest.raises(DataError, match="binary"):
        sc.resolve({"dataset": "csv", "data_path": str(path), "secret": "colour", "n": 100})
    with pytest.raises(ParameterError, match="secret"):
        sc.resolve({"dataset": "csv", "data_path": str(path), "secret": "nope", "n": 100})
    with pytest.raises(ParameterError, match="data_path"):
        sc.resolve({"dataset": "csv"})
    r = run("synthetic", {"dataset": "csv", "data_path": str(path), "secret": "colour=red", "n": 100, "games": 1,
                          "synth_size": 100}, seed=0)
    assert 0.0 <= r.metrics["accuracy"] <= 1.0 and r.series["secret"] == "colour=red"
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="empty"):
        sc.resolve({"dataset": "csv", "data_path": str(empty), "secret": "x"})


def test_cli_prints_json():
    out = subprocess.run([sys.executable, "-m", "core", "run", "synthetic", "--set", "n=100", "--set", "games=1",
                          "--set", "synth_size=100", "--set", "dataset=fire-like"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["scenario"] == "synthetic" and data["config"]["generator"] == "nonprivate"
    assert {"accuracy", "auc", "tpr_at_fpr_0.1", "mre_gt10", "tvd3", "empirical_epsilon_low"} <= set(data["metrics"])
    assert not math.isnan(data["metrics"]["accuracy"])




def test_generator_comparison_keeps_one_roc_per_generator():
    # "ROC per generator at the chosen size" comes from the comparison sweep's rows
    from core.plots.synthetic import roc_per_generator
    from core.runtime.sweep import sweep

    out = sweep("synthetic", {"games": 6, "synth_size": 1000, "query_sweep": False, "n": 200},
                {"generator": ["nonprivate", "baynet"]}, seed=0)
    assert [r["generator"] for r in out["rows"]] == ["nonprivate", "baynet"]
    for row in out["rows"]:
        roc = row["series"]["roc"]["recon"]
        assert roc["fpr"][0] == 0 and roc["tpr"][-1] == 1 and (roc["auc"] is None or 0 <= roc["auc"] <= 1)
    fig = roc_per_generator(out["rows"], "recon", 1000)
    names = {t.name for t in fig.data}
    assert any(n.startswith("nonprivate") for n in names) and any(n.startswith("baynet") for n in names)
    # other scenarios' sweep rows stay metrics only
    plain = sweep("reconstruction", {"n": 20, "trials": 1, "sweeps": False}, {"query_ratio": [1.0]}, seed=0)
    assert "series" not in plain["rows"][0]


def test_the_trade_off_chart_marks_the_papers_regions_and_the_coin_flip():
    """The privacy–utility chart's regions (good utility left of 0.2, high risk above 60%) and its three guide
    lines, each spanning the whole plot, with the Pareto front through the best trade-offs."""
    from core.plots.synthetic import privacy_utility

    pts = [dict(generator="nonprivate", epsilon=None, m=m, accuracy=a, ci_low=a - 0.1, ci_high=a + 0.1,
                mre_gt10=u, tvd3=0.1, games=4, attack="best")
           for m, a, u in ((10, 0.5, 1.5), (100, 0.55, 0.55), (200, 0.75, 0.38))]
    fig = privacy_utility(pts)
    layout = fig.to_dict()["layout"]
    rects = [s for s in layout["shapes"] if s["type"] == "rect"]
    lines = {(s["xref"], s["yref"]): s for s in layout["shapes"] if s["type"] == "line"}
    assert (rects[0]["x1"], rects[0]["y1"]) == (0.2, 0.6) and rects[1]["y0"] == 0.6
    vertical = lines["x", "y domain"]
    assert vertical["x0"] == vertical["x1"] == 0.2 and (vertical["y0"], vertical["y1"]) == (0, 1)
    horizontal = sorted(s["y0"] for s in layout["shapes"] if s["type"] == "line" and s["xref"] == "x domain")
    assert horizontal == [0.5, 0.6]
    assert [a["text"] for a in layout["annotations"]] == ["good utility (< 0.2)", "high risk (accuracy > 60%)"]
    front = next(t for t in fig.data if t.name == "Pareto front (best trade-offs)")
    assert list(front.x)[0] == 0.38 and list(front.y)[0] == 0.75  # the most useful release starts the front
