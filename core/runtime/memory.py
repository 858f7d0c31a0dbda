"""The server process's own memory: how much it holds (its resident set, as the kernel counts it) and giving back
to the operating system what it no longer uses.

Freeing Python objects does not shrink a process: CPython's small-object allocator and glibc's ``malloc`` keep
freed memory for reuse, and glibc returns the top of its heaps (and whole free pages inside them) only when asked.
:func:`release_memory` runs a full garbage collection (reference cycles: a finished script run's frames, plotly
figures, pandas blocks) and then glibc's ``malloc_trim(0)``, which hands every free page of every arena back to
the kernel. Measured on the lab's server after 105 lecture links and their sessions' end (docs/BENCHMARKS.md):
the collection and the trim together are what bring its resident memory back towards its start; neither changes
what a later visitor gets. On a system without glibc (macOS, musl) only the collection runs.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import sys


def rss_bytes(pid: int | None = None) -> int | None:
    """Resident memory of process ``pid`` (default: this one) in bytes, from ``/proc/<pid>/status`` (``VmRSS``);
    None where there is no /proc (not Linux) or the process is gone."""
    try:
        with open(f"/proc/{pid or os.getpid()}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


def _malloc_trim():
    """glibc's ``malloc_trim`` (None where the C library has none)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # musl, or no C library by that name
        return None


def release_memory() -> tuple[int | None, int | None]:
    """Collect every generation, then return free heap pages to the kernel. ``(rss before, rss after)`` in bytes
    (None where unknown). Holds the interpreter lock while it collects: call it when the server is idle."""
    before = rss_bytes()
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
    return before, rss_bytes()
