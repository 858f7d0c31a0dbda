"""A class and its roster: creating a class, opening it (students) or its view (teacher), joining with a display
name and PIN, a seat bound to its browser, and the teacher's hand on the roster (expected size, lock, remove,
rename, re-admit).

A class is *open* until ``expires`` (``[classes] expiry_hours`` after creation): students join and answer. Then it
is *closed*: its code refuses students, its teacher key still opens the view and the grades until ``purge_after``
(``retention_days`` later), when :func:`purge` deletes its rows.

A seat is held by one browser (a digest of its token): an address alone never acts for a student. A new browser gets
the seat back with the PIN its student chose at join (``pin_tries_per_seat`` wrong tries, then only the teacher's
re-admission, which sets a new PIN the teacher hands over).
"""
from __future__ import annotations

import secrets
import time

from ..basics.settings import settings
from . import limits as B
from . import names as N
from .errors import ClassError
from .schema import class_db

_CLASS = ("code, created, expires, purge_after, salt, key_hash, lesson, ask, capacity, locked, bytes")


def _now(now):
    return time.time() if now is None else float(now)


def _row(tx, code: str) -> dict | None:
    row = tx.one(f"SELECT {_CLASS} FROM classes WHERE code = ?", (code,))
    return None if row is None else dict(zip([c.strip() for c in _CLASS.split(",")], row))


def _guess(tx, visitor: B.Visitor, now: float) -> None:
    """A wrong code or key: counted, and refused (SlowDown) once this visitor made too many this minute."""
    B.hit(tx, "guess", visitor, now)


def _slowed(tx, visitor: B.Visitor, now: float) -> None:
    B.check(tx, "guess", visitor, settings().class_code_tries_per_visitor_per_minute, now,
            "too many wrong class codes or keys from this browser")


# ------------------------------------------------------------------------------------------------ the class
def create_class(lesson: str | None = None, *, ask: str = "none", capacity: int = 40, visitor: B.Visitor = B.NOBODY,
                 db=None, now: float | None = None) -> dict:
    """A new class: ``{"code", "teacher_key", "expires", "purge_after", …}``. The key is returned once and stored
    only as a salted digest. ``ask``: what students give besides a display name (``names.ASKS``); ``capacity``:
    the expected class size (joins beyond it are refused until the teacher raises it)."""
    s, now, db = settings(), _now(now), class_db(db)
    if ask not in N.ASKS:
        raise ClassError(f"a class asks students for one of: {', '.join(N.ASKS)}")
    if isinstance(capacity, bool) or not isinstance(capacity, int) or not 1 <= capacity <= s.class_max_students:
        raise ClassError(f"the expected class size is 1 to {s.class_max_students} students")
    purge(db=db, now=now)
    with db.transaction(lock="classes") as tx:
        B.check(tx, "create", visitor, s.class_creations_per_visitor_per_day, now,
                f"this browser made {s.class_creations_per_visitor_per_day} classes today")
        B.check_server(tx, "server-create", s.class_creations_per_server_per_day, now, "no more classes today")
        B.check_bytes(tx, "", 0, 0, s.class_max_bytes_total)
        for _ in range(20):
            code = N.new_code()
            if tx.one("SELECT 1 FROM classes WHERE code = ?", (code,)) is None:
                break
        else:  # pragma: no cover - 887 million codes
            raise ClassError("could not find a free class code; try again")
        key, salt = secrets.token_urlsafe(12), secrets.token_hex(8)
        expires = now + s.class_expiry_hours * 3600.0
        purge_after = expires + s.class_retention_days * 86_400.0
        size = B.row_bytes(code, now, expires, purge_after, salt, N.digest(salt, key), lesson, ask, capacity, 0, 0,
                           visitor.browser)
        tx.execute(f"INSERT INTO classes ({_CLASS}, creator) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (code, now, expires, purge_after, salt, N.digest(salt, key), lesson, ask, capacity, 0, size,
                    visitor.browser))
        B.hit(tx, "create", visitor, now)
        B.hit(tx, "server-create", None, now)
    return {"code": code, "teacher_key": key, "expires": expires, "purge_after": purge_after, "lesson": lesson,
            "ask": ask, "capacity": capacity}


def open_class(code: str, *, visitor: B.Visitor = B.NOBODY, db=None, now: float | None = None) -> dict:
    """The class as a student may use it; ClassError when the code is unknown or the class has closed (wrong codes
    are counted per visitor and slowed: :class:`SlowDown`)."""
    now, db = _now(now), class_db(db)
    try:
        code = N.normalise_code(code)
    except ClassError:
        code = None
    with db.read() as tx:  # the common case (a student's every rerun) only reads
        _slowed(tx, visitor, now)
        meta = _row(tx, code) if code else None
    if meta is None:
        with db.transaction(lock=f"guess/{visitor.browser}") as tx:
            _guess(tx, visitor, now)
    if code is None:
        N.normalise_code("")  # the format's own message
    if meta is None:
        raise ClassError(f"there is no class {code} on this server (check the code with your teacher)")
    if now >= meta["expires"]:
        raise ClassError(f"class {code} has closed; ask your teacher (its grades stay with the teacher)")
    return meta


def check_teacher(code: str, key: str, *, visitor: B.Visitor = B.NOBODY, db=None, now: float | None = None) -> dict:
    """The class when ``key`` is its teacher key — open or closed, until its rows are deleted; ClassError
    otherwise (compared in constant time; wrong keys are slowed per visitor like wrong codes)."""
    now, db = _now(now), class_db(db)
    _purge_due(db, now)
    code = N.normalise_code(code)
    with db.read() as tx:  # the teacher view asks every few seconds: only a wrong key writes
        _slowed(tx, visitor, now)
        meta = _row(tx, code)
    good = meta is not None and now < meta["purge_after"] and N.same(meta["salt"], str(key or "").strip(),
                                                                     meta["key_hash"])
    if not good:
        with db.transaction(lock=f"guess/{visitor.browser}") as tx:
            _guess(tx, visitor, now)
    if meta is None or now >= meta["purge_after"]:
        raise ClassError(f"there is no class {code} on this server (a closed class's records are deleted "
                         f"{settings().class_retention_days:g} days after it closed)")
    if not good:
        raise ClassError(f"that teacher key does not open class {code}; check it and try again")
    return meta


PURGE_EVERY = 600.0  # seconds between two clean-ups a teacher's visits trigger in one process


def _purge_due(db, now: float) -> None:
    last = getattr(db, "_classroom_purged", None)
    if last is None or now - last >= PURGE_EVERY or now < last:
        purge(db=db, now=now)


def purge(*, db=None, now: float | None = None) -> int:
    """Delete classes past their retention (with their seats, answers and measurements) and attempts older than a
    day; returns the number of classes deleted."""
    now, db = _now(now), class_db(db)
    with db.transaction(lock="classes") as tx:
        gone = tx.execute("DELETE FROM classes WHERE purge_after <= ?", (now,))
        tx.execute("DELETE FROM class_hits WHERE at < ?", (now - max(B.WINDOWS.values()),))
    db._classroom_purged = now
    return max(gone, 0)


# --------------------------------------------------------------------------------------------------- seats
BROWSER_BYTES = 32  # a browser digest's stored length, counted whether a browser holds the seat or not


def _seat_bytes(code, seat, name, key, glyph, ident, salt, pin_hash, now) -> int:
    return B.row_bytes(code, seat, name, key, glyph, ident, salt, pin_hash, 0, now, 0) + BROWSER_BYTES


def join(code: str, name: str, pin: str, ident: str | None = None, *, browser: str,
         visitor: B.Visitor = B.NOBODY, db=None, now: float | None = None) -> dict:
    """Take a seat in the class: ``{"seat", "name"}``. ``browser`` is the digest that will hold the seat; ``pin``
    (4–8 digits) brings it back in another browser. Refused: a closed, locked or full class, a name that looks
    like one already in the class, a student ID / e-mail already seated, a browser that already holds a seat, too
    many joins from this visitor."""
    s, now, db = settings(), _now(now), class_db(db)
    name, pin = N.clean_name(name), N.check_pin(pin)
    meta = open_class(code, visitor=visitor, db=db, now=now)
    code, ident = meta["code"], N.clean_ident(meta["ask"], ident)
    key, glyph = N.name_keys(name)
    with db.transaction(lock=f"class/{code}") as tx:
        meta = _row(tx, code)
        if meta is None or now >= meta["expires"]:
            raise ClassError(f"class {code} has closed")
        if browser and tx.one("SELECT 1 FROM seats WHERE code = ? AND browser = ?", (code, browser)):
            raise ClassError("this browser already holds a seat in the class (reload the page to see it)")
        if meta["locked"]:
            raise ClassError(f"the teacher has locked class {code}'s roster; ask your teacher to let you in")
        n = tx.scalar("SELECT COUNT(*) FROM seats WHERE code = ?", (code,), default=0)
        if n >= meta["capacity"]:
            raise ClassError(f"class {code} is full ({n} of the {meta['capacity']} students the teacher expects); "
                             "ask your teacher to make room")
        taken = tx.one("SELECT name FROM seats WHERE code = ? AND (name_key = ? OR glyph_key = ?)",
                       (code, key, glyph))
        if taken:
            same = "the same name" if taken[0] == name else "a name that looks the same"
            raise ClassError(f"{same} is already in the class; add an initial or choose another name")
        if ident and tx.one("SELECT 1 FROM seats WHERE code = ? AND ident = ?", (code, ident)):
            raise ClassError(f"that {N.ASKS[meta['ask']][2:]} already has a seat; bring it back with your PIN, or "
                             "ask your teacher")
        B.check(tx, "join", visitor, s.class_joins_per_visitor_per_hour, now, "too many joins from this browser",
                address_limit=s.class_joins_per_address_per_hour)
        seat, salt = secrets.token_urlsafe(16), secrets.token_hex(8)
        size = _seat_bytes(code, seat, name, key, glyph, ident, salt, N.digest(salt, pin), now)
        B.check_bytes(tx, code, size, s.class_max_bytes_per_class, s.class_max_bytes_total)
        tx.execute("INSERT INTO seats (code, seat, name, name_key, glyph_key, ident, browser, pin_salt, pin_hash, "
                   "pin_fails, joined, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
                   (code, seat, name, key, glyph, ident, browser, salt, N.digest(salt, pin), now, size))
        B.add_bytes(tx, code, size)
        B.hit(tx, "join", visitor, now)
    return {"seat": seat, "name": name}


def seat_of(code: str, browser: str | None, *, db=None, now: float | None = None) -> dict | None:
    """The seat this browser holds in the (open) class: ``{"seat", "name", "ident"}``, or None."""
    if not browser:
        return None
    now, db = _now(now), class_db(db)
    with db.read() as tx:
        row = tx.one("SELECT s.seat, s.name, s.ident FROM seats s JOIN classes c ON c.code = s.code "
                     "WHERE s.code = ? AND s.browser = ? AND c.expires > ?", (N.normalise_code(code), browser, now))
    return None if row is None else {"seat": row[0], "name": row[1], "ident": row[2]}


def reclaim(code: str, name: str, pin: str, *, browser: str, visitor: B.Visitor = B.NOBODY, db=None,
            now: float | None = None) -> dict:
    """Bring a seat to this browser with its name and PIN (the browser that held it loses it). Wrong PINs count on
    the seat: after ``pin_tries_per_seat`` only the teacher's re-admission opens it."""
    s, now, db = settings(), _now(now), class_db(db)
    meta = open_class(code, visitor=visitor, db=db, now=now)
    code, key = meta["code"], N.name_key(N.clean_name(name))
    pin = str(pin or "").strip()
    with db.transaction(lock=f"class/{code}") as tx:
        row = tx.one("SELECT seat, name, pin_salt, pin_hash, pin_fails FROM seats WHERE code = ? AND name_key = ?",
                     (code, key))
        if row is None:
            _guess(tx, visitor, now)
            failure = ClassError(f"no student of class {code} has that name; check its spelling, or join")
            seat = shown = None
        else:
            seat, shown, salt, pin_hash, fails = row
        if row is not None and fails >= s.class_pin_tries_per_seat:
            raise ClassError("this seat had too many wrong PINs; ask your teacher to re-admit you")
        if row is None:
            pass
        elif not N.same(salt, pin, pin_hash):
            tx.execute("UPDATE seats SET pin_fails = pin_fails + 1 WHERE code = ? AND seat = ?", (code, seat))
            left = s.class_pin_tries_per_seat - fails - 1
            # the message never repeats a stored name: pages show errors as Markdown
            failure = ClassError(f"that PIN does not open the seat of that name ({left} "
                                 f"tr{'y' if left == 1 else 'ies'} left before only your teacher can re-admit you)")
        else:
            failure = None
            tx.execute("UPDATE seats SET browser = ?, pin_fails = 0 WHERE code = ? AND seat = ?",
                       (browser, code, seat))
    if failure:  # raised after the transaction so the counted try is committed
        raise failure
    return {"seat": seat, "name": shown}
