"""The shared result store (core/runtime/store.py): content-addressed, bounded, safe for concurrent processes."""
import json
import multiprocessing as mp


from core.runtime.store import ResultStore, engine_version, lookup, result_key, run_stored
from test_params_and_runner import Coin


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
    assert isinstance(raw, str) and json.loads(raw)["games_done"] == 50  # text, never a pickle


def test_input_files_are_part_of_the_key(tmp_path):
    f = tmp_path / "data.csv"
    f.write_text("a,b\n1,2\n")
    config = {"path": str(f)}
    k1 = result_key("x", config, 0)
    f.write_text("a,b\n1,3\n")
    assert result_key("x", config, 0) != k1


def test_size_bound_evicts(tmp_path):
    store = ResultStore(tmp_path / "s", size_limit=200_000)
    payload = {"blob": "x" * 20_000}
    for i in range(40):
        store.put(f"k{i}", {**payload, "i": i})
    store.cache.cull()
    assert store.volume() <= 200_000 + 100_000  # diskcache's bound (plus its SQLite pages)
    assert len(store) < 40 and store.get("k39")["i"] == 39  # the oldest went, the newest stayed


def _writer(directory: str, worker: int, n: int) -> None:
    store = ResultStore(directory)
    for i in range(n):
        store.put(f"key-{i % 10}", {"worker": worker, "i": i, "pad": [worker] * 500})
        got = store.get(f"key-{(i * 7) % 10}")
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
        value = store.get(f"key-{i}")
        assert value["worker"] in (1, 2) and value["pad"] == [value["worker"]] * 500
