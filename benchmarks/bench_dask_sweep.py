"""Speed-up of a Dask LocalCluster with 2 workers over 1 on two sweep grids, and where the time goes.

    .venv/bin/python benchmarks/bench_dask_sweep.py                 # both grids below
    .venv/bin/python benchmarks/bench_dask_sweep.py --grid uniform  # or: --grid synthetic
    .venv/bin/python benchmarks/bench_dask_sweep.py reconstruction \\
        --vary query_ratio=0.5,1,2,4 --vary defense_level=0,2,5 --set n=400 --set trials=30 --set sweeps=false

The two grids (goals: ≥ 1.8× and ≥ 1.6× for 2 workers over 1 on a started cluster):

* **uniform**: reconstruction, query_ratio ∈ {0.5, 1, 2, 4} × defense_level ∈ {0, 2, 5}, n = 400, 30 trials;
* **synthetic**: the synthetic scenario's ``paper_grid`` (non-private and BayNet × m = 10 … 10⁶) with its
  ``bench_overrides`` (3 games, no query sweep) — one 10⁶-row point holds a third of the work.

Per grid and cluster size: a fresh ``LocalCluster`` with the engine imported in its workers, then the sweep
timed on it (best of ``--repeat``). Beside the wall time the script reads each worker's CPU seconds
(``getrusage`` before and after) and the client's, so a ratio spoiled by other jobs on a shared machine can be
told from one spoiled by the schedule: ``balance`` = the busiest worker's CPU over the mean (1.00 = perfectly
even), ``busy`` = the workers' CPU over wall × workers (what the cluster got of the cores), ``overhead`` = the
client's CPU (scheduler, scattering, summaries) per task. The load average is printed beside every timing; on a
busy machine compare the CPU-based ``work ratio`` (CPU seconds of the whole grid / the busiest worker's),
which is the speed-up the schedule allows when the cores are free.

Both cluster sizes must give identical rows (same seeds, same numbers); the exit code says whether they do.

Where the time goes (measured 2026-11-25, one game at a time in one process, then on the clusters):

* the engine's own per-task work outside the games is negligible: preparing the 12 uniform points 0.3 ms,
  cutting the tasks 0.2 ms, summarising a point 7 ms; a reconstruction task sends ≈ 300 bytes of arguments and
  gets ≈ 700 bytes of records back. A synthetic task used to carry its point's context — the whole data set,
  4 MB pickled — every time; it is now scattered to each worker once per point and passed by reference.
* the games: 19.2 CPU s for the uniform grid (360 games, 24 tasks of ≈ 0.8 s), 32.6 CPU s for the synthetic
  paper grid (36 games, the two 10⁶-row points ≈ 1.3–2.3 s a game, now one game per task and started first).
* Dask's own client and scheduler (in the sweeping process): ≈ 2% of a core per second of wall time
  (heartbeats, task bookkeeping), 2.4–9 CPU s over these runs — on a 2-core machine it competes with the two
  workers, which is part of why 2 workers fall short of 2×.

Measured on the shared 2-core box at load averages of 11–25 (other engineers' test suites, browsers and
benchmarks), so the wall-clock ratios say little: uniform grid 0.52× wall (102.6 s → 198.0 s, the machine
busier during the second run; the workers got 6–19% of the cores) and a work ratio of 1.56× (19.2 CPU s on
one worker; 12.3 + 12.3 on two, perfectly balanced, but 28% more CPU in all under the heavier contention);
synthetic paper grid 1.70× wall (528.5 s → 310.2 s) and a work ratio of 1.88× (32.6 → 17.2 + 17.3, balance
1.00). A second uniform run (``--grid uniform --repeat 2``, load 10.6–15.2 during both halves): 2.00× wall
(174.0 s → 87.1 s), work ratio 2.12× (38.7 CPU s on one worker; 17.7 + 18.2 on two, balance 1.01). Every run gave
identical rows with 1 and 2 workers. An idle Dask worker costs ≈ 1.4% of a core (its statistical profiler makes
no measurable difference) and a 3 s task costs exactly 3 CPU s on it, so what is left between the runs is the
machine's other load. Rerun on a quiet machine before quoting a wall ratio.

On a quiet machine (2026-11-25, load averages 0.1–2.5, nothing else running but one process at nice 15):

* uniform grid: 1.96× wall (28.5 s → 14.5 s; workers busy 98% and 95%, balance 1.02, work ratio 1.99×), and
  1.84× in a second run (29.9 s → 16.2 s, work ratio 1.98×) — goal 1.8×;
* synthetic paper grid: 1.79× wall (23.3 s → 13.0 s; busy 99% and 91%, balance 1.01, work ratio 1.95×) —
  goal 1.6×. An earlier run that shared the cores with a browser benchmark gave 1.48× (workers busy 61%).

What is left between the work ratio (≈ 2×) and the wall ratio is the workers' idle share (1–9%: the client's
scheduling, 30–50 ms of its CPU per task, and the scatter of each point's context) and the machine's other load.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GRIDS = {
    "uniform": ("reconstruction", {"n": 400, "trials": 30, "sweeps": False},
                {"query_ratio": [0.5, 1.0, 2.0, 4.0], "defense_level": [0.0, 2.0, 5.0]}),
    "synthetic": ("synthetic", None, None),  # the scenario's own paper_grid and bench_overrides
}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def measure(sc, base, grid, seed, workers, repeat) -> dict:
    from dask.distributed import Client, LocalCluster

    from core.runtime.sweep import _import_engine, sweep

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(_import_engine)
        best = None
        for _ in range(repeat):
            load = _load()
            before = client.run(_cpu)
            c0, t0 = _cpu(), time.perf_counter()
            out = sweep(sc, base, {k: list(v) for k, v in grid.items()}, seed=seed,
                        scheduler=cluster.scheduler_address)
            wall, client_cpu = time.perf_counter() - t0, _cpu() - c0
            after = client.run(_cpu)
            per_worker = [after[w] - before[w] for w in after]
            trial = {"wall": wall, "workers_cpu": per_worker, "client_cpu": client_cpu, "load": load,
                     "rows": out["rows"]}
            if best is None or wall < best["wall"]:
                best = trial
    return best


def run_grid(name, sc, base, grid, seed, repeat) -> bool:
    from core.runtime.sweep import _tasks, plan

    _, _, _, points, configs = plan(sc, base, {k: list(v) for k, v in grid.items()})
    totals = [sc.n_games(c) for c in configs]
    n_tasks = len(_tasks(sc, configs, totals, 2))
    print(f"\n== {name}: {sc.name}, grid {grid} ({len(points)} points, {sum(totals)} games), fixed {base}; "
          f"{n_tasks} tasks on 2 workers")
    res = {}
    for workers in (1, 2):
        r = measure(sc, base, grid, seed, workers, repeat)
        cpu = r["workers_cpu"]
        busy = sum(cpu) / (r["wall"] * workers)
        balance = max(cpu) / (sum(cpu) / len(cpu))
        print(f"  {workers} worker(s): {r['wall']:.1f} s wall ({r['load']}); workers' CPU "
              f"{' + '.join(f'{c:.1f}' for c in cpu)} s (balance {balance:.2f}, busy {busy:.0%}); client CPU "
              f"{r['client_cpu']:.1f} s ({1000 * r['client_cpu'] / max(1, n_tasks):.0f} ms per task)")
        res[workers] = r
    same = res[1]["rows"] == res[2]["rows"]
    work = sum(res[1]["workers_cpu"]) / max(res[2]["workers_cpu"])
    print(f"  identical rows with 1 and 2 workers: {same}")
    print(f"  speed-up of 2 workers over 1: {res[1]['wall'] / res[2]['wall']:.2f}× wall; work ratio (CPU of the "
          f"grid on 1 worker / busiest of 2) {work:.2f}×")
    return same


def main() -> int:
    from core.cli import _overrides
    from core.scenario import get

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default=None, help="one scenario and its --vary grid instead of both "
                                                              "standard grids")
    ap.add_argument("--grid", choices=sorted(GRIDS), action="append", help="which standard grid(s) to run")
    ap.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="runs per cluster size (best time is reported)")
    args = ap.parse_args()

    jobs = []
    if args.scenario:
        sc = get(args.scenario)
        base = dict(getattr(sc, "bench_overrides", {}) if not args.vary else {})
        base.update(_overrides(sc, args.sets))
        if args.vary:
            grid = {}
            for item in args.vary:
                key, _, values = item.partition("=")
                grid[key.strip()] = [_overrides(sc, [f"{key}={v}"])[key.strip()] for v in values.split(",")
                                     if v.strip()]
        else:
            grid = dict(getattr(sc, "paper_grid", {}) or {})
            if not grid:
                ap.error(f"{sc.name} has no paper_grid attribute: pass the grid with --vary KEY=V1,V2,...")
        jobs.append((args.scenario, sc, base, grid))
    else:
        for name in args.grid or list(GRIDS):
            scenario, base, grid = GRIDS[name]
            sc = get(scenario)
            base = dict(base if base is not None else getattr(sc, "bench_overrides", {}))
            grid = dict(grid if grid is not None else sc.paper_grid)
            base.update(_overrides(sc, args.sets))
            jobs.append((name, sc, base, grid))
    ok = True
    for name, sc, base, grid in jobs:
        for k in grid:
            base.pop(k, None)
        ok &= run_grid(name, sc, base, grid, args.seed, args.repeat)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
