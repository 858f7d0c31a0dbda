"""Schema versions: each feature's tables carry a version in ``schema_version`` and grow by numbered steps.

A feature declares its steps as a tuple — step 1 creates its tables, step 2 alters them, and so on, never edited once
released — and calls :func:`ensure` when it first opens a database. The steps not yet applied run in order, each in
one transaction with its version row, under the feature's lock, so two servers starting at once apply each step
once. A database written by a newer lab (a version above the last step known here) is refused rather than misread.
"""
from __future__ import annotations

import time
from typing import Sequence

from .base import Database, DatabaseError

_TABLE = ("CREATE TABLE IF NOT EXISTS schema_version (feature TEXT PRIMARY KEY, version BIGINT NOT NULL, "
          "applied DOUBLE PRECISION NOT NULL)")


def version(db: Database, feature: str) -> int:
    """The feature's schema version in ``db`` (0: none of its tables exist yet)."""
    with db.transaction(lock="schema_version") as tx:
        tx.execute(_TABLE)
        return int(tx.scalar("SELECT version FROM schema_version WHERE feature = ?", (feature,), default=0))


def ensure(db: Database, feature: str, steps: Sequence[Sequence[str]]) -> int:
    """Apply ``steps[v:]`` where ``v`` is the stored version; returns the version now in force."""
    current = version(db, feature)
    if current > len(steps):
        raise DatabaseError(f"{db.describe()} holds {feature} tables of schema version {current}, newer than this "
                            f"lab knows ({len(steps)}): update the lab")
    for number in range(current + 1, len(steps) + 1):
        with db.transaction(lock=f"schema/{feature}") as tx:
            done = int(tx.scalar("SELECT version FROM schema_version WHERE feature = ?", (feature,), default=0))
            if done >= number:  # another server applied it meanwhile
                continue
            for statement in steps[number - 1]:
                tx.execute(statement)
            if done == 0:
                tx.execute("INSERT INTO schema_version (feature, version, applied) VALUES (?, ?, ?)",
                           (feature, number, time.time()))
            else:
                tx.execute("UPDATE schema_version SET version = ?, applied = ? WHERE feature = ?",
                           (number, time.time(), feature))
    return len(steps)
