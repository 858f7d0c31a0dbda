"""The server's housekeeping while it runs: ended sessions shut down, and memory given back when nobody is on.

Two things Streamlit 1.67 leaves to chance, each measured on the lab (docs/BENCHMARKS.md, "Server memory"):

* **Sessions whose tab has closed.** Streamlit keeps a disconnected session for ``server.disconnectedSessionTTL``
  seconds so a tab that loses its connection for a moment can resume it. Its store of such sessions forgets one
  only when it is next written to (another tab closing), and then silently: the session is never shut down, so
  what shutting down releases — its uploaded files (the raw bytes of every upload, held in memory), its
  ``scope="session"`` caches, its download buttons' tables — stays until the last reference goes, if ever. 105
  lecture links within two minutes kept 105 sessions' state (+0.5 MB each) for as long as the server was idle.
  :func:`install_session_reaper` makes the store shut down each session it reaps, and
  :func:`shut_down_expired_sessions` reaps every few seconds, so a session goes soon after its time.
* **Memory after the class has gone.** Python and glibc keep freed memory for reuse rather than returning it to
  the system. Once no session has been connected for ``[memory] idle_release_seconds`` (lab_settings.toml), the
  demos' caches (``st.cache_data``, and the ``st.cache_resource`` caches registered with
  :func:`release_when_idle`, and the engine's caches of files registered in core/basics/idle.py) are emptied —
  every entry is recomputed from its arguments on the next visit — and
  :func:`core.runtime.memory.release_memory` collects and returns the freed pages. Once per idle spell.

Started by ``serve.py`` as the lab app's lifespan (:func:`lifespan`), on the server's event loop, where Streamlit
expects a session to be shut down. Nothing here runs under AppTest or ``streamlit run app.py``.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Callable

from streamlit.runtime.caching.ttl_cache import TTLCache

from core.basics.idle import clear_idle_caches
from core.basics.settings import settings
from core.runtime.memory import release_memory

_log = logging.getLogger(__name__)
TICK_SECONDS = 5.0
SCRIPT_THREAD = "ScriptRunner.scriptThread"  # the name Streamlit 1.67 gives each session's script thread
_IDLE_CLEARS: list[Callable[[], None]] = []


def release_when_idle(cached) -> None:
    """Empty ``cached`` (an ``st.cache_resource`` function, anything with ``.clear()``) when the server goes idle.
    ``st.cache_data`` caches are all emptied then; a resource cache is emptied only if registered here, since some
    resources (a pool, a database connection) must outlive an idle spell."""
    if cached.clear not in _IDLE_CLEARS:
        _IDLE_CLEARS.append(cached.clear)


def _stored_sessions(runtime):
    """Streamlit's store of disconnected sessions (a TTL cache keyed by session id), or None if this version of
    Streamlit keeps it elsewhere."""
    storage = getattr(getattr(runtime, "_session_mgr", None), "_session_storage", None)
    cache = getattr(storage, "_cache", None)
    return cache if hasattr(cache, "expire") else None


class _ShutDownOnExpiry(TTLCache):
    """Streamlit's store of disconnected sessions, except that a session it reaps for its age is shut down. The
    store reaps whenever it is written to (another tab closing) or counted, as well as on this module's ticks."""

    def expire(self, at_time=None):
        removed = super().expire(at_time)
        for _, info in removed:
            try:
                info.session.shutdown()
            except Exception:  # noqa: BLE001 — one session that fails to shut down must not stop the others'
                _log.warning("could not shut down an expired session", exc_info=True)
        return removed


def install_session_reaper(runtime) -> bool:
    """Give the runtime's store of disconnected sessions the store above (same size and TTL); False if this
    version of Streamlit keeps it elsewhere. Call before the first session (the store is then empty)."""
    storage = getattr(getattr(runtime, "_session_mgr", None), "_session_storage", None)
    old = getattr(storage, "_cache", None)
    if not isinstance(old, TTLCache):
        _log.warning("Streamlit's session store was not found: ended sessions are not shut down by the lab")
        return False
    if not isinstance(old, _ShutDownOnExpiry):
        new = _ShutDownOnExpiry(maxsize=old.maxsize, ttl=old.ttl, timer=old.timer)
        for key, value in old.items():
            new[key] = value
        storage._cache = new
    return True


def shut_down_expired_sessions(runtime) -> int:
    """Shut down every disconnected session kept past ``server.disconnectedSessionTTL``; how many. Must run on
    the server's event loop (Streamlit's rule for shutting a session down)."""
    cache = _stored_sessions(runtime)
    if cache is None:
        return 0
    if isinstance(cache, _ShutDownOnExpiry):
        return len(cache.expire())
    expired = cache.expire()
    for _, info in expired:
        try:
            info.session.shutdown()
        except Exception:  # noqa: BLE001 — one session that fails to shut down must not stop the others'
            _log.warning("could not shut down an expired session", exc_info=True)
    return len(expired)


def release_idle_memory() -> tuple[int | None, int | None]:
    """Empty the demos' caches and give freed memory back to the system; ``(rss before, rss after)``."""
    import streamlit as st

    st.cache_data.clear()
    for clear in list(_IDLE_CLEARS):
        clear()
    clear_idle_caches()  # the engine's own caches of files and prepared tables (core/basics/idle.py)
    return release_memory()


def _scripts_running() -> bool:
    """Whether a page script is still running: a closed tab's script finishes its current step before it sees the
    stop (parsing a wide upload takes tens of seconds), and what it holds is freed only then."""
    return any(t.name == SCRIPT_THREAD for t in threading.enumerate())


class Housekeeper:
    """The loop's state: when a session was last connected and whether this idle spell's release was done."""

    def __init__(self, runtime, idle_after: float, clock: Callable[[], float] = time.monotonic):
        self.runtime = runtime
        self.idle_after = idle_after
        self.clock = clock
        self.last_busy = clock()
        self.released = True  # nothing to release before the first visitor

    def tick(self) -> None:
        shut_down_expired_sessions(self.runtime)
        now = self.clock()
        if self.runtime._session_mgr.num_active_sessions() or self._stored() or _scripts_running():
            self.last_busy, self.released = now, False
            return
        if not self.released and self.idle_after and now - self.last_busy >= self.idle_after:
            self.released = True
            before, after = release_idle_memory()
            if before and after:
                _log.info("idle: caches emptied, resident memory %.0f -> %.0f MB", before / 2**20, after / 2**20)

    def _stored(self) -> int:
        cache = _stored_sessions(self.runtime)
        return len(cache) if cache is not None else 0


async def _loop(keeper: Housekeeper) -> None:
    while True:
        await asyncio.sleep(TICK_SECONDS)
        try:
            keeper.tick()
        except Exception:  # noqa: BLE001 — housekeeping must never end the server
            _log.warning("housekeeping failed", exc_info=True)


@contextlib.asynccontextmanager
async def lifespan(app):
    """The lab app's lifespan (``st.App(..., lifespan=lifespan)``): housekeeping runs while the server does."""
    from streamlit import runtime

    install_session_reaper(runtime.get_instance())
    keeper = Housekeeper(runtime.get_instance(), settings().memory_idle_release_seconds)
    task = asyncio.create_task(_loop(keeper))
    try:
        yield None
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
