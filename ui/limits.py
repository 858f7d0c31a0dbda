"""Widget limits that follow the server: the largest value of a parameter whose run the server accepts.

A control should never offer what the server then refuses. :func:`cost_cap` asks the scenario's cost estimate,
at the other current settings, for the largest value of an integer parameter that fits the per-run limits of
``lab_settings.toml`` (:func:`core.cost.largest_affordable`); ``ui.common.param_widgets(cost_capped=…)`` draws
that parameter as a typed field with this top and says why.
"""
from __future__ import annotations

from core.scenario import Scenario


def cost_cap(scenario: Scenario, current: dict, name: str) -> tuple | None:
    """``(largest value, why)`` of int parameter ``name`` whose run the server accepts at the other current
    settings (:func:`core.cost.largest_affordable` over the scenario's cost estimate), or None."""
    from core.cost import human_bytes, human_seconds, largest_affordable
    from core.errors import LabError
    from core.runtime.settings import settings
    from ui.common import valid_range

    p = scenario.param(name)
    s = settings()
    lo, hi = valid_range("int", p.low, p.high, p.step, p.low_open, p.high_open)
    try:
        base = scenario.resolve({k: v for k, v in current.items() if k != "seed"})
        top = largest_affordable(scenario.estimate_cost, base, name, lo, hi, int(p.step or 1), s.max_run_seconds,
                                 s.max_run_bytes)
    except LabError:
        return None
    if top is None or top >= hi:  # nothing the server would refuse (or nothing it accepts: the run says why)
        return hi, "Type any value in the range."
    return top, (f"At the other current settings, {name} above {top:,} would need more than this server "
                 f"allows per run ({human_bytes(s.max_run_bytes)} and {human_seconds(s.max_run_seconds)}); "
                 "the command line has no such limit.")
