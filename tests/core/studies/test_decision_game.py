"""The decision game: closed-form flip rate of a threshold rule against simulation, scoring of clicks, the ε of
95% agreement, and the session export."""
import json

import numpy as np
import pytest

from core.errors import ParameterError
from core.studies.choosing_epsilon import decision_game as D


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
@pytest.mark.parametrize("eps", [0.05, 0.3, 1.0])
def test_closed_form_flip_rate_matches_simulation(mechanism, eps):
    regions = D.regions(8, 100, 20, seed=3)
    counts = [r["true"] for r in regions]
    for rounded in (True, False):
        closed = D.flip_rate(counts, 100, eps, 1.0, mechanism, rounded=rounded)
        sim = D.simulate_flip_rate(counts, 100, eps, 1.0, mechanism, reps=40_000, rng=np.random.default_rng(1),
                                   rounded=rounded)
        assert sim == pytest.approx(closed, abs=0.006)


def test_laplace_flip_probability_known_answer():
    # c = T + 5, b = 1/ε = 5: P(Lap(5) < −5) = ½·e^{−1}
    assert D.flip_probability([105], 100, 0.2, rounded=False)[0] == pytest.approx(0.5 * np.exp(-1))
    assert D.flip_probability([95], 100, 0.2, rounded=False)[0] == pytest.approx(0.5 * np.exp(-1))
    # published as whole numbers: "> 100" means "≥ 100.5" before rounding
    assert D.flip_probability([105], 100, 0.2)[0] == pytest.approx(0.5 * np.exp(-4.5 / 5))


def test_agreement_epsilon_is_where_the_flip_rate_reaches_five_percent():
    counts = [r["true"] for r in D.regions(10, 200, 50, seed=0)]
    e = D.epsilon_for_agreement(counts, 200)
    assert D.flip_rate(counts, 200, e) == pytest.approx(0.05, abs=1e-6)
    assert D.flip_rate(counts, 200, e * 0.9) > 0.05
    assert D.epsilon_for_agreement([200.0], 200, rounded=False) is None  # at the threshold: a coin flip


def test_rounds_hide_the_copy_and_score_clicks():
    regions = D.regions(5, 100, 10, seed=1)
    rnd = D.new_round(regions, 0.5, seed=2)
    assert len(rnd["cards"]) == 10 and all(set(c) == {"id", "region", "value"} for c in rnd["cards"])
    # a player who follows the rule exactly
    decisions = {c["id"]: c["value"] > 100 for c in rnd["cards"]}
    s = D.score_round(rnd, decisions, 100)
    assert s["flip_rate"] == s["rule_flip_rate"] and s["followed_rule"] == 1.0
    # a player who says yes to everything never flips
    assert D.score_round(rnd, {c["id"]: True for c in rnd["cards"]}, 100)["flip_rate"] == 0.0
    with pytest.raises(ParameterError):
        D.score_round(rnd, {0: True}, 100)
    data = D.chart_data(regions, 100, [s])
    assert data["rounds"][0]["epsilon"] == 0.5 and len(data["epsilon"]) == len(data["flip_rate"])
    assert all(a >= 0.5 for a in data["attacker"])
    out = json.loads(D.session_json({"threshold": 100}, regions, [rnd], [s]))
    assert out["rounds"][0]["score"]["flip_rate"] == s["flip_rate"] and out["rounds"][0]["key"] == rnd["key"]


def test_setup_is_validated():
    with pytest.raises(ParameterError):
        D.regions(1, 100, 10)
    with pytest.raises(ParameterError):
        D.regions(5, 100, 500)
    with pytest.raises(ParameterError):
        D.new_round(D.regions(3, 100, 10), 0.0)
