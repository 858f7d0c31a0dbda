"""Does each scenario's ``estimate_cost`` predict what a run really costs? Prints ratios.

The server refuses runs above ``lab_settings.toml``'s limits and sends runs estimated at most
``express_max_seconds`` to the express lane, both from :meth:`Scenario.estimate_cost`. This benchmark plays,
for every scenario, the page's default (``Scenario.page_defaults``), the command line's default and a few
configurations scaled up along each cost driver, and prints the estimate beside the measurement:

* every configuration runs in a **fresh subprocess** (no in-process cache of fitted models, census blocks or
  samples survives from a previous configuration) with ``OPENBLAS_NUM_THREADS=1`` etc. set before numpy is
  imported, so a run uses one core as in the server's worker processes;
* the run goes through :func:`core.runtime.games.run` exactly as a worker's ``run_job`` does (progress callback
  included, so the live summaries are paid for), never through the result store (``LAB_STORE=""``);
* measured: CPU seconds of the run (``time.process_time``: robust to other people using the machine), wall
  seconds, and peak resident memory (``ru_maxrss``) — both the whole process and its growth during the run;
* ``ratio`` = estimated seconds / measured CPU seconds; the goal is 0.8–2.5 for every row.

    .venv/bin/python benchmarks/bench_cost.py [--quick] [--only location,aggregates] [--json out.json]
    .venv/bin/python benchmarks/bench_cost.py --from-json out.json   # re-print with today's estimates

A row whose run exceeds ``--timeout`` (default 240 s) is stopped and shown as "> timeout". Numbers measured
on a shared 2-core machine are noisy: the load average is printed with the table.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ONE_CORE = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "NUMEXPR_NUM_THREADS": "1", "VECLIB_MAXIMUM_THREADS": "1"}

PAGE = "page default"
CLI = "CLI default"
# (scenario, label, overrides on top of the base) — the base is the page default where the label says so.
# Scaled-up rows vary one cost driver at a time; the quick set keeps the defaults and one step per driver.
CONFIGS: list[tuple[str, str, dict, bool]] = [
    # reconstruction: trials × Σ_units solve(n, m, exact answers?)
    ("reconstruction", PAGE, {}, True),
    ("reconstruction", "n=300", {"n": 300}, True),
    ("reconstruction", "n=1000 trials=1", {"n": 1000, "trials": 1}, False),
    ("reconstruction", "n=300 m/n=6 no sweeps trials=20", {"n": 300, "query_ratio": 6.0, "sweeps": False,
                                                            "trials": 20}, False),
    ("reconstruction", "n=2000 m/n=2 σ=0.5√n no sweeps", {"n": 2000, "defense": "gaussian", "defense_level": 0.5,
                                                          "noise_unit": "sqrt_n", "sweeps": False, "trials": 1},
     False),
    ("reconstruction", "n=300 lsq", {"n": 300, "solver": "lsq"}, False),
    ("reconstruction", "n=50 ilp trials=1", {"n": 50, "solver": "ilp", "trials": 1}, False),
    ("reconstruction", "n=300 hash queries", {"n": 300, "queries": "hash"}, False),
    # location: Σ_units (games + shadows)·k cells, + MLP training, + the auxiliary attacker's trace groups
    ("location", PAGE, {}, True),
    ("location", "games=200k", {"games": 200_000}, True),
    ("location", "k=200", {"observations": 200}, False),
    ("location", "shadow sweep to 1M", {"shadow_sweep_max": 1_000_000}, False),
    ("location", "auxiliary", {"attacker": "auxiliary"}, True),
    ("location", "auxiliary users=60k no sweep", {"attacker": "auxiliary", "users": 60_000, "shadow_sweep_max": 0},
     False),
    ("location", "MLP (page button)", {"attack": "mlp", "shadow_sweep_max": 20_000}, True),
    ("location", "100 users × 20k games", {"target_users": 100, "user_games": 20_000, "shadow_sweep_max": 0}, False),
    ("location", "auxiliary 50 users × 5k games", {"attacker": "auxiliary", "target_users": 50, "user_games": 5000,
                                                    "shadow_sweep_max": 0}, False),
    # aggregates: units (DeSIA targets and patterns, CIP/RAP reconstructions) × per-unit work
    ("aggregates", PAGE, {"@page": True}, True),
    ("aggregates", "page, DeSIA s=454 m/s=0.25", {"@page": True, "attack": "desia", "block_size": 454,
                                                  "query_ratio": 0.25}, False),
    ("aggregates", "page, CIP-rand K=50", {"@page": True, "attack": "cip-rand", "reconstructions": 50}, False),
    ("aggregates", "page, RAP-rand K=3 steps=1000", {"@page": True, "attack": "rap-rand", "rap_steps": 1000},
     False),
    ("aggregates", "CLI default, 1 block", {"blocks": 1}, True),
    ("aggregates", CLI, {}, False),  # the paper's setting, 10 blocks: estimated only
    # synthetic: games × (fit + sample + one LP per size and query-sweep point)
    ("synthetic", PAGE, {"@page": True}, True),
    ("synthetic", "n=3000 games=3", {"@page": True, "n": 3000, "games": 3}, False),
    ("synthetic", "m=1M games=2", {"@page": True, "synth_size": 1_000_000, "games": 2}, True),
    ("synthetic", "privbayes ε=10", {"@page": True, "generator": "privbayes", "epsilon": 10.0}, False),
    ("synthetic", "all attacks games=5", {"@page": True, "attack": "all", "games": 5}, False),
    ("synthetic", "k=4 games=3", {"@page": True, "query_k": "4", "games": 3}, False),
    ("synthetic", "k=2 games=3", {"@page": True, "query_k": "2", "games": 3}, False),
    ("synthetic", "acs-like games=5", {"@page": True, "dataset": "acs-like", "games": 5}, False),
    ("synthetic", "rap games=1", {"@page": True, "generator": "rap", "games": 1}, False),
    # ml-models: data + training (records × epochs) + attack
    ("ml-models", PAGE, {}, True),
    ("ml-models", "bcorr", {"defense": "bcorr"}, False),
    ("ml-models", "epochs=60", {"epochs": 60}, False),
    ("ml-models", "epochs=200 (the spec's)", {"epochs": 200}, True),
    ("ml-models", "n_per_group=3000", {"n_per_group": 3000}, False),
    ("ml-models", "forest", {"model": "forest"}, False),
    ("ml-models", "tv16", {"dataset": "tv16"}, False),
]
ESTIMATE_ONLY = {("aggregates", CLI)}


def resolve(scenario: str, overrides: dict) -> tuple[object, dict]:
    from core.scenario import get

    sc = get(scenario)
    params = {k: v for k, v in overrides.items() if not k.startswith("@")}
    if overrides.get("@page"):
        params = {**sc.page_defaults, **params}
    return sc, params


def child(scenario: str, overrides_json: str) -> None:
    """Run one configuration in this (fresh) process and print one JSON line."""
    import resource

    from core.runtime.games import run

    sc, params = resolve(scenario, json.loads(overrides_json))
    config = sc.resolve(params)
    cost = sc.estimate_cost(config)
    with open("/proc/self/statm") as fh:
        rss_before = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = run(sc, params, seed=0, n_jobs=1, progress=lambda p: None)  # progress → live summaries, as a worker
    result.to_dict()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"cpu": cpu, "wall": wall, "peak": peak, "growth": max(0, peak - rss_before),
                      "games": result.games_done, "est_seconds": cost.seconds, "est_bytes": cost.bytes}))


def estimate(scenario: str, overrides: dict) -> tuple[float, float]:
    sc, params = resolve(scenario, overrides)
    cost = sc.estimate_cost(sc.resolve(params))
    return cost.seconds, cost.bytes


def measure(scenario: str, overrides: dict, timeout: float) -> dict:
    env = {**os.environ, **ONE_CORE, "LAB_STORE": "", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, __file__, "--child", scenario, json.dumps(overrides)]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _mb(x: float) -> str:
    return f"{x / 1e6:,.0f}"


def table(rows: list[dict]) -> str:
    head = (f"{'scenario':15s} {'config':36s} {'est s':>8s} {'cpu s':>8s} {'wall s':>8s} {'est/cpu':>8s} "
            f"{'est MB':>8s} {'peak MB':>8s} {'grow MB':>8s}")
    lines = [head, "-" * len(head)]
    for r in rows:
        m = r.get("measured", {})
        est_s, est_b = r["est_seconds"], r["est_bytes"]
        if "cpu" in m:
            cpu = m["cpu"]
            ratio = f"{est_s / max(cpu, 1e-9):8.2f}"
            meas = f"{cpu:8.1f} {m['wall']:8.1f} {ratio} {_mb(est_b):>8s} {_mb(m['peak']):>8s} {_mb(m['growth']):>8s}"
        elif "timeout" in m:
            meas = f"{'> ' + str(int(m['timeout'])):>8s} {'':8s} {'< ' + format(est_s / m['timeout'], '.2f'):>8s} " \
                   f"{_mb(est_b):>8s}"
        elif "error" in m:
            meas = f"  error: {m['error'][:80]}"
        else:
            meas = f"{'—':>8s} {'—':>8s} {'—':>8s} {_mb(est_b):>8s}"
        lines.append(f"{r['scenario']:15s} {r['label'][:36]:36s} {est_s:8.1f} {meas}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the defaults and one step per main driver (~4 min)")
    ap.add_argument("--only", default="", help="comma-separated scenarios")
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds per configuration before it is stopped")
    ap.add_argument("--json", dest="json_path", help="write the rows (estimates and measurements) to this file")
    ap.add_argument("--from-json", help="re-print saved measurements beside today's estimates (no runs)")
    ap.add_argument("--child", nargs=2, metavar=("SCENARIO", "OVERRIDES"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, str(ROOT))
    only = {s for s in args.only.split(",") if s}
    saved = {}
    if args.from_json:
        saved = {(r["scenario"], r["label"]): r.get("measured", {})
                 for r in json.loads(Path(args.from_json).read_text())["rows"]}
    rows = []
    start = time.perf_counter()
    load0 = os.getloadavg()
    for scenario, label, overrides, quick in CONFIGS:
        if (only and scenario not in only) or (args.quick and not quick):
            continue
        est_s, est_b = estimate(scenario, overrides)
        row = {"scenario": scenario, "label": label, "overrides": overrides, "est_seconds": est_s,
               "est_bytes": est_b}
        if args.from_json:
            row["measured"] = saved.get((scenario, label), {})
        elif (scenario, label) not in ESTIMATE_ONLY:
            row["measured"] = measure(scenario, overrides, args.timeout)
            print(table([row]).splitlines()[-1], flush=True)
        rows.append(row)
    print()
    print(table(rows))
    from core.basics.settings import settings

    s = settings()
    print(f"\nexpress lane ≤ {s.express_max_seconds:g} s; server refuses > {s.max_run_seconds:g} s or "
          f"> {s.max_run_bytes / 1e9:g} GB")
    if not args.from_json:
        print(f"load average {load0[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end "
              f"(2 cores, shared); {time.perf_counter() - start:.0f} s in all")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"loadavg": [load0, os.getloadavg()], "rows": rows}, indent=1))


if __name__ == "__main__":
    if "--child" in sys.argv:
        for key, value in ONE_CORE.items():  # before numpy is imported (the parent sets them too)
            os.environ.setdefault(key, value)
        sys.path.insert(0, str(ROOT))
    main()
