"""Cost of a run before it starts: estimated seconds and peak memory, and the limits that refuse it.

Every scenario answers :meth:`core.scenario.Scenario.estimate_cost` with a :class:`Cost` — the number of
games times a per-game cost calibrated on a 2-core server (see each scenario's ``estimate_cost``), and the
memory of the largest arrays a game holds (test aggregates, LP matrices, shadow sets). The runner applies a
*memory guard* to every run (command line included: more than ``memory_guard_fraction`` of the machine's
memory is refused); a shared server adds its per-run limits from ``lab_settings.toml``
(:func:`check_server_limits`), so one link cannot take the server down.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

from .errors import ParameterError


@dataclass(frozen=True)
class Cost:
    """Estimated wall-clock seconds (one core of the server) and peak bytes of one run."""

    seconds: float
    bytes: float
    drivers: tuple[str, ...] = ()  # the parameters that drive the cost (named in refusals)
    basis: str = ""  # how it was estimated, for the curious

    def text(self) -> str:
        return f"about {human_bytes(self.bytes)} and {human_seconds(self.seconds)}"


class CostLimitError(ParameterError):
    """A run was refused before it started because its estimated cost exceeds a limit."""

    def __init__(self, cost: Cost, message: str):
        self.cost = cost
        super().__init__(", ".join(cost.drivers) or "run", message)


def human_bytes(n: float) -> str:
    n = float(n)
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}".replace(".0 ", " ")
    return f"{n:.0f} bytes"


def human_seconds(s: float) -> str:
    s = float(s)
    if s < 90:
        return f"{max(1, math.ceil(s))} seconds" if s >= 1.5 else "1 second"
    if s < 90 * 60:
        return f"{math.ceil(s / 60)} minutes"
    return f"{s / 3600:.1f} hours"


def physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # not POSIX: no guard
        return 0


def _lower(cost: Cost) -> str:
    return f"lower {' or '.join(cost.drivers)}" if cost.drivers else "choose a smaller run"


def check_memory_guard(cost: Cost, fraction: float, memory: int | None = None) -> None:
    """Refuse a run that would need more than ``fraction`` of this machine's memory (CLI and server)."""
    memory = physical_memory() if memory is None else memory
    if memory and cost.bytes > fraction * memory:
        raise CostLimitError(cost, f"this run needs {human_bytes(cost.bytes)} of memory; this machine has "
                                   f"{human_bytes(memory)} and runs use at most {fraction:.0%} of it — "
                                   f"{_lower(cost)}")


def check_server_limits(cost: Cost, max_seconds: float, max_bytes: float) -> None:
    """Refuse a run above a shared server's per-run limits (``[server]`` in ``lab_settings.toml``)."""
    if cost.seconds > max_seconds or cost.bytes > max_bytes:
        raise CostLimitError(cost, f"this run needs {cost.text()}; the server allows "
                                   f"{human_bytes(max_bytes)} and {human_seconds(max_seconds)} per run — "
                                   f"{_lower(cost)} or use the command line (python -m core run)")


def largest_affordable(estimate, config: dict, name: str, low: int, high: int, step: int, max_seconds: float,
                       max_bytes: float) -> int | None:
    """The largest value of the integer parameter ``name`` (``low + i·step`` up to ``high``) whose estimated
    cost, the other values of ``config`` kept, fits a server's per-run limits; None when even ``low`` does not.

    ``estimate(config) -> Cost`` must grow with the parameter (people, games, records…), so a bisection over
    the widget's steps finds the bound in a few estimates."""
    def fits(v: int) -> bool:
        cost = estimate({**config, name: v})
        return cost.seconds <= max_seconds and cost.bytes <= max_bytes

    if not fits(low):
        return None
    lo, hi = 0, (high - low) // step  # indices: lo fits; find the last index that fits
    if fits(low + hi * step):
        return low + hi * step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(low + mid * step):
            lo = mid
        else:
            hi = mid
    return low + lo * step
