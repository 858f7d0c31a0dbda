"""Run comparison logic: headline table, configuration diffs, Pareto front, ROC extraction."""
import math

import pytest

from core.measure import compare as C


def _res(scenario, config, metrics, series=None):
    return {"scenario": scenario, "config": config, "metrics": metrics, "series": series or {}}


def test_pareto_front_small_known_set():
    # minimise both: (1,5) (2,3) (3,4) (4,1) (2,3) duplicate, (5,5) dominated, NaN ignored
    pts = [(1, 5), (2, 3), (3, 4), (4, 1), (2, 3), (5, 5), (math.nan, 0), (None, 1)]
    assert C.pareto_front(pts) == [True, True, False, True, True, False, False, False]
    assert C.pareto_front([]) == []
    assert C.pareto_front([(0.3, 0.9)]) == [True]
    # ties in one coordinate: the strictly better one dominates
    assert C.pareto_front([(1, 2), (1, 1)]) == [False, True]


def test_config_diff_orders_differences_first_and_handles_other_scenarios():
    rows = C.config_diff([{"epsilon": 0.5, "k": 60, "seed": 0}, {"epsilon": 1.0, "k": 60, "seed": 0},
                          {"n": 100, "seed": 0}])
    names = [r["param"] for r in rows]
    assert names[:3] == ["epsilon", "k", "n"]
    assert rows[0]["values"] == [0.5, 1.0, None]
    assert next(r for r in rows if r["param"] == "seed")["differs"] is False
    # 2.0 and 2 are the same value
    assert C.config_diff([{"a": 2.0}, {"a": 2}])[0]["differs"] is False


def test_headline_per_scenario_with_fallbacks():
    loc = _res("location", {"epsilon": 0.5}, {"accuracy": 0.9, "auc": 0.95, "noise_scale": 2.0,
                                                 "claimed_epsilon": 30.0, "empirical_epsilon_low": 2.1})
    h = C.headline(loc)
    assert (h.attack_metric, h.attack, h.utility_metric, h.utility_error) == ("accuracy", 0.9, "noise_scale", 2.0)
    assert h.claimed_epsilon == 30.0 and h.empirical_epsilon_low == 2.1
    rec = _res("reconstruction", {}, {"accuracy": 0.7, "answer_rmse": 10.0, "release_epsilon": None})
    h = C.headline(rec)
    assert h.utility_error == 10.0 and h.claimed_epsilon is None
    ml = _res("ml-models", {}, {"accuracy": 0.6, "model_accuracy": 0.8})
    assert C.headline(ml).utility_error == pytest.approx(0.2)
    syn = _res("synthetic", {}, {"accuracy": 0.6, "tvd3": 0.1})  # mre_gt10 missing → tvd3
    assert C.headline(syn).utility_metric == "tvd3"
    unknown = _res("brand-new", {}, {"auc": 0.7})
    h = C.headline(unknown)
    assert (h.attack_metric, h.utility_error) == ("auc", None)


def test_scatter_marks_front_and_roc_extraction():
    runs = [_res("location", {"epsilon": e}, {"accuracy": a, "noise_scale": s})
            for e, a, s in ((0.1, 0.55, 10.0), (1.0, 0.8, 1.0), (0.5, 0.9, 2.0))]
    pts = C.scatter_points(runs)
    assert [p["front"] for p in pts] == [True, True, False]
    series = {"roc": {"lrt": {"fpr": [0, 0.5, 1], "tpr": [0, 1, 1]},
                      "random": {"fpr": [0, 1], "tpr": [0, 1], "auc": 0.5}}}
    curves = C.roc_curves(_res("location", {}, {}, series))
    assert curves["lrt"]["auc"] == pytest.approx(0.75)
    assert C.strongest_roc(_res("location", {}, {}, series))[0] == "lrt"
    assert C.roc_curves(_res("reconstruction", {}, {}, {})) == {}


def test_headline_carries_its_interval_games_and_low_variance_companion():
    syn = _res("synthetic", {}, {"accuracy": 0.78, "accuracy_ci_low": 0.69, "accuracy_ci_high": 0.85,
                                 "games_done": 100, "recon_all_records_accuracy": 0.81, "mre_gt10": 0.1})
    h = C.headline(syn)
    assert h.attack_ci == (0.69, 0.85) and h.games == 100 and h.companion == 0.81
    assert C.interval_text(h.attack, h.attack_ci, h.games) == "0.780 (95% CI 0.690–0.850, 100 games)"
    assert C.interval_text(0.5, None) == "0.500" and C.interval_text(None, None) == "—"
    row = C.comparison_table([syn], ["a"])[0]
    assert row["attack 95% CI"] == "0.690–0.850" and row["all-records reconstruction accuracy"] == 0.81
    # no interval reported for the headline metric (AUC here): none is made up
    auc_only = _res("brand-new", {}, {"auc": 0.7, "accuracy_ci_low": 0.1, "accuracy_ci_high": 0.2})
    assert C.headline(auc_only).attack_ci is None and C.comparison_table([auc_only])[0]["attack 95% CI"] is None

