"""The server's housekeeping (ui/server/housekeeping.py): disconnected sessions past their TTL are shut down, not just
forgotten, and the idle release runs once per spell without a session, never while one is connected."""
from __future__ import annotations

from types import SimpleNamespace

from streamlit.runtime.caching.ttl_cache import TTLCache

import ui.server.housekeeping as hk
from core.runtime.memory import release_memory, rss_bytes


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class Session:
    def __init__(self, sid):
        self.id, self.shut = sid, 0

    def shutdown(self):
        self.shut += 1


def fake_runtime(clock, ttl=10):
    store = TTLCache(maxsize=128, ttl=ttl, timer=clock)
    manager = SimpleNamespace(active=0, _session_storage=SimpleNamespace(_cache=store))
    manager.num_active_sessions = lambda: manager.active
    return SimpleNamespace(_session_mgr=manager), manager, store


def test_sessions_past_their_ttl_are_shut_down_and_the_others_kept():
    clock = Clock()
    runtime, _, store = fake_runtime(clock)
    old, new = Session("old"), Session("new")
    store["old"] = SimpleNamespace(session=old)
    clock.now += 6
    store["new"] = SimpleNamespace(session=new)
    clock.now += 5  # "old" is 11 s old (past the 10 s TTL), "new" 5 s
    assert hk.shut_down_expired_sessions(runtime) == 1
    assert (old.shut, new.shut) == (1, 0)
    assert list(store) == ["new"]
    clock.now += 10
    assert hk.shut_down_expired_sessions(runtime) == 1 and new.shut == 1


def test_a_session_the_store_reaps_on_its_own_is_shut_down_but_a_resumed_one_is_not():
    clock = Clock()
    runtime, manager, _ = fake_runtime(clock)
    assert hk.install_session_reaper(runtime)
    store = manager._session_storage._cache
    old, resumed, closing = Session("old"), Session("resumed"), Session("closing")
    store["old"] = SimpleNamespace(session=old)
    store["resumed"] = SimpleNamespace(session=resumed)
    del store["resumed"]  # its tab reconnected: Streamlit takes it out of the store to serve it again
    clock.now += 11
    store["closing"] = SimpleNamespace(session=closing)  # another tab closes: Streamlit's save reaps "old"
    assert (old.shut, resumed.shut, closing.shut) == (1, 0, 0)
    assert list(store) == ["closing"]


def test_the_idle_release_runs_once_per_spell_without_sessions(monkeypatch):
    clock = Clock()
    runtime, manager, store = fake_runtime(clock, ttl=10)
    released = []
    monkeypatch.setattr(hk, "release_idle_memory", lambda: released.append(clock.now) or (None, None))
    keeper = hk.Housekeeper(runtime, idle_after=30, clock=clock)
    clock.now += 100
    keeper.tick()
    assert released == []  # no visitor yet: nothing to release
    manager.active = 1
    keeper.tick()
    manager.active = 0
    store["s"] = SimpleNamespace(session=Session("s"))  # the tab closed: its session waits for a reconnect
    clock.now += 5
    keeper.tick()
    assert released == []  # a session that may still resume counts as busy
    clock.now += 10  # the stored session expires and is shut down: idle since the last tick that saw it
    keeper.tick()
    clock.now += 19  # 29 s since
    keeper.tick()
    assert released == []
    clock.now += 2
    keeper.tick()
    clock.now += 100
    keeper.tick()
    assert len(released) == 1
    manager.active = 1
    keeper.tick()
    manager.active = 0
    clock.now += 31
    keeper.tick()
    assert len(released) == 2


def test_release_memory_reports_this_process_resident_memory():
    before, after = release_memory()
    assert before is not None and after is not None and after <= before + 16 * 2**20
    assert abs(rss_bytes() - after) < 64 * 2**20


def test_the_engine_caches_registered_for_idle_are_emptied_and_a_failing_one_does_not_stop_the_others():
    from core.basics import idle
    from core.data import file_rows

    emptied = []
    idle.on_idle(lambda: emptied.append("first"))
    idle.on_idle(lambda: 1 / 0)
    idle.on_idle(lambda: emptied.append("last"))
    file_rows._BYTES["digest"] = object()
    try:
        idle.clear_idle_caches()
        assert emptied == ["first", "last"]
        assert file_rows._BYTES == {}
    finally:
        del idle._CLEARS[-3:]


def test_every_lab_cache_that_holds_a_file_is_emptied_when_the_server_goes_idle(monkeypatch):
    """The labs' per-process caches of an uploaded file (the Aggregates population and prepared releases, the ML
    models tables, the Location check-in counts, a synthetic release read from a file and its LPs) are emptied
    with the rest when nobody is connected, so an upload's rows do not stay in the server after its visitor left."""
    from core.basics import idle
    from core.scenarios import ml_models
    from core.scenarios.aggregates import data as agg_data, fit as agg_fit
    from core.scenarios.location import fit as loc_fit
    from core.scenarios.synthetic import release_file

    class Trace:
        def observations_per_user(self):
            return [1, 2]

    # each cached function's reader replaced by a stand-in, so one call fills the cache without a real file
    monkeypatch.setattr(agg_fit, "load_csv", lambda path, sensitive: ("records", path))
    monkeypatch.setattr(loc_fit, "load_trace_csv", lambda path, rng: Trace())
    monkeypatch.setattr(ml_models, "columns", lambda config: ("label", "s", "g"))
    monkeypatch.setattr(ml_models.P, "synthetic", lambda n, seed, n_groups: ("table", n, seed))
    monkeypatch.setattr(release_file, "base_dataset", lambda kind, path: (None, "label"))
    monkeypatch.setattr(release_file, "read_table", lambda path, name: None)
    monkeypatch.setattr(release_file, "encode_like", lambda *a, **k: None)
    monkeypatch.setattr(release_file, "game_table", lambda *a, **k: ("codes",))
    for cached in (agg_fit._population, loc_fit._cells_per_user, ml_models._load, release_file._release):
        cached.cache_clear()
    agg_fit._population("upload.csv", "age", (1, 2))
    loc_fit._cells_per_user("checkins.csv", (1, 2))
    ml_models._load(("synthetic", "label", "s", "g", 3, 100, 2),
                    (("dataset", "synthetic"), ("n_per_group", 100), ("groups", 2)))
    release_file._release("original.csv", 1.0, "release.csv", 2.0, "")
    agg_data._CACHE["block"] = object()
    release_file._LPS["lp"] = object()
    filled = [agg_fit._population, loc_fit._cells_per_user, ml_models._load, release_file._release]
    assert all(f.cache_info().currsize == 1 for f in filled)

    idle.clear_idle_caches()
    assert [f.cache_info().currsize for f in filled] == [0, 0, 0, 0]
    assert len(agg_data._CACHE) == 0 and len(release_file._LPS) == 0
