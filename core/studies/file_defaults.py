"""Command-line defaults that fit a whole file: a run on the user's file at the defaults lasts minutes, not hours.

The command line's defaults are the papers' scales (the aggregate-statistics game's 10 blocks of 454 people with
20,000 shadow datasets each), chosen for the built-in data. On a whole file of the user's — a PPMF extract, a
30,000-row table — they made ``python -m core run aggregates --set data_path=FILE`` take 6 to 24 minutes before
anything was printed but the estimate. A lab page starts from lighter defaults (``Scenario.page_defaults``) and fits
them to the file (:mod:`core.scenarios.aggregates.fit`); the command line now does the same where it matters:

* only for a run on a file (a ``data_path`` / ``trace_file`` parameter is set) whose estimate at the defaults
  exceeds :data:`LONG_RUN_SECONDS` (a minute);
* only parameters that drive the estimate (``Cost.drivers``), that the command line did not set (``--set``,
  ``--config``, ``--preset`` values are never touched), and whose page default is smaller;
* the fewest of them that bring the estimate under :data:`LONG_RUN_SECONDS` (of equally few, the one keeping the
  most work), so the run stays as close to the defaults as the budget allows;
* said in one line before the estimate, with the ``--set`` that plays the defaults instead. The run's recorded
  configuration holds the values played, so rerunning it gives the same numbers.

A run that stays long whatever the page's values (or whose long parameters were set by hand) keeps its values;
the estimate is printed before it starts, with the parameters that make it long (:func:`shorter_hint`).
"""
from __future__ import annotations

from itertools import combinations
from typing import Any

from ..errors import LabError
from ..scenario import Scenario
from .link_rules import is_file_param

#: Estimated seconds (one core) above which a run on a file at the command line's defaults is fitted to the file.
LONG_RUN_SECONDS = 60.0


def _value(v: Any) -> str:
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{v:g}" if isinstance(v, float) else str(v)


def fit_defaults(sc: Scenario, overrides: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """``(overrides to run, one-line note or None)``: ``overrides`` plus the lighter page defaults that bring a long
    run on a file under :data:`LONG_RUN_SECONDS` (see the module docstring); unchanged, with no note, otherwise."""
    if not any(v and is_file_param(sc, k) for k, v in overrides.items()):
        return overrides, None
    try:
        config = sc.resolve(overrides)
        cost = sc.estimate_cost(config)
    except LabError:
        return overrides, None  # the run itself reports what is wrong, as it always has
    if cost.seconds <= LONG_RUN_SECONDS:
        return overrides, None
    lighter = {k: v for k, v in sc.page_defaults.items()
               if k in cost.drivers and k not in overrides and isinstance(v, (int, float))
               and not isinstance(v, bool) and v < config[k]}
    best = None
    for size in range(1, len(lighter) + 1):
        for keys in combinations(lighter, size):
            trial = {**overrides, **{k: lighter[k] for k in keys}}
            try:
                seconds = sc.estimate_cost(sc.resolve(trial)).seconds
            except LabError:
                continue
            if seconds <= LONG_RUN_SECONDS and (best is None or seconds > best[1]):
                best = (keys, seconds, trial)
        if best is not None:
            break
    if best is None:
        return overrides, None
    keys, _, trial = best
    after = sc.estimate_cost(sc.resolve(trial))
    played = ", ".join(f"{k} = {_value(lighter[k])}" for k in keys)
    back = " ".join(f"--set {k}={config[k]}" for k in keys)
    return trial, (f"at the command line's defaults this run on your file is estimated at {cost.text()}; it plays "
                   f"the lab page's {played} instead ({after.text()}); {back} plays the defaults")


def shorter_hint(cost) -> str:
    """What makes a run long, for the line that prints its estimate: the parameters its cost grows with."""
    if cost.seconds <= LONG_RUN_SECONDS or not cost.drivers:
        return ""
    return f"; to make it shorter, lower {', '.join(cost.drivers)} with --set"
