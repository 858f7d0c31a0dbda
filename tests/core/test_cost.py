"""Cost estimates: invariants of every scenario's ``estimate_cost``, no timing.

How well the estimates predict real runs is measured by ``benchmarks/bench_cost.py`` (estimate / measured CPU
seconds per configuration); here: more work is never estimated cheaper, each page's default run is short enough
for the server's express lane, and the abusive links stay refused with a message that names memory and time.
"""
from __future__ import annotations

from itertools import pairwise

import pytest

from core.cost import CostLimitError, check_server_limits
from core.scenario import all_scenarios, get
from core.basics.settings import Settings, settings


def _seconds(name: str, base: dict, **change) -> float:
    sc = get(name)
    return sc.estimate_cost(sc.resolve({**base, **change})).seconds


# (scenario, base config, driver, increasing values): the estimate must grow strictly along each driver
AGG_PAGE = get("aggregates").page_defaults
SYN_PAGE = get("synthetic").page_defaults
DRIVERS = [
    ("reconstruction", {}, "n", [50, 100, 300, 1000, 2000]),
    ("reconstruction", {}, "trials", [1, 10, 100]),
    # m ≥ n (below, the noisy LP costs as much as with m = n, and exact answers make a degenerate LP: see
    # test_heavier_choices_cost_more)
    ("reconstruction", {"defense": "gaussian", "defense_level": 5.0}, "query_ratio", [1.0, 2.0, 4.0, 8.0]),
    ("reconstruction", {"sweeps": False}, "query_ratio", [1.0, 2.0, 4.0, 8.0]),
    ("reconstruction", {"queries": "hash"}, "query_ratio", [1.0, 2.0, 4.0, 8.0]),
    ("reconstruction", {"n": 40, "solver": "ilp", "defense": "gaussian", "defense_level": 2.0}, "n", [20, 40, 60]),
    ("reconstruction", {"solver": "lsq"}, "n", [100, 300, 1000]),
    ("location", {}, "games", [100, 10_000, 50_000, 1_000_000]),
    ("location", {}, "observations", [1, 10, 60, 200]),
    ("location", {"shadow_sweep_max": 0}, "train_shadows", [20, 2000, 200_000, 1_000_000]),
    ("location", {}, "shadow_sweep_max", [0, 2000, 200_000, 1_000_000]),
    ("location", {"attacker": "auxiliary"}, "users", [5000, 15_793, 60_000, 200_000]),
    ("location", {"attacker": "auxiliary"}, "activity_median", [0.5, 3.0, 30.0]),
    ("location", {"attacker": "auxiliary"}, "site_zipf", [0.0, 0.7, 3.0]),
    ("location", {"attack": "mlp", "shadow_sweep_max": 0}, "train_shadows", [400, 2000, 20_000, 200_000]),
    ("aggregates", AGG_PAGE, "blocks", [1, 3, 10]),
    ("aggregates", AGG_PAGE, "releases", [1, 3]),
    ("aggregates", AGG_PAGE, "block_size", [50, 100, 200, 454, 800]),
    ("aggregates", AGG_PAGE, "shadows", [100, 1000, 20_000]),
    ("aggregates", AGG_PAGE, "reconstructions", [1, 3, 100]),
    ("aggregates", AGG_PAGE, "rap_steps", [10, 100, 1000]),
    ("aggregates", AGG_PAGE, "targets", [1, 10, 50]),
    ("aggregates", {**AGG_PAGE, "attack": "desia"}, "query_ratio", [0.05, 0.25, 0.75]),
    ("synthetic", SYN_PAGE, "games", [1, 10, 100]),
    ("synthetic", SYN_PAGE, "synth_size", [100, 10_000, 1_000_000]),
    ("synthetic", SYN_PAGE, "n", [100, 1000, 3000, 5000]),
    ("synthetic", SYN_PAGE, "query_k", ["3", "4"]),
    ("ml-models", {}, "n_per_group", [100, 1000, 3000]),
    ("ml-models", {}, "groups", [2, 10, 51]),
    ("ml-models", {}, "epochs", [5, 20, 200]),
]


@pytest.mark.parametrize("name, base, driver, values", DRIVERS,
                         ids=[f"{d[0]}-{d[2]}-{i}" for i, d in enumerate(DRIVERS)])
def test_estimate_grows_along_every_cost_driver(name, base, driver, values):
    seconds = [_seconds(name, base, **{driver: v}) for v in values]
    assert all(a < b for a, b in pairwise(seconds)), dict(zip(values, seconds))


def test_heavier_choices_cost_more():
    assert _seconds("aggregates", AGG_PAGE, task="mia") > _seconds("aggregates", AGG_PAGE)
    assert _seconds("aggregates", AGG_PAGE, attack="all") > _seconds("aggregates", AGG_PAGE, attack="desia")
    assert _seconds("aggregates", AGG_PAGE, classifier="rf") > _seconds("aggregates", AGG_PAGE)
    assert _seconds("aggregates", AGG_PAGE, sweep="epsilon") > 5 * _seconds("aggregates", AGG_PAGE)
    assert _seconds("location", {}, attack="mlp") > _seconds("location", {})
    assert _seconds("location", {}, attacker="auxiliary") > _seconds("location", {})
    assert _seconds("synthetic", SYN_PAGE, attack="all") > _seconds("synthetic", SYN_PAGE)
    assert _seconds("synthetic", SYN_PAGE, dataset="acs-like") > _seconds("synthetic", SYN_PAGE)
    # the paper's game alone for the ratios: the audit against a control set adds a cost that neither choice moves
    # much (its own LP for the control records, singling out, linkability, the proxy scores)
    paper = {**SYN_PAGE, "control_risk": False}
    assert _seconds("synthetic", paper, lp_method="ipm") > 3 * _seconds("synthetic", paper, query_sweep=False)
    assert _seconds("synthetic", paper, generator="rap") > 10 * _seconds("synthetic", paper)
    assert _seconds("synthetic", SYN_PAGE) > _seconds("synthetic", paper)
    assert _seconds("ml-models", {}, defense="bcorr") > _seconds("ml-models", {})
    assert _seconds("ml-models", {}, attack="lomia") > _seconds("ml-models", {})
    assert _seconds("ml-models", {}, model="forest") > _seconds("ml-models", {})
    # exact answers with fewer queries than people: the degenerate LP (HiGHS) dominates, whatever m
    assert _seconds("reconstruction", {"n": 1000, "sweeps": False}, query_ratio=0.5) > \
        5 * _seconds("reconstruction", {"n": 1000, "sweeps": False}, query_ratio=2.0)


def test_every_page_default_takes_the_express_lane():
    """A lab's small default run must be estimated within the express lane (the load test saw defaults queued for
    minutes behind heavy runs when the estimates were 3–25× too high)."""
    limit = settings().express_max_seconds  # lab_settings.toml: 60 s
    assert 0 < limit <= Settings().max_run_seconds
    for name, sc in all_scenarios().items():
        config = sc.resolve(dict(sc.page_defaults))
        cost = sc.estimate_cost(config)
        assert 0 < cost.seconds <= limit, (name, cost)
    # the two pages that start below the scenario's defaults
    assert get("aggregates").page_defaults["attack"] == "all"
    assert get("synthetic").page_defaults == {"games": 10, "synth_size": 10_000, "n": 1000}


def test_paper_scale_runs_stay_out_of_the_express_lane():
    limit = settings().express_max_seconds
    assert _seconds("aggregates", {}) > limit  # the paper's 10 blocks × 20,000 shadows
    assert _seconds("location", {}, attack="mlp", shadow_sweep_max=200_000) > limit
    assert _seconds("reconstruction", {}, n=2000) > limit
    assert _seconds("ml-models", {}, n_per_group=3000, epochs=200) > limit
    assert _seconds("synthetic", SYN_PAGE, synth_size=1_000_000, games=100) > limit


def test_abusive_location_link_is_refused_by_the_default_limits():
    sc = get("location")
    s = settings()
    cost = sc.estimate_cost(sc.resolve({"games": 1_000_000, "observations": 200}))
    assert cost.bytes > 4e9 and cost.seconds > s.max_run_seconds / 3
    with pytest.raises(CostLimitError) as err:
        check_server_limits(cost, s.max_run_seconds, s.max_run_bytes)
    msg = str(err.value)
    assert "GB" in msg and "minutes" in msg and "the server allows 1 GB and 10 minutes per run" in msg
    assert "games" in msg and "observations" in msg  # the drivers to lower
    # and the estimate alone (memory) refuses it even with a generous time limit
    with pytest.raises(CostLimitError, match="GB"):
        check_server_limits(cost, 1e9, s.max_run_bytes)


def test_huge_runs_are_refused_for_time_as_well():
    s = settings()
    for name, config in (("reconstruction", {"n": 2000, "trials": 100}),
                         ("aggregates", {"blocks": 50, "attack": "all"}),
                         ("synthetic", {"synth_size": 1_000_000, "games": 1000, "attack": "all"}),
                         ("ml-models", {"n_per_group": 5000, "epochs": 500, "defense": "bcorr"})):
        sc = get(name)
        cost = sc.estimate_cost(sc.resolve(config))
        assert cost.seconds > s.max_run_seconds, (name, cost)
        with pytest.raises(CostLimitError, match="minutes|hours"):
            check_server_limits(cost, s.max_run_seconds, s.max_run_bytes)


def test_page_defaults_are_valid_parameters():
    for name, sc in all_scenarios().items():
        known = {p.name for p in sc.params}
        assert set(sc.page_defaults) <= known, name
        sc.resolve(dict(sc.page_defaults))  # raises ParameterError if a value is out of range
