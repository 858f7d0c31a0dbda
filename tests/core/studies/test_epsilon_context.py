"""ε in context: the odds sentence, the (ε, δ) version through the f-DP curve, accuracy first, the equivalent sample,
the deployments registry and its zCDP conversion, the `epsilon` command, and the sound empirical-ε bound."""
import json
import math

import numpy as np
import pytest

from core import cli
from core.errors import DataError, ParameterError
from core.measure import metrics as M
from core.output import plain_language as say
from core.studies.choosing_epsilon import deployment_registry as R
from core.studies.choosing_epsilon.epsilon_context import epsilon_in_context
from core.theory import fdp, odds


# ------------------------------------------------------------------ odds
@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0, 10.0])
def test_posterior_bound_matches_the_closed_form(eps):
    assert odds.posterior_bound(eps) == pytest.approx(math.exp(eps) / (1 + math.exp(eps)), rel=1e-12)
    for p in (0.01, 0.2, 0.9):
        assert odds.posterior_bound(eps, p) == pytest.approx(p * math.exp(eps) / (p * math.exp(eps) + 1 - p),
                                                             rel=1e-12)


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0, 10.0])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 1e-2])
def test_eps_delta_version_agrees_with_the_fdp_curve(eps, delta):
    # the largest likelihood ratio past the δ jump, read off the trade-off curve numerically
    for p in (0.5, 0.1):
        assert odds.posterior_from_curve(eps, p, delta) == pytest.approx(odds.posterior_bound(eps, p, delta),
                                                                         rel=1e-6)
    # the best chance of guessing right: maximise p·TPR + (1−p)·TNR over the curve on a fine grid
    alpha = np.linspace(0, 1, 200_001)
    tpr = 1 - fdp.eps_delta_tradeoff(alpha, eps, delta)
    for p in (0.5, 0.3):
        numeric = float(np.max(p * tpr + (1 - p) * (1 - alpha)))
        assert odds.guess_bound(eps, p, delta) == pytest.approx(numeric, abs=1e-5)
    assert odds.guess_bound(eps, 0.5, delta) == pytest.approx(fdp.accuracy_bound(eps, delta), rel=1e-12)


def test_odds_sentence_reads_as_the_issue_asks():
    assert say.odds_sentence(1.0) == ("An attacker who thinks it's 50/50 that a person is in the data can be at "
                                      "most 73% sure after seeing this release.")
    with_delta = say.odds_sentence(1.0, 1e-5)
    assert "73%" in with_delta and "1 in 100,000" in with_delta
    assert "10% chance" in say.odds_sentence(1.0, prior=0.1)
    assert "claims no ε" in say.odds_sentence(None) and "claims no ε" in say.odds_sentence(math.inf)


def test_bad_inputs_are_typed_errors():
    with pytest.raises(ParameterError):
        odds.posterior_bound(1.0, prior=1.0)
    with pytest.raises(ParameterError):
        odds.posterior_bound(-1.0)
    with pytest.raises(ParameterError):
        odds.epsilon_for_accuracy(0.0)
    with pytest.raises(ParameterError):
        odds.epsilon_for_accuracy(5, share=1.0)


# ------------------------------------------------------------ accuracy first
@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
@pytest.mark.parametrize("error,sens", [(10, 1), (3, 2), (50, 1)])
def test_epsilon_for_accuracy_inverts_the_share_within(mechanism, error, sens):
    eps = odds.epsilon_for_accuracy(error, 0.95, sens, mechanism, 1e-5)
    assert odds.share_within(error, eps, sens, mechanism, 1e-5) == pytest.approx(0.95, abs=1e-6)
    rng = np.random.default_rng(1)
    if mechanism == "laplace":
        assert eps == pytest.approx(sens * math.log(20) / error)
        noise = rng.laplace(0, sens / eps, 200_000)
        assert np.mean(np.abs(noise) <= error) == pytest.approx(0.95, abs=0.003)


# ---------------------------------------------------------- equivalent sample
def test_equivalent_sample_matches_a_simulated_bernoulli_sample():
    rng = np.random.default_rng(0)
    counts = rng.integers(50, 2000, 300)
    mae = odds.noise_mae(0.1)  # Laplace b = 10
    r = odds.equivalent_sample_fraction(counts, mae)
    assert 0 < r < 1
    assert odds.sample_mae(counts, r) == pytest.approx(mae, rel=1e-9)
    # a real Bernoulli sample at that fraction, scaled by 1/r, errs by about the same mean absolute amount
    est = rng.binomial(np.repeat(counts[None, :], 200, axis=0), r) / r
    assert np.mean(np.abs(est - counts)) == pytest.approx(mae, rel=0.05)
    assert odds.equivalent_sample_fraction(counts, 0.0) == 1.0
    assert "random sample" in say.equivalent_sample_sentence(r)


# ------------------------------------------------------------------ registry
def test_every_registry_row_parses_and_converts():
    rows = R.load_registry()
    assert len(rows) >= 25
    orgs = {r["organisation"] for r in rows}
    assert {"U.S. Census Bureau", "Apple", "Google", "Microsoft", "LinkedIn", "Meta", "Wikimedia Foundation",
            "Israeli Ministry of Health"} <= orgs
    for r in rows:
        assert r["epsilon"] > 0 and r["source"].startswith("https://") and r["unit"]
        assert r["model"] in ("central", "local") and r["unit_kind"] in R.UNIT_KINDS
        if r["rho"] is not None:
            tight = R.zcdp_epsilon(r["rho"], r["conversion_delta"])
            classic = R.zcdp_epsilon_classic(r["rho"], r["conversion_delta"])
            assert r["epsilon_converted"] == pytest.approx(tight)
            assert 0 < tight <= classic
            if r["epsilon_published"] is not None:  # the organisation's own conversion (or tighter accounting)
                assert 0.85 * tight <= r["epsilon_published"] <= 1.01 * classic, r["product"]


def test_zcdp_conversion_known_values():
    # 2020 Census redistricting, person tables: ρ = 2.56 ↔ ε = 17.14 at δ = 1e-10 (the Bureau's figure)
    assert R.zcdp_epsilon(2.56, 1e-10) == pytest.approx(17.14, abs=0.05)
    assert R.zcdp_epsilon_classic(1.0, math.exp(-4)) == pytest.approx(1 + 2 * 2)
    assert R.zcdp_epsilon(0.0, 1e-5) == 0.0
    with pytest.raises(ParameterError):
        R.zcdp_epsilon(1.0, 0.0)


def test_bad_registry_rows_are_refused(tmp_path):
    good = dict(organisation="X", product="Y", year="2020", epsilon="1", delta="", rho="", conversion_delta="",
                unit="user-day", unit_kind="user-period", model="central", period="per day",
                source="https://example.org", note="")
    assert R.parse_row(good)["epsilon"] == 1.0
    for key, value in (("source", "javascript:alert(1)"), ("epsilon", "lots"), ("unit_kind", "galaxy"),
                       ("model", "cloud")):
        with pytest.raises(DataError):
            R.parse_row({**good, key: value})
    with pytest.raises(DataError):
        R.parse_row({**good, "epsilon": "", "rho": "0.5"})  # ρ without a conversion δ


def test_units_decide_greying():
    rows = {r["product"]: r for r in R.ticks()}
    census = rows["2020 Census Redistricting Data (P.L. 94-171) — person tables"]
    assert census["comparable"] and "source: https://www2.census.gov" in census["hover"]
    mobility = rows["COVID-19 Community Mobility Reports"]
    assert not mobility["comparable"] and "user-day" in mobility["reason"]
    assert all(k in mobility["hover"] for k in ("Google", "user-day", "per day", "https://arxiv.org"))


def test_cli_epsilon_prints_one_json_object(capsys):
    assert cli.main(["epsilon", "1", "--prior", "0.5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["posterior_bound"] == pytest.approx(math.e / (1 + math.e))
    assert "73%" in out["odds_text"]
    assert len(out["deployments"]) == 5 and all("unit" in d and d["source"] for d in out["deployments"])
    assert cli.main(["epsilon", "4", "--delta", "1e-6", "--prior", "0.1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["posterior_bound"] == pytest.approx(odds.posterior_bound(4, 0.1))
    assert cli.main(["epsilon", "1", "--prior", "2"]) == 2
    assert "prior" in capsys.readouterr().err


def test_nearest_deployments_are_nearest_on_a_log_scale():
    out = epsilon_in_context(17.0, k=3)
    assert any("Census" in d["organisation"] for d in out["deployments"])
    eps = [d["epsilon"] for d in out["deployments"]]
    others = [r["epsilon"] for r in R.load_registry()]
    worst = max(abs(math.log(e / 17)) for e in eps)
    assert sum(abs(math.log(e / 17)) < worst for e in others) <= 3


# ------------------------------------------------------------ sound empirical ε
def _laplace_games(eps, n, rng):
    y = (np.arange(n) < n // 2).astype(int)
    return y, y + rng.laplace(0, 1 / eps, n)


def test_split_bound_keeps_its_false_alarm_promise():
    """A correct ε = 1 Laplace count, 200 seeds: the sound bound exceeds ε = 1 on at most ~5% of seeds (it is a 95%
    bound), while the same-games maximum does so far more often — the bias the split removes."""
    from sklearn.metrics import roc_curve

    from core.measure.audit import epsilon_lower_bound_roc  # the same-games maximum, vectorised

    sound = optimistic = 0
    for seed in range(200):
        y, s = _laplace_games(1.0, 600, np.random.default_rng(seed))
        sound += M.best_threshold_epsilon(y, s) > 1.0
        if seed < 60:
            f, t, _ = roc_curve(y, s)
            optimistic += epsilon_lower_bound_roc(f, t, 300, 300) > 1.0
    assert sound <= 10  # ≤ 5% (expected far fewer: the bound is conservative)
    assert optimistic >= 3  # the old bound cries wolf on this very setting


def test_split_bound_still_catches_a_leak_and_uses_disjoint_halves():
    y, s = _laplace_games(4.0, 4000, np.random.default_rng(7))  # true ε = 4
    low = M.best_threshold_epsilon(y, s)
    assert 1.5 < low <= 4.0
    sel, ev = M.split_halves(y)
    assert not set(sel) & set(ev) and len(sel) + len(ev) == y.size
    assert abs(y[sel].mean() - y[ev].mean()) < 0.01
    # several attacks: the best is chosen on the selection half, and a useless one does not dilute it
    noise = np.random.default_rng(1).normal(size=y.size)
    assert M.split_epsilon_bound(y, [noise, s]) == pytest.approx(low)


# ------------------------------------------------------------ ticks on three ε axes
def _deployment_traces(fig):
    return [t for t in fig.data if getattr(t, "meta", None) == "deployments"]


def _check_ticks(fig, lo, hi):
    from core.plots.deployments import GREY

    traces = _deployment_traces(fig)
    assert traces, "no deployment ticks drawn"
    xs = [x for t in traces for x in t.x]
    assert xs and all(lo <= x <= hi for x in xs)
    hovers = [h for t in traces for h in t.customdata]
    assert all("source: https://" in h and "unit:" in h for h in hovers)
    grey = [t for t in traces if t.marker.line.color == GREY]
    assert grey and all("greyed:" in h for h in grey[0].customdata)
    assert fig.layout.yaxis9.overlaying == "y" and tuple(fig.layout.yaxis9.range) == (0, 1)


def test_ticks_on_the_explorer_belief_chart():
    from core.plots.epsilon import belief_vs_epsilon_figure

    fig = belief_vs_epsilon_figure(odds.belief_curve(0.5, 0.0, chosen=4.0), R.ticks())
    _check_ticks(fig, 0.01, 50)
    census = [h for t in _deployment_traces(fig) for h in t.customdata if "Redistricting" in h and "person" in h]
    assert census and "ε = 17.1" in census[0]  # "how does ε = 4 compare with the 2020 Census?" in one hover


def test_ticks_on_the_ladder_chart():
    from core.plots.fdp import ladder_figure

    ladder = {"scenario": "location", "attack_label": "accuracy", "utility_label": "error", "rows": [
        {"epsilon": e, "attack": 0.5 + e / 40, "attack_ci_low": None, "attack_ci_high": None, "bound": None,
         "utility": None} for e in (0.5, 1.0, 2.0, 5.0, 10.0)]}
    _check_ticks(ladder_figure(ladder, R.ticks()), 0.5 / 1.5, 15.0)
    assert not _deployment_traces(ladder_figure(ladder))  # no ticks asked for, none drawn


def test_ticks_on_the_synthetic_accuracy_vs_epsilon_chart():
    from core.plots.synthetic import accuracy_vs_epsilon

    rows = [{"generator": "privbayes", "epsilon": e, "accuracy_at_1000": 0.6, "games_done": 10} for e in (1, 10, 100)]
    _check_ticks(accuracy_vs_epsilon(rows, [1000], R.ticks()), 1 / 3, 300)


def test_split_bound_on_too_few_games_is_the_trivial_bound():
    assert M.best_threshold_epsilon([1, 1, 1, 0], [3.0, 2.0, 1.0, 0.0]) == 0.0  # one negative: no bounding half
    assert math.isnan(M.best_threshold_epsilon([1, 1], [1.0, 2.0]))            # one class: nothing to measure


def test_report_summary_carries_the_odds_and_nearest_deployments():
    from core.output.report import register_summary_hook, summary_lines
    from core.runtime.games import run
    from core.studies.choosing_epsilon.epsilon_context import report_lines

    result = run("location", {"observations": 1, "games": 400, "shadow_sweep_max": 0, "train_shadows": 200,
                              "epsilon": 1.0, "attacker": "informed"}, seed=0)
    lines = report_lines(result)
    assert "73%" in lines[0] and lines[1].startswith("Real deployments nearest this ε per person")
    assert "user-day" not in lines[1] and "event" not in lines[1]  # like units only
    register_summary_hook(report_lines)
    assert any("73%" in x for x in summary_lines(result))


def test_synthetic_utility_reports_its_equivalent_sample():
    """A genuine r-sample of the data, used as the 'synthetic' table, is read back as about an r sample."""
    from core.measure.utility import UtilityQueries

    rng = np.random.default_rng(0)
    data = rng.integers(0, 3, (20_000, 5))
    uq = UtilityQueries(data, [3] * 5, np.random.default_rng(1))
    sample = data[rng.random(data.shape[0]) < 0.1]
    out = uq.evaluate(sample)
    assert 0.05 < out["sample_equivalent"] < 0.2 and out["mae_gt10"] > 0
    assert uq.evaluate(data)["sample_equivalent"] == 1.0  # the data themselves: no error at all
