"""Module-level job targets for the run-pool tests (tests/ui/test_runs.py): jobs travel to worker processes as
data, so their functions must be importable there."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from core.cancel import checkpoint
from core.cost import Cost, CostLimitError
from core.errors import ParameterError


def whoami(report) -> int:
    return os.getpid()


def blocker(report, gate: str, name: str) -> str:
    """Say it started, then wait (obeying Stop) until the file ``gate`` exists."""
    report(name)
    deadline = time.monotonic() + 60
    while not Path(gate).exists() and time.monotonic() < deadline:
        checkpoint("blocker")
        time.sleep(0.02)
    return name


def loop(report, seconds: float = 60.0) -> str:
    """Cooperative work: a checkpoint every 10 ms, a report every step."""
    report(("started", os.getpid()))
    deadline = time.monotonic() + seconds
    step = 0
    while time.monotonic() < deadline:
        checkpoint("loop")
        step += 1
        report(step)
        time.sleep(0.01)
    return "finished"


def stubborn(report, seconds: float) -> str:
    """Work without any stop check (a long C call, say)."""
    report("started")
    time.sleep(seconds)
    return "finished"


def fail(report, kind: str):
    if kind == "parameter":
        raise ParameterError("n", "too big for this server")
    if kind == "cost":
        raise CostLimitError(Cost(seconds=720.0, bytes=4e9, drivers=("games",)), "this run needs about 4 GB")
    if kind == "unexpected":
        raise KeyError("no such column")
    raise AssertionError(kind)


def crash(report, how: str) -> None:
    report("about to crash")
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    os._exit(3)


def broken_run(report, **job):
    """Stands in for ``core.runtime.workers.run_job``: the engine fails in the worker with a typed error (page tests of
    what a page keeps on screen when its run fails)."""
    from core.errors import DataError

    raise DataError(f"the {job.get('scenario', '?')} engine failed on purpose (test)")


def token(report, seconds: float = 0.0) -> str:
    """A value no two computations share: two watchers with the same token saw one computation."""
    import uuid

    report(("started", os.getpid()))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        checkpoint("token")
        time.sleep(0.02)
    return uuid.uuid4().hex


def read_params(report, params: dict) -> tuple:
    """What a run sees of a file parameter: the path it was given and the file's bytes there."""
    path = params["data_path"]
    return path, Path(path).read_bytes()


def note(report, log: str, name: str) -> str:
    """Append ``name`` to the file ``log``: the order in which the pool started its jobs."""
    with open(log, "a") as fh:
        fh.write(name + "\n")
    return name


def loaded(report, name: str) -> bool:
    """Whether the worker has already imported ``name`` (without importing it)."""
    import sys

    return name in sys.modules
