"""The app's run machinery (ui/runs/page_runs.py, core/runtime/workers.py): one bounded pool of worker processes per server,
queue positions, Stop while queued and while running, typed errors, crashed workers, abandoned sessions, and a
Stop pressed before any game finished that stays a stop ."""
import os
import pickle
import time
from pathlib import Path

import pool_jobs
import pytest
from lab_paths import ROOT
from streamlit.testing.v1 import AppTest

from core.cost import Cost, CostLimitError
from core.errors import Cancelled, ParameterError, WorkerCrashed
from core.runtime.games import Progress, Result, run
from core.scenario import get
from core.runtime.store import result_key
from core.runtime.workers import Job, RunPool, run_job, sweep_job
from ui.runs.page_runs import _Liveness, watchers

WAIT = 120  # seconds a test waits for a worker (they start at low priority on a busy machine)


@pytest.fixture(scope="module")
def pool():
    p = RunPool(2, stop_timeout=60)
    yield p
    p.close()


def _until(cond, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    raise AssertionError("condition not reached")


def _wait_for_report(job: Job, timeout: float = WAIT):
    """The job's newest report, once it has sent one."""
    _until(lambda: job.latest()[0] > 0, timeout)
    return job.latest()[1]


def test_a_job_keeps_its_newest_report_numbered_for_every_reader():
    job = Job(pool_jobs.whoami)
    assert job.latest() == (0, None)
    job.publish("a")
    assert job.latest() == (1, "a")
    job.publish("b")
    job.publish(None)  # a report is whatever the target sent; the version still counts it
    assert job.latest() == (3, None)
    job.publish("c")
    assert job.latest() == job.latest() == (4, "c")  # reading does not consume: every watcher sees it


def test_a_job_runs_in_another_process_at_lower_priority(pool):
    job = pool.submit(Job(pool_jobs.whoami))
    assert job.finished.wait(WAIT)
    pid = job.box["value"]
    assert pid != os.getpid() and pid == job.pid and pid in pool.pids()
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)


def test_jobs_are_data_not_closures():
    def local(report):
        return 1

    with pytest.raises(TypeError, match="module-level function"):
        Job(local)
    with pytest.raises(TypeError, match="module-level function"):
        Job(lambda report: 1)


def test_pool_is_bounded_fifo_with_positions_and_withdraw(pool, tmp_path):
    gate = str(tmp_path / "gate")
    jobs = [pool.submit(Job(pool_jobs.blocker, {"gate": gate, "name": f"j{i}"})) for i in range(5)]
    started = [_wait_for_report(jobs[0]), _wait_for_report(jobs[1])]
    time.sleep(0.3)
    assert sorted(started) == ["j0", "j1"]  # two slots: two run, three wait
    assert all(j.latest() == (0, None) for j in jobs[2:])
    assert pool.load() == (2, 3)
    assert [pool.position(j) for j in jobs[2:]] == [0, 1, 2]  # "2 runs ahead of yours" for the last
    assert pool.withdraw(jobs[3])  # Stop while queued: it never runs
    assert isinstance(jobs[3].box["error"], Cancelled) and jobs[3].finished.is_set()
    assert pool.position(jobs[4]) == 1
    assert not pool.withdraw(jobs[0])  # already running: the cancel flag stops it instead
    Path(gate).touch()
    for j in jobs:
        assert j.finished.wait(WAIT)
    assert [j.box.get("value") for j in jobs] == ["j0", "j1", "j2", None, "j4"]
    assert jobs[3].started_at is None and jobs[3].pid is None


def test_stop_while_running_reaches_the_engines_checkpoints(pool):
    job = pool.submit(Job(pool_jobs.loop, {"seconds": 300}))
    report = _wait_for_report(job)
    worker = job.pid
    assert report == ("started", worker) or isinstance(report, int)  # the loop began (it may be a step on)
    time.sleep(0.5)
    assert not job.finished.is_set()
    job.cancel.set()
    assert job.finished.wait(30)  # long before the loop's 300 s and the pool's 60 s stop timeout
    error = job.box["error"]
    assert isinstance(error, Cancelled) and "loop: stopped" in str(error), error
    assert worker in pool.pids()  # stopped cooperatively: the same worker serves the next job
    nxt = pool.submit(Job(pool_jobs.whoami))
    assert nxt.finished.wait(WAIT) and nxt.box["value"] in pool.pids()


@pytest.mark.parametrize("kind, cls", [("parameter", ParameterError), ("cost", CostLimitError),
                                       ("unexpected", KeyError)])
def test_errors_come_back_typed(pool, kind, cls):
    job = pool.submit(Job(pool_jobs.fail, {"kind": kind}))
    assert job.finished.wait(WAIT)
    error = job.box["error"]
    assert type(error) is cls, repr(error)
    if kind == "parameter":
        assert (error.param, error.message) == ("n", "too big for this server")
    if kind == "cost":
        assert error.cost == Cost(seconds=720.0, bytes=4e9, drivers=("games",))
        assert error.message == "this run needs about 4 GB" and error.param == "games"


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_a_crashed_worker_gives_an_error_and_the_next_job_runs(pool, how):
    job = pool.submit(Job(pool_jobs.crash, {"how": how}, label="games"))
    assert job.finished.wait(WAIT)
    error = job.box["error"]
    assert isinstance(error, WorkerCrashed), repr(error)
    assert ("exit code 3" if how == "exit" else "killed by SIGKILL") in str(error)
    assert "ended unexpectedly" in str(error)
    assert job.pid not in pool.pids() and len(pool.pids()) == 2  # replaced
    nxt = pool.submit(Job(pool_jobs.whoami))
    assert nxt.finished.wait(WAIT) and "value" in nxt.box


def test_a_worker_that_ignores_stop_is_ended_and_replaced():
    small = RunPool(1, stop_timeout=1.0)
    try:
        job = small.submit(Job(pool_jobs.stubborn, {"seconds": 300}))
        _wait_for_report(job)
        job.cancel.set()
        assert job.finished.wait(60)
        assert isinstance(job.box["error"], Cancelled) and "was ended" in str(job.box["error"])
        nxt = small.submit(Job(pool_jobs.whoami))
        assert nxt.finished.wait(WAIT) and nxt.box["value"] != job.pid
    finally:
        small.close()
    assert small.pids() == []


def test_a_page_run_in_a_worker_gives_the_same_numbers_and_streams_progress(pool):
    params = {"n": 40, "trials": 6}
    job = pool.submit(Job(run_job, {"scenario": "reconstruction", "params": params, "seed": 11}, label="games"))
    assert job.finished.wait(WAIT)
    here = run("reconstruction", params, seed=11)
    there = Result.from_dict(job.box["value"])
    assert there.metrics == here.metrics and there.games_done == here.games_done  # (series hold timings)
    version, last = job.latest()
    assert version >= 1 and isinstance(last, Progress)
    assert last.done == last.total == here.games_total  # the final report always arrives, and last
    assert last.result.metrics == here.metrics


def test_a_sweep_in_a_worker_gives_the_same_rows(pool):
    from core.runtime.sweep import sweep

    args = {"scenario": "reconstruction", "base": {"trials": 2}, "grid": {"n": [20, 30]}, "seed": 5}
    job = pool.submit(Job(sweep_job, args, label="settings"))
    assert job.finished.wait(WAIT)
    here = sweep("reconstruction", {"trials": 2}, {"n": [20, 30]}, seed=5)
    assert job.box["value"]["rows"] == here["rows"]
    assert job.latest()[1][:2] == (2, 2)


def test_results_and_engine_errors_survive_the_trip():
    result = run("reconstruction", {"n": 20, "trials": 2}, seed=1)
    progress = Progress(done=2, total=2, seconds=0.1, result=result)
    assert pickle.loads(pickle.dumps(progress)) == progress
    for exc in (ParameterError("eps", "must be positive"), Cancelled("stopped"), WorkerCrashed("gone"),
                CostLimitError(Cost(1.0, 2.0, ("n",)), "too big")):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc) and vars(back) == vars(exc)


def test_abandoned_session_after_grace():
    alive = {"v": True}
    live = _Liveness("sid", grace=0.2, alive=lambda sid: alive["v"])
    assert not live.abandoned()
    alive["v"] = False
    assert not live.abandoned()  # just disconnected: a reconnect keeps the run
    time.sleep(0.25)
    assert live.abandoned()
    alive["v"] = True
    assert not live.abandoned()


def test_a_closed_tab_stops_its_run_in_the_worker():
    from ui.runs.page_runs import _watch_abandoned, pool

    job = pool().submit(Job(pool_jobs.loop, {"seconds": 300}))
    _wait_for_report(job)
    _watch_abandoned(job, _Liveness("gone", grace=0.2, alive=lambda sid: False), job.cancel)
    assert job.finished.wait(30)
    assert isinstance(job.box["error"], Cancelled) and "loop: stopped" in str(job.box["error"])


def test_stop_before_any_game_stays_stopped():
    # Stop pressed while "preparing…" (no game finished yet) used to rerun into a fresh run of the same
    # configuration, so the Stop was ignored. Now the page shows the stop and offers "Run again".
    sc = get("reconstruction")
    seed = 424242  # a configuration no other test stores
    key = result_key(sc.name, sc.resolve({}), seed)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/10_Reconstruction_attack.py")
    at.session_state["reconstruction.seed"] = seed
    at.session_state["_run.reconstruction"] = {"stopped": key}
    at.run()
    assert not at.exception, at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "Stopped before any game finished" in warnings
    assert not [m for m in at.metric if m.label == "Bits recovered"]  # no run was started
    at.button(key="_run.reconstruction.again").click().run()
    assert not at.exception, at.exception
    assert float({m.label: m.value for m in at.metric}["Bits recovered"]) == 1.0


# ------------------------------------------------ one job for every session asking the same
class _Bar:
    def __init__(self):
        self.texts = []

    def progress(self, value, text=""):
        self.texts.append(text)


def _watch(key, name, gate, cancel=None):
    """A session's wait for ``blocker(name)`` under ``key``, in a thread; returns (thread, outcome dict)."""
    import threading

    from ui.runs.page_runs import _in_worker

    out = {"cancel": cancel or threading.Event(), "bar": _Bar(), "seen": []}
    job = Job(pool_jobs.blocker, {"gate": str(gate), "name": name})
    out["job"] = job

    def on_update(report):
        out["seen"].append(report)
        return 0, None

    def session():
        out["box"] = _in_worker(job, on_update, out["bar"], "steps", key=key, cancel=out["cancel"])

    t = threading.Thread(target=session, daemon=True)
    t.start()
    return t, out


def _two_sessions(key, gate):
    """Two sessions asking for ``key``: the first queues its job, the second joins it."""
    first = _watch(key, "first", gate)
    _until(lambda: watchers(key) == 1)
    second = _watch(key, "second", gate)
    _until(lambda: watchers(key) == 2)
    return first, second


def test_sessions_asking_for_the_same_result_share_one_run(tmp_path):
    gate = tmp_path / "go"
    (ta, a), (tb, b) = _two_sessions("share-1", gate)
    gate.touch()
    ta.join(WAIT), tb.join(WAIT)
    assert a["box"] == {"value": "first"} and b["box"] == {"value": "first"}  # computed once, by the first
    assert a["seen"] == b["seen"] == ["first"]  # each session saw the shared job's report, once
    assert not b["job"].finished.is_set() and b["job"].started_at is None     # the second job never ran
    assert watchers("share-1") == 0


def test_one_session_leaving_does_not_stop_the_others(tmp_path):
    gate = tmp_path / "go"
    (ta, a), (tb, b) = _two_sessions("share-2", gate)
    a["cancel"].set()                                       # the first session presses Stop
    ta.join(WAIT)
    assert isinstance(a["box"]["error"], Cancelled)
    assert watchers("share-2") == 1 and not a["job"].cancel.is_set()
    gate.touch()
    tb.join(WAIT)
    assert b["box"] == {"value": "first"}


def test_the_last_session_leaving_stops_the_shared_run(tmp_path):
    gate = tmp_path / "never"
    (ta, a), (tb, b) = _two_sessions("share-3", gate)
    a["cancel"].set(), b["cancel"].set()
    ta.join(WAIT), tb.join(WAIT)
    assert isinstance(a["box"]["error"], Cancelled) and isinstance(b["box"]["error"], Cancelled)
    job = a["job"]
    assert job.cancel.is_set() and job.finished.wait(WAIT)  # withdrawn or stopped at a stop check
    assert isinstance(job.box["error"], Cancelled)
    assert watchers("share-3") == 0


def test_the_express_lane_takes_short_runs_past_long_ones(tmp_path):
    """One regular slot held by a long run, a long run queued: a short run (estimate ≤ express_seconds) runs at
    once in the express slot, which never takes a long one; queue places count only the lane that serves a job."""
    p = RunPool(1, express_slots=1, express_seconds=5, stop_timeout=60)
    try:
        def blocker(name, estimate):
            job = Job(pool_jobs.blocker, {"gate": str(tmp_path / name), "name": name})
            job.estimate = estimate
            return job

        long1, long2, short1, short2 = (blocker("long1", 100), blocker("long2", 100), blocker("short1", 1),
                                        blocker("short2", 2))
        p.submit(long1)
        _wait_for_report(long1)
        p.submit(long2), p.submit(short1), p.submit(short2)
        _wait_for_report(short1)                      # started although long2 was queued before it
        assert p.queued(long2) and p.queued(short2)
        assert p.position(long2) == 0 and p.position(short2) == 0  # next in their own lanes
        (tmp_path / "short1").touch()
        assert short1.finished.wait(WAIT) and short1.box == {"value": "short1"}
        _wait_for_report(short2)
        (tmp_path / "short2").touch()
        assert short2.finished.wait(WAIT)
        time.sleep(0.5)
        assert p.queued(long2)                            # the idle express slot does not take a long run
        (tmp_path / "long1").touch()
        _wait_for_report(long2)
        assert long1.box == {"value": "long1"} and long2.pid == long1.pid  # the regular slot's worker
        (tmp_path / "long2").touch()
        assert long2.finished.wait(WAIT) and long2.box == {"value": "long2"}
        assert short1.pid != long1.pid
    finally:
        p.close()


# ------------------------------------------------ the preview gives way to the run's draws
def _preview_app(n: int, trials: int, seed: int) -> AppTest:
    """A page that previews, then runs the reconstruction scenario; its draw stops the page at the first live
    (partial) draw, so the test sees the page exactly as that draw left it."""
    def app():
        import streamlit as st

        from core.scenario import get
        from ui.runs.page_runs import run_scenario

        def preview():
            st.markdown("PREVIEW: the closed-form frame")

        def draw(result, final):
            st.markdown(f"DRAW final={final}")
            if not final:
                st.stop()

        cfg = st.session_state["cfg"]
        run_scenario(get("reconstruction"), cfg, draw, preview=preview)

    at = AppTest.from_function(app, default_timeout=WAIT)
    at.session_state["cfg"] = {"n": n, "trials": trials, "sweeps": False, "seed": seed}
    return at.run()


def test_the_first_live_draw_replaces_the_preview():
    # 400 LP games at n = 300 take tens of seconds; partial reports come every ~0.5 s, long before the end
    at = _preview_app(300, 400, 424243)
    assert not at.exception, at.exception
    texts = [m.value for m in at.markdown]
    assert "DRAW final=False" in texts and not any(t.startswith("PREVIEW") for t in texts), texts


def test_the_final_draw_replaces_the_preview():
    at = _preview_app(20, 2, 424244)
    assert not at.exception, at.exception
    texts = [m.value for m in at.markdown]
    assert "DRAW final=True" in texts and not any(t.startswith("PREVIEW") for t in texts), texts


# ------------------------------------------------ a run that fails after some games
def test_a_failed_run_shows_its_partial_numbers_only_as_partial(monkeypatch):
    """A worker killed mid-run: the page says so in one line; the games that had finished are shown as partial
    numbers with their count, never as the page's headline over the configured number of games."""
    import ui.runs.page_runs as runs
    from core.runtime.games import Progress, Result, run

    played = run("reconstruction", {"n": 20, "trials": 10, "sweeps": False}, seed=7)
    partial = Result(**{**played.__dict__, "games_total": 40, "completed": False,
                        "config": {**played.config, "trials": 40}})

    def crashed(job, on_update, bar, unit, key, cancel=None):
        on_update(Progress(done=10, total=40, seconds=1.0, result=partial))  # drawn live, as a run in progress
        return {"error": WorkerCrashed("The worker process doing this run ended unexpectedly (killed by SIGKILL — "
                                       "often the machine running out of memory); the server started a new one — "
                                       "run again, or choose a smaller run if it happens again")}

    monkeypatch.setattr(runs, "_in_worker", crashed)
    monkeypatch.setattr(runs, "REDRAW_SECONDS", 0.0)

    def app():
        import streamlit as st

        from core.scenario import get
        from ui.runs.page_runs import run_scenario

        def draw(result, final):
            st.markdown(f"HEADLINE accuracy over {result.config['trials']} trials")

        run_scenario(get("reconstruction"), {"n": 20, "trials": 40, "sweeps": False, "seed": 424245}, draw,
                     preview=lambda: st.markdown("PREVIEW"))

    at = AppTest.from_function(app, default_timeout=WAIT).run()
    assert not at.exception, at.exception
    texts = [m.value for m in at.markdown]
    assert not any(t.startswith("HEADLINE") for t in texts), texts  # the live draw is gone
    assert "PREVIEW" in texts  # the page keeps what is true: the preview
    assert [e.value for e in at.error] == [
        "The worker process doing this run ended unexpectedly (killed by SIGKILL — often the machine running out "
        "of memory); the server started a new one — run again, or choose a smaller run if it happens again"]
    assert [x.label for x in at.expander] == ["Partial numbers: 10 games of 40 games finished before the failure"]
    table = at.dataframe[0].value
    assert list(table.columns) == ["metric", "value over 10 games"]
    assert dict(zip(table["metric"], table["value over 10 games"]))["accuracy"] == pytest.approx(
        played.metrics["accuracy"])
    assert any("not the run's result" in c.value for c in at.caption)


def test_heavy_runs_share_one_redraw_budget_and_a_light_run_keeps_its_own():
    """Live plots: a light run redraws at most every 2 s and a fifth of the time; the heavy runs drawn at the same
    moment split one such fifth between them, so twelve heavy links cannot spend the page scripts' CPU."""
    from ui.runs.page_runs import REDRAW_SECONDS, REDRAW_SHARE, redraw_spacing

    assert redraw_spacing(0.0, heavy=False, drawing=12) == REDRAW_SECONDS
    assert redraw_spacing(1.0, heavy=False, drawing=12) == pytest.approx(1.0 / REDRAW_SHARE)
    assert redraw_spacing(1.0, heavy=True, drawing=1) == pytest.approx(1.0 / REDRAW_SHARE)
    for drawing in (2, 5, 12):
        # the heavy runs' redraws together take at most REDRAW_SHARE of a core, whatever their number
        assert drawing * 0.3 / redraw_spacing(0.3, heavy=True, drawing=drawing) <= REDRAW_SHARE + 1e-12
    assert redraw_spacing(0.3, heavy=True, drawing=12) > redraw_spacing(0.3, heavy=False, drawing=12)


def test_a_run_stopped_after_some_games_draws_the_games_played_from_the_last_report():
    """Stop pressed mid-run: the page keeps the last report the worker sent (its own Result, not a copy) and draws
    those games, saying how many of the configured ones they are."""
    from core.runtime.games import Result, run

    sc = get("reconstruction")
    seed = 424243  # a configuration no other test stores
    config = sc.resolve({})
    key = result_key(sc.name, config, seed)
    played = run(sc, {**config, "trials": 3}, seed=seed)
    partial = Result(**{**played.__dict__, "config": {**played.config, "trials": config["trials"]},
                        "games_total": int(sc.n_games(config)), "completed": False, "cancelled": True})
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/10_Reconstruction_attack.py")
    at.session_state["reconstruction.seed"] = seed
    at.session_state["_run.reconstruction"] = {"stopped": key, "partial": partial}
    at.run()
    assert not at.exception, at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert f"Stopped after {played.games_done} of {sc.n_games(config)}" in warnings, warnings
    assert {m.label: m.value for m in at.metric}["Bits recovered"] is not None  # the games played, drawn


def test_an_idle_worker_loads_the_default_runs_libraries_before_they_are_needed():
    """A worker that waited ``warm_after`` seconds for a job imports WARM_IMPORTS (SDMetrics, the Synthetic page's
    proxy scores) so a class's first run does not wait for it; one busy from the start has not."""
    warm_after = 1.0
    p = RunPool(1, stop_timeout=60, warm_after=warm_after)
    try:
        first = p.submit(Job(pool_jobs.loaded, {"name": "sdmetrics"}))
        assert first.finished.wait(WAIT) and first.box["value"] is False  # a job at once: nothing loaded ahead
        deadline = time.monotonic() + WAIT
        while True:
            time.sleep(warm_after + 1)
            job = p.submit(Job(pool_jobs.loaded, {"name": "sdmetrics"}))
            assert job.finished.wait(WAIT)
            if job.box["value"] or time.monotonic() > deadline:
                break
        assert job.box["value"] is True
    finally:
        p.close()
