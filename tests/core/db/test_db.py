"""The records database (core/db), against both backends: transactions commit or roll back as one, a named lock
makes read-modify-write safe under threads, schema versions apply each step once and refuse a newer database, and
SQLite's file is private."""
from __future__ import annotations

import stat
import threading

import pytest

from core.db import DatabaseError, migrate, open_database

STEPS = (("CREATE TABLE counter (name TEXT PRIMARY KEY, n BIGINT NOT NULL)",
          "INSERT INTO counter (name, n) VALUES ('hits', 0)"),
         ("ALTER TABLE counter ADD COLUMN note TEXT",))


def test_a_transaction_commits_or_rolls_back_as_one(db):
    migrate.ensure(db, "toy", STEPS)
    with db.transaction() as tx:
        tx.execute("UPDATE counter SET n = 5, note = ? WHERE name = 'hits'", ("50% done",))  # a % in a value
    with pytest.raises(RuntimeError):
        with db.transaction() as tx:
            tx.execute("UPDATE counter SET n = 99 WHERE name = 'hits'")
            raise RuntimeError("half-way")
    with db.read() as tx:
        assert tx.one("SELECT n, note FROM counter WHERE name = 'hits'") == (5, "50% done")
        assert tx.scalar("SELECT n FROM counter WHERE name = 'nobody'", default=-1) == -1


def test_a_named_lock_keeps_every_concurrent_read_modify_write(db):
    migrate.ensure(db, "toy", STEPS)

    def bump():
        for _ in range(25):
            with db.transaction(lock="counter/hits") as tx:
                n = tx.scalar("SELECT n FROM counter WHERE name = 'hits'")
                tx.execute("UPDATE counter SET n = ? WHERE name = 'hits'", (n + 1,))

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with db.read() as tx:
        assert tx.scalar("SELECT n FROM counter WHERE name = 'hits'") == 100  # no lost update


def test_schema_steps_apply_once_and_a_newer_database_is_refused(db):
    assert migrate.version(db, "toy") == 0
    assert migrate.ensure(db, "toy", STEPS[:1]) == 1
    assert migrate.ensure(db, "toy", STEPS) == 2  # the second step only: the row inserted by step 1 is kept once
    assert migrate.ensure(db, "toy", STEPS) == 2
    with db.read() as tx:
        assert tx.all("SELECT name, n, note FROM counter") == [("hits", 0, None)]
    with pytest.raises(DatabaseError, match="schema version 2, newer than this lab knows"):
        migrate.ensure(db, "toy", STEPS[:1])


def test_a_failing_statement_is_a_database_error_naming_the_backend(db):
    with pytest.raises(DatabaseError, match=db.backend):
        with db.transaction() as tx:
            tx.execute("SELECT * FROM no_such_table")
    with db.read() as tx:  # the pool still works after the failure
        assert tx.scalar("SELECT 1") == 1
    assert db.size_bytes() > 0


def test_sqlite_file_is_private_and_in_wal_mode(tmp_path):
    path = tmp_path / "new-folder" / "lab.sqlite3"
    db = open_database(str(path))
    try:
        with db.transaction() as tx:
            tx.execute("CREATE TABLE t (x TEXT)")
            tx.execute("INSERT INTO t VALUES ('a')")
            assert tx.scalar("PRAGMA journal_mode") == "wal"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        for companion in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if companion.exists():
                assert stat.S_IMODE(companion.stat().st_mode) & 0o077 == 0
    finally:
        db.close()


def test_a_url_that_is_neither_postgresql_nor_a_path_is_refused():
    with pytest.raises(DatabaseError, match="postgresql:// address or a file path"):
        open_database("mysql://somewhere/lab")


def test_postgres_password_never_appears_in_messages():
    from core.db.postgres import redact

    assert redact("postgresql://lab:s3cret@db.example:5432/lab") == "postgresql://lab:***@db.example:5432/lab"


def test_the_database_is_chosen_by_lab_database_then_the_settings(tmp_path, monkeypatch):
    from core.db.open import configured_url
    from core.errors import ParameterError
    from core.basics.settings import parse

    s = parse({"database": {"url": "postgresql://lab@db/lab"}, "classes": {"retention_days": 7}})
    assert (s.database_url, s.class_retention_days) == ("postgresql://lab@db/lab", 7.0)
    with pytest.raises(ParameterError, match="database.host"):
        parse({"database": {"host": "db"}})
    with pytest.raises(ParameterError, match="database.url"):
        parse({"database": {"url": "mysql://db/lab"}})
    with pytest.raises(ParameterError, match="classes.max_students"):
        parse({"classes": {"max_students": 0}})
    settings = tmp_path / "lab_settings.toml"
    settings.write_text(f'[database]\npath = "{tmp_path / "from-settings.sqlite3"}"\n')
    monkeypatch.setenv("LAB_SETTINGS", str(settings))
    monkeypatch.setenv("LAB_DATABASE", "postgresql://lab@elsewhere/lab")
    assert configured_url() == "postgresql://lab@elsewhere/lab"
    monkeypatch.delenv("LAB_DATABASE")
    assert configured_url() == str(tmp_path / "from-settings.sqlite3")
