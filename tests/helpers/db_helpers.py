"""The records-database fixtures: ``db`` yields a fresh, empty database of each backend in turn — an SQLite file in
a temporary folder, and a new database in a throwaway PostgreSQL cluster (Debian's ``postgresql``: ``initdb`` into a
temporary folder, ``pg_ctl start`` on a free port of 127.0.0.1, stopped when the session ends). Registered by
conftest.py, so every test that takes ``db`` runs against both.

Without ``initdb`` the PostgreSQL half is skipped with the reason; under CI it fails instead (``run.sh test``
installs the package)."""
from __future__ import annotations

import itertools
import os
import sys

import pytest

from lab_paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from labcluster import PartMissing, postgres  # noqa: E402 — one definition, shared with the benchmarks


@pytest.fixture(scope="session")
def postgres_cluster():
    """``postgresql://postgres@127.0.0.1:PORT`` of a throwaway cluster (no password: trust on 127.0.0.1 only)."""
    try:
        with postgres() as cluster:
            yield cluster.url
    except PartMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs PostgreSQL's initdb for the database tests ({exc})")
        pytest.skip(str(exc))


_NUMBER = itertools.count(1)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """A fresh, empty records database of each backend (the same tests run against both)."""
    from core.db import open_database
    from core.db import open as opened

    if request.param == "sqlite":
        url = str(tmp_path / "records" / "lab.sqlite3")
    else:
        server = request.getfixturevalue("postgres_cluster")
        import psycopg

        name = f"t{os.getpid()}_{next(_NUMBER)}"
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        url = f"{server}/{name}"
    database = open_database(url)
    yield database
    database.close()
    opened._OPEN.pop(url, None)
