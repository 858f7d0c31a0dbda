"""The embedded backend: one SQLite file in WAL mode (readers never wait for the writer), created 0600 in a
folder made 0700 — class rosters and grades are personal data (README, "What the lab stores")."""
from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from pathlib import Path

from .base import Database

BUSY_MS = 10_000  # a writer waits this long for another writer before the transaction fails


class SQLiteDatabase(Database):
    backend = "SQLite"
    errors = (sqlite3.Error, OSError)

    def __init__(self, path):
        super().__init__()
        self._write_lock = threading.Lock()
        self.path = Path(path).expanduser()
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(folder, 0o700)
        # create the file 0600 before SQLite opens it (SQLite would follow the umask); its -wal and -shm companions
        # take the main file's permissions
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        conn = self._connect()
        conn.execute("PRAGMA journal_mode=WAL")
        self._give(conn)

    def _connect(self):
        conn = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at each checkpoint, never corrupt
        return conn

    @contextlib.contextmanager
    def _writer(self, write: bool):
        if not write:
            yield
            return
        with self._write_lock:
            yield

    def _begin(self, conn, write: bool) -> None:
        # IMMEDIATE takes the write lock at once, so two read-modify-writes never both read the old state
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    def describe(self) -> str:
        return f"SQLite file {self.path}"

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the main file (its size then is the records' size)."""
        conn = self._take()
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._give(conn)

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
