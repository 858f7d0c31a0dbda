"""Parameter sweeps: run one scenario over a grid of parameter values, locally or on a Dask cluster.

``sweep(scenario, base, grid, seed)`` plays the scenario at every point of the
Cartesian product of ``grid`` (``{name: [values…]}``) on top of ``base``, with
the same seed at every point (common random numbers: differences between
points come from the parameters, not from the draw). Each row holds the grid
values and the point's metrics; the result records the fixed configuration,
the grid and the seed.

Order of work:

1. **Every grid point is validated first** (fixed values + that point's values,
   through ``Scenario.resolve``), so a bad point is reported by its values
   before any game runs.
2. Each point's shared context is prepared in this process with
   ``prepare_rng(seed)``, exactly as :func:`core.runtime.games.run` does.
3. The games of *all* points are cut into chunks and scheduled together
   through joblib — worker processes (``n_jobs``) or a Dask cluster
   (``scheduler="local"`` starts a ``LocalCluster``; ``"tcp://host:8786"``
   joins a running scheduler). Game ``i`` of a point uses
   ``game_rng(seed, i)``, so a point's numbers are identical to
   ``run(scenario, {**base, **point}, seed)`` whatever the backend.
4. Each point is summarised (``summarize`` + timings split off) in order.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
from typing import Any, Callable, Iterator

from ..cancel import stop_check
from ..errors import Cancelled, LabError, ParameterError
from ..scenario import prepare_rng
from .games import _jsonable, _play_chunk, split_timings
from ..scenario import Scenario, get

MAX_POINTS = 400
HANDSHAKE_GRACE_SECONDS = 2.0  # beyond the scheduler timeout, for a handshake that never ends


def usable_cores() -> int:
    """CPU cores this process may run on (affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _point_text(point: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def plan(scenario: str | Scenario, base: dict[str, Any] | None, grid: dict[str, list]
         ) -> tuple[Scenario, dict, list[str], list[dict], list[dict]]:
    """Validate the whole sweep before anything runs.

    Returns ``(scenario, base, names, points, configs)``: ``points[i]`` holds the
    varied values of grid point ``i`` and ``configs[i]`` its full validated
    configuration. A bad point raises :class:`ParameterError` naming the
    parameter and the point's values.
    """
    sc = get(scenario) if isinstance(scenario, str) else scenario
    base = dict(base or {})
    if not isinstance(grid, dict) or not grid:
        raise ParameterError("grid", "name at least one parameter to vary")
    known = {p.name for p in sc.params}
    clean: dict[str, list] = {}
    for name, values in grid.items():
        if name not in known:
            raise ParameterError(name, f"unknown parameter for {sc.name}; known: {', '.join(sorted(known))}")
        if name in base:
            raise ParameterError(name, "is both fixed (--set) and varied (--vary)")
        if not isinstance(values, (list, tuple)) or not values:
            raise ParameterError(name, "needs at least one value to vary over")
        clean[name] = [sc.param(name).validate(v) for v in values]
    names = list(clean)
    n_points = math.prod(len(v) for v in clean.values())
    if n_points > MAX_POINTS:
        raise ParameterError("grid", f"{n_points} points; at most {MAX_POINTS}")
    points = [dict(zip(names, values)) for values in itertools.product(*(clean[n] for n in names))]
    configs = []
    for point in points:
        try:
            configs.append(sc.resolve({**base, **point}))
        except ParameterError as exc:
            raise ParameterError(exc.param, f"grid point ({_point_text(point)}): {exc.message}") from None
    grid.update(clean)  # callers read the validated values back
    return sc, base, names, points, configs


def _connect(client_class, scheduler: str, timeout: float):
    """``Client(scheduler)`` within ``timeout`` seconds for the whole handshake, not only the TCP connect.

    Dask's own timeout covers reaching the port; a listener that is not a Dask scheduler (any web server) accepts
    the connection and then never answers, and the client would wait forever. The client is built in a daemon
    thread that is abandoned after the deadline. Ctrl-C while waiting is a clean stop."""
    box: dict = {}

    def attempt():
        try:
            box["client"] = client_class(scheduler, timeout=f"{timeout}s")
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=attempt, name="dask-connect", daemon=True)
    thread.start()
    try:
        thread.join(timeout + HANDSHAKE_GRACE_SECONDS)
    except KeyboardInterrupt:
        raise Cancelled(f"stopped while connecting to the Dask scheduler {scheduler!r}") from None
    if thread.is_alive():
        raise TimeoutError(f"no Dask scheduler answered within {timeout:g} s: the port is open, but what listens "
                           "there does not speak Dask")
    if "error" in box:
        raise box["error"]
    return box["client"]


@contextlib.contextmanager
def dask_backend(scheduler: str, n_workers: int | None = None, timeout: float = 10.0) -> Iterator[Any]:
    """Route joblib work to Dask while the block runs.

    ``scheduler="local"`` starts a ``LocalCluster`` of ``n_workers`` single-threaded
    worker processes (default: the usable cores); any other value is the address of a
    running ``dask scheduler`` (``tcp://host:8786``). Yields the ``Client``.
    """
    try:
        import joblib
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - dask is in requirements.txt
        raise LabError(f"--scheduler needs dask.distributed ({exc})") from None
    cluster = None
    try:
        if scheduler == "local":
            cluster = LocalCluster(n_workers=n_workers or usable_cores(), threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            client = Client(cluster)
        else:
            client = _connect(Client, scheduler, timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        raise ParameterError("scheduler", f"cannot reach the Dask scheduler {scheduler!r} ({exc}); "
                                          "start one with `dask scheduler` or use --scheduler local") from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def sweep(scenario: str | Scenario, base: dict[str, Any] | None, grid: dict[str, list], seed: int = 0, *,
          n_jobs: int = 1, scheduler: str | None = None, scheduler_timeout: float = 10.0,
          progress: Callable[[int, int, list[dict]], None] | None = None,
          cancel: Callable[[], bool] | None = None) -> dict:
    """Play ``scenario`` at every grid point; see the module docstring.

    ``n_jobs``: local worker processes; with ``scheduler="local"`` the number of
    ``LocalCluster`` workers; ignored for a remote scheduler (its workers do the work).
    ``progress(points_done, points_total, rows)`` is called after each finished point;
    ``cancel()`` is polled between chunks — a stopped sweep returns the finished points
    with ``completed=False``.
    """
    seed = int(seed)
    if seed < 0:
        raise ParameterError("seed", f"expected int >= 0, got {seed}")
    sc, base, names, points, configs = plan(scenario, base, grid)
    is_cancelled = cancel or (lambda: False)
    start = time.perf_counter()
    fixed = {k: v for k, v in configs[0].items() if k not in names}
    out = {"scenario": sc.name, "config": {**fixed, "seed": seed}, "grid": {n: grid[n] for n in names},
           "rows": [], "completed": False, "seconds": 0.0}
    contexts, totals = [], []
    try:
        with stop_check(is_cancelled):
            for config in configs:
                contexts.append(sc.prepare(config, prepare_rng(seed)))
                totals.append(int(sc.n_games(config)))
                if is_cancelled():
                    raise Cancelled("sweep stopped")
    except Cancelled:
        out["seconds"] = time.perf_counter() - start
        return _jsonable(out)

    n_jobs = max(1, int(n_jobs))
    with (dask_backend(scheduler, n_workers=n_jobs, timeout=scheduler_timeout) if scheduler
          else contextlib.nullcontext()) as client:
        workers = n_jobs
        if client is not None:
            workers = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
        tasks = _tasks(sc, configs, totals, workers)
        rows = _play_all(sc, configs, contexts, seed, tasks, totals, points, workers,
                         parallel=client is not None or n_jobs > 1, cancel=is_cancelled, progress=progress)
    out["rows"] = rows
    out["completed"] = len(rows) == len(points)
    out["seconds"] = time.perf_counter() - start
    return _jsonable(out)


def _tasks(sc, configs, totals, workers) -> list[tuple[int, list[int]]]:
    """The games of every point in one task list, ``(point, game indices)``.

    Chunks hold about a sixteenth of a worker's share of the games (so a grid of few, unequal points still
    spreads over the workers: one chunk per point would leave a worker alone with the heaviest point), and the
    points with the most expensive games (by :meth:`Scenario.estimate_cost`) go first, so the tail is made of
    cheap ones (longest-processing-time-first). Chunks of one point keep their order, so each point's records
    arrive in game order whatever the schedule, and the results do not depend on it.
    """
    chunk = max(1, math.ceil(sum(totals) / (16 * workers)))

    def per_game(p: int) -> float:
        try:
            return float(sc.estimate_cost(configs[p]).seconds) / max(1, totals[p])
        except Exception:  # an estimate is only a scheduling hint
            return 0.0

    order = sorted(range(len(totals)), key=per_game, reverse=True) if workers > 1 else range(len(totals))
    return [(p, list(range(i, min(totals[p], i + chunk)))) for p in order for i in range(0, totals[p], chunk)]


def _play_all(sc, configs, contexts, seed, tasks, totals, points, workers, *, parallel, cancel, progress):
    from joblib import Parallel, delayed

    records: list[list[dict]] = [[] for _ in points]
    rows: list[dict] = []
    next_point = 0

    def finish_ready():
        nonlocal next_point
        while next_point < len(points) and len(records[next_point]) == totals[next_point]:
            p = next_point
            metrics, series = sc.summarize(configs[p], contexts[p], records[p]) if records[p] else ({}, {})
            metrics, _timings = split_timings(_jsonable(metrics))
            row = {**points[p], **metrics}
            kept = {k: series[k] for k in sc.sweep_series if k in series}
            if kept:  # the scenario's small series (e.g. its ROC) travel with the row
                row["series"] = _jsonable(kept)
            rows.append(row)
            records[p] = []  # free the point's records once summarised
            next_point += 1
            if progress is not None:
                progress(len(rows), len(points), rows)

    finish_ready()  # points without games
    if parallel:
        pool = Parallel(n_jobs=workers if workers > 1 else -1, return_as="generator")
        results = pool(delayed(_play_chunk)(sc, configs[p], contexts[p], seed, idx) for p, idx in tasks)
        for (p, _idx), recs in zip(tasks, results):
            records[p].extend(recs)
            finish_ready()
            if cancel():
                results.close()  # joblib stops dispatching the remaining chunks
                break
    else:
        for p, idx in tasks:
            if cancel():
                break
            try:
                with stop_check(cancel):
                    records[p].extend(_play_chunk(sc, configs[p], contexts[p], seed, idx))
            except Cancelled:
                break
            finish_ready()
    return rows
