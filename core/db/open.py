"""Which database this server uses, from the settings: ``LAB_DATABASE`` (environment) or ``[database] url`` naming a
``postgresql://`` address → PostgreSQL; otherwise the SQLite file at ``LAB_DATABASE`` (a path) or ``[database]
path``. One :class:`Database` per address per process."""
from __future__ import annotations

import os
import threading

from ..basics.settings import settings
from .base import Database, DatabaseError
from .postgres import PostgresDatabase
from .sqlite import SQLiteDatabase

_OPEN: dict[str, Database] = {}
_LOCK = threading.Lock()


def _is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def open_database(url: str) -> Database:
    """The database at ``url`` (a ``postgresql://`` address or a file path), opened once per process."""
    url = str(url).strip()
    if not url:
        raise DatabaseError("no database configured ([database] path in lab_settings.toml, or LAB_DATABASE)")
    with _LOCK:
        db = _OPEN.get(url)
        if db is None:
            if _is_postgres(url):
                db = PostgresDatabase(url)
            elif "://" in url:
                raise DatabaseError("LAB_DATABASE / [database] url must be a postgresql:// address or a file path")
            else:
                try:
                    db = SQLiteDatabase(url)
                except (OSError, Exception) as exc:  # sqlite3.Error or a folder that cannot be made
                    raise DatabaseError(f"the SQLite database {url} cannot be opened ({type(exc).__name__})") from None
            _OPEN[url] = db
        return db


def configured_url() -> str:
    """``LAB_DATABASE`` if set, else ``[database] url`` if set, else ``[database] path``."""
    env = os.environ.get("LAB_DATABASE")
    if env:
        return env
    s = settings()
    return s.database_url or str(os.path.expanduser(s.database_path))


def database() -> Database:
    """This server's records database."""
    return open_database(configured_url())


def reset() -> None:
    """Close every open database (tests, and a settings change)."""
    with _LOCK:
        for db in _OPEN.values():
            db.close()
        _OPEN.clear()
