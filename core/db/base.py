"""The interface both backends implement: pooled connections, transactions with named locks, and typed errors."""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Sequence

from ..errors import LabError

MAX_IDLE = 8  # connections kept open between transactions (more are opened under load and closed after)
MAX_OPEN = 16  # connections open at once per process: PostgreSQL serves 100 by default, shared by every server
WAIT_SECONDS = 30.0  # a transaction waits this long for a free connection before it fails


class DatabaseError(LabError, RuntimeError):
    """The records database cannot be opened, read or written (a full disk, a stopped PostgreSQL, a damaged
    file): the message names the backend and the kind of fault, never a password."""


class Tx:
    """One transaction's statements. SQL is written once with ``?`` placeholders; a backend translates them."""

    def __init__(self, cursor, translate):
        self._cursor = cursor
        self._translate = translate

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        self._cursor.execute(self._translate(sql), tuple(params))
        return self._cursor.rowcount

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        self._cursor.execute(self._translate(sql), tuple(params))
        return [tuple(r) for r in self._cursor.fetchall()]

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        self._cursor.execute(self._translate(sql), tuple(params))
        row = self._cursor.fetchone()
        return None if row is None else tuple(row)

    def scalar(self, sql: str, params: Sequence[Any] = (), default=None):
        row = self.one(sql, params)
        return default if row is None or row[0] is None else row[0]


class Database:
    """A pool of connections to one database and transactions on them. Subclasses supply ``_connect``,
    ``_begin``/``_commit``/``_rollback``, ``_lock`` and the placeholder translation."""

    backend = "?"
    errors: tuple[type[BaseException], ...] = ()

    def __init__(self):
        self._idle: list = []
        self._pool_lock = threading.Lock()
        self._open = threading.BoundedSemaphore(MAX_OPEN)
        self._closed = False

    # -- the backend's part
    def _connect(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _begin(self, conn, write: bool) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _lock(self, cursor, name: str) -> None:
        """Serialise the transactions that name ``name`` (SQLite's single writer already does)."""

    @contextlib.contextmanager
    def _writer(self, write: bool) -> Iterator[None]:
        """Held around a write transaction (SQLite: this process's writers queue here, first come first served,
        rather than in SQLite's busy handler, which can starve a writer under a class's burst)."""
        yield

    @staticmethod
    def _translate(sql: str) -> str:
        return sql

    def describe(self) -> str:
        """Where the records are, for messages and the docs (never a password)."""
        return self.backend

    # -- shared
    def _take(self):
        with self._pool_lock:
            if self._closed:
                raise DatabaseError(f"the {self.backend} database is closed")
            if self._idle:
                return self._idle.pop()
        return self._connect()

    def _give(self, conn) -> None:
        with self._pool_lock:
            if not self._closed and len(self._idle) < MAX_IDLE:
                self._idle.append(conn)
                return
        with contextlib.suppress(Exception):
            conn.close()

    @contextlib.contextmanager
    def transaction(self, lock: str | None = None, write: bool = True) -> Iterator[Tx]:
        """A transaction: commits when the block ends, rolls back on any exception (which then propagates; a
        database fault becomes :class:`DatabaseError`). ``lock`` names what the block reads and then writes."""
        if not self._open.acquire(timeout=WAIT_SECONDS):
            raise DatabaseError(f"the {self.backend} database is busy (all {MAX_OPEN} connections in use); try again")
        try:
            conn = self._take()
        except BaseException as exc:
            self._open.release()
            if isinstance(exc, self.errors):
                raise DatabaseError(f"the {self.backend} database cannot be opened ({type(exc).__name__})") from None
            raise
        healthy = True
        try:
            with self._writer(write):
                cursor = conn.cursor()
                self._begin(conn, write)
                if lock is not None and write:
                    self._lock(cursor, lock)
                try:
                    yield Tx(cursor, self._translate)
                except BaseException:
                    conn.rollback()
                    raise
                conn.commit()
        except self.errors as exc:
            healthy = False
            with contextlib.suppress(Exception):
                conn.rollback()
            raise DatabaseError(f"the {self.backend} database failed ({type(exc).__name__}: "
                                f"{str(exc).splitlines()[0][:200] if str(exc) else ''}); try again") from None
        finally:
            if healthy:
                self._give(conn)
            else:
                with contextlib.suppress(Exception):
                    conn.close()
            self._open.release()

    def read(self) -> contextlib.AbstractContextManager[Tx]:
        """A read-only transaction (one consistent snapshot of several queries)."""
        return self.transaction(write=False)

    def close(self) -> None:
        with self._pool_lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.close()

    def size_bytes(self) -> int:  # pragma: no cover - abstract
        """The database's size on disk in bytes."""
        raise NotImplementedError
