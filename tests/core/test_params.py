"""Typed parameters (core/params.py) and how a scenario resolves and reports them (core/scenario.py)."""

import pytest

from core.errors import ParameterError
from core.params import Param
from core.scenario import all_scenarios, get


def test_param_validation_messages_name_the_range():
    p = Param("epsilon", "float", 0.5, low=0.0, high=20.0, low_open=True)
    assert p.parse("1.5") == 1.5
    with pytest.raises(ParameterError, match=r"epsilon: expected float in \(0, 20\]"):
        p.parse("0")
    with pytest.raises(ParameterError):
        p.parse("abc")
    with pytest.raises(ParameterError):
        p.validate(float("nan"))
    q = Param("n", "int", 3, low=1, high=9)
    assert q.parse("4") == 4 and isinstance(q.parse("4"), int)
    with pytest.raises(ParameterError, match="got 2.5"):
        q.parse("2.5")
    b = Param("flag", "bool", True)
    assert b.parse("false") is False
    c = Param("attack", "str", "a", choices=("a", "b"))
    with pytest.raises(ParameterError, match="one of a|b"):
        c.validate("z")


def test_invalid_default_is_rejected_at_definition():
    with pytest.raises(ParameterError):
        Param("k", "int", 0, low=1, high=5)


def test_resolve_fills_defaults_and_rejects_unknown():
    from toy_scenarios import Coin

    sc = Coin()
    assert sc.resolve({}) == {"games": 40, "bias": 0.8}
    with pytest.raises(ParameterError, match="unknown parameter"):
        sc.resolve({"nope": 1})


def test_registry_lists_scenarios_with_typed_params():
    scenarios = all_scenarios()
    assert "reconstruction" in scenarios
    for sc in scenarios.values():
        assert sc.title and sc.summary and sc.params
        sc.resolve({})  # every default configuration is valid
    with pytest.raises(ParameterError, match="unknown scenario"):
        get("no-such-scenario")


def test_inactive_parameters_are_reported():
    from core.scenario import get

    sc = get("reconstruction")
    assert set(sc.inactive(sc.resolve({}))) >= {"defense_level", "noise_unit"}
    assert "defense_level" not in sc.inactive(sc.resolve({"defense": "gaussian"}))
    assert "lp_method" in sc.inactive(sc.resolve({"solver": "lsq"}))

