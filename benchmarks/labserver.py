"""Shared plumbing of the browser benchmarks (bench_first_view.py, bench_load.py): start the lab's Streamlit
server, launch Debian's headless Chromium through playwright, measure the server's memory, say how busy the
machine was.

    from labserver import CHROMIUM, launch_options, serve
    with serve(env={"LAB_STORE": tmp}) as server:        # server.url, server.proc
        browser = playwright.chromium.launch(**launch_options())
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def launch_options(nice: int = 0) -> dict:
    """Keyword arguments of ``playwright.chromium.launch`` (sync or async) for the system's Chromium.

    ``nice`` > 0 starts the browser (and so every renderer it forks) at that lower CPU priority, through a
    small wrapper script: on a test machine that hosts both the server and a class's worth of browsers, the
    browsers then stop competing with the server for the cores, as they do not in a real class where each
    student's browser runs on their own laptop."""
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"needs {CHROMIUM} (Debian's chromium) and the python playwright package")
    executable = CHROMIUM
    if nice > 0:
        import tempfile

        wrapper = Path(tempfile.mkdtemp(prefix="lab-chromium-")) / "chromium-nice"
        wrapper.write_text(f'#!/bin/sh\nexec nice -n {int(nice)} {CHROMIUM} "$@"\n', encoding="utf-8")
        wrapper.chmod(0o700)
        executable = str(wrapper)
    return {"executable_path": executable, "headless": True, "args": CHROMIUM_ARGS}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    proc: subprocess.Popen
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


def start(port: int = 0, env: dict | None = None, startup_seconds: float = 120, log=subprocess.DEVNULL,
          app: Path = ROOT / "serve.py", tree: Path = ROOT) -> Server:
    """``python -m streamlit run serve.py`` (the lab as ``run.sh app`` serves it; or another ``app``) on
    127.0.0.1 (``port`` 0: a free one), waiting
    for its health check. ``env`` adds to this process's environment (``OPENBLAS_NUM_THREADS=1`` as in the
    tests). ``tree``: the checkout the server runs in (another one's ``serve.py`` with ``app`` to compare two
    versions of the lab side by side)."""
    port = port or free_port()
    full_env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", **(env or {})}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(app), "--server.port",
                             str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false"], cwd=tree, env=full_env,
                            stdout=log, stderr=log)
    server = Server(proc, port)
    deadline = time.time() + startup_seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"streamlit exited with code {proc.returncode}")
        try:
            if urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=2).read() == b"ok":
                return server
        except OSError:
            time.sleep(0.3)
    server.stop()
    raise SystemExit("streamlit did not start")


@contextlib.contextmanager
def serve(port: int = 0, env: dict | None = None, **kw) -> Iterator[Server]:
    server = start(port, env, **kw)
    try:
        yield server
    finally:
        server.stop()


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (the server's worker processes and theirs)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes summed over ``pid``'s process tree. RSS counts shared pages once per process (an
    upper bound); PSS splits them between the processes that share them."""
    rss = pss = 0
    for p in process_tree(pid):
        try:
            with open(f"/proc/{p}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
        except OSError:
            pass
    return rss, pss


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) used so far by ``pid`` itself and by its live descendants (the worker
    processes): where a loaded server's time goes, its page scripts or the engine."""
    tick = os.sysconf("SC_CLK_TCK")
    own = others = 0.0
    for p in process_tree(pid):
        try:
            with open(f"/proc/{p}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used = (int(fields[11]) + int(fields[12])) / tick  # utime, stime (fields 14 and 15 of proc(5))
        if p == pid:
            own = used
        else:
            others += used
    return own, others


def load_text() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} cores)"
