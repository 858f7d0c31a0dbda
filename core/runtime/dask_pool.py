"""Page runs on a Dask cluster: the run pool's interface, with the work done by a scheduler's workers.

:class:`~core.runtime.workers.RunPool` runs a server's page runs in its own worker processes. When the lab is
served by several servers, or a course needs more cores than one machine has, ``[cluster] scheduler`` (or
``LAB_SCHEDULER``) names a Dask scheduler and :class:`DaskPool` takes the pool's place: the same
:class:`~core.runtime.workers.Job` goes in (a module-level ``target(report, **kwargs)`` and its keyword
arguments, as data), the same things come out — progress reports on ``job.publish``, ``job.box["value"]`` or a
typed ``job.box["error"]``, ``job.finished`` — so the pages, their progress bars, Stop and error messages do not
know which one runs their work. The numbers do not depend on it either: a run is its scenario, configuration
and seed.

How each part of a job crosses to a worker:

* **the work**: one Dask task, :func:`_task`, whose key is ``lab-run-`` plus the digest of the job's result
  address when it has one (``job.address``: scenario, configuration, seed, engine version). Dask treats tasks
  with one key as one computation, so the same run asked for by sessions of two servers is computed once.
  Runs estimated short (``job.estimate`` ≤ ``express_seconds``) get a higher Dask priority than long ones, and
  a visitor's second and later runs a lower one than anyone's first, so a light run is not queued first come,
  first served behind heavy runs. A priority only orders the waiting tasks, though: once heavy runs hold every
  worker, a light run waits for one of them to end (minutes). So the cluster can keep a **reserved share for
  light runs**, as one server's express lane does: when some workers advertise the Dask resource ``heavy``
  (``dask worker … --resources heavy=1``), a heavy run asks for it and goes only to those workers, and the
  others take light runs alone. With no worker advertising it, any worker takes any run;
* **progress**: the task publishes its newest report (at most every ``UPDATE_SECONDS``, always the last) as
  JSON text in a Dask ``Variable`` named after the key; a watcher thread on the server polls it and calls ``job.publish``. The
  first thing a task publishes is where it runs (process id, host), which marks the job as started;
* **Stop**: ``job.cancel`` sets a Dask ``Event`` named after the key; the task's stop check (the engine's
  :func:`core.cancel.checkpoint`) reads it at most every ``STOP_POLL`` seconds. A queued task is cancelled
  on the scheduler at once. A task that has not stopped ``stop_timeout`` seconds after Stop is released
  (Dask cannot end a running thread: its worker finishes the work and drops the answer);
* **uploads**: a parameter naming a file on this server (``data_path``, ``trace_file``, ``release_path``, …) is
  sent as the file's bytes and written on the worker into a private folder under the content's SHA-256; the
  result's recorded configuration names the server's path again, so a stored run reads the same everywhere;
* **failures**: an error raised by the engine comes back with its class (a :class:`~core.errors.LabError`
  keeps its message); a worker that dies mid-run (killed, out of memory) has its task rerun by Dask on
  another worker — the same seed gives the same numbers — and only a task that kills ``allowed-failures``
  workers in a row comes back as :class:`~core.errors.WorkerCrashed`. A lost scheduler is reported the same
  way, asking the visitor to run again.

Run workers with one thread each (``dask worker tcp://HOST:8786 --nworkers N --nthreads 1``): the engine's
runs hold the interpreter lock, so two in one process only take turns. Workers need this repository on their
import path (start them from its folder, with its venv).
"""
from __future__ import annotations

import hashlib
import itertools
import os
import json
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..cancel import stop_check
from ..errors import Cancelled, LabError, WorkerCrashed
from .games import Progress, Result, _jsonable
from .workers import STOP_TIMEOUT, UPDATE_SECONDS, Job

HEAVY_RESOURCE = "heavy"  # the Dask worker resource that admits heavy runs (see the module docstring)
LANE_CHECK_SECONDS = 10.0  # how long the pool trusts its last look at which workers advertise it
STOP_POLL = 0.25  # seconds between a task's looks at its Stop event (each look asks the scheduler)
WATCH_POLL = 0.25  # seconds between the server's looks at a running task's progress
_FILE_KEYS = ("_path", "_file")  # parameters whose value names a file on the server
_ORDER = itertools.count()


def _key(job: Job) -> str:
    if getattr(job, "address", None):
        return "lab-run-" + hashlib.sha256(str(job.address).encode()).hexdigest()[:40]
    return f"lab-run-{os.getpid()}-{socket.gethostname()}-{job.id}-{time.time_ns()}"


def _ship_files(kwargs: dict) -> tuple[dict, dict[str, tuple[str, bytes]]]:
    """``kwargs`` with every server-side file parameter inside ``params`` replaced by a placeholder, and the
    files' bytes by parameter name (the worker may be another machine)."""
    params = kwargs.get("params")
    if not isinstance(params, dict):
        return kwargs, {}
    files = {}
    for name, value in params.items():
        if name.endswith(_FILE_KEYS) and isinstance(value, str) and value and Path(value).is_file():
            files[name] = (value, Path(value).read_bytes())
    return kwargs, files


def _place_files(params: dict, files: dict[str, tuple[str, bytes]]) -> dict:
    """On the worker: write each shipped file (once, named by its content) and point the parameter at it."""
    if not files:
        return params
    folder = Path(tempfile.gettempdir()) / f"lab-dask-uploads-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    out = dict(params)
    for name, (original, data) in files.items():
        suffix = Path(original).suffix[:10]
        path = folder / (hashlib.sha256(data).hexdigest() + suffix)
        if not path.exists():
            tmp = folder / f".{path.name}.{os.getpid()}.{threading.get_ident()}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        out[name] = str(path)
    return out


def _restore_paths(value: Any, local: dict, files: dict[str, tuple[str, bytes]]) -> Any:
    """The result's recorded parameters name the server's files, not the worker's copies."""
    if not files:
        return value
    swap = {local[name]: original for name, (original, _) in files.items()}

    def fix(obj):
        if isinstance(obj, dict):
            return {k: fix(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(fix(v) for v in obj)
        return swap.get(obj, obj) if isinstance(obj, str) else obj

    return fix(value)


def _encode(message: tuple) -> str:
    """A progress message as JSON text (never a pickle: the scheduler's variables are readable by any client of
    the cluster). A run's :class:`~core.runtime.games.Progress` travels as its fields and its partial result's
    dict; anything else a job reports as JSON (tuples become lists)."""
    count, pid, kind, update = message
    if isinstance(update, Progress):
        update = {"__progress__": [update.done, update.total, update.seconds, update.result.to_dict()]}
    return json.dumps([count, pid, kind, _jsonable(update)])


def _decode(text: str) -> tuple:
    count, pid, kind, update = json.loads(text)
    if isinstance(update, dict) and "__progress__" in update:
        done, total, seconds, result = update["__progress__"]
        update = Progress(done, total, seconds, Result.from_dict(result))
    return count, pid, kind, update


class _Publisher:
    """``report(update)`` inside a Dask task: the newest update in the job's Variable, at most every
    ``UPDATE_SECONDS`` (``flush`` sends the one held back)."""

    def __init__(self, variable):
        self.variable = variable
        self.sent_at = -1e9
        self.pending: list = []
        self.count = 0

    def send(self, kind: str, update: Any) -> None:
        self.count += 1
        self.variable.set(_encode((self.count, os.getpid(), kind, update)))
        self.sent_at = time.monotonic()

    def __call__(self, update: Any) -> None:
        if time.monotonic() - self.sent_at >= UPDATE_SECONDS:
            self.pending.clear()
            self.send("update", update)
        else:
            self.pending[:] = [update]

    def flush(self) -> None:
        if self.pending:
            self.send("update", self.pending.pop())


def _task(target: Callable, kwargs: dict, files: dict, channel: str) -> Any:
    """One page run on a Dask worker: publish where it runs, run ``target`` with the job's Stop as its stop
    check, publish the last progress, return the value (errors propagate to the server with their class)."""
    # distributed is imported only when a scheduler is configured: it costs the embedded default ~1 s of start-up
    from distributed import Event, Variable, get_client

    client = get_client()
    publisher = _Publisher(Variable(channel + "-progress", client=client))
    stop = Event(channel + "-stop", client=client)
    publisher.send("started", (os.getpid(), socket.gethostname()))
    looked = {"at": -1e9, "set": False}

    def stopped() -> bool:
        now = time.monotonic()
        if not looked["set"] and now - looked["at"] >= STOP_POLL:
            looked["at"], looked["set"] = now, bool(stop.is_set())
        return looked["set"]

    kwargs = dict(kwargs)
    if files:
        kwargs["params"] = _place_files(kwargs["params"], files)
    with stop_check(stopped):
        value = target(publisher, **kwargs)
    publisher.flush()
    return _restore_paths(value, kwargs.get("params", {}), files)


class DaskPool:
    """The run pool's interface over a Dask scheduler (see the module docstring). One per server process."""

    def __init__(self, scheduler: str, *, express_seconds: float = 60.0, stop_timeout: float = STOP_TIMEOUT,
                 connect_timeout: float = 20.0, client=None):
        # distributed is imported only when a scheduler is configured: it costs the embedded default ~1 s of start-up
        from distributed import Client

        self.scheduler = scheduler
        self.express_seconds = float(express_seconds)
        self.express_slots = 0  # priorities, not a separate lane, keep light runs ahead
        self.stop_timeout = float(stop_timeout)
        self.client = client if client is not None else Client(scheduler, set_as_default=False,
                                                              timeout=connect_timeout)
        self._lock = threading.Lock()
        self._jobs: dict[Job, dict] = {}
        self._closed = False
        self.submitted = 0  # runs this server sent to the cluster (its health line, and the tests)
        self._lane: tuple[float, bool] = (-1e9, False)  # (when looked, some worker advertises HEAVY_RESOURCE)

    # ------------------------------------------------------------ the queue
    @property
    def slots(self) -> int:
        """Worker threads in the cluster now (what "runs at a time" means for the queue line)."""
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # the scheduler is unreachable: the queue line still reads sensibly
            return 1

    def short(self, job: Job) -> bool:
        return job.estimate is not None and job.estimate <= self.express_seconds

    def heavy_lane(self) -> bool:
        """Whether some worker advertises :data:`HEAVY_RESOURCE` (looked up at most every ``LANE_CHECK_SECONDS``):
        then heavy runs are kept to those workers and the others serve light runs only."""
        looked, found = self._lane
        if time.monotonic() - looked < LANE_CHECK_SECONDS:
            return found
        try:
            workers = self.client.scheduler_info(n_workers=-1).get("workers", {}).values()
            found = any(HEAVY_RESOURCE in (w.get("resources") or {}) for w in workers)
        except Exception:  # the scheduler is unreachable: the submit reports it
            return found
        self._lane = (time.monotonic(), found)
        return found

    def _priority(self, job: Job) -> int:
        """Light before heavy; among them, a visitor's earlier runs before their later ones."""
        visitor = getattr(job, "visitor", None)
        mine = sum(1 for other, info in self._jobs.items()
                   if visitor is not None and getattr(other, "visitor", None) == visitor and info["live"])
        return (100 if self.short(job) else 0) - min(mine, 50)

    def submit(self, job: Job) -> Job:
        # distributed is imported only when a scheduler is configured: it costs the embedded default ~1 s of start-up
        from distributed import Event, Variable

        with self._lock:
            if self._closed:
                raise RuntimeError("the run pool is closed")
            key = _key(job)
            kwargs, files = _ship_files(job.kwargs)
            priority = self._priority(job)
            channel = key
            # a stale Stop of an earlier run of the same key must not stop this one
            Event(channel + "-stop", client=self.client).clear()
            resources = {HEAVY_RESOURCE: 1} if not self.short(job) and self.heavy_lane() else None
            future = self.client.submit(_task, job.target, kwargs, files, channel, key=key, priority=priority,
                                        pure=False, retries=0, resources=resources)
            info = {"future": future, "channel": channel, "order": next(_ORDER), "priority": priority,
                    "live": True, "progress": Variable(channel + "-progress", client=self.client),
                    "stop": Event(channel + "-stop", client=self.client)}
            self._jobs[job] = info
            self.submitted += 1
        threading.Thread(target=self._watch, args=(job, info), name=f"lab-dask-{job.id}", daemon=True).start()
        return job

    def position(self, job: Job) -> int:
        """This server's not-yet-started runs that Dask will take before ``job`` (other servers' runs are not
        counted: the scheduler keeps no such list)."""
        with self._lock:
            me = self._jobs.get(job)
            if me is None or job.started_at is not None:
                return 0
            return sum(1 for other, info in self._jobs.items()
                       if other is not job and info["live"] and other.started_at is None
                       and (info["priority"], -info["order"]) > (me["priority"], -me["order"]))

    def queued(self, job: Job) -> bool:
        with self._lock:
            return job in self._jobs and self._jobs[job]["live"] and job.started_at is None

    def withdraw(self, job: Job) -> bool:
        """Cancel a job that has not started (it then never runs); False once it runs."""
        with self._lock:
            info = self._jobs.get(job)
            if info is None or not info["live"] or job.started_at is not None:
                return False
            info["live"] = False
        self.client.cancel(info["future"])
        job.box["error"] = Cancelled(f"{job.label}: withdrawn from the queue")
        job.finished.set()
        return True

    def load(self) -> tuple[int, int]:
        with self._lock:
            live = [j for j, info in self._jobs.items() if info["live"]]
        running = sum(1 for j in live if j.started_at is not None)
        return running, len(live) - running

    def pids(self) -> list[int]:
        return []  # the workers are the cluster's processes, possibly on other machines

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            jobs = [j for j, info in self._jobs.items() if info["live"]]
        for job in jobs:
            job.cancel.set()
        try:
            self.client.close()
        except Exception:
            pass

    # ------------------------------------------------------------ watching one job
    def _read_progress(self, job: Job, info: dict, seen: tuple) -> tuple:
        try:
            raw = info["progress"].get(timeout=0.01)
        except Exception:  # not set yet (a timeout), or the scheduler is busy: look again later
            return seen
        count, pid, kind, update = _decode(raw)
        if (count, pid) == seen:
            return seen
        job.pid = pid  # (another one after a worker died and Dask reran the task elsewhere)
        if job.started_at is None:
            job.started_at = time.perf_counter()
        if kind != "started":
            job.publish(update)
        return count, pid

    def _watch(self, job: Job, info: dict) -> None:
        future = info["future"]
        seen, stop_sent = (0, None), None
        try:
            while not future.done():
                if self._closed:
                    job.box["error"] = Cancelled(f"{job.label}: the server is shutting down")
                    return
                if job.cancel.is_set() and stop_sent is None:
                    stop_sent = time.perf_counter()
                    if job.started_at is None and self.withdraw(job):
                        return
                    info["stop"].set()
                if stop_sent is not None and time.perf_counter() - stop_sent > self.stop_timeout:
                    self.client.cancel(future)
                    job.box["error"] = Cancelled(
                        f"{job.label}: stopped (the run did not reach a stop check within {self.stop_timeout:g} s; "
                        "the cluster's worker finishes it and drops the answer)")
                    return
                seen = self._read_progress(job, info, seen)
                time.sleep(WATCH_POLL)
            seen = self._read_progress(job, info, seen)
            self._settle(job, future)
        except BaseException as exc:  # noqa: BLE001 - a watcher must always finish its job
            job.box.setdefault("error", WorkerCrashed(
                f"The cluster could not be reached while doing this run ({type(exc).__name__}: {exc}) — run again"))
        finally:
            with self._lock:
                info["live"] = False
                self._jobs.pop(job, None)
            for name in ("progress",):
                try:
                    info[name].delete()
                except Exception:
                    pass
            job.finished.set()

    def _settle(self, job: Job, future) -> None:
        # distributed is imported only when a scheduler is configured: it costs the embedded default ~1 s of start-up
        from distributed import KilledWorker
        from distributed.client import FutureCancelledError

        try:
            job.box["value"] = future.result()
        except (Cancelled, LabError) as exc:
            job.box["error"] = exc
        except KilledWorker as exc:
            job.box["error"] = WorkerCrashed(
                f"Every worker that took this run ended unexpectedly ({exc}); the cluster replaces them — run "
                "again, or choose a smaller run if it happens again")
        except (FutureCancelledError, ConnectionError, OSError) as exc:
            job.box["error"] = WorkerCrashed(f"The cluster dropped this run ({type(exc).__name__}) — run again")
        except Exception as exc:  # a programming error in the engine: shown as such, as with the local pool
            job.box["error"] = exc
