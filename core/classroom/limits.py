"""Class mode's bounds: attempts per visitor in a sliding window, and the bytes a class (and all classes) hold.

A *visitor* is who the server can tell apart without accounts: a digest of the browser's own token (its XSRF
cookie) and, when the lab sits behind its proxy, a digest of the client address the proxy reports. A limit counts
each of the two: a script that drops its cookie still comes from one address; a classroom behind one address still
has one browser per student, so an address may do more (joins: ``joins_per_address_per_hour``; the other kinds
ADDRESS_FACTOR times a browser's limit).
Attempts are rows of ``class_hits`` in the database, so the limits hold across restarts and across servers.

Bytes are counted exactly as stored: the UTF-8 bytes of each row's text values plus 8 for each number
(:func:`row_bytes`); every row's count is kept in the row and added to its class's ``bytes``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ClassError, SlowDown

ADDRESS_FACTOR = 20  # an address may do this many times what one browser may (students behind one NAT)
WINDOWS = {"create": 86_400.0, "server-create": 86_400.0, "join": 3_600.0, "guess": 60.0}


@dataclass(frozen=True)
class Visitor:
    """Digests (never the raw cookie or address) of the asking browser and client address; either may be None."""
    browser: str | None = None
    address: str | None = None

    def keys(self) -> list[str]:
        """The keys the limits count: the browser's, then the address's."""
        return ([f"b:{self.browser}"] if self.browser else []) + ([f"a:{self.address}"] if self.address else [])


NOBODY = Visitor()


def row_bytes(*values) -> int:
    """Stored size of one row: UTF-8 bytes of its text values, 8 for every number (None counts 0)."""
    return sum(len(v.encode("utf-8")) if isinstance(v, str) else 0 if v is None else 8 for v in values)


def check(tx, kind: str, visitor: Visitor, limit: int, now: float, what: str, address_limit: int | None = None) -> None:
    """Refuse (:class:`SlowDown`) when the visitor's ``kind`` attempts in the window reached ``limit`` for its
    browser or ``address_limit`` (default ADDRESS_FACTOR × ``limit``) for its address; 0 is no limit. Called inside
    the transaction that records the attempt with :func:`hit`."""
    window = WINDOWS[kind]
    address_limit = limit * ADDRESS_FACTOR if address_limit is None else address_limit
    for key in visitor.keys():
        most = limit if key.startswith("b:") else address_limit
        if not most:
            continue
        rows = tx.all("SELECT at FROM class_hits WHERE kind = ? AND who = ? AND at > ? ORDER BY at",
                      (kind, key, now - window))
        if len(rows) >= most:
            wait = rows[len(rows) - most][0] + window - now
            raise SlowDown(f"{what}: wait {_duration(wait)} before trying again", max(wait, 1.0))


def check_server(tx, kind: str, limit: int, now: float, what: str) -> None:
    if not limit:
        return
    window = WINDOWS[kind]
    n = tx.scalar("SELECT COUNT(*) FROM class_hits WHERE kind = ? AND who = ? AND at > ?",
                  (kind, "server", now - window), default=0)
    if n >= limit:
        raise ClassError(f"{what}: this server's limit of {limit} a day is reached; try again tomorrow or ask the "
                         "lab's operator")


def hit(tx, kind: str, visitor: Visitor | None, now: float) -> None:
    keys = ["server"] if visitor is None else visitor.keys()
    for key in keys:
        tx.execute("INSERT INTO class_hits (kind, who, at) VALUES (?, ?, ?)", (kind, key, now))


def check_bytes(tx, code: str, adding: int, per_class: int, total: int) -> None:
    """Refuse a write of ``adding`` bytes that would take the class or the database's classes past their bounds
    (``total`` 0: not checked — an answer row checks only its class's bound; joins and new classes check both)."""
    held = tx.scalar("SELECT bytes FROM classes WHERE code = ?", (code,), default=0)
    if per_class and held + adding > per_class:
        raise ClassError(f"class {code} holds {held:,} bytes of {per_class:,}: it cannot store more "
                         "([classes] max_bytes_per_class)")
    if total and tx.scalar("SELECT SUM(bytes) FROM classes", default=0) + adding > total:
        raise ClassError("the server's class records are full ([classes] max_bytes_total); ask the lab's operator")


def add_bytes(tx, code: str, n: int) -> None:
    tx.execute("UPDATE classes SET bytes = bytes + ? WHERE code = ?", (n, code))


def _duration(seconds: float) -> str:
    seconds = max(1, round(seconds))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{round(seconds / 60)} min"
    return f"{round(seconds / 3600)} h"
