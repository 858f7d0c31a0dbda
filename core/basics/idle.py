"""Caches the server may empty when it goes idle (nobody connected): the engine's per-process caches of files and
prepared tables, which hold an upload's rows after its visitor has gone. Each module registers its own clearing
function here when imported; the server's housekeeping (ui/server/housekeeping.py) calls :func:`clear_idle_caches`. Every
entry is rebuilt from its arguments on the next call, so emptying them changes no number, only the next call's
time. (Here, in the lowest layer, so any module of the engine may register without importing upwards.)"""
from __future__ import annotations

import logging
from typing import Callable

_log = logging.getLogger(__name__)
_CLEARS: list[Callable[[], None]] = []


def on_idle(clear: Callable[[], None]) -> Callable[[], None]:
    """Register ``clear`` (a cache's clearing function) to run when the server goes idle; returns it."""
    if clear not in _CLEARS:
        _CLEARS.append(clear)
    return clear


def clear_idle_caches() -> int:
    """Run every registered clearing function; how many ran. One that fails is logged and the others still run."""
    ran = 0
    for clear in list(_CLEARS):
        try:
            clear()
            ran += 1
        except Exception:  # noqa: BLE001 — one cache that cannot be emptied must not keep the others full
            _log.warning("could not empty a cache when idle", exc_info=True)
    return ran
