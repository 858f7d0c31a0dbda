"""Parameter sweeps: run one scenario over a grid of parameter values.

``sweep(scenario, base, grid, seed)`` plays the scenario at every point of the
Cartesian product of ``grid`` (``{name: [values…]}``) on top of ``base``, with
the same seed at every point (common random numbers: differences between
points come from the parameters, not from the draw). Each row holds the grid
values and the point's metrics; the result records the full configuration.
"""
from __future__ import annotations

import itertools
import time
from typing import Any, Callable

from .errors import ParameterError
from .games import _jsonable, run
from .scenario import Scenario, get

MAX_POINTS = 400


def sweep(scenario: str | Scenario, base: dict[str, Any] | None, grid: dict[str, list], seed: int = 0, *,
          n_jobs: int = 1, progress: Callable[[int, int, list[dict]], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> dict:
    sc = get(scenario) if isinstance(scenario, str) else scenario
    base = dict(base or {})
    if not grid:
        raise ParameterError("grid", "name at least one parameter to vary")
    for name, values in grid.items():
        if name in base:
            raise ParameterError(name, "is both fixed and varied")
        if not values:
            raise ParameterError(name, "needs at least one value to vary over")
        param = sc.param(name) if name in {p.name for p in sc.params} else None
        if param is None:
            raise ParameterError(name, f"unknown parameter for {sc.name}")
        grid[name] = [param.validate(v) for v in values]
    names = list(grid)
    points = list(itertools.product(*(grid[n] for n in names)))
    if len(points) > MAX_POINTS:
        raise ParameterError("grid", f"{len(points)} points; at most {MAX_POINTS}")
    start = time.perf_counter()
    config = sc.resolve(base)  # validates the fixed part once
    rows: list[dict] = []
    for i, values in enumerate(points):
        if cancel is not None and cancel():
            break
        point = dict(zip(names, values))
        result = run(sc, {**base, **point}, seed=seed, n_jobs=n_jobs)
        rows.append({**point, **result.metrics})
        if progress is not None:
            progress(i + 1, len(points), rows)
    return _jsonable({"scenario": sc.name, "config": {**config, "seed": seed}, "grid": grid, "rows": rows,
                      "completed": len(rows) == len(points), "seconds": time.perf_counter() - start})
