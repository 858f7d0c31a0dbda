"""Class mode's tables in the records database (:mod:`core.db`) and how they grew.

* ``classes`` — one row a class: its code, times (created, closes = ``expires``, rows deleted at ``purge_after``), a
  salted SHA-256 of the teacher key (never the key), the lesson it was made for, what students give besides a
  display name (``ask``: none / student_id / email), the expected size, whether the roster is locked, the stored
  bytes of all its rows, and a digest of the visitor who made it.
* ``seats`` — one row a student: a random seat id, the display name and its two look-alike keys
  (:func:`core.classroom.names.name_keys`),
  the student ID or e-mail when asked, a digest of the browser that holds the seat, a salted hash of the PIN chosen
  at join and the wrong tries since, and the stored bytes of the row.
* ``answers`` — one row a student and lesson step: when it was opened, the committed prediction and when, when the
  run was revealed.
* ``truths`` — one row a lesson step: the measured value at the lesson's seed (the same for every student).
* ``class_hits`` — recent attempts by visitor digest (joins, creations, wrong codes and keys): the rate limits'
  memory, deleted after a day.

Seats, answers and truths belong to their class (``ON DELETE CASCADE``): deleting a class deletes all of it.
"""
from __future__ import annotations

import threading

from ..db import Database, database, migrate

FEATURE = "classroom"

STEPS: tuple[tuple[str, ...], ...] = (
    # 1: the first schema (a class stored by the lab before this database — a JSON document in the result store's
    #    classes/ folder — is not carried over; docs/CLASS.md says so)
    (
        "CREATE TABLE classes (code TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL, "
        "expires DOUBLE PRECISION NOT NULL, purge_after DOUBLE PRECISION NOT NULL, salt TEXT NOT NULL, "
        "key_hash TEXT NOT NULL, lesson TEXT, ask TEXT NOT NULL, capacity BIGINT NOT NULL, "
        "locked BIGINT NOT NULL DEFAULT 0, bytes BIGINT NOT NULL DEFAULT 0, creator TEXT)",
        "CREATE INDEX classes_purge ON classes (purge_after)",
        "CREATE TABLE seats (code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, seat TEXT NOT NULL, "
        "name TEXT NOT NULL, name_key TEXT NOT NULL, glyph_key TEXT NOT NULL, ident TEXT, browser TEXT, "
        "pin_salt TEXT NOT NULL, pin_hash TEXT NOT NULL, pin_fails BIGINT NOT NULL DEFAULT 0, "
        "joined DOUBLE PRECISION NOT NULL, bytes BIGINT NOT NULL, PRIMARY KEY (code, seat))",
        "CREATE UNIQUE INDEX seats_name ON seats (code, name_key)",
        "CREATE INDEX seats_glyph ON seats (code, glyph_key)",
        "CREATE INDEX seats_browser ON seats (code, browser)",
        "CREATE TABLE answers (code TEXT NOT NULL, seat TEXT NOT NULL, lesson TEXT NOT NULL, step BIGINT NOT NULL, "
        "opened DOUBLE PRECISION, prediction DOUBLE PRECISION, committed DOUBLE PRECISION, "
        "revealed DOUBLE PRECISION, PRIMARY KEY (code, seat, lesson, step), "
        "FOREIGN KEY (code, seat) REFERENCES seats (code, seat) ON DELETE CASCADE)",
        "CREATE TABLE truths (code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE, lesson TEXT NOT NULL, "
        "step BIGINT NOT NULL, value DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, lesson, step))",
        "CREATE TABLE class_hits (kind TEXT NOT NULL, who TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
        "CREATE INDEX class_hits_who ON class_hits (kind, who, at)",
    ),
)

_LOCK = threading.Lock()


def ready(db: Database) -> Database:
    """``db`` with class mode's tables at the current schema version (migrated once per database object; marked on
    the object itself, since an id() can be reused by a later one)."""
    if not getattr(db, "_classroom_ready", False):
        with _LOCK:
            if not getattr(db, "_classroom_ready", False):
                migrate.ensure(db, FEATURE, STEPS)
                db._classroom_ready = True
    return db


def class_db(db: Database | None = None) -> Database:
    """The database class mode uses: ``db`` if given (tests), else this server's (:func:`core.db.database`)."""
    if db is None:
        db = database()
    return ready(db)
