"""The teacher's hand on the roster (every call needs the teacher key, checked like :func:`roster.check_teacher`):
the expected class size, locking the roster, removing or renaming a student, and re-admitting a student on a new
browser with a new PIN the teacher hands over."""
from __future__ import annotations

import secrets

from ..basics.settings import settings
from . import limits as B
from . import names as N
from .errors import ClassError
from .roster import _now, check_teacher
from .schema import class_db


def _open_for_teacher(code, key, visitor, db, now):
    meta = check_teacher(code, key, visitor=visitor, db=db, now=now)
    if now >= meta["expires"]:
        raise ClassError(f"class {meta['code']} has closed: its roster can no longer change (its grades can still "
                         "be downloaded)")
    return meta


def roster(code: str, key: str, *, visitor: B.Visitor = B.NOBODY, db=None, now: float | None = None) -> list[dict]:
    """The students in order of joining: ``{"seat", "name", "ident", "joined", "locked_out"}``."""
    now, db = _now(now), class_db(db)
    meta = check_teacher(code, key, visitor=visitor, db=db, now=now)
    with db.read() as tx:
        rows = tx.all("SELECT seat, name, ident, joined, pin_fails FROM seats WHERE code = ? ORDER BY joined, seat",
                      (meta["code"],))
    tries = settings().class_pin_tries_per_seat
    return [{"seat": r[0], "name": r[1], "ident": r[2], "joined": r[3], "locked_out": r[4] >= tries} for r in rows]


def set_roster(code: str, key: str, *, capacity: int | None = None, locked: bool | None = None,
               visitor: B.Visitor = B.NOBODY, db=None, now: float | None = None) -> dict:
    """Change the expected class size and/or lock (True) or reopen (False) the roster."""
    now, db = _now(now), class_db(db)
    meta = _open_for_teacher(code, key, visitor, db, now)
    most = settings().class_max_students
    with db.transaction(lock=f"class/{meta['code']}") as tx:
        if capacity is not None:
            if isinstance(capacity, bool) or not isinstance(capacity, int) or not 1 <= capacity <= most:
                raise ClassError(f"the expected class size is 1 to {most} students")
            tx.execute("UPDATE classes SET capacity = ? WHERE code = ?", (capacity, meta["code"]))
        if locked is not None:
            tx.execute("UPDATE classes SET locked = ? WHERE code = ?", (int(bool(locked)), meta["code"]))
    return check_teacher(code, key, visitor=visitor, db=db, now=now)


def remove(code: str, key: str, seat: str, *, visitor: B.Visitor = B.NOBODY, db=None,
           now: float | None = None) -> None:
    """Take a student off the roster, with their answers (their name is free again)."""
    now, db = _now(now), class_db(db)
    meta = _open_for_teacher(code, key, visitor, db, now)
    with db.transaction(lock=f"class/{meta['code']}") as tx:
        size = tx.scalar("SELECT bytes FROM seats WHERE code = ? AND seat = ?", (meta["code"], seat))
        if size is None:
            raise ClassError("that student is no longer on the roster")
        tx.execute("DELETE FROM seats WHERE code = ? AND seat = ?", (meta["code"], seat))
        B.add_bytes(tx, meta["code"], -int(size))


def rename(code: str, key: str, seat: str, name: str, *, visitor: B.Visitor = B.NOBODY, db=None,
           now: float | None = None) -> str:
    """Give a student another display name (checked like a join's: no look-alike of another student's)."""
    now, db = _now(now), class_db(db)
    meta = _open_for_teacher(code, key, visitor, db, now)
    name = N.clean_name(name)
    new_key, glyph = N.name_keys(name)
    with db.transaction(lock=f"class/{meta['code']}") as tx:
        row = tx.one("SELECT name, name_key, glyph_key FROM seats WHERE code = ? AND seat = ?", (meta["code"], seat))
        if row is None:
            raise ClassError("that student is no longer on the roster")
        other = tx.one("SELECT name FROM seats WHERE code = ? AND (name_key = ? OR glyph_key = ?) AND seat <> ?",
                       (meta["code"], new_key, glyph, seat))
        if other:
            raise ClassError("another student has that name or one that looks the same")
        grow = B.row_bytes(name, new_key, glyph) - B.row_bytes(*row)
        s = settings()
        B.check_bytes(tx, meta["code"], grow, s.class_max_bytes_per_class, s.class_max_bytes_total)
        tx.execute("UPDATE seats SET name = ?, name_key = ?, glyph_key = ?, bytes = bytes + ? WHERE code = ? AND "
                   "seat = ?", (name, new_key, glyph, grow, meta["code"], seat))
        B.add_bytes(tx, meta["code"], grow)
    return name


def readmit(code: str, key: str, seat: str, *, visitor: B.Visitor = B.NOBODY, db=None,
            now: float | None = None) -> str:
    """A student lost their browser and PIN: the seat leaves every browser and gets a new 6-digit PIN, returned
    once for the teacher to hand over (the student brings the seat back with their name and this PIN)."""
    now, db = _now(now), class_db(db)
    meta = _open_for_teacher(code, key, visitor, db, now)
    pin = f"{secrets.randbelow(10**6):06d}"
    salt = secrets.token_hex(8)
    with db.transaction(lock=f"class/{meta['code']}") as tx:
        changed = tx.execute("UPDATE seats SET browser = NULL, pin_salt = ?, pin_hash = ?, pin_fails = 0 "
                             "WHERE code = ? AND seat = ?", (salt, N.digest(salt, pin), meta["code"], seat))
        if changed < 1:
            raise ClassError("that student is no longer on the roster")
    return pin

