"""Engine work in worker processes: a shared server's bounded run pool.

A Streamlit server runs every session's page script as a thread of one Python process. Engine runs used to
execute in threads of that process too, and while they computed they held the interpreter lock: every
page script — even a page with nothing but closed-form plots — waited for them (a class of 12 saw 107 s to
a first plot). :class:`RunPool` therefore runs each job in one of ``slots`` long-lived **worker
processes** at a lowered CPU priority (``os.nice(+10)``), so page scripts and the browsers' traffic win the
CPU whenever both want it. Each worker is a fresh interpreter (``python -c "…_worker_entry()"`` through
:mod:`subprocess`, the server's own Python and import path): forking the threaded server is unsafe, and
:mod:`multiprocessing`'s ``spawn``/``forkserver`` children re-run the parent's ``__main__`` — which, inside
Streamlit, is the app's page script. The pipe is a :class:`multiprocessing.connection.Connection` over a
socket pair; the stop flag is 8 bytes of a shared, already-unlinked file that both sides map.

What crosses the process boundary is data:

* a :class:`Job` names a **module-level function** ``target(report, **kwargs)`` and its keyword arguments
  (scenario name, configuration, seed, sweep grid, uploaded files as paths); the worker imports the
  function and rebuilds the scenario from the registry (:func:`run_job`, :func:`sweep_job`);
* ``report(update)`` streams progress back (the engine's :class:`~core.runtime.games.Progress` with its partial
  :class:`~core.runtime.games.Result`, at most every ``UPDATE_SECONDS`` and always the last one);
* Stop: each slot has a shared integer; the server writes the id of the job to stop into it and the engine's
  :func:`core.cancel.checkpoint` / stop checks in the worker read it. A job that has not stopped
  ``stop_timeout`` seconds after Stop (a long C call without checkpoints) has its worker process ended and
  replaced;
* errors come back typed (:class:`~core.errors.LabError` subclasses keep their class and attributes,
  :class:`~core.errors.Cancelled` included); a worker that dies without an answer (killed, out of memory)
  gives the job a :class:`~core.errors.WorkerCrashed` error and the slot gets a fresh process.

The pool keeps one queue with positions (``position``), withdraws queued jobs (``withdraw``) and never runs two
jobs at once in one worker. The queue is not first come, first served: a free worker takes the waiting job that
ranks first by (light before heavy, the visitor's turn, arrival) — round robin between visitors — so five visitors
with three heavy links each take turns with everyone else instead of filling the queue, and a light run never
waits behind a heavy one. Express workers (which take only light runs) run at the configured priority; the
regular workers, which hold the heavy runs, at a lower one (``long_nice``), so a light run beside two heavy ones
gets most of a core instead of a third of two. The messages are the standard library's
process-to-process serialisation of objects this server built itself; nothing a visitor sends is ever
deserialised (a visitor's values are plain numbers and strings inside the job's keyword arguments).

One module: the worker's loop and the server's dispatcher are the two ends of one message protocol (job, update,
value or error, the stop flag), and each end is read against the other.
"""
from __future__ import annotations

import atexit
import ctypes
import importlib
import itertools
import mmap
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from multiprocessing.connection import Connection
from typing import Any, Callable

from ..cancel import current_check, stop_check
from ..errors import Cancelled, LabError, WorkerCrashed

UPDATE_SECONDS = 0.25  # progress reports sent to the server at most this often (the last one always)
SERVE_POLL = 0.1  # how often the server's side of a slot looks at the job's cancel flag
NICE = 10  # default CPU priority increment of the workers (os.nice)
# Libraries a lab's default run imports on first use, loaded by every worker before its first job: SDMetrics (the
# Synthetic data page's proxy scores) brings torch with it, 2.6 s of CPU that a class's first Synthetic run waited
# for on a busy server.
WARM_IMPORTS = ("sdmetrics",)
# only once a worker has waited this long for a job (RunPool's warm_after): a pool started for a few jobs never
# pays, and a server's idle workers have loaded it long before a class arrives
WARM_AFTER_SECONDS = 20.0


def _warm_import(name: str) -> None:
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 — a library that cannot load is reported by the run that needs it
        pass
STOP_TIMEOUT = 10.0  # default seconds between Stop and ending a worker that has not stopped

_IDS = itertools.count(1)


# ------------------------------------------------------------------ jobs
def _check_target(target: Callable) -> None:
    qual = getattr(target, "__qualname__", "")
    if not callable(target) or not getattr(target, "__module__", None) or "<" in qual:
        raise TypeError(f"a job's target must be a module-level function (jobs travel to worker processes as "
                        f"data), got {target!r}")


class Job:
    """One unit of engine work: ``target(report, **kwargs)`` in a worker process, with a cancel flag.

    The page's script thread reads :meth:`latest` (the newest thing the target reported), waits on
    ``finished`` and then finds ``box["value"]`` or ``box["error"]``; setting ``cancel`` stops the job
    (withdrawn while queued, the worker's stop checks while running).

    Reports are kept latest-only and numbered: reading does not consume, so every session watching one
    shared job sees the same newest report, and a reader that polls less often than the worker reports
    simply skips the ones in between (a progress bar and a live plot want only the newest).
    """

    def __init__(self, target: Callable[..., Any], kwargs: dict | None = None, label: str = "run"):
        _check_target(target)
        self.target = target
        self.kwargs = dict(kwargs or {})
        self.label = label
        self.id = next(_IDS)
        self.cancel = threading.Event()
        self._latest: tuple[int, Any] = (0, None)  # (reports so far, the newest one)
        self._latest_lock = threading.Lock()
        self.finished = threading.Event()
        self.started_at: float | None = None
        self.pid: int | None = None  # the worker process that ran it
        self.box: dict[str, Any] = {}
        self.estimate: float | None = None  # estimated seconds (the cost check's); short jobs may take the express lane
        self.visitor: str | None = None  # who asked (a browser, or a client address behind the proxy): fair turns
        self.address: str | None = None  # the result's store key, when it has one (a cluster computes it once)

    def publish(self, update: Any) -> None:
        """Record ``update`` as the newest report (the pool does, for each report from the worker)."""
        with self._latest_lock:
            self._latest = (self._latest[0] + 1, update)

    def latest(self) -> tuple[int, Any]:
        """``(version, report)``: how many reports have arrived (0: none yet, report None) and the newest one."""
        with self._latest_lock:
            return self._latest

    @property
    def running(self) -> bool:
        return self.started_at is not None and not self.finished.is_set()

    def __repr__(self) -> str:
        return f"Job({self.target.__module__}.{self.target.__qualname__}, id={self.id}, label={self.label!r})"


def run_job(report: Callable[[Any], None], scenario: str, params: dict, seed: int, n_jobs: int = 1,
            max_seconds: float | None = None, max_bytes: float | None = None) -> dict:
    """A page's run: :func:`core.runtime.games.run` of the registered ``scenario``; returns the result as a dict."""
    # lazy: the server imports this module for its pool; the engine loads in the worker process that runs this
    from .games import run

    result = run(scenario, params, seed=seed, n_jobs=n_jobs, progress=report, raise_on_cancel=True,
                 max_seconds=max_seconds, max_bytes=max_bytes)
    return result.to_dict()


def sweep_job(report: Callable[[Any], None], scenario: str, base: dict, grid: dict, seed: int) -> dict:
    """A page's sweep: :func:`core.runtime.sweep.sweep`; progress as ``(points done, points, rows)``."""
    # lazy: the server imports this module for its pool; the engine loads in the worker process that runs this
    from .sweep import sweep

    out = sweep(scenario, base, grid, seed=seed, progress=lambda i, n, rows: report((i, n, rows)),
                cancel=current_check())
    if not out["completed"]:
        raise Cancelled("sweep stopped")
    return out


# ------------------------------------------------------------ the worker side
class _Reporter:
    """``report(update)`` for a job in a worker: sends at most every ``UPDATE_SECONDS``; ``flush`` sends the
    last held-back update (so the server always sees the final progress, or the games played before a stop)."""

    def __init__(self, conn, job_id: int):
        self.conn, self.job_id = conn, job_id
        self.sent_at = -1e9
        self.pending: list = []

    def __call__(self, update: Any) -> None:
        now = time.monotonic()
        if now - self.sent_at >= UPDATE_SECONDS:
            self.pending.clear()
            self._send(update)
        else:
            self.pending[:] = [update]

    def flush(self) -> None:
        if self.pending:
            self._send(self.pending.pop())

    def _send(self, update: Any) -> None:
        self.conn.send(("update", self.job_id, update))
        self.sent_at = time.monotonic()


def _apply_env(env: dict[str, str]) -> None:
    """The submitting server's ``LAB_*`` variables (settings file, store), as they are now."""
    for key in [k for k in os.environ if k.startswith("LAB_") and k not in env]:
        del os.environ[key]
    os.environ.update(env)


def _worker_entry() -> None:
    """``python -c "from core.runtime.workers import _worker_entry; _worker_entry()" CONN_FD FLAG_FD NICE WARM``."""
    conn_fd, flag_fd, nice = (int(a) for a in sys.argv[1:4])
    warm_after = float(sys.argv[4])
    stop_map = mmap.mmap(flag_fd, 8)
    os.close(flag_fd)
    _worker_main(Connection(conn_fd), ctypes.c_longlong.from_buffer(stop_map), nice, warm_after)


def _worker_main(conn, stop_flag, nice: int, warm_after: float = 0.0) -> None:
    """A worker process: lowered priority, then jobs one at a time until the server closes the pipe."""
    if nice:
        try:
            os.nice(nice)
        except OSError:
            pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in the server's terminal: the server ends us
    parent = os.getppid()
    try:  # import every scenario now, not while the first visitor waits
        # lazy: loaded in the worker process, never in the server that imports this module for its pool
        from ..scenario import all_scenarios

        all_scenarios()
    except Exception:  # a broken scenario module is reported by the job that needs it
        pass
    warm = list(WARM_IMPORTS)
    while True:
        try:
            while warm and not conn.poll(warm_after):  # idle: load the next library before it is needed
                _warm_import(warm.pop(0))
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        job_id, target, kwargs, env = msg
        _apply_env(env)
        report = _Reporter(conn, job_id)

        def stopped(job_id=job_id) -> bool:  # Stop pressed, or the server is gone (we were re-parented)
            return stop_flag.value == job_id or os.getppid() != parent

        try:
            with stop_check(stopped):
                out = ("value", job_id, target(report, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - every error goes back to the page
            if not isinstance(exc, LabError):  # a bug: its traceback goes to the server's log
                sys.stderr.write(f"[lab worker {os.getpid()}] {traceback.format_exc()}")
            out = ("error", job_id, exc)
        try:
            report.flush()
            conn.send(out)
        except (EOFError, OSError):
            return
        except Exception as exc:  # the value or the error would not serialise
            detail = f"{type(exc).__name__}: {exc}"
            what = out[2] if out[0] == "error" else None
            conn.send(("error", job_id, RuntimeError(
                f"{type(what).__name__}: {what}" if what is not None else
                f"the worker's answer could not be sent back ({detail})")))


# ------------------------------------------------------------ the server side
def _worker_command(conn_fd: int, flag_fd: int, nice: int, warm_after: float = 0.0) -> list[str]:
    return [sys.executable, "-c", "from core.runtime.workers import _worker_entry; _worker_entry()",
            str(conn_fd), str(flag_fd), str(int(nice)), repr(float(warm_after))]


class _Slot:
    """One worker process, its pipe and its stop flag (8 bytes of a shared file mapped by both sides)."""

    def __init__(self, index: int, nice: int, warm_after: float = 0.0):
        self.index, self.nice, self.warm_after = index, nice, warm_after
        self._file = tempfile.TemporaryFile(prefix="lab-stop-")  # unlinked at once; shared by descriptor
        self._file.truncate(8)
        self._map = mmap.mmap(self._file.fileno(), 8)
        self.flag = ctypes.c_longlong.from_buffer(self._map)
        self.proc: subprocess.Popen | None = None
        self.conn: Connection | None = None
        self.express = False  # an express slot takes only short jobs (RunPool.express_seconds)

    def start(self) -> None:
        here, there = socket.socketpair()
        try:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
            self.proc = subprocess.Popen(_worker_command(there.fileno(), self._file.fileno(), self.nice,
                                                         self.warm_after),
                                         pass_fds=(there.fileno(), self._file.fileno()), env=env,
                                         stdin=subprocess.DEVNULL)
        finally:
            there.close()
        self.conn = Connection(here.detach())

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ensure(self) -> None:
        if not self.alive():
            self.end()
            self.start()

    def end(self, how: str = "kill") -> int | None:
        """End the process (if any) and return its exit code."""
        proc, conn = self.proc, self.conn
        self.proc = self.conn = None
        code = None
        if proc is not None:
            if how == "close" and conn is not None and proc.poll() is None:
                try:
                    conn.send(None)
                    proc.wait(1.0)
                except (OSError, ValueError, subprocess.TimeoutExpired):
                    pass
            if proc.poll() is None:
                proc.kill()
            try:
                code = proc.wait(5.0)
            except subprocess.TimeoutExpired:
                code = None
        if conn is not None:
            conn.close()
        return code


def _crash_text(code: int | None) -> str:
    if code is None:
        return "it stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}" + (" — often the machine running out of memory" if name == "SIGKILL" else "")
    return f"exit code {code}"


class RunPool:
    """``slots`` worker processes fed from one first-come, first-served queue, with queue positions.

    Each slot has a dispatcher thread in this process that hands the next job to its worker, relays the
    worker's reports to ``job.publish``, turns ``job.cancel`` into the worker's stop flag (ending the worker
    if it has not stopped ``stop_timeout`` seconds later) and replaces a worker that died.
    """

    def __init__(self, slots: int, *, nice: int = NICE, stop_timeout: float = STOP_TIMEOUT,
                 express_slots: int = 0, express_seconds: float = 0.0, long_nice: int | None = None,
                 warm_after: float = WARM_AFTER_SECONDS):
        self.slots = max(1, int(slots))
        self.express_slots = max(0, int(express_slots))
        self.express_seconds = float(express_seconds)
        self.stop_timeout = float(stop_timeout)
        self._waiting: deque[Job] = deque()
        self._running: set[Job] = set()
        self._turns: dict[str, int] = {}  # visitor -> runs started since the queue was last empty
        self._cond = threading.Condition()
        self._closed = False
        # regular slots hold the long runs: at ``long_nice`` (default: the express slots' priority) they leave
        # the CPU to the express lane's light runs whenever both want it
        regular = int(nice) if long_nice is None else max(int(nice), int(long_nice))
        self._slots = [_Slot(i, regular if i < self.slots else int(nice), float(warm_after))
                       for i in range(self.slots + self.express_slots)]
        for slot in self._slots[self.slots:]:
            slot.express = True
        for slot in self._slots:
            slot.start()
        self._threads = [threading.Thread(target=self._serve, args=(slot,), name=f"lab-run-{slot.index}",
                                          daemon=True) for slot in self._slots]
        for t in self._threads:
            t.start()
        atexit.register(self.close)  # before multiprocessing's own exit handler, which would wait for them

    # ------------------------------------------------------------ the queue
    def submit(self, job: Job) -> Job:
        with self._cond:
            if self._closed:
                raise RuntimeError("the run pool is closed")
            self._waiting.append(job)
            self._cond.notify_all()  # slots differ in what they take
        return job

    def light(self, job: Job) -> bool:
        """A run estimated at most ``express_seconds`` (ahead of heavy runs in every lane)."""
        return job.estimate is not None and job.estimate <= self.express_seconds

    def short(self, job: Job) -> bool:
        """Whether ``job`` may take the express lane: it is light and the pool has one."""
        return bool(self.express_slots) and self.light(job)

    def _rank(self, job: Job, index: int) -> tuple:
        """A waiting job's place in the queue (lower runs first): light before heavy; then turns — a visitor's
        runs started since the queue was last empty plus their runs waiting ahead of this one, so each
        visitor's first waiting run comes before anyone's second (round robin; see :meth:`_took`); then
        arrival. Called with the lock held."""
        turn = 0
        if job.visitor is not None:
            turn = self._turns.get(job.visitor, 0)
            turn += sum(1 for j in itertools.islice(self._waiting, index) if j.visitor == job.visitor)
        return (not self.light(job), turn, index)

    def _took(self, job: Job) -> None:
        """Count a started run as its visitor's turn. Turns count from the moment the queue was last empty
        (runs still running stay counted), so a visitor who had many runs in a quiet hour is not held back
        for them later. Called with the lock held."""
        if not self._waiting:
            self._turns = {}
            for j in self._running:
                if j.visitor is not None:
                    self._turns[j.visitor] = self._turns.get(j.visitor, 0) + 1
        elif job.visitor is not None:
            self._turns[job.visitor] = self._turns.get(job.visitor, 0) + 1

    def position(self, job: Job) -> int:
        """Runs queued ahead of ``job`` (0 when it runs or is next), in the order the workers take them. With an
        express lane, the light runs ahead of a heavy one are not counted: the express workers take them."""
        with self._cond:
            waiting = list(self._waiting)
            try:
                mine = self._rank(job, waiting.index(job))
            except ValueError:
                return 0
            skip_light = bool(self.express_slots) and not self.short(job)
            return sum(1 for i, other in enumerate(waiting)
                       if other is not job and self._rank(other, i) < mine
                       and not (skip_light and self.short(other)))

    def queued(self, job: Job) -> bool:
        with self._cond:
            return job in self._waiting

    def withdraw(self, job: Job) -> bool:
        """Remove a queued job (it then never runs); False if it already started."""
        with self._cond:
            try:
                self._waiting.remove(job)
            except ValueError:
                return False
        job.box["error"] = Cancelled(f"{job.label}: withdrawn from the queue")
        job.finished.set()
        return True

    def load(self) -> tuple[int, int]:
        """(running, waiting) right now."""
        with self._cond:
            return len(self._running), len(self._waiting)

    def pids(self) -> list[int]:
        """Process ids of the live workers."""
        return [s.proc.pid for s in self._slots if s.alive()]

    def close(self) -> None:
        """End the workers (queued jobs are withdrawn); the pool takes no more jobs."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            waiting = list(self._waiting)
            self._cond.notify_all()
        for job in waiting:
            self.withdraw(job)
        for job in list(self._running):
            job.cancel.set()
        for slot in self._slots:
            slot.end("close")

    # ------------------------------------------------------------ the slots
    def _next_for(self, slot: _Slot) -> Job | None:
        """The waiting job this slot takes: the first by :meth:`_rank` among those it may take (any job for a
        regular slot, a short one for an express slot)."""
        best = None
        for i, job in enumerate(self._waiting):
            if slot.express and not self.short(job):
                continue
            rank = self._rank(job, i)
            if best is None or rank < best[0]:
                best = (rank, job)
        return None if best is None else best[1]

    def _serve(self, slot: _Slot) -> None:
        while True:
            with self._cond:
                while not self._closed and (job := self._next_for(slot)) is None:
                    self._cond.wait()
                if self._closed:
                    return
                self._waiting.remove(job)
                self._running.add(job)
                self._took(job)
                job.started_at = time.perf_counter()
            try:
                if job.cancel.is_set():
                    job.box["error"] = Cancelled(f"{job.label}: stopped while queued")
                else:
                    self._run_on(slot, job)
            except BaseException as exc:  # noqa: BLE001 - the slot must keep serving
                job.box.setdefault("error", exc)
            finally:
                with self._cond:
                    self._running.discard(job)
                job.finished.set()

    def _replace(self, slot: _Slot) -> int | None:
        code = slot.end()
        if not self._closed:
            slot.start()
        return code

    def _run_on(self, slot: _Slot, job: Job) -> None:
        """Hand ``job`` to the worker process in ``slot`` and wait for its answer: forward progress updates,
        raise the stop flag when the job is cancelled (and replace the process if it does not reach a stop
        check within ``stop_timeout``), and turn a process that ended without an answer into
        :class:`WorkerCrashed`, with a new process started in its place. The outcome lands in ``job.box``."""
        try:
            slot.ensure()
        except OSError as exc:
            job.box["error"] = WorkerCrashed(f"No worker process could be started for this run ({exc})")
            return
        job.pid = slot.proc.pid
        env = {k: v for k, v in os.environ.items() if k.startswith("LAB_")}
        try:
            slot.conn.send((job.id, job.target, job.kwargs, env))
        except (BrokenPipeError, ConnectionError, EOFError) as exc:
            code = self._replace(slot)
            job.box["error"] = WorkerCrashed(f"The worker process for this run had ended ({_crash_text(code)}; "
                                             f"{exc}); the server started a new one — run again")
            return
        # anything else (a job that will not serialise) is raised: a programming error, shown as such
        stop_sent: float | None = None
        while True:
            if job.cancel.is_set() and stop_sent is None:
                slot.flag.value = job.id
                stop_sent = time.perf_counter()
            if stop_sent is not None and time.perf_counter() - stop_sent > self.stop_timeout:
                self._replace(slot)
                job.box["error"] = Cancelled(f"{job.label}: stopped (the worker process did not reach a stop "
                                             f"check within {self.stop_timeout:g} s and was ended)")
                return
            if self._closed:
                job.box["error"] = Cancelled(f"{job.label}: the server is shutting down")
                return
            conn = slot.conn
            if not conn.poll(SERVE_POLL):  # (an ended process's pipe reads as ready: end of file)
                if slot.alive():
                    continue
            else:
                try:
                    msg = conn.recv()
                except (EOFError, OSError):
                    msg = None
                except Exception as exc:  # an answer that would not deserialise here
                    self._replace(slot)
                    job.box["error"] = RuntimeError(f"the worker's answer could not be read: "
                                                    f"{type(exc).__name__}: {exc}")
                    return
                if msg is not None:
                    kind, job_id = msg[0], msg[1]
                    if job_id != job.id:  # a late word about an earlier job
                        continue
                    if kind == "update":
                        job.publish(msg[2])
                        continue
                    if kind == "value":
                        job.box["value"] = msg[2]
                    else:
                        job.box["error"] = msg[2]
                    return
            # the pipe closed (the process ended) without an answer: a crash
            code = self._replace(slot)
            job.box["error"] = WorkerCrashed(
                f"The worker process doing this run ended unexpectedly ({_crash_text(code)}); the server started a "
                "new one — run again, or choose a smaller run if it happens again")
            return
