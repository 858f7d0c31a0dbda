"""The game runner: seeds, parallel games, progress, cancellation, results.

``run(scenario, params, seed)`` plays ``scenario.n_games(config)`` independent
units of work. Unit ``i`` draws its randomness from
``SeedSequence(seed, spawn_key=(i,))``, and the shared context from
``SeedSequence(seed, spawn_key=(PREPARE_KEY,))``, so the same seed gives the
same numbers whatever the number of workers, chunk size or backend.

Work is scheduled in chunks through joblib (processes by default; any joblib
backend, e.g. Dask's, can be selected with ``joblib.parallel_config``). After
every chunk the runner calls ``progress(Progress)`` with a partial
:class:`Result` – pages draw live plots from it – and checks ``cancel``; a
cancelled run returns the games played so far with ``cancelled=True`` (no work
is lost).
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from .cancel import stop_check
from .errors import Cancelled
from .scenario import Scenario, get

PREPARE_KEY = 2**32 - 1


def game_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of unit ``index`` in a run with ``seed``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))


def prepare_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(PREPARE_KEY,)))


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

    def to_dict(self, records: bool = True) -> dict:
        out = asdict(self)
        if not records:
            out.pop("records")
        return _jsonable(out)

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
    """Convert numpy scalars/arrays (and NaN/inf) into plain JSON types."""
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


def _play_chunk(scenario: Scenario, config: dict, context: Any, seed: int,
                indices: list[int]) -> list[dict]:
    # Games are small linear-algebra problems: a multi-threaded BLAS only spins
    # (10–50× slower on a busy 2-core machine). Parallelism comes from workers.
    with threadpool_limits(limits=scenario.blas_threads, user_api="blas"):
        return [scenario.play(config, context, i, game_rng(seed, i)) for i in indices]


def run(scenario: str | Scenario,
        params: dict[str, Any] | None = None,
        seed: int = 0,
        *,
        n_jobs: int = 1,
        progress: Callable[[Progress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
        chunk_size: int | None = None,
        raise_on_cancel: bool = False) -> Result:
    """Play every game of ``scenario`` with ``params`` (validated) and ``seed``.

    ``cancel`` is polled between chunks (anything with ``is_set()`` such as a
    ``threading.Event`` works too). With ``raise_on_cancel`` a stop raises
    :class:`~core.errors.Cancelled`; otherwise the partial result is returned.
    """
    sc = get(scenario) if isinstance(scenario, str) else scenario
    config = sc.resolve(params)
    seed = int(seed)
    if seed < 0:
        from .errors import ParameterError
        raise ParameterError("seed", f"expected int >= 0, got {seed}")
    is_cancelled = _cancel_fn(cancel)
    start = time.perf_counter()
    try:
        with stop_check(is_cancelled):  # lets core.cancel.checkpoint() stop a long prepare()
            context = sc.prepare(config, prepare_rng(seed))
    except Cancelled:
        if raise_on_cancel:
            raise
        return Result(scenario=sc.name, config={**config, "seed": seed}, metrics={}, series={},
                      seconds=time.perf_counter() - start, games_done=0, games_total=int(sc.n_games(config)),
                      completed=False, cancelled=True)
    total = int(sc.n_games(config))
    n_jobs = max(1, int(n_jobs))
    if chunk_size is None:
        # Small chunks keep the UI live; at least one unit per worker.
        chunk_size = max(1, math.ceil(total / 10 / n_jobs))
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

    pool = Parallel(n_jobs=n_jobs) if n_jobs > 1 else None
    index = 0
    while index < total:
        if is_cancelled():
            cancelled = True
            break
        step = chunk_size * n_jobs
        batch = list(range(index, min(total, index + step)))
        if pool is None:
            try:
                with stop_check(is_cancelled):
                    records.extend(_play_chunk(sc, config, context, seed, batch))
            except Cancelled:
                cancelled = True
                break
        else:
            parts = [batch[k:k + chunk_size] for k in range(0, len(batch), chunk_size)]
            for out in pool(delayed(_play_chunk)(sc, config, context, seed, p) for p in parts):
                records.extend(out)
        index = batch[-1] + 1
        if progress is not None and index < total:
            progress(Progress(done=index, total=total, seconds=time.perf_counter() - start,
                              result=snapshot(False)))
    if cancelled and raise_on_cancel:
        raise Cancelled(f"{sc.name}: stopped after {len(records)} of {total} games")
    result = snapshot(not cancelled)
    result.seconds = time.perf_counter() - start
    if progress is not None:
        progress(Progress(done=len(records), total=total, seconds=result.seconds, result=result))
    return result


def _cancel_fn(cancel) -> Callable[[], bool]:
    if cancel is None:
        return lambda: False
    if hasattr(cancel, "is_set"):
        return cancel.is_set
    return cancel
