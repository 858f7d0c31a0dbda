"""The shared backend: PostgreSQL through psycopg 3, for several lab servers behind one proxy (each server's
sessions stay on it; the records are common). Named locks are transaction-scoped advisory locks, so the same
read-modify-write code is safe across servers."""
from __future__ import annotations

import hashlib
import re

from .base import Database, DatabaseError

_PLACEHOLDER = re.compile(r"\?")


def redact(url: str) -> str:
    """The address without its password (for messages and logs)."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class PostgresDatabase(Database):
    backend = "PostgreSQL"

    def __init__(self, url: str):
        super().__init__()
        try:
            # psycopg (and libpq) load only when a PostgreSQL database is configured
            import psycopg
        except ImportError:
            raise DatabaseError("LAB_DATABASE names PostgreSQL but psycopg 3 is not installed "
                                "(pip install -r requirements.txt)") from None
        self._psycopg = psycopg
        self.errors = (psycopg.Error, OSError)
        self.url = url
        with self.transaction(write=False) as tx:  # fail now, with a clear message, rather than at a student's join
            tx.one("SELECT 1")

    def _connect(self):
        return self._psycopg.connect(self.url, connect_timeout=10)

    def _begin(self, conn, write: bool) -> None:
        pass  # psycopg opens a transaction at the first statement (autocommit off)

    def _lock(self, cursor, name: str) -> None:
        key = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (key,))

    @staticmethod
    def _translate(sql: str) -> str:
        return _PLACEHOLDER.sub("%s", sql.replace("%", "%%"))

    def describe(self) -> str:
        return f"PostgreSQL at {redact(self.url)}"

    def size_bytes(self) -> int:
        with self.transaction(write=False) as tx:
            return int(tx.scalar("SELECT pg_database_size(current_database())", default=0))
