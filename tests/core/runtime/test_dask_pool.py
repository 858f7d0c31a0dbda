"""Page runs on a Dask cluster (core/runtime/dask_pool.py): a real scheduler and worker started from the venv, the
same numbers as the local pool, progress, Stop, typed errors, uploads shipped to the worker, one computation for
one run asked twice, and a worker killed mid-run."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pool_jobs
import pytest
from lab_paths import ROOT

from core.errors import Cancelled, ParameterError
from core.runtime.dask_pool import DaskPool
from core.runtime.games import Progress, Result, run
from core.runtime.workers import Job, run_job

pytestmark = pytest.mark.slow  # a real Dask scheduler and worker, started as processes, for the module
WAIT = 180
BIN = Path(sys.executable).parent


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``dask scheduler`` and one ``dask worker`` (one process, one thread, under a nanny that restarts it)."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests' / 'helpers'}",  # pool_jobs too
           "OPENBLAS_NUM_THREADS": "1",
           "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    logs = tmp_path_factory.mktemp("dask")
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--dashboard-address", ":0"], cwd=ROOT, env=env, start_new_session=True,
                              stdout=open(logs / "scheduler.log", "w"), stderr=subprocess.STDOUT)]
    procs.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nworkers", "1", "--nthreads", "1",
                                   "--dashboard-address", ":0", "--local-directory", str(logs)],
                                  cwd=ROOT, env=env, start_new_session=True,
                                  stdout=open(logs / "worker.log", "w"), stderr=subprocess.STDOUT))
    pool = None
    try:
        deadline = time.monotonic() + WAIT
        while pool is None:
            try:
                pool = DaskPool(address, stop_timeout=30, connect_timeout=5)
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        pool.client.wait_for_workers(1, timeout=WAIT)
        yield pool
    finally:
        if pool is not None:
            pool.close()
        for proc in reversed(procs):
            _stop(proc)


def test_a_page_run_on_a_cluster_worker_gives_the_local_numbers_and_streams_progress(cluster):
    params = {"n": 40, "trials": 6}
    job = cluster.submit(Job(run_job, {"scenario": "reconstruction", "params": params, "seed": 11}, label="games"))
    assert job.finished.wait(WAIT), "no answer from the cluster"
    assert "error" not in job.box, job.box.get("error")
    here = run("reconstruction", params, seed=11)
    there = Result.from_dict(job.box["value"])
    assert there.metrics == here.metrics and there.games_done == here.games_done
    assert job.pid is not None and job.pid != os.getpid()  # a worker process ran it
    version, last = job.latest()
    assert version >= 1 and isinstance(last, Progress) and last.done == last.total == here.games_total
    assert cluster.load() == (0, 0)


def test_engine_errors_come_back_typed(cluster):
    job = cluster.submit(Job(pool_jobs.fail, {"kind": "parameter"}))
    assert job.finished.wait(WAIT)
    assert isinstance(job.box["error"], ParameterError) and "too big for this server" in str(job.box["error"])


def test_stop_ends_a_running_job_and_the_worker_serves_the_next(cluster):
    job = cluster.submit(Job(pool_jobs.loop, {"seconds": 120}))
    deadline = time.monotonic() + WAIT
    while job.latest()[0] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.running
    job.cancel.set()
    assert job.finished.wait(30), "Stop was not honoured"
    assert isinstance(job.box["error"], Cancelled)
    nxt = cluster.submit(Job(pool_jobs.whoami))
    assert nxt.finished.wait(WAIT) and isinstance(nxt.box["value"], int)


def test_a_queued_job_is_withdrawn_at_once(cluster):
    first = cluster.submit(Job(pool_jobs.loop, {"seconds": 120}))
    second = cluster.submit(Job(pool_jobs.whoami))
    deadline = time.monotonic() + WAIT
    while not first.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cluster.queued(second) and cluster.position(second) == 0
    assert cluster.withdraw(second) and isinstance(second.box["error"], Cancelled)
    first.cancel.set()
    assert first.finished.wait(30)


def test_one_run_asked_by_two_servers_is_computed_once(cluster):
    other = DaskPool(cluster.scheduler, connect_timeout=10)  # a second lab server on the same cluster
    try:
        a, b = Job(pool_jobs.token, {"seconds": 2}), Job(pool_jobs.token, {"seconds": 2})
        a.address = b.address = "reconstruction|{n: 40}|seed 3|engine x"
        cluster.submit(a)
        other.submit(b)
        assert a.finished.wait(WAIT) and b.finished.wait(WAIT)
        assert a.box["value"] == b.box["value"]  # one computation, both watchers answered
        c = cluster.submit(Job(pool_jobs.token))  # without an address every run is its own
        assert c.finished.wait(WAIT) and c.box["value"] != a.box["value"]
    finally:
        other.close()


def test_an_uploaded_file_travels_with_the_run(cluster, tmp_path):
    upload = tmp_path / "people.csv"
    upload.write_bytes(b"age,zip\n34,02139\n")
    job = cluster.submit(Job(pool_jobs.read_params, {"params": {"data_path": str(upload), "n": 3}}))
    assert job.finished.wait(WAIT)
    path, data = job.box["value"]
    assert data == upload.read_bytes()
    assert path == str(upload)  # the result names the server's file, as a local run's would


def test_a_worker_killed_mid_run_is_replaced_and_the_run_still_answers(cluster):
    params = {"n": 40, "trials": 6}
    job = cluster.submit(Job(pool_jobs.loop, {"seconds": 4}))
    deadline = time.monotonic() + WAIT
    while job.pid is None and time.monotonic() < deadline:
        time.sleep(0.05)
    killed = job.pid
    os.kill(killed, signal.SIGKILL)  # out of memory, say: the nanny starts a new worker, Dask reruns the task
    assert job.finished.wait(WAIT)
    assert job.box.get("value") == "finished", job.box
    assert job.pid != killed
    # and the cluster goes on serving page runs with the same numbers
    again = cluster.submit(Job(run_job, {"scenario": "reconstruction", "params": params, "seed": 11}))
    assert again.finished.wait(WAIT)
    assert Result.from_dict(again.box["value"]).metrics == run("reconstruction", params, seed=11).metrics


def test_a_lab_page_runs_on_the_cluster_when_the_setting_names_it(cluster, monkeypatch, tmp_path):
    import collections

    import ui.runs.page_runs
    import ui.runs.stored
    from apptest_helpers import open_page

    monkeypatch.setenv("LAB_SCHEDULER", cluster.scheduler)
    # nothing stored, here or in this process's memory: an earlier test in the same worker that played the page's
    # default run would otherwise have it drawn from there, without any pool
    monkeypatch.setenv("LAB_STORE", str(tmp_path / "store"))
    monkeypatch.setattr(ui.runs.stored, "_MEMORY", collections.OrderedDict())
    monkeypatch.setattr(ui.runs.page_runs, "_POOL", None)  # this server's pool is made anew from the settings
    try:
        at = open_page("pages/10_Reconstruction_attack.py")
        assert not at.exception, at.exception
        labels = {m.label: m.value for m in at.metric}
        assert float(labels["Bits recovered"]) == 1.0  # the page's default numbers, computed by the cluster
        used = ui.runs.page_runs._POOL
        assert isinstance(used, DaskPool) and used.submitted >= 1
    finally:
        if isinstance(ui.runs.page_runs._POOL, DaskPool):
            ui.runs.page_runs._POOL.close()
