"""The course-scale parts on one machine, for benchmarks and tests (docs/SERVING.md starts the same parts on
several): a throwaway PostgreSQL cluster, a Dask scheduler with workers, and Caddy in front of lab servers.
Each is a context manager that ends every process it started (and removes its folders) on the way out.

    with postgres() as url, dask_cluster(workers=2) as scheduler:   # postgresql://postgres@127.0.0.1:PORT
        ...                                                          # tcp://127.0.0.1:PORT
    with caddy(["127.0.0.1:8501", "127.0.0.1:8502"]) as proxy:       # proxy.url, proxy.proc
        ...

A part that cannot start raises :class:`PartMissing` (a program not installed) or RuntimeError (it started and
failed), with the reason; tests turn the first into a skip.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from labserver import ROOT, Server, free_port

_PG_FOLDERS = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"]
CADDYFILE = ROOT / "deploy" / "Caddyfile"


class PartMissing(RuntimeError):
    """A program a part needs is not installed on this machine."""


def pg_bin(name: str) -> str | None:
    """A PostgreSQL program on PATH or in Debian's versioned folder (which is not on PATH)."""
    found = shutil.which(name)
    if found:
        return found
    for folder in _PG_FOLDERS:
        if (Path(folder) / name).exists():
            return str(Path(folder) / name)
    return None


def _unprivileged(folder: str) -> list[str]:
    """PostgreSQL refuses to run as root (containers, CI): then run it as the ``postgres`` user Debian's package
    creates (or ``nobody``), owning the cluster's folder."""
    if os.geteuid() != 0:
        return []
    import pwd

    for user in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(user)
        except KeyError:
            continue
        os.chown(folder, entry.pw_uid, entry.pw_gid)
        return ["runuser", "-u", user, "--"]
    raise RuntimeError("PostgreSQL cannot run as root and there is no postgres or nobody user")


@dataclass
class Postgres:
    url: str  # postgresql://postgres@127.0.0.1:PORT (no password: trust on 127.0.0.1 only)
    folder: str

    def pids(self) -> list[int]:
        """The postmaster's process id (its children are found from it)."""
        try:
            return [int(Path(self.folder, "pg", "postmaster.pid").read_text().split()[0])]
        except (OSError, ValueError, IndexError):
            return []

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(f"{self.url}/postgres", autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"{self.url}/{name}"


@contextlib.contextmanager
def postgres() -> Iterator[Postgres]:
    """A throwaway cluster: ``initdb`` into a temporary folder, ``pg_ctl start`` on a free port of 127.0.0.1
    (fsync off: nothing here must survive a crash of the machine), stopped and deleted on the way out."""
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        raise PartMissing("PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): "
                          "`bash run.sh test` installs Debian's postgresql")
    tmp = tempfile.mkdtemp(prefix="lab-pg-")
    data, port = os.path.join(tmp, "pg"), free_port()
    as_user = _unprivileged(tmp)
    result = subprocess.run(as_user + [initdb, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {result.stdout[-1000:]}")
    try:
        subprocess.run(as_user + [pg_ctl, "-D", data, "-l", os.path.join(tmp, "log"), "-o",
                                  f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off", "-w", "start"],
                       check=True, stdout=subprocess.DEVNULL)
        yield Postgres(f"postgresql://postgres@127.0.0.1:{port}", tmp)
    finally:
        subprocess.run(as_user + [pg_ctl, "-D", data, "-m", "fast", "-w", "stop"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


def stop_group(proc: subprocess.Popen, timeout: float = 20) -> None:
    """End a process started in its own session (``start_new_session``) and everything it started."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@dataclass
class DaskCluster:
    address: str  # tcp://127.0.0.1:PORT
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen]  # one `dask worker` command each (a nanny and its worker process)


@contextlib.contextmanager
def dask_cluster(workers: int = 2, logs: Path | None = None, wait: float = 180, env: dict | None = None,
                 heavy: int | None = None) -> Iterator[DaskCluster]:
    """``dask scheduler`` and ``workers`` × ``dask worker --nworkers 1 --nthreads 1`` (each under a nanny that
    restarts it) from this venv, as docs/SERVING.md starts them, the workers importing the engine from this
    checkout; waits until every worker has registered. ``heavy``: how many of them advertise the resource that
    admits heavy runs (``--resources heavy=1``; the others then serve light runs only); default: all but one
    when there are two or more, else none (any worker takes any run)."""
    heavy = (workers - 1 if workers > 1 else 0) if heavy is None else heavy
    dask = Path(sys.executable).parent / "dask"
    if not dask.exists():
        raise PartMissing(f"no {dask} (the dask package's command)")
    logs = Path(logs or tempfile.mkdtemp(prefix="lab-dask-"))
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1",
                "DASK_DISTRIBUTED__WORKER__DAEMON": "False", **(env or {})}
    scheduler = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--dashboard-address", ":0"], cwd=ROOT, env=full_env, start_new_session=True,
                                 stdout=open(logs / "scheduler.log", "w"), stderr=subprocess.STDOUT)
    procs: list[subprocess.Popen] = []
    try:
        for i in range(workers):
            procs.append(subprocess.Popen([str(dask), "worker", address, "--nworkers", "1", "--nthreads", "1",
                                           "--nanny", "--dashboard-address", ":0", "--local-directory",
                                           str(logs), "--name", f"worker-{i + 1}",
                                           *(["--resources", "heavy=1"] if i < heavy else [])],
                                          cwd=ROOT, env=full_env, start_new_session=True,
                                          stdout=open(logs / f"worker-{i + 1}.log", "w"), stderr=subprocess.STDOUT))
        from distributed import Client

        deadline = time.monotonic() + wait
        while True:
            try:
                with Client(address, timeout=5) as client:
                    client.wait_for_workers(workers, timeout=max(1.0, deadline - time.monotonic()))
                break
            except OSError:
                if time.monotonic() > deadline or scheduler.poll() is not None:
                    raise RuntimeError(f"the Dask scheduler did not start (log: {logs / 'scheduler.log'})")
                time.sleep(0.5)
        yield DaskCluster(address, scheduler, procs)
    finally:
        for proc in reversed(procs):
            stop_group(proc)
        stop_group(scheduler)


# A running Caddy is held like a lab server: its process, its port, its address and a polite stop.
Proxy = Server


def start_caddy(upstreams: list[str], folder: Path, port: int = 0, startup_seconds: float = 30,
                **extra: str) -> Proxy:
    """``caddy run`` with the shipped ``deploy/Caddyfile`` in trial mode (plain HTTP on 127.0.0.1:``port``) in
    front of ``upstreams`` (``host:port`` each), its home and data in ``folder``; ``extra`` adds to its
    environment (``LAB_ACCESS_LOG="on"``, …)."""
    exe = shutil.which("caddy")
    if exe is None:
        raise PartMissing("caddy is not installed (apt-get install caddy)")
    port = port or free_port()
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "LAB_SITE": f":{port}", "LAB_UPSTREAM": " ".join(upstreams), "HOME": str(folder),
           "XDG_DATA_HOME": str(folder / "data"), "XDG_CONFIG_HOME": str(folder / "config"), **extra}
    proc = subprocess.Popen([exe, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"], cwd=folder,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proxy = Proxy(proc, port)
    deadline = time.monotonic() + startup_seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proxy
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proxy.stop()
                raise RuntimeError("caddy did not start")
            time.sleep(0.1)


@contextlib.contextmanager
def caddy(upstreams: list[str], folder: Path | None = None, **extra: str) -> Iterator[Proxy]:
    proxy = start_caddy(upstreams, Path(folder or tempfile.mkdtemp(prefix="lab-caddy-")), **extra)
    try:
        yield proxy
    finally:
        proxy.stop()
