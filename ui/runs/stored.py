"""Finished results as the pages get them: this process's recent results, then the shared on-disk store.

A small in-memory cache in front of :mod:`core.runtime.store` (every session and the command line), and the
caption a page shows when the store has failed in this process (the run went ahead without it).
"""
from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st

from core.runtime.store import default_store, store_problem

MAX_CACHED_RESULTS = 32  # recent results held in this process (the disk store holds the rest)


_MEMORY: "OrderedDict[str, dict]" = OrderedDict()
_MEMORY_LOCK = threading.Lock()


def _remember(key: str, data: dict) -> None:
    with _MEMORY_LOCK:
        _MEMORY[key] = data
        _MEMORY.move_to_end(key)
        while len(_MEMORY) > MAX_CACHED_RESULTS:
            _MEMORY.popitem(last=False)


def stored(key: str) -> dict | None:
    """A finished result by key: this process's recent results, then the shared on-disk store."""
    with _MEMORY_LOCK:
        if key in _MEMORY:
            _MEMORY.move_to_end(key)
            return _MEMORY[key]
    store = default_store()
    data = store.get(key) if store is not None else None
    if data is not None:
        _remember(key, data)
    return data


def keep(key: str, data: dict, about: dict, prefix: str = "") -> None:
    """Remember a completed result here and in the shared store, with the address (``about``) its key hashes."""
    _remember(key, data)
    store = default_store()
    if store is not None:
        store.put(key, data, about, prefix)


def store_note() -> None:
    """A caption when the shared store has failed in this process: results are computed afresh, not kept.

    The details (paths, the error) are in the server's log, not on a page every visitor sees."""
    if store_problem() is not None:
        st.caption("The shared result store is not working fully (the server log says why): results may be "
                   "computed afresh and not kept for the next visitor.")
