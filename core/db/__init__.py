"""The lab's records database: one small interface (:class:`Database`), two backends.

* :class:`~core.db.sqlite.SQLiteDatabase` — an embedded single file (Python's ``sqlite3``, WAL journal), the default:
  the file is created 0600 inside a folder made 0700, for one server process on a local disk (SQLite must not be
  shared over NFS, and a second server would not share its locks).
* :class:`~core.db.postgres.PostgresDatabase` — PostgreSQL through psycopg 3, when ``LAB_DATABASE`` (environment)
  or ``[database] url`` (``lab_settings.toml``) names a ``postgresql://`` address: for several servers behind one
  proxy.

Both run the same SQL (written with ``?`` placeholders and the types both understand: TEXT, BIGINT, DOUBLE
PRECISION), keep a schema version per feature (:mod:`core.db.migrate`), and offer one way to change rows safely:
``with db.transaction(lock="class/ABC123") as tx: …`` — every statement in the block commits together or not at
all, and blocks that name the same lock run one after another (SQLite: one writer at a time; PostgreSQL: a
transaction-scoped advisory lock), so a read-modify-write never loses a concurrent change.

A feature (class mode today, finished run results next) owns its tables: it declares its migration steps and calls
:func:`core.db.migrate.ensure` once per database. Nothing here knows any feature's tables.
"""
from __future__ import annotations

from .base import Database, DatabaseError, Tx
from .open import database, open_database, reset

__all__ = ["Database", "DatabaseError", "Tx", "database", "open_database", "reset"]
