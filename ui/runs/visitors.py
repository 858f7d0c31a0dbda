"""One long run per visitor: a browser (all its tabs) may hold at most ``[server] heavy_runs_per_visitor`` runs
that are estimated longer than the express lane takes, queued or running, so a handful of links cannot hold the
class's workers. A further long run waits, said on its page, until the visitor's other run ends
(``heavy_run_policy = "wait"``), or stops that run and takes its place (``"replace"``).

A visitor is the browser's XSRF cookie (Streamlit sets one per browser; only a digest is kept), else the session.
A private window or a script gets a fresh cookie with every visit, so a browser alone is no bound: the client's
address is counted too (see ui.lesson_page.class_identity: behind the lab's proxy, the address the proxy wrote into
``X-Forwarded-For``), with its own, larger limit (``heavy_runs_per_address``: a class behind one campus address
shares it).
"""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Iterator

import streamlit as st

from core.basics.settings import settings
from core.runtime.workers import Job
from ui.lesson_page import class_identity

POLL_SECONDS = 0.25


def _yield_to_streamlit() -> None:
    """Let Streamlit act on a Stop click while the page waits (reading session state checks for requests)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is not None:
        st.session_state.get("_run.yield")


def _visitor() -> str | None:
    """Who is asking, across the tabs of one browser: a digest of the token inside the browser's XSRF cookie
    (ui.lesson_page.class_identity, shared with class mode's seats), else this session. None outside a server (unit tests)."""
    return class_identity.browser()


def client_address() -> str | None:
    """A digest of the visitor's network address (ui.lesson_page.class_identity: the proxy's ``X-Forwarded-For`` entry when
    the connection comes from this machine, else the connection's own address). None when unknown."""
    return class_identity.address()


_VISITORS: dict[str, list[Job]] = {}  # visitor → heavy jobs its sessions watch (queued or running)
_VISITORS_LOCK = threading.Lock()


def is_heavy(job: Job) -> bool:
    """A run estimated longer than the express lane takes (or not estimated): the kind that holds a worker."""
    return job.estimate is None or job.estimate > settings().express_max_seconds


def _live(who: str) -> list[Job]:
    return [j for j in _VISITORS.get(who, []) if not j.finished.is_set() and not j.cancel.is_set()]


def _claim(visitor: str | tuple, job: Job) -> bool:
    """Register ``job`` as a heavy run of its browser (and of its client address, when ``visitor`` is a
    ``(browser, address)`` pair) if each one's limit allows it (False: it must wait)."""
    browser, address = visitor if isinstance(visitor, tuple) else (visitor, None)
    limits = [(browser, settings().heavy_runs_per_visitor)]
    if address is not None:
        limits.append((address, settings().heavy_runs_per_address))
    with _VISITORS_LOCK:
        if any(limit and len(_live(who)) >= limit for who, limit in limits):
            return False
        for who, _ in limits:
            _VISITORS[who] = _live(who) + [job]
        return True


def release(visitor: str | tuple | None, job: Job) -> None:
    """The visitor's run ``job`` has ended (or was never counted: ``visitor`` None)."""
    if visitor is None:
        return
    with _VISITORS_LOCK:
        for who in (visitor if isinstance(visitor, tuple) else (visitor,)):
            if who is None:
                continue
            jobs = [j for j in _VISITORS.get(who, []) if j is not job]
            if jobs:
                _VISITORS[who] = jobs
            else:
                _VISITORS.pop(who, None)


def wait_turn(job: Job, bar, cancel: threading.Event):
    """Hold a heavy run until this visitor has no other heavy run queued or running (``[server]
    heavy_runs_per_visitor``), saying so on the page; with ``heavy_run_policy = "replace"`` the visitor's older
    run is stopped instead. Returns the visitor (pass it to :func:`release` when the run ends; None when the run
    is not counted), or False if this session stopped while waiting. Sets ``job.visitor`` (the client address
    when known, else the browser) for the pool's fair turns."""
    browser, address = _visitor(), client_address()
    job.visitor = address or browser  # fair turns: the pool ranks a visitor's later runs after others' first
    if browser is None or not is_heavy(job):
        return None
    visitor = (browser, address)
    policy = settings().heavy_run_policy
    started, shown = time.perf_counter(), None
    while not _claim(visitor, job):
        if cancel.is_set():
            return False
        if policy == "replace":
            for older in list(_VISITORS.get(browser, [])):
                _stop_watch(older)
            text = "Stopping your other run (one long run per visitor at a time; this one replaces it)…"
        else:
            text = ("Waiting for your other run to finish: the server runs one long run per visitor at a time "
                    f"(stop it in its tab to start this one now) · {time.perf_counter() - started:.0f} s")
        if text != shown:
            bar.progress(0.0, text=text)
            shown = text
        else:
            _yield_to_streamlit()
        cancel.wait(POLL_SECONDS)
    return visitor


_WATCHES: dict[int, threading.Event] = {}  # id(job) → the cancel event of the session watching it for a visitor


def _stop_watch(job: Job) -> None:
    """Stop one visitor's watch of ``job`` (the session's Stop): the job ends if no other session watches it."""
    event = _WATCHES.get(id(job))
    if event is not None:
        event.set()


@contextlib.contextmanager
def watching(job: Job, cancel: threading.Event) -> Iterator[None]:
    """While the block runs, ``cancel`` is the Stop of this session's watch of ``job`` (for "replace")."""
    _WATCHES[id(job)] = cancel
    try:
        yield
    finally:
        _WATCHES.pop(id(job), None)
