"""Widget limits that follow the server: the largest value of a parameter whose run the server accepts.

A control should never offer what the server then refuses. :func:`cost_cap` asks the scenario's cost estimate,
at the other current settings, for the largest value of an integer parameter that fits the per-run limits of
``lab_settings.toml`` (:func:`core.cost.largest_affordable`); ``ui.widgets.page_widgets.param_widgets(cost_capped=…)`` draws
that parameter as a typed field with this top and says why.
"""
from __future__ import annotations

import math

from core.scenario import Scenario


def valid_range(kind: str, low, high, step=None, low_open: bool = False, high_open: bool = False) -> tuple:
    """The first and last value a widget may offer for a (possibly open) range.

    With a step the widget's values are ``low + i·step``: an open bound starts one step inside, and the top
    is the last step that does not pass ``high`` (or reach it, when open). Without a step an open float
    bound moves to the next representable number, an open int bound by 1.
    """
    lo, hi = low, high
    if kind == "int":
        step = int(step or 1)
        if lo is not None:
            lo = int(math.ceil(lo)) + (step if low_open and float(lo).is_integer() else 0)
        if hi is not None:
            top = int(math.floor(hi))
            if lo is not None:
                top = lo + (top - lo) // step * step
            hi = top - (step if high_open and top == high else 0)
        return lo, hi
    if step:
        if lo is not None and low_open:
            lo = float(f"{lo + step:.12g}")
        if hi is not None:
            if lo is not None:
                top = lo + math.floor((hi - lo) / step + 1e-9) * step
                top = float(f"{top:.12g}")  # no 0.30000000000000004 on the slider
            else:
                top = hi
            hi = top - step if (high_open and top >= high) else top
        return lo, hi
    if lo is not None and low_open:
        lo = math.nextafter(float(lo), math.inf)
    if hi is not None and high_open:
        hi = math.nextafter(float(hi), -math.inf)
    return lo, hi


def cost_cap(scenario: Scenario, current: dict, name: str) -> tuple | None:
    """``(largest value, why)`` of int parameter ``name`` whose run the server accepts at the other current
    settings (:func:`core.cost.largest_affordable` over the scenario's cost estimate), or None."""
    from core.cost import human_bytes, human_seconds, largest_affordable
    from core.errors import LabError
    from core.basics.settings import settings

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
