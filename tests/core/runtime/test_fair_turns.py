"""Fair turns in the run pool (core/runtime/workers.py): light runs before heavy ones, visitors in round robin
rather than first come, first served, and the regular workers (the heavy runs' lane) at a lower CPU priority
than the express lane."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pool_jobs

from core.runtime.workers import Job, RunPool

WAIT = 120


def _job(target, kwargs, visitor=None, estimate=600.0) -> Job:
    job = Job(target, kwargs)
    job.visitor, job.estimate = visitor, estimate
    return job


def test_visitors_take_turns_and_light_runs_go_first(tmp_path):
    pool = RunPool(1, express_seconds=60.0)
    gate, log = tmp_path / "gate", tmp_path / "log"
    try:
        blocker = pool.submit(_job(pool_jobs.blocker, {"gate": str(gate), "name": "blocker"}))
        while blocker.latest()[0] == 0:  # the one worker is busy before the others arrive
            assert not blocker.finished.wait(0.05)
        jobs = {}
        # one visitor opens three heavy links, then a second visitor one, then a third visitor a light run
        for name, visitor, estimate in [("A1", "a", 600.0), ("A2", "a", 600.0), ("A3", "a", 600.0),
                                        ("B1", "b", 600.0), ("C1", "c", 5.0)]:
            jobs[name] = pool.submit(_job(pool_jobs.note, {"log": str(log), "name": name}, visitor, estimate))
        # the page's queue line says where each one stands, in the order the worker will take them
        assert [pool.position(jobs[n]) for n in ("C1", "A1", "B1", "A2", "A3")] == [0, 1, 2, 3, 4]
        gate.touch()
        for job in jobs.values():
            assert job.finished.wait(WAIT)
        # first come, first served would be A1 A2 A3 B1 C1
        assert log.read_text().split() == ["C1", "A1", "B1", "A2", "A3"]
    finally:
        pool.close()


def test_a_visitors_running_run_counts_as_their_turn(tmp_path):
    pool = RunPool(2, express_seconds=60.0)
    gate, log = tmp_path / "gate", tmp_path / "log"
    try:
        held = pool.submit(_job(pool_jobs.blocker, {"gate": str(gate), "name": "held"}, visitor="a"))
        other = pool.submit(_job(pool_jobs.blocker, {"gate": str(gate) + "-2", "name": "other"}, visitor="z"))
        for job in (held, other):  # both workers busy
            while job.latest()[0] == 0:
                assert not job.finished.wait(0.05)
        a2 = pool.submit(_job(pool_jobs.note, {"log": str(log), "name": "A2"}, "a"))
        b1 = pool.submit(_job(pool_jobs.note, {"log": str(log), "name": "B1"}, "b"))
        # visitor a already holds a worker: b's first run goes ahead of a's second
        assert pool.position(b1) == 0 and pool.position(a2) == 1
        Path(str(gate) + "-2").touch()  # z's run ends while a's still holds the other worker
        assert b1.finished.wait(WAIT) and a2.finished.wait(WAIT)  # the freed worker takes B1 first, then A2
        assert log.read_text().split() == ["B1", "A2"]
        gate.touch()
        assert other.finished.wait(WAIT) and held.finished.wait(WAIT)
    finally:
        pool.close()


def test_the_heavy_lane_runs_at_a_lower_cpu_priority_than_the_express_lane():
    pool = RunPool(1, nice=5, express_slots=1, express_seconds=60.0, long_nice=15)
    try:
        heavy = pool.submit(_job(pool_jobs.whoami, {}, estimate=600.0))
        light = pool.submit(_job(pool_jobs.whoami, {}, estimate=1.0))
        assert heavy.finished.wait(WAIT) and light.finished.wait(WAIT)
        base = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, heavy.box["value"]) == min(19, base + 15)
        # the light run may have been taken by either slot; the express slot's process is at the lighter nice
        express_pid = pool.pids()[1]
        assert os.getpriority(os.PRIO_PROCESS, express_pid) == min(19, base + 5)
    finally:
        pool.close()


def test_with_the_default_settings_light_runs_run_side_by_side_while_heavy_runs_hold_the_regular_workers(tmp_path):
    """A class's light default runs used to queue one behind another on the single express worker whenever heavy
    links held every regular worker (their CPU seconds add up: past the 30 s goal even on a quiet machine). By
    default the express lane has a worker per regular one, so light runs use every core beside the heavy runs,
    which run at the lowest CPU priority."""
    from core.basics.settings import settings

    s = settings()
    pool = RunPool(s.slots, express_slots=s.express_slots, express_seconds=s.express_max_seconds)
    heavy_gate, light_gate = tmp_path / "heavy", tmp_path / "light"
    try:
        heavy = [pool.submit(_job(pool_jobs.blocker, {"gate": str(heavy_gate), "name": f"heavy-{i}"}, f"h{i}"))
                 for i in range(s.slots)]
        for job in heavy:  # every regular worker holds a heavy run
            while job.latest()[0] == 0:
                assert not job.finished.wait(0.05)
        light = [pool.submit(_job(pool_jobs.blocker, {"gate": str(light_gate), "name": f"light-{i}"}, f"l{i}",
                                  estimate=5.0)) for i in range(2)]
        deadline = time.monotonic() + 45  # (well within the blockers' own 60 s limit)
        while any(job.latest()[0] == 0 for job in light) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(job.latest()[0] > 0 for job in light), "a light run waited for another light run"
        assert not any(job.finished.is_set() for job in heavy)
        light_gate.touch()
        heavy_gate.touch()
        assert all(job.finished.wait(WAIT) for job in heavy + light)
    finally:
        heavy_gate.touch()
        light_gate.touch()
        pool.close()
