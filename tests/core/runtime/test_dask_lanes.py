"""A reserved share of a Dask cluster for light runs (core/runtime/dask_pool.py): with one worker advertising the
``heavy`` resource and one not, two heavy runs cannot hold both workers — the second waits for the first — and a
light run submitted after them is done while they hold their worker. A real scheduler and two workers from the
venv (benchmarks/labcluster.py, as the course-scale benchmark starts them)."""
from __future__ import annotations

import sys
import time

import pool_jobs
import pytest

from core.runtime.dask_pool import DaskPool
from core.runtime.workers import Job

from lab_paths import ROOT
sys.path.insert(0, str(ROOT / "benchmarks"))

pytestmark = pytest.mark.slow
WAIT = 180


def _wait(condition, seconds: float = WAIT) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _job(target, estimate: float, **kwargs) -> Job:
    job = Job(target, kwargs, label=kwargs.get("name", "light"))
    job.estimate = estimate
    return job


def test_heavy_runs_keep_to_the_heavy_workers_and_a_light_run_passes_them(tmp_path):
    from labcluster import PartMissing, dask_cluster

    gate = tmp_path / "open"
    try:
        cluster = dask_cluster(2, logs=tmp_path, heavy=1, env={"PYTHONPATH": f"{ROOT}:{ROOT / 'tests' / 'helpers'}"})
        parts = cluster.__enter__()
    except PartMissing as exc:
        pytest.skip(str(exc))
    pool = DaskPool(parts.address, express_seconds=60.0, stop_timeout=30)
    try:
        assert pool.heavy_lane()
        first = pool.submit(_job(pool_jobs.blocker, 600.0, gate=str(gate), name="heavy-1"))
        second = pool.submit(_job(pool_jobs.blocker, 600.0, gate=str(gate), name="heavy-2"))
        assert _wait(lambda: first.started_at is not None or second.started_at is not None)
        light = pool.submit(_job(pool_jobs.whoami, 1.0))
        assert light.finished.wait(WAIT), "the light run waited behind the heavy ones"
        assert "value" in light.box, light.box
        # the light run passed while one heavy run held the heavy worker and the other still waited for it
        assert [first.started_at is None, second.started_at is None].count(True) == 1
        assert not first.finished.is_set() and not second.finished.is_set()
        gate.touch()
        assert first.finished.wait(WAIT) and second.finished.wait(WAIT)
        assert first.box.get("value") == "heavy-1" and second.box.get("value") == "heavy-2"
    finally:
        gate.touch()
        pool.close()
        cluster.__exit__(None, None, None)


def test_without_a_heavy_worker_any_worker_takes_any_run(tmp_path):
    from labcluster import PartMissing, dask_cluster

    try:
        with dask_cluster(1, logs=tmp_path, env={"PYTHONPATH": f"{ROOT}:{ROOT / 'tests' / 'helpers'}"}) as parts:
            pool = DaskPool(parts.address, express_seconds=60.0)
            try:
                assert not pool.heavy_lane()
                job = pool.submit(_job(pool_jobs.whoami, 600.0))  # a heavy run, and no worker set apart for them
                assert job.finished.wait(WAIT) and isinstance(job.box.get("value"), int)
            finally:
                pool.close()
    except PartMissing as exc:
        pytest.skip(str(exc))
