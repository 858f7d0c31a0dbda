"""The records-database fixtures: ``db`` yields a fresh, empty database of each backend in turn — an SQLite file in
a temporary folder, and a new database in a throwaway PostgreSQL cluster (Debian's ``postgresql``: ``initdb`` into a
temporary folder, ``pg_ctl start`` on a free port of 127.0.0.1, stopped when the session ends). Registered by
conftest.py, so every test that takes ``db`` runs against both.

Without ``initdb`` the PostgreSQL half is skipped with the reason; under CI it fails instead (``run.sh test``
installs the package)."""
from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from browser_helpers import free_port

_SEARCH = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"]


def pg_bin(name: str) -> str | None:
    """A PostgreSQL program on PATH or in Debian's versioned folder (which is not on PATH)."""
    found = shutil.which(name)
    if found:
        return found
    for folder in _SEARCH:
        if (Path(folder) / name).exists():
            return str(Path(folder) / name)
    return None


@pytest.fixture(scope="session")
def postgres_cluster():
    """``postgresql://postgres@127.0.0.1:PORT`` of a throwaway cluster (no password: trust on 127.0.0.1 only)."""
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        if os.environ.get("CI"):
            pytest.fail("CI needs PostgreSQL's initdb for the database tests (run.sh test installs postgresql)")
        pytest.skip("PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): "
                    "`bash run.sh test` installs Debian's postgresql")
    tmp = tempfile.mkdtemp(prefix="lab-pg-")
    data, port = os.path.join(tmp, "pg"), free_port()
    as_user = _unprivileged(tmp)
    result = subprocess.run(as_user + [initdb, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode:
        pytest.fail(f"initdb failed: {result.stdout[-1000:]}")
    subprocess.run(as_user + [pg_ctl, "-D", data, "-l", os.path.join(tmp, "log"), "-o",
                              f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off", "-w", "start"],
                   check=True, stdout=subprocess.DEVNULL)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(as_user + [pg_ctl, "-D", data, "-m", "fast", "-w", "stop"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


def _unprivileged(folder: str) -> list[str]:
    """PostgreSQL refuses to run as root (containers, CI): then run it as the ``postgres`` user Debian's package
    creates (or ``nobody``), owning the cluster's folder."""
    if os.geteuid() != 0:
        return []
    import pwd

    for user in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(user)
        except KeyError:
            continue
        os.chown(folder, entry.pw_uid, entry.pw_gid)
        return ["runuser", "-u", user, "--"]
    pytest.fail("PostgreSQL cannot run as root and there is no postgres or nobody user")


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
