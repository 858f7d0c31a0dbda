"""The app's run machinery: one bounded worker pool per server, a visible queue, Stop, abandoned runs, the store.

* **One pool per server.** :func:`pool` is a process-wide :class:`~core.runtime.workers.RunPool` with
  ``[server] slots`` worker *processes* (``lab_settings.toml``) shared by every session, at a lowered CPU
  priority (``worker_nice``). Engine work never runs in the server process, so it never holds up a page
  script; a run is sent as data (scenario name, configuration, seed, grid) and waits in a first-come,
  first-served queue while its page says how many runs are ahead ("2 runs ahead of yours"). Stop works while
  queued (the run is withdrawn) and while running (the worker's stop checks; a worker that does not stop
  within ``stop_timeout_seconds`` is replaced). Progress streams back for live plots; a worker that crashes
  gives a clear error and is replaced.
* **Nothing waits that need not.** Before queueing, a page looks the run up in the shared result store
  (:mod:`core.runtime.store`, every session and the CLI) and in a small in-memory cache; a hit is drawn at once.
  Closed-form content never touches the pool.
* **Cost before work.** The scenario's estimated cost is checked against the server's per-run limits; a
  refusal shows the estimate ("this run needs about 4 GB and 12 minutes; the server allows …").
* **Stops are honoured everywhere**: the runner checks before every game, every ~0.5 s chunk and at
  ``core.cancel.checkpoint()`` calls inside ``prepare``/``play``. Pressing Stop, changing a widget, or
  closing the tab (the session disconnects; after ``abandoned_grace_seconds``) sets the run's cancel flag.
"""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Callable

import streamlit as st

from core.basics.settings import settings
from core.basics.words import count
from core.cost import CostLimitError, check_server_limits
from core.errors import Cancelled, LabError
from core.runtime.games import Progress, Result
from core.runtime.dask_pool import DaskPool
from core.runtime.store import result_address
from core.runtime.workers import Job, RunPool, run_job
from core.scenario import Scenario
from ui.widgets.feedback import run_failed, session_id, show_error, tick
from ui.charts.first_view import watching_run
from ui.runs.stored import keep, store_note, stored
from ui.runs.visitors import is_heavy, release, wait_turn, watching

POLL_SECONDS = 0.25
REDRAW_SECONDS = 2.0  # live plots of a running game at most this often
BAR_SECONDS = 1.0  # the queue/progress line at most this often: each update is a message every browser redraws
REDRAW_SHARE = 0.2  # of one core, at most, for the live plots of one light run, and for all heavy runs' together


class _HeavyDrawing:
    """How many sessions are drawing a heavy run live on this server right now. Their live plots share one
    budget: each redraws at most every ``count × cost / REDRAW_SHARE`` seconds, so twelve heavy links' partial
    charts cannot take the page scripts' CPU from a class's light runs (each tab redrawing a fifth of the time
    was twelve fifths of a two-core server)."""

    def __init__(self):
        self.count = 0
        self._lock = threading.Lock()

    def __enter__(self):
        with self._lock:
            self.count += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self.count -= 1


_HEAVY_DRAWING = _HeavyDrawing()


def redraw_spacing(cost: float, heavy: bool, drawing: int) -> float:
    """Seconds between two live redraws of one run whose last redraw took ``cost`` seconds: at least
    ``REDRAW_SECONDS``; a light run's redraws take at most ``REDRAW_SHARE`` of a core, and a heavy run's a share
    of that split between the ``drawing`` heavy runs drawn live at the moment."""
    share = REDRAW_SHARE / max(1, drawing) if heavy else REDRAW_SHARE
    return max(REDRAW_SECONDS, cost / share)


def _yield_to_streamlit() -> None:
    """Let Streamlit act on a Stop click or a widget change now, without sending the browser anything.

    Streamlit interrupts a running script only inside its own calls; reading session state is one of them
    (it checks for a pending rerun or stop request), so the wait can stay silent between progress updates."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is not None:  # none in a bare thread (unit tests)
        st.session_state.get("_run.yield")  # the read is the point: Streamlit checks for requests on it


# ------------------------------------------------------------------ the pool
# The pool itself (worker processes, the queue, Stop, crashes) is engine-side: core/runtime/workers.py.
# With ``[cluster] scheduler`` (or LAB_SCHEDULER) set, the same interface sends the work to a Dask cluster's
# workers instead (core/runtime/dask_pool.py); nothing below knows which one runs it.
_POOL: RunPool | DaskPool | None = None
_POOL_LOCK = threading.Lock()


def pool() -> RunPool | DaskPool:
    """The server's one run pool, created on first use: ``[server] slots`` worker processes of this server, or
    the Dask cluster that ``[cluster] scheduler`` names."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            s = settings()
            if s.cluster_scheduler:
                _POOL = DaskPool(s.cluster_scheduler, express_seconds=s.express_max_seconds,
                                 stop_timeout=s.stop_timeout_seconds)
            else:
                _POOL = RunPool(s.slots, nice=s.worker_nice, stop_timeout=s.stop_timeout_seconds,
                                express_slots=s.express_slots, express_seconds=s.express_max_seconds,
                                long_nice=s.long_run_nice)
        return _POOL


# ----------------------------------------------------------- session liveness
def session_alive(session_id: str | None) -> bool:
    """Whether the browser session is still connected (True outside a real server, e.g. in AppTest)."""
    if session_id is None:
        return True
    try:
        if not st.runtime.exists():
            return True
        return bool(st.runtime.get_instance().is_active_session(session_id))
    except Exception:
        return True


class _Liveness:
    """Session gone for longer than the grace period → True (a reconnecting tab keeps its run)."""

    def __init__(self, session_id: str | None, grace: float, alive: Callable[[str | None], bool] = session_alive):
        self.session_id, self.grace, self.alive = session_id, grace, alive
        self.gone_since: float | None = None

    def abandoned(self) -> bool:
        if self.alive(self.session_id):
            self.gone_since = None
            return False
        now = time.perf_counter()
        if self.gone_since is None:
            self.gone_since = now
        return now - self.gone_since >= self.grace


def _watch_abandoned(job: Job, liveness: _Liveness, cancel: threading.Event) -> None:
    """Background watcher: sets ``cancel`` — the session's Stop, which takes it off ``job`` — if the session
    disconnects; the script thread may be stuck, so this cannot wait for it."""
    def watch():
        while not job.finished.wait(POLL_SECONDS) and not cancel.is_set():
            if liveness.abandoned():
                cancel.set()
                return

    threading.Thread(target=watch, name="lab-run-watch", daemon=True).start()


# ------------------------------------------------------ one job, many sessions
class _Shared:
    """A pool job that every session asking for the same result (same store key) watches, so a class opening
    the same lab runs its default once, not thirty times. The job is cancelled only when the last session
    watching it leaves (Stop, a widget change, a closed tab). Each session reads the job's newest report
    (``Job.latest``), which reading does not consume."""

    def __init__(self, key: str, job: Job):
        self.key, self.job = key, job
        self.watchers = 0


_SHARED: dict[str, _Shared] = {}
_SHARED_LOCK = threading.Lock()


def _join(key: str | None, job: Job) -> _Shared:
    """The running or queued job for ``key`` if there is one (``job`` is then dropped), else ``job``, submitted."""
    with _SHARED_LOCK:
        shared = _SHARED.get(key) if key is not None else None
        if shared is None or shared.job.finished.is_set() or shared.job.cancel.is_set():
            shared = _Shared(key, job)
            if key is not None:
                _SHARED[key] = shared
            job.address = key  # a cluster computes one run per address, whichever server asks
            pool().submit(job)
        shared.watchers += 1
        return shared


def _leave(shared: _Shared) -> None:
    with _SHARED_LOCK:
        shared.watchers -= 1
        last = shared.watchers <= 0
        if last and _SHARED.get(shared.key) is shared:
            del _SHARED[shared.key]
    if last and not shared.job.finished.is_set():
        shared.job.cancel.set()
        pool().withdraw(shared.job)


def watchers(key: str) -> int:
    """Sessions now watching the queued or running job for ``key`` (0: none in flight)."""
    with _SHARED_LOCK:
        shared = _SHARED.get(key)
        return shared.watchers if shared is not None else 0


# ---------------------------------------------------------- the page's wait
def _queue_text(position: int, elapsed: float) -> str:
    running, _ = pool().load()
    ahead = "1 run ahead of yours" if position == 1 else f"{position} runs ahead of yours"
    if position == 0:
        ahead = "yours is next"
    lane = f" (+{pool().express_slots} for short runs)" if pool().express_slots else ""
    return f"Queued: the server runs {pool().slots}{lane} at a time ({running} running); {ahead} · {elapsed:.0f} s"


def _in_worker(job: Job, on_update: Callable[[Any], tuple], bar, unit: str, key: str | None = None,
               cancel: threading.Event | None = None) -> dict:
    """Run ``job`` on the server's pool while the script thread shows its queue place and reports.

    With a ``key`` (the result's store key), a job for the same key already queued or running — another
    session's — is watched instead of queueing ``job``: the same numbers, computed once. ``cancel`` is this
    session's Stop: it leaves the job, which is cancelled (withdrawn if queued, stopped if running) when no
    session watches it any more. ``on_update(report) -> (done, total)`` runs on the script thread for the
    latest report. The progress line is sent when it changes, at most every ``BAR_SECONDS``; between
    updates each poll still lets Streamlit act on a click promptly. If the script is interrupted (Stop, a
    widget change) or the session disconnects, this session leaves. Returns ``{"value": …}`` or ``{"error": exception}``.
    """
    cancel = cancel if cancel is not None else threading.Event()
    visitor = wait_turn(job, bar, cancel)  # one long run per visitor: this one may wait (or replace another)
    if visitor is False:
        return {"error": Cancelled(f"{job.label}: stopped")}
    try:
        with watching(job, cancel), watching_run():  # live charts never end a first view (ui.charts.first_view)
            return _watch_job(key, job, on_update, bar, unit, cancel)
    finally:
        release(visitor, job)


def _watch_job(key: str | None, job: Job, on_update: Callable[[Any], tuple], bar, unit: str,
               cancel: threading.Event) -> dict:
    """:func:`_in_worker`'s wait for a job it may start: join or submit, then report until it ends."""
    shared = _join(key, job)
    job = shared.job
    _watch_abandoned(job, _Liveness(session_id(), settings().abandoned_grace_seconds), cancel)
    started = time.perf_counter()
    done, total = 0, None
    seen = 0
    shown, shown_at = None, -BAR_SECONDS
    try:
        while True:
            finished = job.finished.is_set()
            version, latest = job.latest()
            if version != seen and latest is not None:
                seen = version
                done, total = on_update(latest)
            if finished:
                return job.box
            if cancel.is_set():
                return {"error": Cancelled(f"{job.label}: stopped")}
            now = time.perf_counter()
            if job.started_at is None:
                line = (0.0, _queue_text(pool().position(job), now - started))
            else:
                elapsed = now - job.started_at
                shared_text = f" · shared by {shared.watchers} sessions" if shared.watchers > 1 else ""
                line = (min(1.0, done / total) if total else 0.0,
                        (f"{done} / {total} {unit} · {elapsed:.0f} s" if total else
                         f"preparing… {elapsed:.0f} s") + shared_text)
            # a new line at most every BAR_SECONDS, and only if it changed (30 waiting tabs polling 4× a
            # second each redrew their page 4× a second); Stop is still seen within a poll
            if line != shown and now - shown_at >= BAR_SECONDS:
                bar.progress(line[0], text=line[1])
                shown, shown_at = line, now
            else:
                _yield_to_streamlit()
            job.finished.wait(POLL_SECONDS)
    finally:
        _leave(shared)


def _limits() -> dict:
    s = settings()
    return {"max_seconds": s.max_run_seconds, "max_bytes": s.max_run_bytes}


# ------------------------------------------------------------------- runs
def run_scenario(scenario: Scenario, config: dict, draw: Callable[[Result, bool], None], *,
                 auto: bool = True, n_jobs: int = 1, label: str = "Run",
                 preview: Callable[[], None] | None = None) -> Result | None:
    """Run ``scenario`` with ``config`` (``config["seed"]`` is the seed) and draw it live.

    * A stored result (shared store or this server's memory) is drawn at once, without queueing.
    * Otherwise the estimated cost is checked against the server's limits, then the run is queued on the
      server's pool; the page shows its queue position, then progress with live ``draw(partial, False)``.
    * ``auto``: run on page load; otherwise wait for the Run button.
    * Stop (queued or running), a widget change, or a closed tab cancels the run; a stopped run keeps the
      games played so far (``draw(partial, True)``). Completed runs go to the store.
    * ``preview()``: drawn where the results will appear while the run is queued or preparing — closed-form
      theory or the data under attack, so the page shows something true at once (closed-form results first,
      the games after); the first live draw replaces it. It stays when no result comes:
      under a refusal (cost over the server's limits), a failed run, a Stop before any game finished, and
      above the Run button of a run that waits for it (``auto=False``).
    """
    params = {k: v for k, v in config.items() if k != "seed"}
    seed = int(config.get("seed", 0))
    try:
        full = scenario.resolve(params)
    except LabError as exc:
        show_error(exc)
        return None
    key, about = result_address(scenario.name, full, seed)
    state = st.session_state.setdefault(f"_run.{scenario.name}", {})
    top = st.container()  # the status box, above the plots
    area = st.container()
    data = stored(key)
    if data is not None:
        return _draw_stored(scenario, Result.from_dict(data), seed, area, draw)
    if state.get("stopped") == key:
        return _draw_stopped(scenario, state, key, area, draw, preview)
    if not auto and state.get("requested") != key:
        _wait_for_button(scenario, state, key, label, area, preview)
        return None
    try:
        cost = scenario.estimate_cost(full)
        check_server_limits(cost, **_limits())
    except CostLimitError as exc:
        with area:
            st.error(f"{exc.message}.", icon=":material/block:")
            if preview is not None:
                preview()
        return None
    return _run_live(scenario, params, seed, key, float(cost.seconds), state, top, area, draw, preview, n_jobs,
                     about)


def _draw_stored(scenario: Scenario, result: Result, seed: int, area, draw) -> Result:
    """A run already computed (the shared store or this server's memory): drawn at once, labelled as stored."""
    tick()
    with area:
        st.caption(f"Stored result · {scenario.work_done(result.config, result.games_done)} · computed in "
                   f"{result.seconds:.1f} s · seed {seed}")
        draw(result, True)
    return result


def _draw_stopped(scenario: Scenario, state: dict, key: str, area, draw, preview) -> Result | None:
    """A run the user stopped: the games played so far (or the preview), and a button to start it again."""
    partial = state.get("partial")
    with area:
        if partial is not None and partial.games_done:
            result = partial
            st.warning(f"Stopped after {result.games_done} of {count(result.games_total, *scenario.unit)}; the "
                       "plots show the games played so far.")
        else:
            result = None
            st.warning(f"Stopped before any {scenario.unit[0]} finished.")
        if st.button("Run again from the start", key=f"_run.{scenario.name}.again"):
            state.pop("stopped", None)
            state.pop("partial", None)
            state["requested"] = key
            st.rerun()
        if result is not None:
            tick()
            draw(result, True)
        elif preview is not None:
            preview()
    return result


def _wait_for_button(scenario: Scenario, state: dict, key: str, label: str, area, preview) -> None:
    """A run that starts on its button (``auto=False``): the button, and the preview below it."""
    if st.button(label, type="primary", key=f"_run.{scenario.name}.go"):
        state["requested"] = key
        st.rerun()
    if preview is not None:
        with area:
            preview()


def _run_live(scenario: Scenario, params: dict, seed: int, key: str, estimate: float, state: dict, top, area,
              draw, preview, n_jobs: int, about: dict) -> Result | None:
    """Queue the run on the server's pool and draw it live: a status box with Stop and progress, the preview
    until the first games finish, partial draws at most every REDRAW_SECONDS, the finished run stored."""
    cancel = threading.Event()
    state.pop("partial", None)

    def stop():
        cancel.set()
        state["stopped"] = key

    status = top.status(f"Running {scenario.title}…", expanded=True)
    status.button("Stop", key=f"_run.{scenario.name}.stop", on_click=stop,
                  help="Stop now (also while queued) and keep the games played so far")
    bar = status.progress(0.0, text="starting…")
    live = area.empty()
    if preview is not None:
        with live.container():
            preview()

    redraw = {"at": 0.0, "cost": 0.0}
    job = Job(run_job, {"scenario": scenario.name, "params": params, "seed": seed, "n_jobs": n_jobs,
                        **_limits()}, label="games")
    job.estimate = estimate  # a short run may take the express lane
    heavy = is_heavy(job)

    def on_update(p: Progress) -> tuple[int, int]:
        if p.done:
            # the worker's snapshot is a fresh object for every report, kept as it came: a JSON copy of every
            # record on every report (twice a second per running tab) was a third of a busy server's CPU
            state["partial"] = p.result
        now = time.perf_counter()
        # Live plots at most every REDRAW_SECONDS, within their share of the CPU (redraw_spacing), so the
        # browser stays responsive to Stop while the engine reports every ~0.5 s.
        spacing = redraw_spacing(redraw["cost"], heavy, _HEAVY_DRAWING.count)
        if 0 < p.done < p.total and now - redraw["at"] >= spacing:
            tick()
            with live.container():
                draw(p.result, False)
            redraw["at"] = time.perf_counter()
            redraw["cost"] = redraw["at"] - now
        return p.done, p.total

    with _HEAVY_DRAWING if heavy else contextlib.nullcontext():
        box = _in_worker(job, on_update, bar, scenario.unit[1], key=key, cancel=cancel)
    if "error" in box:
        exc = box["error"]
        if isinstance(exc, Cancelled):
            state["stopped"] = key
            st.rerun()
        status.update(label="Run failed", state="error")
        run_failed(exc, state.pop("partial", None), scenario.unit, live, area, preview)
        return None
    data = box["value"]
    keep(key, data, about)
    result = Result.from_dict(data)
    state.pop("partial", None)
    state.pop("requested", None)
    done = scenario.work_done(result.config, result.games_done)
    status.update(label=f"Done: {done} in {result.seconds:.1f} s (seed {seed})",
                  state="complete", expanded=False)
    with top:
        store_note()
    tick()
    with live.container():
        draw(result, True)
    return result


def server_refusal(scenario: Scenario, params: dict, seed: int) -> str | None:
    """Why this server would refuse the run (its estimate above the per-run limits), or None when it would
    take it or has it stored: a page offers no Run button that can only fail."""
    full = scenario.resolve(params)
    if stored(result_address(scenario.name, full, int(seed))[0]) is not None:
        return None
    try:
        check_server_limits(scenario.estimate_cost(full), **_limits())
    except CostLimitError as exc:
        return str(exc)
    return None


def pool_run(scenario: Scenario, params: dict, seed: int, bar, *, label: str = "games") -> Result:
    """One run for a page that does not draw it live (Compare's linked runs, a paper preset), with the same gates
    as a lab's Run: the stored result if there is one, else the server's cost limits, then the worker pool (its
    queue, the visitor's one long run, Stop on a closed tab). ``bar`` shows the queue place and progress.

    Raises the engine's error (:class:`~core.cost.CostLimitError` for a refused run, ``Cancelled`` when stopped)."""
    seed = int(seed)
    full = scenario.resolve(params)
    key, about = result_address(scenario.name, full, seed)
    data = stored(key)
    if data is not None:
        return Result.from_dict(data)
    cost = scenario.estimate_cost(full)
    check_server_limits(cost, **_limits())
    job = Job(run_job, {"scenario": scenario.name, "params": dict(params), "seed": seed, "n_jobs": 1,
                        **_limits()}, label=label)
    job.estimate = float(cost.seconds)
    box = _in_worker(job, lambda p: (p.done, p.total), bar, scenario.unit[1], key=key)
    if "error" in box:
        raise box["error"]
    keep(key, box["value"], about)
    return Result.from_dict(box["value"])
