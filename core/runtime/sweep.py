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
4. Each point is summarised (``summarize`` + timings split off) as soon as all its games are back; the
   rows come out in grid order. A stopped sweep (Stop, SIGINT/SIGTERM on the command line) keeps every
   point that had finished, whichever they were.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
import warnings
from typing import Any, Callable, Iterator

from ..basics.settings import settings
from ..cancel import stop_check
from ..cost import check_memory_guard
from ..errors import Cancelled, Interrupted, LabError, ParameterError
from ..scenario import prepare_rng
from .games import _is_crash, _jsonable, _play_chunk, split_timings, worker_crash
from ..scenario import Scenario, get
from ..cost import Cost
from ..scenario import all_scenarios

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


def sweep_cost(scenario: Scenario, configs: list[dict], names: list[str]):
    """The cost of a whole sweep from its validated point configurations (:func:`plan`).

    Seconds add up over the points; memory is the largest point's (points are played one chunk at a time).
    The command line prints it and applies the memory guard; a server checks it against its per-run limits.
    """
    seconds, peak = 0.0, 0.0
    for config in configs:
        cost = scenario.estimate_cost(config)
        seconds += cost.seconds
        peak = max(peak, cost.bytes)
    return Cost(seconds=seconds, bytes=peak, drivers=tuple(names), basis="Σ points")


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
            # With the dashboard off, the scheduler still opens its small HTTP endpoint (health checks) on
            # port 8787, and warns when another cluster of this machine holds it (a second sweep, a second
            # test process) before taking a free port; nothing here uses that endpoint, so the warning is noise.
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
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
    ``progress(points_done, points_total, rows)`` is called after each finished point (rows in grid order);
    ``cancel()`` is polled between chunks — a stopped sweep returns the finished points
    with ``completed=False``. Every sweep passes the memory guard first, like :func:`core.runtime.games.run`.
    """
    seed = int(seed)
    if seed < 0:
        raise ParameterError("seed", f"expected int >= 0, got {seed}")
    sc, base, names, points, configs = plan(scenario, base, grid)
    check_memory_guard(sweep_cost(sc, configs, names), settings().memory_guard_fraction)  # as run() does
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
    except (Cancelled, Interrupted):  # Stop pressed, or a stop signal reached the command line
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
                         parallel=client is not None or n_jobs > 1, cancel=is_cancelled, progress=progress,
                         client=client)
    out["rows"] = rows
    out["completed"] = len(rows) == len(points)
    out["seconds"] = time.perf_counter() - start
    return _jsonable(out)


# A task shorter than this is mostly overhead: scheduling, sending its arguments and its records back costs a few
# milliseconds per task on Dask (and joblib's process pool), so chunks hold at least this much estimated work.
MIN_TASK_SECONDS = 0.25
# Tasks per worker the grid is cut into: enough for a balanced finish (the last tasks are the cheapest), few
# enough that their overhead stays a few percent.
TASKS_PER_WORKER = 8


def _per_game_seconds(sc, configs, totals) -> list[float]:
    """Estimated seconds of one game of each point (:meth:`Scenario.estimate_cost` over its games); the
    estimate is only a scheduling hint, so a scenario without one counts every game the same."""
    out = []
    for config, total in zip(configs, totals):
        try:
            out.append(max(1e-3, float(sc.estimate_cost(config).seconds) / max(1, total)))
        except Exception:
            out.append(1.0)
    return out


def _tasks(sc, configs, totals, workers) -> list[tuple[int, list[int]]]:
    """The games of every point in one task list, ``(point, game indices)``, in the order to start them.

    One worker: the points in grid order, so each finishes (and is summarised and shown) as early as possible.
    Several workers: chunks sized by estimated work — about ``1/TASKS_PER_WORKER`` of a worker's share of the
    grid, never under ``MIN_TASK_SECONDS`` — so a point of expensive games (the synthetic paper grid's
    m = 10⁶) is spread over several tasks while a point of cheap games is one task; then the longest tasks go
    first (longest-processing-time-first), so the tail is made of the cheapest ones and the workers finish
    together. Chunks of one point keep their game order; the results never depend on the schedule.
    """
    if workers <= 1:
        chunk = max(1, math.ceil(sum(totals) / 16))
        return [(p, list(range(i, min(totals[p], i + chunk)))) for p in range(len(totals))
                for i in range(0, totals[p], chunk)]
    per_game = _per_game_seconds(sc, configs, totals)
    total = sum(e * t for e, t in zip(per_game, totals))
    target = max(MIN_TASK_SECONDS, total / (TASKS_PER_WORKER * workers))
    tasks = []
    for p, (e, n) in enumerate(zip(per_game, totals)):
        chunk = int(min(max(1, n), max(1, math.floor(target / e))))
        tasks += [(p, list(range(i, min(n, i + chunk)))) for i in range(0, n, chunk)]
    # stable sort: equal-length chunks of one point stay in game order, a point's short remainder comes after
    return sorted(tasks, key=lambda t: per_game[t[0]] * len(t[1]), reverse=True)


def _play_all(sc, configs, contexts, seed, tasks, totals, points, workers, *, parallel, cancel, progress,
              client=None):
    """Play every chunk of every grid point (on Dask, in joblib workers, or here) and summarise each point as
    soon as all its games are back; returns the rows of the finished points in grid order. A stop (signal or
    ``cancel()``) keeps the finished points; a crashed worker becomes one typed error."""
    from joblib import Parallel, delayed

    records: list[dict[int, list[dict]]] = [{} for _ in points]  # point → first game of a chunk → its records
    done: dict[int, dict] = {}  # point → its row, filled as points complete (in any order)

    def rows_in_order() -> list[dict]:
        return [done[p] for p in sorted(done)]

    def finish_ready(points_touched=None):
        # A point is summarised as soon as all its games are back, whatever its place in the grid: the
        # schedule plays the longest tasks first, so waiting for grid order would hold every row (and the
        # progress count) back until the end, and a stopped sweep would keep none of the finished points.
        for p in range(len(points)) if points_touched is None else points_touched:
            if p in done or sum(map(len, records[p].values())) != totals[p]:
                continue
            recs = [r for first in sorted(records[p]) for r in records[p][first]]  # game order
            metrics, series = sc.summarize(configs[p], contexts[p], recs) if recs else ({}, {})
            metrics, _timings = split_timings(_jsonable(metrics))
            row = {**points[p], **metrics}
            kept = {k: series[k] for k in sc.sweep_series if k in series}
            if kept:  # the scenario's small series (e.g. its ROC) travel with the row
                row["series"] = _jsonable(kept)
            done[p] = row
            records[p] = {}  # free the point's records once summarised
            if progress is not None:
                progress(len(done), len(points), rows_in_order())

    finish_ready()  # points without games
    if client is not None:
        try:
            _play_on_dask(client, sc, configs, contexts, seed, tasks, records, finish_ready, cancel)
        except Interrupted:  # a stop signal: the finished points stand, the rest is cancelled on the cluster
            pass
    elif parallel:
        pool = Parallel(n_jobs=workers if workers > 1 else -1, return_as="generator")
        results = pool(delayed(_play_chunk)(sc, configs[p], contexts[p], seed, idx) for p, idx in tasks)
        try:
            for (p, idx), recs in zip(tasks, results):
                records[p][idx[0]] = recs
                finish_ready([p])
                if cancel():
                    break
        except Interrupted:  # a stop signal: the finished points stand, the rest is dropped
            pass
        except Exception as exc:
            if _is_crash(exc):
                raise worker_crash(exc) from None
            raise
        finally:
            results.close()  # joblib stops dispatching the remaining chunks and ends busy workers
    else:
        for p, idx in tasks:
            if cancel():
                break
            try:
                with stop_check(cancel):
                    records[p][idx[0]] = _play_chunk(sc, configs[p], contexts[p], seed, idx)
                finish_ready([p])
            except (Cancelled, Interrupted):
                break
    return rows_in_order()


def _import_engine() -> bool:
    """Run on every Dask worker before the first task: import the scenarios once, in parallel on all workers,
    instead of inside the first task each worker happens to get (about a second of imports per worker)."""
    all_scenarios()
    return True


def _play_on_dask(client, sc, configs, contexts, seed, tasks, records, finish_ready, cancel) -> None:
    """The grid's tasks as Dask futures, straight on the client (no joblib layer in between).

    * Each point's shared context (a synthetic-data context holds the whole data set, ~4 MB) is scattered to
      every worker once and passed by reference, instead of being pickled into every task.
    * Tasks are submitted in the order of :func:`_tasks` (longest first) with decreasing priority, so each
      worker takes the longest task left whenever it frees up.
    * Results are taken as they finish; a point is summarised once all its chunks are in (its records put back
      in game order), so the rows and their numbers are those of the local run.
    """
    from dask.distributed import as_completed

    client.run(_import_engine)
    ctx_refs = client.scatter(list(contexts), broadcast=True, hash=False)
    futures = {}
    for rank, (p, idx) in enumerate(tasks):
        fut = client.submit(_play_chunk, sc, configs[p], ctx_refs[p], seed, idx, priority=len(tasks) - rank,
                            pure=False)
        futures[fut] = (p, idx)
    done = as_completed(list(futures), with_results=True)
    try:
        for fut, recs in done:
            p, idx = futures.pop(fut)
            records[p][idx[0]] = recs
            finish_ready([p])
            if cancel():
                break
    finally:
        if futures:  # stopped early: drop the tasks not yet run
            client.cancel(list(futures))
        client.cancel(ctx_refs)
