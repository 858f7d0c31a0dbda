"""The shared, persistent result store: finished runs on disk, keyed by what determines them.

A run's numbers are a pure function of (scenario, full configuration, seed, engine code): the key is the
SHA-256 of exactly that — the engine version being a digest of every source file under ``core/`` plus the
contents of any input file the configuration names — so a class re-running a preset gets the stored result
at once, and any change to the code or the data misses. The store is a :class:`diskcache.Cache` (SQLite +
files: safe for many threads and processes reading and writing at once, bounded in size with
least-recently-stored eviction).

Anyone who can write the store's folder (a shared ``LAB_STORE``, another program of the same account) writes
rows the server will read, so a row is treated as untrusted input:

* **Nothing is ever unpickled.** :class:`JsonOnlyDisk` stores only text and refuses, on reading, a key or a
  value kept in diskcache's pickle mode (diskcache itself would unpickle it — arbitrary code — before any
  type check; CVE-2025-69872), and a value file outside the store's own ``xx/yy/<hex>.val`` layout. Such a row
  is a miss, with one logged line.
* **A record is checked against its key.** A stored record carries the address it was stored under (scenario,
  full configuration, seed, engine version); it is served only if that address hashes to the key asked for and
  the result's own scenario, configuration and seed agree with it. Anything else — another run's numbers
  copied under this key, a value of the wrong shape — is a miss, and logged.
* **The store is a cache: it never ends a run.** Any fault (a damaged or truncated ``cache.db``, a read-only or
  full disk, ``LAB_STORE`` naming a file, a locked database) is one warning line on stderr (through
  :mod:`logging`, so it lands in the server's log), the run goes ahead without the store, and
  :func:`store_problem` tells the app to say so in a caption.
* Folders are created 0700 and files 0600, whatever the umask.

Every session of the app and the command line share the store at ``[store] path`` of ``lab_settings.toml``
(``LAB_STORE`` overrides it; empty = off). Several servers share results through a PostgreSQL records database
(``LAB_DATABASE``): the local store is then a cache in front of it (:mod:`core.runtime.shared_results`).
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from ..basics.settings import settings
from ..db import open_database
from ..db.open import _is_postgres, configured_url
from ..scenario import Scenario, get
from .games import Result, _jsonable, run
from .shared_results import SharedResults

CORE = Path(__file__).resolve().parents[1]
FORMAT = 2  # bump when the stored layout changes (2: records carry their address; text only)
REST_SECONDS = 60.0  # after a fault of the database or the disk, the store is left alone this long

log = logging.getLogger("privacy_lab.store")


# ------------------------------------------------------------------ faults: one line, then carry on
_PROBLEM: dict[str, str | None] = {"last": None}
_WARNED: set[str] = set()
_WARN_LOCK = threading.Lock()


def _warn(message: str, then: str = "continuing without it") -> None:
    """One warning line per distinct fault per process (a server would otherwise repeat it on every page)."""
    line = f"warning: result store: {message}" + (f"; {then}" if then else "")
    with _WARN_LOCK:
        _PROBLEM["last"] = message
        if line in _WARNED:
            return
        _WARNED.add(line)
    log.warning(line)


def store_problem() -> str | None:
    """The last fault of the store in this process (None: none yet), for a caption in the app."""
    return _PROBLEM["last"]


def _what(exc: BaseException) -> str:
    """A fault in one line: its kind and message, no traceback."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text[:200]}"


class UnsafeRow(Exception):
    """A store row this code did not write: pickled, or naming a file outside the store."""


# ------------------------------------------------------------------ addresses
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
    except (OSError, ValueError):
        return None


def address_key(doc: dict, prefix: str = "") -> str:
    """The key of an address document: ``prefix`` + SHA-256 of its canonical JSON."""
    return prefix + hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def result_address(scenario: str, config: dict, seed: int, version: str | None = None) -> tuple[str, dict]:
    """``(key, address)`` of a run: scenario, full configuration, seed, engine version (+ input files)."""
    files = {k: d for k, v in sorted(config.items()) if (d := _file_digest(v)) is not None}
    doc = {"scenario": scenario, "config": _jsonable({k: v for k, v in config.items() if k != "seed"}),
           "seed": int(seed), "engine": version or engine_version(), "files": files}
    return address_key(doc), doc


def result_key(scenario: str, config: dict, seed: int, version: str | None = None) -> str:
    """The content address of a run: scenario, full configuration, seed, engine version (+ input files)."""
    return result_address(scenario, config, seed, version)[0]


def _agrees(about: dict, value: Any) -> bool:
    """Whether a stored value is what its address says: the same scenario, configuration and seed."""
    if not isinstance(value, dict) or not isinstance(value.get("config"), dict):
        return False
    config = value["config"]
    if "scenario" in about:  # one run (a Result as a dict)
        if value.get("scenario") != about["scenario"] or config.get("seed") != about.get("seed"):
            return False
        if _jsonable({k: v for k, v in config.items() if k != "seed"}) != about.get("config"):
            return False
        try:
            Result.from_dict(value)
        except (TypeError, ValueError):
            return False
        return True
    if "sweep" in about:  # a parameter sweep
        base = about.get("base") if isinstance(about.get("base"), dict) else {}
        return (value.get("scenario") == about["sweep"] and config.get("seed") == about.get("seed")
                and value.get("grid") == about.get("grid") and isinstance(value.get("rows"), list)
                and all(config.get(k) == v for k, v in base.items()))
    return False


# ------------------------------------------------------------------ the disk layer
_ADDRESS = re.compile(r"(sweep-)?[0-9a-f]{64}")  # the keys of runs and sweeps: content addresses
_VALUE_FILE = re.compile(r"[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{28}\.val")


def _private_dir(path: str) -> None:
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(path, 0o700)


def _disk_class():
    # lazy: diskcache loads only where it is used (start-up time: +6 modules)
    import diskcache
    # lazy: diskcache loads only where it is used (start-up time: +6 modules)
    from diskcache.core import MODE_PICKLE, UNKNOWN

    class JsonOnlyDisk(diskcache.Disk):
        """diskcache's Disk for text only: never pickles on writing, refuses pickle mode on reading."""

        def put(self, key):
            if type(key) is not str:
                raise TypeError("the result store keeps str keys only")
            return super().put(key)

        def get(self, key, raw):
            if not raw:  # a pickled key: diskcache would unpickle it
                raise UnsafeRow("a key stored in pickle mode")
            return super().get(key, raw)

        def store(self, value, read, key=UNKNOWN):
            if type(value) is not str or read:
                raise TypeError("the result store keeps JSON text only")
            return super().store(value, read, key)

        def fetch(self, mode, filename, value, read):
            if mode == MODE_PICKLE:
                raise UnsafeRow("a value stored in pickle mode")
            if filename is not None and not _VALUE_FILE.fullmatch(str(filename)):
                raise UnsafeRow("a value file outside the store's layout")
            return super().fetch(mode, filename, value, read)

        def remove(self, file_path):
            if _VALUE_FILE.fullmatch(str(file_path)):  # never delete a path a planted row names
                super().remove(file_path)

        def _write(self, full_path, iterator, mode, encoding=None):
            # diskcache's own writer honours the umask; the store's files are private to the server's user
            for attempt in range(10):
                try:
                    sub = os.path.dirname(full_path)
                    _private_dir(os.path.dirname(sub))
                    _private_dir(sub)
                    fd = os.open(full_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                                 0o600)
                except OSError:  # another process removed the folder in between: try again, like diskcache
                    if attempt == 9:
                        raise
                    continue
                os.fchmod(fd, 0o600)
                with open(fd, "wb" if "b" in mode else "w", encoding=None if "b" in mode else encoding) as fh:
                    size = 0
                    for chunk in iterator:
                        size += len(chunk)
                        fh.write(chunk)
                    return size

    return JsonOnlyDisk


@functools.lru_cache(maxsize=1)
def json_only_disk():
    """The :class:`diskcache.Disk` subclass the store uses (built lazily: diskcache loads only when needed)."""
    return _disk_class()


def _faults() -> tuple[type[BaseException], ...]:
    # lazy: diskcache loads only where it is used (start-up time: +6 modules)
    import diskcache

    return (OSError, sqlite3.Error, diskcache.Timeout, UnsafeRow, TypeError, ValueError)


# ------------------------------------------------------------------ the store
class ResultStore:
    """Completed results as JSON text in a size-bounded :class:`diskcache.Cache`; see the module docstring.

    Construction raises on a store that cannot be opened (the caller decides: :func:`default_store` warns and
    goes on without it); reads and writes never raise — a fault is a miss or a skipped write, with one warning.
    """

    def __init__(self, directory: str | os.PathLike, size_limit: int = 1_000_000_000, shared=None):
        # lazy: diskcache loads only where it is used (start-up time: +6 modules)
        import diskcache

        # a SharedResults table several servers read and write (core/runtime/shared_results.py), or None
        self.shared = shared

        self.directory = Path(directory).expanduser()
        if not self.directory.is_dir():
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(self.directory, 0o700)
        db = self.directory / diskcache.core.DBNAME
        if not db.exists():  # SQLite gives its -wal/-shm files the database file's mode
            try:
                fd = os.open(db, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            except FileExistsError:
                pass
            else:
                os.fchmod(fd, 0o600)
                os.close(fd)
        self.resting_until = 0.0
        self.read_only: Path | None = None  # the database, when only reading it is possible
        try:
            self.cache = diskcache.Cache(str(self.directory), size_limit=int(size_limit), timeout=5,
                                         eviction_policy="least-recently-stored", disk=json_only_disk())
        except sqlite3.OperationalError as exc:
            # a read-only mount (or folder) still holds results worth serving: read them, keep nothing new
            if not db.is_file() or db.stat().st_size == 0 or os.access(self.directory, os.W_OK):
                raise
            self.cache, self.read_only = None, db
            _warn(f"{self.directory} is read-only ({_what(exc)}): stored results are served, new ones are not kept",
                  then="")

    def _usable(self) -> bool:
        return time.monotonic() >= self.resting_until

    def _fault(self, doing: str, exc: BaseException) -> None:
        """A fault of the database or the disk: warn once, and leave the store alone for a while, so one run
        meets one warning (not one per read and write) and a long-lived server tries again later."""
        self.resting_until = time.monotonic() + REST_SECONDS
        _warn(f"cannot {doing} ({_what(exc)})")

    def get(self, key: str) -> dict | None:
        """The stored value for ``key``, or None: absent, unreadable, unsafe, or not what the key addresses.

        A run's or a sweep's key is a content address: its record is checked against it. Any other key (class
        mode's ``class/…`` documents) holds a document, served only under the key it was written for. A key
        missing here is looked up in the shared database when there is one, checked the same way, and kept
        here for the next time."""
        text = None
        if self._usable():
            try:
                text = self.cache.get(key) if self.cache is not None else _read_only_text(self.read_only, key)
            except UnsafeRow as exc:
                _warn(f"ignored a row this lab did not write ({exc})")
                return None
            except _faults() as exc:
                self._fault("read a stored result", exc)
        if text is None and self.shared is not None and _ADDRESS.fullmatch(key):
            text = self._shared_get(key)
            value = self._decode(key, text) if text is not None else None
            if value is not None and self.cache is not None and self._usable():
                try:
                    self.cache.set(key, text)
                except _faults() as exc:
                    self._fault("keep a result", exc)
            return value
        return self._decode(key, text) if text is not None else None

    def _shared_get(self, key: str) -> str | None:
        try:
            return self.shared.get(key)
        except Exception as exc:  # the database is a cache too: a fault is a miss, with one warning
            _warn(f"cannot read the shared results database ({_what(exc)})")
            return None

    def _decode(self, key: str, text: str) -> dict | None:
        """A stored record's value if the record is what ``key`` addresses (see :meth:`get`), else None."""
        try:
            record = json.loads(text)
            if not isinstance(record, dict) or record.get("format") != FORMAT:
                raise ValueError("unknown layout")
            if "document" in record:
                if record["document"] != key or _ADDRESS.fullmatch(key):
                    raise LookupError
                return record["value"]
            about, prefix, value = record["about"], record["prefix"], record["result"]
            if not isinstance(about, dict) or not isinstance(prefix, str):
                raise ValueError("unknown layout")
        except (ValueError, TypeError, KeyError):
            _warn("ignored a stored row that is not a record of this lab")
            return None
        except LookupError:
            _warn("ignored a stored document kept under another key (forged or damaged)")
            return None
        if address_key(about, prefix) != key or not _agrees(about, value):
            _warn("ignored a stored result that does not match its key (forged or damaged)")
            return None
        return value

    def put(self, key: str, result: dict, about: dict | None = None, prefix: str = "") -> bool:
        """Keep ``result`` under ``key``; False (and a warning) if it cannot.

        For a content address, ``key`` must be ``address_key(about, prefix)``; a run's result may leave ``about``
        out (it is derived from the result's own scenario, configuration and seed). Any other key stores a
        document (JSON) for that key alone."""
        if about is None and _ADDRESS.fullmatch(key):
            config = dict(result.get("config") or {})
            about = result_address(str(result.get("scenario")), {k: v for k, v in config.items() if k != "seed"},
                                   int(config.get("seed", 0)))[1]
        if about is not None and address_key(about, prefix) != key:  # never stored where a lookup would refuse it
            _warn("did not keep a result under a key that is not its address")
            return False
        if not self._usable() or self.cache is None:
            return False
        record = ({"format": FORMAT, "about": about, "prefix": prefix, "result": result} if about is not None else
                  {"format": FORMAT, "document": key, "value": result})
        text = json.dumps(record)
        try:
            self.cache.set(key, text)
        except _faults() as exc:
            self._fault("keep a result", exc)
            return False
        if self.shared is not None and about is not None:
            try:
                self.shared.put(key, text)
            except Exception as exc:
                _warn(f"cannot keep a result in the shared results database ({_what(exc)})")
        return True

    def __contains__(self, key: str) -> bool:
        try:
            return self.get(key) is not None if self.cache is None else key in self.cache
        except _faults():
            return False

    def __len__(self) -> int:
        return len(self.cache) if self.cache is not None else 0

    def volume(self) -> int:
        return self.cache.volume() if self.cache is not None else 0

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()


def _read_only_text(db: Path, key: str) -> str | None:
    """A stored value read straight from a database that cannot be opened for writing (diskcache needs to write
    on opening), with the same refusals as :class:`JsonOnlyDisk`: text only, value files in the store's layout."""
    # lazy: diskcache loads only where it is used (start-up time: +6 modules)
    from diskcache.core import MODE_RAW, MODE_TEXT

    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        row = con.execute("SELECT mode, filename, value FROM Cache WHERE key = ? AND raw = 1", (key,)).fetchone()
    finally:
        con.close()
    if row is None:
        return None
    mode, filename, value = row
    if mode == MODE_RAW and isinstance(value, str):
        return value
    if mode == MODE_TEXT and filename is not None and _VALUE_FILE.fullmatch(str(filename)):
        return (db.parent / filename).read_text(encoding="utf-8")
    raise UnsafeRow(f"a value stored in mode {mode}")


@functools.lru_cache(maxsize=4)
def _open(directory: str, size_limit: int, database_url: str | None = None) -> ResultStore:
    shared = None
    if database_url:
        try:
            shared = SharedResults(open_database(database_url), size_limit)
        except Exception as exc:  # the server still runs and keeps results locally
            _warn(f"cannot use the shared results database ({_what(exc)})", then="keeping results on this server")
    return ResultStore(directory, size_limit, shared=shared)


def _shared_database() -> str | None:
    """The PostgreSQL address the servers share (LAB_DATABASE or [database] url), else None: an embedded SQLite
    database is this server's alone, and its local store already holds every result it computed."""
    url = configured_url()
    return url if _is_postgres(url) else None


def default_store() -> ResultStore | None:
    """The store named by the settings (shared by the app's sessions and the CLI), or None when off or broken.
    With a PostgreSQL records database, it reads and writes finished results there too."""
    s = settings()
    if s.store_dir is None:
        return None
    try:
        return _open(str(s.store_dir), s.store_size_limit_bytes, _shared_database())
    except _faults() as exc:
        _warn(f"cannot open {s.store_dir} ({_what(exc)})")
        return None


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
    config = sc.resolve(params)
    key, about = result_address(sc.name, config, seed)
    data = store.get(key) if store is not None else None
    if data is not None:
        return Result.from_dict(data), True
    result = run(sc, params, seed, **kwargs)
    if store is not None and result.completed and not result.cancelled:
        store.put(key, result.to_dict(), about)
    return result, False
