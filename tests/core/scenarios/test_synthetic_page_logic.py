"""The synthetic-data page's engine calls (core.scenarios.synthetic), without Streamlit: sidebar choices, the
run's view (sentence, metric rows, one-game panel, per-game table) and the generator comparison."""
import math

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.runtime.games import run
from core.scenario import get
from core.scenarios.synthetic import data as sdata
from core.scenarios.synthetic import views as sviews

SMALL = {"n": 200, "games": 2, "synth_size": 100, "dataset": "acs-like"}


# ------------------------------------------------------------------ sidebar choices
def test_secret_choices_put_the_default_first_then_binary_then_binarised_columns():
    opts = sviews.secret_choices("acs-like")
    table, _ = sdata.base_dataset("acs-like")
    binary = [c for c in table.columns if len(table.domain[c]) == 2]
    assert opts[0] == "SEX" and opts[:len(binary)] == ["SEX"] + [c for c in binary if c != "SEX"]
    rest = opts[len(binary):]
    assert rest and all("=" in o for o in rest)
    wide = [c for c in table.columns if len(table.domain[c]) > 2]
    # at most 12 values per wider column, in the column's order
    assert rest == [f"{c}={v}" for c in wide for v in table.domain[c][:12]]
    assert len(opts) == len(set(opts))
    assert sviews.secret_choices("cces16")[0] == "votetrump"


def test_secret_choices_of_a_csv_and_its_refusals(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("a,b,colour\n" + "\n".join(f"{i % 5},{i % 2},{['red', 'green', 'blue'][i % 3]}"
                                               for i in range(60)))
    opts = sviews.secret_choices("csv", str(path), "people.csv")
    assert opts[0] == "b"  # no built-in default: the two-valued column comes first
    assert "colour=red" in opts and "a=0" in opts and "b" in opts and "colour" not in opts
    flat = tmp_path / "flat.csv"
    flat.write_text("a,b\n" + "\n".join("1,2" for _ in range(10)))
    with pytest.raises(DataError, match="no column to use as the secret"):
        sviews.secret_choices("csv", str(flat), "flat.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="mine.csv"):  # errors name the file the visitor uploaded
        sviews.secret_choices("csv", str(empty), "mine.csv")


def test_secret_param_is_empty_only_for_a_built_in_default():
    assert sviews.secret_param("cces16", "votetrump") == ""
    assert sviews.secret_param("cces16", "sex") == "sex"
    assert sviews.secret_param("acs-like", "MIG=1") == "MIG=1"
    assert sviews.secret_param("csv", "SEX") == "SEX"


def test_epsilon_choices_offer_the_generators_own_default():
    for g in sdata.DP_GENERATORS:
        grid, default = sviews.epsilon_choices(g)
        assert default in grid and grid == sorted(set(grid)) and set(sviews.EPSILON_GRID) <= set(grid)
    assert sviews.epsilon_choices("indhist")[1] == pytest.approx(0.1)  # DataSynthesizer's budget


def test_page_params_show_epochs_only_for_neural_generators():
    assert "epochs" in sviews.page_params("nonprivate") and "epochs" in sviews.page_params("privbayes")
    for g in sdata.EPOCH_GENERATORS:
        assert "epochs" not in sviews.page_params(g)
    assert set(sviews.PAGE_PARAMS) <= set(sviews.page_params("nonprivate"))


# ------------------------------------------------------------------ the run's view
def test_result_view_of_a_run():
    r = run("synthetic", {**SMALL, "attack": "all"}, seed=1)
    v = sviews.result_view(r.metrics, r.series)
    assert v.surrogate and "ACS" in v.label
    assert "guesses a target's `SEX` right" in v.sentence and "2 games)" in v.sentence
    assert v.eps_metrics["claimed_epsilon"] == "none (not DP)"  # nonprivate claims no ε
    assert r.metrics.get("claimed_epsilon") is None  # the run's own metrics are left alone
    assert v.per_attack
    ex = v.example
    guesses = ex.guesses
    assert list(guesses["attack"]) == ["recon", "dcr", "infer"]
    assert ((guesses["guess"] == guesses["truth"]) == (guesses["won"] == "yes")).all()
    assert list(ex.target.columns) == list(r.series["example"]["target"])
    assert "t_u =" in ex.recon and "m=100:" in ex.recon
    table = sviews.games_table(r.records)
    mains = [x for x in r.records if x["kind"] == "main"]
    assert len(table) == sum(len(x["sizes"]) for x in mains) == 2 * len(sdata.size_ladder(100))
    assert set(table["game"]) == {0, 1} and {"game", "truth", "m"} <= set(table.columns)
    assert sviews.result_view({}, {}) is None
    # the headline carries its interval (2 games: Clopper–Pearson is wide) and the all-records accuracy beside it
    h = v.headline
    lo, hi = r.metrics["accuracy_ci_low"], r.metrics["accuracy_ci_high"]
    assert h["target"] == f"{r.metrics['accuracy']:.1%} [{lo:.1%}, {hi:.1%}]"
    assert float(h["half_width"].lstrip("±")) == pytest.approx((hi - lo) / 2, abs=5e-4) and hi - lo > 0.5
    assert h["all_records"] == f"{r.metrics['recon_all_records_accuracy']:.1%}"


def test_one_game_is_one_game_in_the_sentence():
    r = run("synthetic", {**SMALL, "games": 1, "attack": "dcr"}, seed=0)
    v = sviews.result_view(r.metrics, r.series)
    assert "1 game)" in v.sentence and "1 games" not in v.sentence
    assert not v.per_attack and v.example.recon is None  # no LP ran, so no t_u line


def test_status_line_says_which_games_a_run_played():
    """With the query sweep on, a run plays twice its attack games; the status line must not say "4 games" in one
    place and "8 games" in another for the same run."""
    sc = get("synthetic")
    swept = sc.resolve({**SMALL, "games": 4, "query_sweep": True, "attack": "recon"})
    assert sc.n_games(swept) == 8
    assert sc.work_done(swept, 8) == "4 attack games + 4 query-sweep games"
    assert sc.work_done(swept, 5) == "5 games"  # a stopped run: how many, whatever their kind
    plain = sc.resolve({**SMALL, "games": 4, "query_sweep": False})
    assert sc.n_games(plain) == 4 and sc.work_done(plain, 4) == "4 games"
    assert sc.work_done(sc.resolve({**SMALL, "games": 1, "query_sweep": True, "attack": "recon"}), 2) == \
        "1 attack game + 1 query-sweep game"
    assert get("location").work_done({}, 1) == "1 game batch"  # other labs name their own unit


# ------------------------------------------------------------------ compare generators
def test_compare_setup_base_and_defaults():
    config = {**get("synthetic").defaults(), "seed": 3, "generator": "rap", "query_sweep": True}
    cmp = sviews.compare_setup(config)
    assert not {"seed", "generator", "epsilon"} & set(cmp.base) and cmp.base["query_sweep"] is False
    assert config["query_sweep"] is True  # the run's config is not changed
    assert set(cmp.plain) | set(cmp.dp) == set(sdata.GENERATORS) and not set(cmp.plain) & set(cmp.dp)
    assert set(cmp.plain_default) | set(cmp.dp_default) <= set(sviews.FAST_GENERATORS)
    assert "rap" not in cmp.plain_default and cmp.epsilons_default == [1.0, 10.0, 100.0]


def _row(generator, epsilon, acc, err, roc=None):
    sizes = sdata.size_ladder(1000)
    row = {"generator": generator, "epsilon": epsilon, "games_done": 20, "accuracy": acc[-1], "auc": 0.6,
           "mre_gt10": err[-1], "tvd3": err[-1] / 2, "empirical_epsilon_low": 0.0}
    for m, a, e in zip(sizes, acc, err):
        row[f"accuracy_at_{m}"], row[f"mre_gt10_at_{m}"], row[f"tvd3_at_{m}"] = a, e, e / 2
    if roc:
        row["series"] = {"roc": roc}
    return row


def test_compare_view_picks_the_most_useful_release_below_the_risk_line():
    rows = [_row("nonprivate", None, [0.55, 0.7, 0.9], [0.9, 0.3, 0.05]),
            _row("privbayes", 1.0, [0.5, 0.55, 0.6], [0.95, 0.5, 0.2], roc={"dcr": {"fpr": [0, 1], "tpr": [0, 1]}})]
    v = sviews.compare_view(rows, 1000, "mre_gt10")
    assert v.sizes == [10, 100, 1000] and len(v.points) == 6
    # below 60%: nonprivate m=10 (0.9), privbayes m=10 (0.95), m=100 (0.5), m=1000 (0.2) → the last is best
    assert v.best["generator"] == "privbayes" and v.best["m"] == 1000
    assert "at or below 60%:** privbayes" in v.sentence and "MRE>10 0.20" in v.sentence
    assert v.roc_attack == "dcr" and v.by_epsilon
    assert list(v.table["generator"]) == ["nonprivate", "privbayes"] and list(v.table["ε"]) == ["—", 1.0]
    v = sviews.compare_view(rows, 1000, "tvd3")
    assert "3-TVD 0.10" in v.sentence
    risky = [_row("nonprivate", None, [0.7, 0.8, 0.9], [0.9, 0.3, 0.05])]
    v = sviews.compare_view(risky, 1000)
    assert v.best is None and v.sentence == "**No compared release keeps the attack at or below 60%.**"
    assert v.roc_attack is None and not v.by_epsilon
    assert all(not math.isnan(p["accuracy"]) for p in v.points)


def test_records_cap_follows_the_users_table(tmp_path):
    """n cannot pass half the records an uploaded table holds (rounded down to n's step of 50): the other half is
    the control set the risk is measured against; built-in data have no such cap."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"smoker": rng.choice(["yes", "no"], 534), "region": rng.choice(list("abcd"), 534),
                          "age": rng.integers(18, 80, 534)})
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    top, why = sviews.records_cap("csv", str(path), "smoker")
    assert top == 250 and "534 records" in why and "control set" in why
    assert sviews.records_cap("cces16", "", "") is None
    result = run("synthetic", {**SMALL, "dataset": "csv", "data_path": str(path), "secret": "smoker", "n": top},
                 seed=0)
    assert result.metrics["games_done"] == SMALL["games"]
    assert result.metrics["control_records"] == 250  # as many as n: the table holds 284 more
