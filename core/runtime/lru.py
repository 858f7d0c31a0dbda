"""A small in-process least-recently-used cache (fitted generators, their samples, prepared census blocks).

Engine caches that must not outlive the process and hold Python objects (never written to disk) use this;
results that should be shared between sessions and the command line go to :mod:`core.runtime.store` instead.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Hashable


class LRU(OrderedDict):
    """``get_or(key, make)``: the cached value for ``key``, or ``make()`` stored under it; at most ``size``
    entries are kept, the least recently used leaving first."""

    def __init__(self, size: int):
        super().__init__()
        self.size = int(size)

    def get_or(self, key: Hashable, make: Callable[[], Any]) -> Any:
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = make()
        self[key] = value
        while len(self) > self.size:
            self.popitem(last=False)
        return value
