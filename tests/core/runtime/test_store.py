"""The shared result store (core/runtime/store.py): content-addressed, bounded, safe for concurrent processes."""
import json
import multiprocessing as mp
import os
import sqlite3
import stat

import pytest


from core.runtime.store import ResultStore, UnsafeRow, address_key, engine_version, lookup, result_key, run_stored
from toy_scenarios import Coin


def test_same_key_hits_and_any_change_misses(tmp_path):
    store = ResultStore(tmp_path / "s")
    first, hit1 = run_stored(Coin(), {"games": 30}, seed=5, store=store)
    again, hit2 = run_stored(Coin(), {"games": 30}, seed=5, store=store)
    assert (hit1, hit2) == (False, True)
    assert again.metrics == first.metrics and again.series == first.series and again.config == first.config
    # a different seed, configuration or engine version is a different address
    config = Coin().resolve({"games": 30})
    base = result_key("coin-test", config, 5)
    assert result_key("coin-test", config, 6) != base
    assert result_key("coin-test", {**config, "bias": 0.7}, 5) != base
    assert result_key("coin-test", config, 5, version="other-engine") != base
    assert result_key("coin-test", config, 5, version=engine_version()) == base
    assert lookup(Coin(), {"games": 30}, 6, store)[1] is None
    assert run_stored(Coin(), {"games": 31}, seed=5, store=store)[1] is False


def test_only_completed_runs_are_stored_and_values_are_json_text(tmp_path):
    store = ResultStore(tmp_path / "s")
    res, _ = run_stored(Coin(), {"games": 50}, seed=1, store=store, cancel=lambda: True)
    assert res.cancelled and len(store) == 0
    run_stored(Coin(), {"games": 50}, seed=1, store=store)
    (key,) = list(store.cache.iterkeys())
    raw = store.cache.get(key)
    assert isinstance(raw, str) and json.loads(raw)["result"]["games_done"] == 50  # text, never a pickle


def test_input_files_are_part_of_the_key(tmp_path):
    f = tmp_path / "data.csv"
    f.write_text("a,b\n1,2\n")
    config = {"path": str(f)}
    k1 = result_key("x", config, 0)
    f.write_text("a,b\n1,3\n")
    assert result_key("x", config, 0) != k1


def _sweep_record(i: int, **extra) -> tuple[str, dict, dict]:
    """A (key, value, address) triple shaped like a page's sweep, for tests of the storage itself."""
    about = {"sweep": "x", "base": {}, "grid": {"i": [i]}, "seed": 0, "engine": "test"}
    value = {"scenario": "x", "config": {"seed": 0}, "grid": {"i": [i]}, "rows": [], **extra}
    return address_key(about, "sweep-"), value, about


def _put(store, i: int, **extra) -> str:
    key, value, about = _sweep_record(i, **extra)
    assert store.put(key, value, about, "sweep-")
    return key


def test_size_bound_evicts(tmp_path):
    store = ResultStore(tmp_path / "s", size_limit=200_000)
    keys = [_put(store, i, blob="x" * 20_000) for i in range(40)]
    store.cache.cull()
    assert store.volume() <= 200_000 + 100_000  # diskcache's bound (plus its SQLite pages)
    assert len(store) < 40 and store.get(keys[39])["grid"] == {"i": [39]}  # the oldest went, the newest stayed
    assert store.get(keys[0]) is None


def _writer(directory: str, worker: int, n: int) -> None:
    store = ResultStore(directory)
    for i in range(n):
        _put(store, i % 10, worker=worker, pad=[worker] * 500)
        got = store.get(_sweep_record((i * 7) % 10)[0])
        assert got is None or got["pad"] == [got["worker"]] * 500


def test_concurrent_writers_do_not_corrupt(tmp_path):
    directory = str(tmp_path / "s")
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(directory, w, 150)) for w in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    store = ResultStore(directory)
    for i in range(10):
        value = store.get(_sweep_record(i)[0])
        assert value["worker"] in (1, 2) and value["pad"] == [value["worker"]] * 500


# ------------------------------------------------------------------ rows this lab did not write
class _Marker:
    """Unpickling this creates ``path``: the proof that a store row ran code."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_pickled_row_is_never_unpickled(tmp_path, caplog):
    import diskcache

    directory = tmp_path / "s"
    store = ResultStore(directory)
    run_stored(Coin(), {"games": 30}, seed=5, store=store)
    key = result_key("coin-test", Coin().resolve({"games": 30}), 5)
    marker = tmp_path / "marker"
    planted = diskcache.Cache(str(directory))  # diskcache's own Disk: pickles what is not str/bytes/number
    planted.set(key, _Marker(marker))
    with caplog.at_level("WARNING", logger="privacy_lab.store"):
        assert store.get(key) is None
        res, hit = run_stored(Coin(), {"games": 30}, seed=5, store=store)
    assert not marker.exists()
    assert hit is False and res.completed
    lines = [r.getMessage() for r in caplog.records if r.name == "privacy_lab.store"]
    assert len(lines) == 1 and "pickle" in lines[0], lines
    assert store.get(key) is not None  # the run's own result replaced the planted row
    # a key kept in pickle mode is refused too (diskcache would unpickle it while listing keys)
    planted.set(("a", "tuple", "key"), "x")
    with pytest.raises(UnsafeRow):
        list(store.cache.iterkeys())
    assert not marker.exists()


def test_a_row_naming_a_file_outside_the_store_is_neither_read_nor_deleted(tmp_path):
    directory = tmp_path / "s"
    store = ResultStore(directory)
    key = _put(store, 1, blob="x" * 100_000)  # big enough to live in a value file
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    with sqlite3.connect(directory / "cache.db") as db:
        db.execute("UPDATE Cache SET filename = ? WHERE key = ?", ("../victim.txt", key))
    assert store.get(key) is None
    store.cache.delete(key)
    store.cache.clear()
    assert victim.read_text() == "keep me"


def test_store_files_are_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        directory = tmp_path / "s"
        store = ResultStore(directory)
        _put(store, 1, blob="x" * 100_000)  # a value file in two levels of folders
        _put(store, 2)
    finally:
        os.umask(old)
    modes = {p.relative_to(directory).as_posix(): stat.S_IMODE(p.stat().st_mode)
             for p in [directory, *directory.rglob("*")]}
    assert any(name.endswith(".val") for name in modes) and "cache.db" in modes
    for name, mode in modes.items():
        want = 0o700 if (directory / name).is_dir() else 0o600
        assert mode == want, f"{name}: {oct(mode)}"


def test_writing_anything_but_text_is_refused(tmp_path):
    store = ResultStore(tmp_path / "s")
    with pytest.raises(TypeError):
        store.cache.set("k", {"a": 1})
    with pytest.raises(TypeError):
        store.cache.set(("tuple",), "x")


def test_documents_are_served_only_under_their_own_key_and_never_under_an_address(tmp_path):
    store = ResultStore(tmp_path / "s")
    assert store.put("class/ABC234", {"students": ["x"]})  # class mode's documents
    assert store.get("class/ABC234") == {"students": ["x"]}
    # a document copied under another key, or under a run's content address, is not served
    raw = store.cache.get("class/ABC234")
    store.cache.set("class/OTHER2", raw)
    assert store.get("class/OTHER2") is None
    key = result_key("coin-test", Coin().resolve({"games": 30}), 5)
    store.cache.set(key, json.dumps({"format": 2, "document": key, "value": {"metrics": {"x": 1}}}))
    assert store.get(key) is None
    # a run's result kept without its address gets it from its own scenario, configuration and seed
    res, _ = run_stored(Coin(), {"games": 30}, seed=5, store=ResultStore(tmp_path / "other"))
    assert store.put(key, res.to_dict(records=False)) and store.get(key)["metrics"] == res.metrics
    assert not store.put(result_key("coin-test", Coin().resolve({"games": 31}), 5), res.to_dict())  # not its key
