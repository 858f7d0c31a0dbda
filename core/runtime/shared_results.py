"""Finished results in the records database, so several lab servers serve each other's runs.

Each lab server keeps its own result store (:mod:`core.runtime.store`: a diskcache folder on its disk). When the
servers share a PostgreSQL database (``LAB_DATABASE`` or ``[database] url``), the store also writes every finished
result into that database and, on a local miss, looks there before running anything: a run one server computed is
drawn at once by every other, and the local folder stays a cache in front of the database.

What is stored is exactly what the local store keeps: the record's JSON text — never a pickle — under the record's
content address (scenario, full configuration, seed, engine version). Rows are untrusted like any stored row (anyone
with the database's password writes them), so :class:`~core.runtime.store.ResultStore` checks a row from here
against its key exactly as it checks its own before serving it.

Bounded in bytes: a record over ``max_record_bytes`` is not kept, and after each write the oldest rows go until the
table holds at most ``size_limit`` bytes of records (least recently stored first, as the local store evicts).

The table belongs to the feature ``results`` of :mod:`core.db.migrate` (schema version 1 below).
"""
from __future__ import annotations

import time

from ..db import Database
from ..db.migrate import ensure

FEATURE = "results"
STEPS = (
    ("CREATE TABLE lab_results (key TEXT PRIMARY KEY, record TEXT NOT NULL, bytes BIGINT NOT NULL, "
     "stored_at DOUBLE PRECISION NOT NULL)",
     "CREATE INDEX lab_results_stored_at ON lab_results (stored_at)"),
)
MAX_RECORD_BYTES = 64_000_000  # one run's record (a per-record table of 10⁵ people is ~20 MB of JSON)
_EVICT_BATCH = 200


class SharedResults:
    """The ``lab_results`` table of one records database: text in, text out, bounded in bytes."""

    def __init__(self, db: Database, size_limit: int = 1_000_000_000, max_record_bytes: int = MAX_RECORD_BYTES):
        self.db = db
        self.size_limit = int(size_limit)
        self.max_record_bytes = int(max_record_bytes)
        ensure(db, FEATURE, STEPS)

    def get(self, key: str) -> str | None:
        """The record stored under ``key`` (unchecked text), or None."""
        with self.db.read() as tx:
            row = tx.one("SELECT record FROM lab_results WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    def put(self, key: str, record: str) -> bool:
        """Keep ``record`` under ``key`` (replacing an older one), then evict the oldest rows beyond the size
        limit, in one transaction; False when the record alone is over the per-record bound."""
        size = len(record.encode("utf-8"))
        if size > self.max_record_bytes or size > self.size_limit:
            return False
        with self.db.transaction(lock="results") as tx:
            tx.execute("INSERT INTO lab_results (key, record, bytes, stored_at) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT (key) DO UPDATE SET record = excluded.record, bytes = excluded.bytes, "
                       "stored_at = excluded.stored_at", (key, record, size, time.time()))
            total = int(tx.scalar("SELECT COALESCE(SUM(bytes), 0) FROM lab_results", default=0))
            while total > self.size_limit:
                oldest = tx.all("SELECT key, bytes FROM lab_results WHERE key <> ? ORDER BY stored_at, key LIMIT ?",
                                (key, _EVICT_BATCH))
                if not oldest:
                    break
                for old_key, old_bytes in oldest:
                    tx.execute("DELETE FROM lab_results WHERE key = ?", (old_key,))
                    total -= int(old_bytes)
                    if total <= self.size_limit:
                        break
        return True

    def volume(self) -> int:
        """Bytes of records held."""
        with self.db.read() as tx:
            return int(tx.scalar("SELECT COALESCE(SUM(bytes), 0) FROM lab_results", default=0))

    def __len__(self) -> int:
        with self.db.read() as tx:
            return int(tx.scalar("SELECT COUNT(*) FROM lab_results", default=0))
