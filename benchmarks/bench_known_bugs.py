"""Gallery of broken releases: does the empirical-ε audit catch each known bug, and stay quiet on its fixed twin?

For every pair of presets ``known-bug-…`` / ``known-bug-…-fixed`` (content/presets.toml), runs both over 20 seeds
and prints the detection rate on the bug (goal ≥ 95%), the false-alarm rate on the twin (goal ≤ 5%), the mean
measured ε against the claim, and seconds per run (goal: a flag within the 60 s budget on 2 cores).

    .venv/bin/python benchmarks/bench_known_bugs.py [--seeds 20] [--jobs 1]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.measure.audit import audit_result  # noqa: E402
from core.measure.metrics import clopper_pearson  # noqa: E402
from core.runtime.games import run  # noqa: E402
from core.studies.presets import known_bug_pairs, load_presets  # noqa: E402


def play(preset: dict, seeds: int, jobs: int) -> dict:
    flagged, lows, claims, secs = 0, [], [], []
    for seed in range(seeds):
        start = time.perf_counter()
        result = run(preset["scenario"], preset["params"], seed=seed, n_jobs=jobs)
        secs.append(time.perf_counter() - start)
        v = audit_result(result)
        flagged += v.broken
        lows.append(v.empirical_epsilon_low if v.empirical_epsilon_low is not None else float("nan"))
        claims.append(v.claimed_epsilon)
    return {"flagged": flagged, "low": float(np.nanmean(lows)), "claim": float(np.mean(claims)),
            "seconds": float(np.mean(secs)), "max_seconds": float(np.max(secs))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default="", help="play only the pairs whose bug id contains this text")
    args = ap.parse_args(argv)
    presets = load_presets()
    print(f"{'pair':44s} {'run':6s} {'flag rate':>10s} {'95% CI':>15s} {'goal':>7s} {'ε ≥ (mean)':>11s} "
          f"{'claimed':>8s} {'s/run':>6s} {'max s':>6s}")
    for bug, fixed in known_bug_pairs(presets):
        if args.only not in bug:
            continue
        for name, kind in ((bug, "bug"), (fixed, "fixed")):
            out = play(presets[name], args.seeds, args.jobs)
            rate = out["flagged"] / args.seeds
            lo, hi = clopper_pearson(out["flagged"], args.seeds)
            goal = (rate >= 0.95) if kind == "bug" else (rate <= 0.05)
            label = bug.removeprefix("known-bug-") if kind == "bug" else ""
            print(f"{label:44s} {kind:6s} {rate:10.0%} [{lo:5.0%}, {hi:5.0%}] {'ok' if goal else 'MISSED':>7s} "
                  f"{out['low']:11.3f} {out['claim']:8.3g} {out['seconds']:6.2f} {out['max_seconds']:6.2f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
