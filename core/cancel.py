"""Cooperative cancellation inside long engine work (``prepare`` and ``play``).

The runner (:func:`core.runtime.games.run`) installs the run's stop check for the thread that executes the run; any
engine code with a long loop (training shadow models, fitting a generator, solving many LPs) calls
:func:`checkpoint` every ~0.1–0.5 s of work. When the user has pressed Stop (or the session that asked for
the run has gone), ``checkpoint`` raises :class:`~core.errors.Cancelled`, which the runner turns into a
stopped run that keeps the games already played. Outside a run, ``checkpoint`` does nothing, so the same
code runs unchanged in tests, the CLI and worker processes.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Callable, Iterator

from .errors import Cancelled

_STOP: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar("lab_stop_check", default=None)


def checkpoint(what: str = "run") -> None:
    """Raise :class:`Cancelled` if the current run was asked to stop."""
    check = _STOP.get()
    if check is not None and check():
        raise Cancelled(f"{what}: stopped")


def current_check() -> Callable[[], bool] | None:
    """The stop test installed for this thread/context, if any (nested runs, e.g. a sweep's, inherit it)."""
    return _STOP.get()


@contextmanager
def stop_check(check: Callable[[], bool] | None) -> Iterator[None]:
    """Make ``check()`` the stop test seen by :func:`checkpoint` in this thread/context."""
    token = _STOP.set(check)
    try:
        yield
    finally:
        _STOP.reset(token)
