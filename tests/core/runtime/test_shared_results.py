"""Finished results shared between lab servers through the records database (core/runtime/shared_results.py): a run
kept by one server's store is served by another's, checked against its key like any stored row, bounded in bytes;
against both backends (SQLite, a throwaway PostgreSQL)."""
from __future__ import annotations

import json

from core.runtime.games import run
from core.runtime.shared_results import SharedResults
from core.runtime.store import ResultStore, result_address


def _result(seed: int, n: int = 20):
    result = run("reconstruction", {"n": n, "trials": 2}, seed=seed)
    key, about = result_address("reconstruction", {k: v for k, v in result.config.items() if k != "seed"}, seed)
    return key, about, result.to_dict()


def test_a_result_kept_by_one_server_is_served_by_another(db, tmp_path):
    table = SharedResults(db)
    first = ResultStore(tmp_path / "server-a", shared=table)
    second = ResultStore(tmp_path / "server-b", shared=SharedResults(db))  # another process's view of one table
    key, about, result = _result(seed=4)
    assert second.get(key) is None
    assert first.put(key, result, about)
    served = second.get(key)
    assert served is not None and served["metrics"] == result["metrics"]
    assert key in second.cache  # now a local hit on the second server too
    # a second server that never saw the database still misses: the numbers came from the table
    assert ResultStore(tmp_path / "server-c").get(key) is None


def test_a_forged_row_in_the_database_is_not_served(db, tmp_path):
    table = SharedResults(db)
    key_a, about_a, result_a = _result(seed=1)
    key_b, about_b, _ = _result(seed=2)
    honest = ResultStore(tmp_path / "a", shared=table)
    assert honest.put(key_a, result_a, about_a)
    # someone with the database's password copies run A's record under run B's address
    table.put(key_b, table.get(key_a))
    assert ResultStore(tmp_path / "b", shared=table).get(key_b) is None
    # and a row that is not a record at all
    table.put(key_b, json.dumps({"format": 2, "about": about_b, "prefix": "", "result": {"metrics": "lies"}}))
    assert ResultStore(tmp_path / "c", shared=table).get(key_b) is None


def test_the_table_stays_within_its_size_limit_oldest_first(db):
    table = SharedResults(db, size_limit=10_000, max_record_bytes=4_000)
    for i in range(8):
        assert table.put(f"k{i}", "x" * 3_000)
    assert table.volume() <= 10_000
    assert len(table) == 3
    assert [table.get(f"k{i}") is not None for i in range(8)] == [False] * 5 + [True] * 3  # the newest stay
    assert not table.put("big", "y" * 5_000)  # over the per-record bound: not kept at all
    assert table.get("big") is None
    assert table.put("k7", "z" * 10)  # replacing a record counts its new size
    assert table.get("k7") == "z" * 10 and table.volume() == 6_010
