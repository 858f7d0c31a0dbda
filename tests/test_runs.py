"""The app's run machinery (ui/runs.py): one bounded pool per server, queue positions, Stop while queued,
abandoned sessions, and a Stop pressed before any game finished that stays a stop (issue 8 item 2, issue 12)."""
import threading
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.errors import Cancelled
from core.scenario import get
from core.store import result_key
from ui.runs import Job, RunPool, _Liveness

ROOT = Path(__file__).resolve().parent.parent


def _blocker(gate: threading.Event, started: list, name: str):
    def call(report):
        started.append(name)
        gate.wait(10)
        return name
    return call


def test_pool_is_bounded_fifo_with_positions_and_withdraw():
    pool = RunPool(2)
    gate, started = threading.Event(), []
    jobs = [pool.submit(Job(_blocker(gate, started, f"j{i}"))) for i in range(5)]
    deadline = time.time() + 5
    while len(started) < 2 and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert sorted(started) == ["j0", "j1"]  # two slots: two run, three wait
    assert pool.load() == (2, 3)
    assert [pool.position(j) for j in jobs[2:]] == [0, 1, 2]  # "2 runs ahead of yours" for the last
    assert pool.withdraw(jobs[3])  # Stop while queued: it never runs
    assert isinstance(jobs[3].box["error"], Cancelled) and jobs[3].finished.is_set()
    assert pool.position(jobs[4]) == 1
    assert not pool.withdraw(jobs[0])  # already running: the cancel flag stops it instead
    gate.set()
    for j in jobs:
        assert j.finished.wait(5)
    assert sorted(started) == ["j0", "j1", "j2", "j4"]
    assert [j.box.get("value") for j in jobs] == ["j0", "j1", "j2", None, "j4"]


def test_cancel_flag_reaches_engine_checkpoints_in_the_pool():
    from core.cancel import checkpoint

    def call(report):
        for _ in range(1000):
            checkpoint("test")
            time.sleep(0.01)
        return "finished"

    pool = RunPool(1)
    job = pool.submit(Job(call))
    time.sleep(0.2)
    job.cancel.set()
    assert job.finished.wait(2)
    assert isinstance(job.box["error"], Cancelled)


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
