"""Sweeps on Dask: a LocalCluster of 2 worker processes gives the same numbers as the local run."""
from __future__ import annotations

import pytest

from core.errors import ParameterError
from core.runtime.games import run
from core.runtime.sweep import sweep

pytestmark = pytest.mark.slow  # each test starts a Dask LocalCluster of worker processes

pytest.importorskip("dask.distributed")

BASE = {"solver": "lsq", "sweeps": False, "trials": 3, "n": 30, "defense": "gaussian"}
GRID = {"query_ratio": [1.0, 2.0], "defense_level": [0.0, 4.0]}


def test_local_cluster_sweep_equals_the_local_run():
    local = sweep("reconstruction", BASE, {k: list(v) for k, v in GRID.items()}, seed=11)
    seen = []
    dask = sweep("reconstruction", BASE, {k: list(v) for k, v in GRID.items()}, seed=11, scheduler="local",
                 n_jobs=2, progress=lambda done, total, rows: seen.append((done, total)))
    assert dask["completed"] and local["completed"]
    assert dask["rows"] == local["rows"]  # every metric identical, in grid order
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    # and each point equals a plain run of that configuration with the same seed
    point = {"query_ratio": 2.0, "defense_level": 4.0}
    single = run("reconstruction", {**BASE, **point}, seed=11).metrics
    row = next(r for r in dask["rows"] if all(r[k] == v for k, v in point.items()))
    assert {k: row[k] for k in single} == single
    # noise lowers accuracy: the numbers are real games, not placeholders
    by = {(r["query_ratio"], r["defense_level"]): r["accuracy"] for r in dask["rows"]}
    assert by[(2.0, 0.0)] > by[(2.0, 4.0)]


def test_unreachable_scheduler_is_a_parameter_error():
    with pytest.raises(ParameterError, match="scheduler"):
        sweep("reconstruction", BASE, {"query_ratio": [1.0]}, seed=0, scheduler="tcp://127.0.0.1:9",
              scheduler_timeout=1)


def test_tasks_cover_every_game_once_heaviest_points_first():
    """Scheduling: every game of every point in exactly one chunk, each point's chunks in game order, and the
    point with the costliest games first when there are several workers (the synthetic paper grid's m = 10⁶)."""
    from core.scenario import get
    from core.runtime.sweep import _per_game_seconds, _tasks

    sc = get("synthetic")
    # the paper's game alone (control_risk off): the audit's fixed per-game cost would make even m = 10 costly
    configs = [sc.resolve({"synth_size": m, "games": 3, "query_sweep": False, "control_risk": False})
               for m in (10, 1_000_000, 1_000)]
    totals = [3, 3, 3]
    tasks = _tasks(sc, configs, totals, workers=2)
    assert tasks[0][0] == 1                                      # m = 10⁶ goes first
    for p in range(3):
        games = [g for q, idx in tasks if q == p for g in idx]
        assert games == [0, 1, 2]                                # once each, in order
    # chunks sized by estimated work: the costly m = 10⁶ games one per task, the cheap m = 10 games together
    assert [len(idx) for q, idx in tasks if q == 1] == [1, 1, 1]
    assert len([1 for q, _ in tasks if q == 0]) < 3
    per_game = _per_game_seconds(sc, configs, totals)
    lengths = [per_game[q] * len(idx) for q, idx in tasks]
    assert lengths == sorted(lengths, reverse=True)              # longest first: the tail is the cheapest
    assert [p for p, _ in _tasks(sc, configs, totals, workers=1)][:3] == [0, 0, 0]  # one worker: grid order


def test_uniform_cheap_grid_is_cut_into_few_tasks_of_real_work():
    """Per-task overhead is amortised: a grid of 12 cheap points makes tasks of at least MIN_TASK_SECONDS of
    estimated work (or whole points), not one task per game, and still several tasks per worker."""
    from core.scenario import get
    from core.runtime.sweep import MIN_TASK_SECONDS, _per_game_seconds, _tasks

    sc = get("reconstruction")
    configs = [sc.resolve({"n": 400, "trials": 30, "sweeps": False, "query_ratio": r, "defense_level": d})
               for r in (0.5, 1.0, 2.0, 4.0) for d in (0.0, 2.0, 5.0)]
    totals = [sc.n_games(c) for c in configs]
    tasks = _tasks(sc, configs, totals, workers=2)
    per_game = _per_game_seconds(sc, configs, totals)
    assert sorted(g for q, idx in tasks for g in idx) == sorted(g for t in totals for g in range(t))
    assert all(per_game[q] * len(idx) >= MIN_TASK_SECONDS or len(idx) == totals[q] for q, idx in tasks)
    assert 2 * 4 <= len(tasks) < sum(totals) / 4


def test_stopping_a_dask_sweep_keeps_finished_points_and_cancels_the_rest():
    # eight points of equal estimated cost start in grid order; stop as soon as the first one is summarised
    grid = {"defense_level": [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]}
    calls = []
    out = sweep("reconstruction", BASE, {k: list(v) for k, v in grid.items()}, seed=11, scheduler="local",
                n_jobs=2, progress=lambda done, total, rows: calls.append(done), cancel=lambda: len(calls) >= 1)
    assert not out["completed"] and 1 <= len(out["rows"]) < 8
    local = sweep("reconstruction", BASE, {k: list(v) for k, v in grid.items()}, seed=11)
    # the finished points (whichever finished first, in grid order), each with the local run's numbers
    by_point = {r["defense_level"]: r for r in local["rows"]}
    assert [r["defense_level"] for r in out["rows"]] == sorted(r["defense_level"] for r in out["rows"])
    assert all(r == by_point[r["defense_level"]] for r in out["rows"])


def test_a_local_cluster_beside_another_says_nothing_about_the_port():
    # Two clusters on one machine (two sweeps, two test processes) both want the scheduler's HTTP port 8787;
    # the second takes a free one, and its warning about it is noise for a user who never opens that port.
    import socket
    import warnings

    from core.runtime.sweep import dask_backend

    holder = socket.socket()
    try:
        holder.bind(("", 8787))  # held here, or already by another cluster: either way in use
        holder.listen()
    except OSError:
        pass
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with dask_backend("local", n_workers=1) as client:
                assert client.submit(sum, [1, 2]).result() == 3
    finally:
        holder.close()
    assert not [w for w in seen if "already in use" in str(w.message)], [str(w.message) for w in seen]
