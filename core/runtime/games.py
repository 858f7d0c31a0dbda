"""The game runner: seeds, parallel games, progress, cancellation, results.

``run(scenario, params, seed)`` plays ``scenario.n_games(config)`` independent
units of work. Unit ``i`` draws its randomness from
``SeedSequence(seed, spawn_key=(i,))``, and the shared context from
``SeedSequence(seed, spawn_key=(PREPARE_KEY,))``, so the same seed gives the
same numbers whatever the number of workers, chunk size or backend.

Work is scheduled in chunks through joblib (processes by default; any joblib
backend, e.g. Dask's, can be selected with ``joblib.parallel_config``). Chunks
are sized from the measured time per game so that one takes about
``poll_seconds`` (``lab_settings.toml``, 0.5 s): after every chunk the runner
calls ``progress(Progress)`` with a partial :class:`Result` – pages draw live
plots from it – and checks ``cancel``; in-process games also check it before
every game and, through :func:`core.cancel.checkpoint`, inside long
``prepare``/``play`` loops. A cancelled run returns the games played so far
with ``cancelled=True`` (no work is lost). Chunking never changes the numbers.

Before anything runs, the scenario's :meth:`~core.scenario.Scenario.estimate_cost`
is checked against the memory guard (every run) and, when given, a server's
per-run limits (:mod:`core.cost`).
"""
from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Callable

import numpy as np
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from ..cancel import checkpoint, current_check, stop_check
from ..cost import check_memory_guard, check_server_limits
from ..errors import Cancelled, Interrupted, WorkerCrashed
from ..basics.words import count
from ..scenario import Scenario, get, prepare_rng
from ..basics.settings import settings
from ..errors import ParameterError

def game_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of unit ``index`` in a run with ``seed``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))


@dataclass
class Result:
    """Everything one run produced; JSON-serialisable via :meth:`to_dict`."""

    scenario: str
    config: dict[str, Any]
    metrics: dict[str, float]
    series: dict[str, Any]
    records: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    games_done: int = 0
    games_total: int = 0
    completed: bool = True
    cancelled: bool = False
    # Who is exposed: the per-record table (core.measure.records.RecordTable.to_dict) of a finished or stopped
    # run; None for live snapshots, scenarios without per-record rows, and results stored before it existed.
    exposure: dict | None = None

    def to_dict(self, records: bool = True) -> dict:
        """The result as plain JSON types. Fields are read directly, not through ``dataclasses.asdict``: that
        deep-copies every field first, the per-game records too when they are then dropped, and for a run with a
        per-record table cost about a second per call; :func:`_jsonable` builds new containers anyway."""
        return _jsonable({f.name: getattr(self, f.name) for f in fields(self) if records or f.name != "records"})

    def to_json(self, records: bool = True, **kw) -> str:
        return json.dumps(self.to_dict(records=records), **kw)

    @classmethod
    def from_dict(cls, data: dict) -> "Result":
        return cls(**data)


@dataclass
class Progress:
    done: int
    total: int
    seconds: float
    result: Result  # partial result over the games done so far


def _jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays (and NaN/inf) into plain JSON types, in new containers (nothing of ``obj`` is
    shared with the result); a dataclass becomes the dictionary of its fields."""
    if is_dataclass(obj) and not isinstance(obj, type):
        return _jsonable({f.name: getattr(obj, f.name) for f in fields(obj)})
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else None
    return obj


def split_timings(metrics: dict) -> tuple[dict, dict]:
    """Separate wall-clock measurements from seeded metrics.

    ``metrics`` must be a pure function of (config, seed); any value a scenario reports whose name contains
    ``seconds`` (e.g. ``solver_seconds``, ``md_seconds_per_target``) is a timing and moves to
    :attr:`Result.timings`, beside :attr:`Result.seconds`.
    """
    seeded = {k: v for k, v in metrics.items() if "seconds" not in k}
    timings = {k: v for k, v in metrics.items() if "seconds" in k}
    return seeded, timings


def worker_crash(exc: BaseException) -> WorkerCrashed:
    """joblib's error for a worker process that died mid-task, as one plain sentence with the retry hint.

    loky reports it as ``TerminatedWorkerError`` with the exit codes in its message (``{SIGKILL(-9)}``);
    ``kill -9`` and the kernel's out-of-memory killer both look like that.
    """
    codes = re.findall(r"(SIG[A-Z0-9]+)\(-?\d+\)|EXIT\((-?\d+)\)", str(exc))
    how = ", ".join(sig or f"exit code {code}" for sig, code in codes) or "no exit code"
    if "SIGKILL" in how:
        how = "killed by SIGKILL — often the machine running out of memory"
    return WorkerCrashed(f"a worker process ended unexpectedly ({how}); the run was abandoned — run it again, and "
                         "if it happens again choose a smaller run or fewer worker processes (--jobs)")


def _is_crash(exc: BaseException) -> bool:
    from joblib.externals.loky.process_executor import BrokenProcessPool

    return isinstance(exc, BrokenProcessPool)


def _play_chunk(scenario: Scenario, config: dict, context: Any, seed: int,
                indices: list[int], out: list[dict] | None = None) -> list[dict]:
    """Play ``indices`` in order, appending each record to ``out`` as it finishes (so a stop keeps them)."""
    out = [] if out is None else out
    # Games are small linear-algebra problems: a multi-threaded BLAS only spins
    # (10–50× slower on a busy 2-core machine). Parallelism comes from workers.
    with threadpool_limits(limits=scenario.blas_threads, user_api="blas"):
        for i in indices:
            checkpoint(scenario.name)  # a no-op in worker processes (no stop check installed there)
            out.append(scenario.play(config, context, i, game_rng(seed, i)))
    return out


def next_chunk(chunk: int, games: int, seconds: float, poll: float, limit: int) -> int:
    """Games per worker for the next chunk so that it takes about ``poll`` seconds.

    ``games`` per worker took ``seconds``; the chunk grows at most 4× at a time (a first fast game may be
    unrepresentative) and never beyond ``limit``.
    """
    if games <= 0:
        return chunk
    per_game = max(seconds, 1e-9) / games
    return int(max(1, min(limit, 4 * chunk, math.floor(poll / per_game))))


def run(scenario: str | Scenario,
        params: dict[str, Any] | None = None,
        seed: int = 0,
        *,
        n_jobs: int = 1,
        progress: Callable[[Progress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
        chunk_size: int | None = None,
        raise_on_cancel: bool = False,
        max_seconds: float | None = None,
        max_bytes: float | None = None) -> Result:
    """Play every game of ``scenario`` with ``params`` (validated) and ``seed``.

    ``cancel`` is polled before every in-process game, between chunks and at
    :func:`core.cancel.checkpoint` calls (anything with ``is_set()`` such as a
    ``threading.Event`` works too). With ``raise_on_cancel`` a stop raises
    :class:`~core.errors.Cancelled`; otherwise the partial result is returned.
    ``chunk_size`` fixes the games per worker and chunk (default: sized from
    the measured game time, ~``poll_seconds`` per chunk). ``max_seconds`` /
    ``max_bytes``: refuse with :class:`~core.cost.CostLimitError` a run whose
    estimated cost exceeds them (a shared server's limits); the memory guard
    applies to every run.
    """
    sc = get(scenario) if isinstance(scenario, str) else scenario
    config = sc.resolve(params)
    seed = int(seed)
    if seed < 0:
        raise ParameterError("seed", f"expected int >= 0, got {seed}")
    opts = settings()
    cost = sc.estimate_cost(config)
    check_memory_guard(cost, opts.memory_guard_fraction)
    if max_seconds is not None or max_bytes is not None:
        check_server_limits(cost, math.inf if max_seconds is None else max_seconds,
                            math.inf if max_bytes is None else max_bytes)
    is_cancelled = _cancel_fn(cancel)
    start = time.perf_counter()
    try:
        with stop_check(is_cancelled):  # lets core.cancel.checkpoint() stop a long prepare()
            context = sc.prepare(config, prepare_rng(seed))
    except (Cancelled, Interrupted):  # Stop pressed, or a stop signal reached the command line
        if raise_on_cancel:
            raise
        return Result(scenario=sc.name, config={**config, "seed": seed}, metrics={}, series={},
                      seconds=time.perf_counter() - start, games_done=0, games_total=int(sc.n_games(config)),
                      completed=False, cancelled=True)
    total = int(sc.n_games(config))
    n_jobs = max(1, int(n_jobs))
    adaptive = chunk_size is None
    chunk = 1 if adaptive else max(1, int(chunk_size))
    limit = max(1, math.ceil(total / n_jobs))
    records: list[dict] = []
    cancelled = False
    full_config = {**config, "seed": seed}

    def snapshot(done_flag: bool) -> Result:
        metrics, series = sc.summarize(config, context, records) if records else ({}, {})
        metrics, timings = split_timings(_jsonable(metrics))
        return Result(scenario=sc.name, config=full_config, metrics=metrics, timings=timings,
                      series=_jsonable(series), records=list(records),
                      seconds=time.perf_counter() - start, games_done=len(records),
                      games_total=total, completed=done_flag, cancelled=cancelled)

    if progress is not None and total > 0:  # prepared: the page can say "0 / N games" instead of "preparing"
        progress(Progress(done=0, total=total, seconds=time.perf_counter() - start, result=snapshot(False)))
    pool = Parallel(n_jobs=n_jobs) if n_jobs > 1 else None
    index = 0
    try:
        while index < total:
            if is_cancelled():
                cancelled = True
                break
            batch = list(range(index, min(total, index + chunk * n_jobs)))
            t0 = time.perf_counter()
            if pool is None:
                try:
                    with stop_check(is_cancelled):
                        _play_chunk(sc, config, context, seed, batch, records)
                except Cancelled:
                    cancelled = True
                    break
            else:
                parts = [batch[k:k + chunk] for k in range(0, len(batch), chunk)]
                done = []  # a batch counts only once all of it is back (a stop mid-batch drops it whole)
                for out in pool(delayed(_play_chunk)(sc, config, context, seed, p) for p in parts):
                    done.extend(out)
                records.extend(done)
            if adaptive:
                per_worker = math.ceil(len(batch) / n_jobs)
                chunk = next_chunk(chunk, per_worker, time.perf_counter() - t0, opts.poll_seconds, limit)
            index = batch[-1] + 1
            if progress is not None and index < total:
                progress(Progress(done=index, total=total, seconds=time.perf_counter() - start,
                                  result=snapshot(False)))
    except Interrupted:  # joblib has already ended its workers; keep the games that came back
        cancelled = True
    except Exception as exc:
        if _is_crash(exc):
            raise worker_crash(exc) from None
        raise
    if cancelled and raise_on_cancel:
        raise Cancelled(f"{sc.name}: stopped after {len(records)} of {count(total, *sc.unit)}")
    result = snapshot(not cancelled)
    if records:
        table = sc.exposure(config, context, records)
        result.exposure = _jsonable(table.to_dict()) if table is not None else None
    result.seconds = time.perf_counter() - start
    if progress is not None:
        progress(Progress(done=len(records), total=total, seconds=result.seconds, result=result))
    return result


def _cancel_fn(cancel) -> Callable[[], bool]:
    if cancel is None:  # inside an outer run or a page's job (a sweep's points): obey its stop
        return current_check() or (lambda: False)
    if hasattr(cancel, "is_set"):
        return cancel.is_set
    return cancel
