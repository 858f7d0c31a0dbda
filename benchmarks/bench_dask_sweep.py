"""Speed-up of a Dask LocalCluster with 2 workers over 1 on a sweep grid (issue 12).

    .venv/bin/python benchmarks/bench_dask_sweep.py                       # synthetic, its paper grid, reduced games
    .venv/bin/python benchmarks/bench_dask_sweep.py reconstruction \\
        --vary query_ratio=0.5,1,2,4 --vary defense_level=0,2,5 --set n=100 --set trials=20 --set sweeps=false

Without ``--vary`` the scenario's own ``paper_grid`` (a ``{param: [values]}`` attribute) is used, with its
``bench_overrides`` (a ``{param: value}`` attribute that reduces the number of games) under any ``--set``.
Both runs use the same seed; the script checks that they give identical rows and prints the wall times on a
started cluster (engine imported in the workers) and including the cluster start, and both ratios. On a busy machine the ratio is noisy:
run it when the machine is quiet, and more than once.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    from core.cli import _overrides
    from core.scenario import get
    from core.runtime.sweep import sweep

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default="synthetic")
    ap.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="runs per cluster size (best time is reported)")
    args = ap.parse_args()

    sc = get(args.scenario)
    base = dict(getattr(sc, "bench_overrides", {}) if not args.vary else {})
    base.update(_overrides(sc, args.sets))
    if args.vary:
        grid = {}
        for item in args.vary:
            key, _, values = item.partition("=")
            grid[key.strip()] = [_overrides(sc, [f"{key}={v}"])[key.strip()] for v in values.split(",") if v.strip()]
    else:
        grid = dict(getattr(sc, "paper_grid", {}) or {})
        if not grid:
            ap.error(f"{sc.name} has no paper_grid attribute: pass the grid with --vary KEY=V1,V2,...")
    for k in grid:
        base.pop(k, None)
    points = 1
    for v in grid.values():
        points *= len(v)
    print(f"{sc.name}: grid {grid} ({points} points), fixed {base}, seed {args.seed}")

    from dask.distributed import Client, LocalCluster

    def warm_up():  # import the engine in the worker (what the first task of a cold cluster pays)
        from core.scenario import all_scenarios
        all_scenarios()
        return True

    times, rows, cold = {}, {}, {}
    for workers in (1, 2):
        t0 = time.perf_counter()  # cold: a fresh LocalCluster per sweep, start-up and imports included
        out = sweep(sc, base, {k: list(v) for k, v in grid.items()}, seed=args.seed, scheduler="local",
                    n_jobs=workers)
        cold[workers] = time.perf_counter() - t0
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.run(warm_up)
            best = float("inf")
            for _ in range(args.repeat):  # warm: the same cluster, already started and with the engine imported
                t0 = time.perf_counter()
                out = sweep(sc, base, {k: list(v) for k, v in grid.items()}, seed=args.seed,
                            scheduler=cluster.scheduler_address)
                best = min(best, time.perf_counter() - t0)
        times[workers], rows[workers] = best, out["rows"]
        print(f"LocalCluster, {workers} worker(s): {best:.1f} s warm, {cold[workers]:.1f} s with cluster start")
    same = rows[1] == rows[2]
    print(f"identical rows with 1 and 2 workers: {same}")
    print(f"speed-up of 2 workers over 1: {times[1] / times[2]:.2f}x on a started cluster, "
          f"{cold[1] / cold[2]:.2f}x including the cluster start")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
