"""Known answers for the Dinur–Nissim reconstruction scenario (CS208 lecture 2; spec §B3).

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from lab_paths import ROOT

from core.attacks.reconstruction.dinur_nissim import DinurNissimAttack
from core.errors import ParameterError
from core.runtime.games import run
from core.releases.subset_queries import hash_predicates, random_subsets


def _instance(n, m, seed, sigma=0.0):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, n)
    M = random_subsets(n, m, rng)
    a = M @ x + (rng.normal(0, sigma, m) if sigma else 0)
    return M, a, x


@pytest.mark.parametrize("decoder", ["lp", "lsq"])
def test_noiseless_m_2n_recovers_every_bit(decoder):
    for seed in range(3):
        M, a, x = _instance(100, 200, seed)
        assert DinurNissimAttack(decoder).fit(M, a).score(x) == 1.0


def test_ilp_exact_and_agrees_with_lp_when_noiseless():
    M, a, x = _instance(40, 40, 1)
    ip = DinurNissimAttack("ilp").fit(M, a)
    lp = DinurNissimAttack("lp").fit(M, a)
    assert ip.score(x) == 1.0
    assert (ip.predict() == lp.predict()).all()


def test_noise_far_above_sqrt_n_drives_accuracy_to_half():
    accs = [DinurNissimAttack("lp").fit(*_instance(100, 200, s, sigma=50.0)[:2]).score(_instance(100, 200, s)[2])
            for s in range(5)]
    assert 0.4 < np.mean(accs) < 0.65


def test_scenario_small_noise_recovers_and_sqrt_n_noise_hurts():
    # Spec B3: LS at m = 2n, σ = 0.1√n → ≥ 0.98; σ = √n → ≤ 0.7.
    low = run("reconstruction", {"solver": "lsq", "defense": "gaussian", "defense_level": 1.0, "sweeps": False},
              seed=0).metrics["accuracy"]
    high = run("reconstruction", {"solver": "lsq", "defense": "gaussian", "defense_level": 10.0, "sweeps": False},
               seed=0).metrics["accuracy"]
    assert low >= 0.98
    assert high <= 0.7


def test_exact_answers_m_equal_n_reconstruct_in_most_trials():
    res = run("reconstruction", {"query_ratio": 1.0, "solver": "lsq", "sweeps": False}, seed=0)
    assert res.metrics["exact_recovery_rate"] >= 0.9


def test_same_seed_same_result_and_sweeps_cover_grids():
    cfg = {"n": 30, "trials": 2, "solver": "lsq", "defense": "rounding", "defense_level": 3}
    a, b = run("reconstruction", cfg, seed=5), run("reconstruction", cfg, seed=5)
    def untimed(d):
        return {k: v for k, v in d.items() if not k.endswith("seconds")}

    assert untimed(a.metrics) == untimed(b.metrics)
    assert a.series["accuracy_vs_query_ratio"] == b.series["accuracy_vs_query_ratio"]
    assert [t["accuracy"] for t in a.series["trials"]] == [t["accuracy"] for t in b.series["trials"]]
    assert a.config["seed"] == 5 and a.config["defense"] == "rounding"
    s = a.series
    assert len(s["accuracy_vs_query_ratio"]["x"]) == 8
    assert s["sweep_defense"] == "rounding" and len(s["accuracy_vs_defense_level"]["x"]) >= 5
    lo, hi = a.metrics["accuracy_ci_low"], a.metrics["accuracy_ci_high"]
    assert lo <= a.metrics["accuracy"] <= hi


def test_subsampling_and_hash_queries():
    full = run("reconstruction", {"n": 60, "trials": 3, "solver": "lsq", "defense": "subsample",
                                  "defense_level": 60, "sweeps": False}, seed=1).metrics
    tiny = run("reconstruction", {"n": 60, "trials": 3, "solver": "lsq", "defense": "subsample",
                                  "defense_level": 6, "sweeps": False}, seed=1).metrics
    assert full["accuracy"] == 1.0 and tiny["accuracy"] < 0.8
    hashed = run("reconstruction", {"queries": "hash", "solver": "lsq", "sweeps": False, "trials": 3},
                 seed=2).metrics
    assert hashed["accuracy"] > 0.9  # collisions in public attributes cost a few bits at most


def test_hash_predicates_are_functions_of_public_attributes():
    rng = np.random.default_rng(0)
    pub = np.array([[30, 1, 2, 0], [30, 1, 2, 0], [41, 0, 5, 2]])
    Q = hash_predicates(pub, 50, rng)
    assert set(np.unique(Q)) <= {0.0, 1.0}
    assert (Q[:, 0] == Q[:, 1]).all()  # identical public tuples land in the same sets


def test_gaussian_release_reports_its_epsilon():
    m = run("reconstruction", {"defense": "gaussian", "defense_level": 10.0, "solver": "lsq", "trials": 1,
                               "sweeps": False}, seed=0).metrics
    assert m["noise_over_sqrt_n"] == pytest.approx(1.0)
    assert 0 < m["release_epsilon"] < math.inf and m["release_delta"] == 1e-5


@pytest.mark.parametrize("params, name", [
    ({"solver": "ilp", "n": 100}, "n"),
    ({"defense": "subsample", "defense_level": 500}, "defense_level"),
    ({"defense": "rounding", "defense_level": 0.5}, "defense_level"),
    ({"query_ratio": 0}, "query_ratio"),
    ({"queries": "bogus"}, "queries"),
])
def test_bad_parameters_are_rejected(params, name):
    with pytest.raises(ParameterError) as info:
        run("reconstruction", params, seed=0)
    assert info.value.param == name


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_cli_run_prints_the_contract_json(tmp_path):
    out = tmp_path / "r.json"
    proc = _cli("run", "reconstruction", "--set", "n=40", "--set", "trials=2", "--set", "sweeps=false",
                "--seed", "3", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"scenario", "config", "metrics", "series", "seconds", "timings", "exposure"}
    assert data["config"]["seed"] == 3 and data["config"]["solver"] == "lp" and data["config"]["n"] == 40
    assert data["metrics"]["accuracy"] == 1.0
    assert json.loads(out.read_text()) == data


def test_cli_bad_parameter_exits_2_with_one_line():
    proc = _cli("run", "reconstruction", "--set", "n=1")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "n:" in proc.stderr and "[5, 2000]" in proc.stderr
    assert _cli("run", "reconstruction", "--set", "nope=1").returncode == 2
    assert _cli("run", "nope").returncode == 2


def test_cli_list_shows_parameters():
    proc = _cli("list")
    assert proc.returncode == 0
    assert "reconstruction" in proc.stdout and "query_ratio" in proc.stdout and "default" in proc.stdout


def test_sweep_runs_every_grid_point_with_common_seed():
    from core.runtime.sweep import sweep

    out = sweep("reconstruction", {"solver": "lsq", "sweeps": False, "trials": 2, "defense": "gaussian"},
                {"query_ratio": [1.0, 3.0], "defense_level": [0.0, 20.0]}, seed=4)
    assert out["completed"] and len(out["rows"]) == 4
    acc = {(r["query_ratio"], r["defense_level"]): r["accuracy"] for r in out["rows"]}
    assert acc[(3.0, 0.0)] == 1.0 and acc[(3.0, 20.0)] < 0.8
    assert out["config"]["seed"] == 4
    with pytest.raises(ParameterError):
        sweep("reconstruction", {}, {"n": [1]}, seed=0)


def test_cli_sweep_and_bad_grid():
    proc = _cli("sweep", "reconstruction", "--vary", "query_ratio=1,2", "--set", "solver=lsq", "--set", "n=30",
                "--set", "sweeps=false", "--set", "trials=1")
    assert proc.returncode == 0, proc.stderr
    assert [r["query_ratio"] for r in json.loads(proc.stdout)["rows"]] == [1.0, 2.0]
    assert _cli("sweep", "reconstruction", "--vary", "n=1,2").returncode == 2


def test_noise_in_units_of_sqrt_n_is_comparable_across_n():
    # Spec B3: LS at m = 2n with σ = c·√n gives the same accuracy for every n.
    accs = [run("reconstruction", {"n": n, "solver": "lsq", "defense": "gaussian", "noise_unit": "sqrt_n",
                                   "defense_level": 0.3, "trials": 4, "sweeps": False}, seed=0).metrics
            for n in (100, 400)]
    assert accs[0]["noise_over_sqrt_n"] == pytest.approx(0.3) == accs[1]["noise_over_sqrt_n"]
    assert abs(accs[0]["accuracy"] - accs[1]["accuracy"]) < 0.06
    assert 0.7 < accs[1]["accuracy"] < 0.9  # spec: .79 at c = 0.3


def test_lp_engines_reach_the_same_reconstruction():
    # the dense interior point (default) and HiGHS solve the same LP: same accuracy per game
    cfg = {"n": 80, "trials": 3, "defense": "gaussian", "defense_level": 0.3, "noise_unit": "sqrt_n",
           "sweeps": False}
    auto = run("reconstruction", cfg, seed=5)
    highs = run("reconstruction", {**cfg, "lp_method": "highs"}, seed=5)
    assert auto.config["lp_method"] == "auto" and highs.config["lp_method"] == "highs"
    assert 0.6 < auto.metrics["accuracy"] < 1.0  # noisy enough that the LP matters
    assert auto.metrics["accuracy"] == pytest.approx(highs.metrics["accuracy"], abs=0.02)


def test_unknown_lp_engine_is_a_parameter_error():
    with pytest.raises(ParameterError):
        DinurNissimAttack("lp", lp_method="cplex")
