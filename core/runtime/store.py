"""The shared, persistent result store: finished runs on disk, keyed by what determines them.

A run's numbers are a pure function of (scenario, full configuration, seed, engine code): the key is the
SHA-256 of exactly that — the engine version being a digest of every source file under ``core/`` plus the
contents of any input file the configuration names — so a class re-running a preset gets the stored result
at once, and any change to the code or the data misses. The store is a :class:`diskcache.Cache` (SQLite +
files: safe for many threads and processes reading and writing at once, bounded in size with
least-recently-stored eviction). Values are the results' JSON *text* — diskcache keeps ``str`` as is, so
nothing is ever pickled or unpickled. Only completed runs are stored.

Every session of the app and the command line share the store at ``[store] path`` of ``lab_settings.toml``
(``LAB_STORE`` overrides it; empty = off).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from .games import Result, _jsonable, run
from ..scenario import Scenario, get
from .settings import settings

CORE = Path(__file__).resolve().parents[1]
FORMAT = 1  # bump when the stored layout changes


@functools.lru_cache(maxsize=1)
def engine_version() -> str:
    """Digest of the engine's source (every ``core/**/*.py``), so a code change never serves old numbers."""
    h = hashlib.sha256(f"format={FORMAT}".encode())
    for path in sorted(CORE.rglob("*.py")):
        h.update(str(path.relative_to(CORE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _file_digest(value: Any) -> str | None:
    """Content digest of a config value that names an existing file (uploaded CSVs, trace files)."""
    if not isinstance(value, str) or not value or len(value) > 4096:
        return None
    try:
        if not os.path.isfile(value):
            return None
        h = hashlib.sha256()
        with open(value, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    except OSError:
        return None


def result_key(scenario: str, config: dict, seed: int, version: str | None = None) -> str:
    """The content address of a run: scenario, full configuration, seed, engine version (+ input files)."""
    files = {k: d for k, v in sorted(config.items()) if (d := _file_digest(v)) is not None}
    doc = {"scenario": scenario, "config": _jsonable({k: v for k, v in config.items() if k != "seed"}),
           "seed": int(seed), "engine": version or engine_version(), "files": files}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class ResultStore:
    """Completed results as JSON text in a size-bounded :class:`diskcache.Cache`."""

    def __init__(self, directory: str | os.PathLike, size_limit: int = 1_000_000_000):
        import diskcache

        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.cache = diskcache.Cache(str(self.directory), size_limit=int(size_limit),
                                     eviction_policy="least-recently-stored")

    def get(self, key: str) -> dict | None:
        text = self.cache.get(key)
        if not isinstance(text, str):  # absent (or anything not written by put): a miss
            return None
        try:
            return json.loads(text)
        except ValueError:
            return None

    def put(self, key: str, result: dict) -> None:
        self.cache.set(key, json.dumps(result))

    def __contains__(self, key: str) -> bool:
        return key in self.cache

    def __len__(self) -> int:
        return len(self.cache)

    def volume(self) -> int:
        return self.cache.volume()

    def close(self) -> None:
        self.cache.close()


@functools.lru_cache(maxsize=4)
def _open(directory: str, size_limit: int) -> ResultStore:
    return ResultStore(directory, size_limit)


def default_store() -> ResultStore | None:
    """The store named by the settings (shared by the app's sessions and the CLI), or None when off."""
    s = settings()
    if s.store_dir is None:
        return None
    return _open(str(s.store_dir), s.store_size_limit_bytes)


def lookup(scenario: str | Scenario, params: dict | None, seed: int,
           store: ResultStore | None = None) -> tuple[str, Result | None]:
    """``(key, stored result or None)`` for a run; validates ``params`` like :func:`core.runtime.games.run`."""
    sc = get(scenario) if isinstance(scenario, str) else scenario
    config = sc.resolve(params)
    key = result_key(sc.name, config, seed)
    store = store if store is not None else default_store()
    data = store.get(key) if store is not None else None
    return key, (Result.from_dict(data) if data is not None else None)


def run_stored(scenario: str | Scenario, params: dict | None = None, seed: int = 0, *,
               store: ResultStore | None = None, **kwargs) -> tuple[Result, bool]:
    """:func:`core.runtime.games.run` through the store: ``(result, True)`` on a hit, else run and keep a completed run."""
    sc = get(scenario) if isinstance(scenario, str) else scenario
    store = store if store is not None else default_store()
    key, hit = lookup(sc, params, seed, store)
    if hit is not None:
        return hit, True
    result = run(sc, params, seed, **kwargs)
    if store is not None and result.completed and not result.cancelled:
        store.put(key, result.to_dict())
    return result, False
