"""Does the empirical-ε flag cry wolf? False-alarm rate on correct mechanisms, and what soundness costs on a leak.

Part 1 plays a *correct* mechanism of every scenario that claims ε (small settings, one run per seed) and counts
the runs whose 95% lower bound on ε exceeds the claimed ε — the flag "this release leaks more than its ε allows".
The audit promises at most a 5% chance of a false alarm per run; the goal is a rate ≤ 5% (with its Clopper–Pearson
interval printed, since 100 seeds cannot pin a rate down to a point).

Part 2 compares, on the same simulated games, the sound bound (threshold chosen on half the games, bound on the
other half) with the old optimistic one (best threshold chosen on the games that bound ε): its false-alarm rate on
a correct Laplace release, and on a known leak (noise for ε_true while claiming less) the mean bound and the
detection rate of each — how much the sound bound loses.

    .venv/bin/python benchmarks/bench_audit.py [--seeds 100] [--only location,aggregates] [--leak-games 2000]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sklearn.metrics import roc_curve  # noqa: E402

from core.measure.audit import audit_result, epsilon_lower_bound_roc  # noqa: E402
from core.measure.metrics import best_threshold_epsilon, clopper_pearson  # noqa: E402
from core.runtime.games import run  # noqa: E402

# One small, correct configuration per scenario that claims ε (ml-models claims none: its models are not DP).
CORRECT = {
    "location (Laplace, informed, k = 1)": ("location", {"observations": 1, "games": 2000, "shadow_sweep_max": 0,
                                                         "train_shadows": 400, "epsilon": 1.0,
                                                         "attacker": "informed"}),
    "location (Gaussian, informed, k = 4)": ("location", {"observations": 4, "games": 2000, "shadow_sweep_max": 0,
                                                          "train_shadows": 400, "epsilon": 1.0,
                                                          "mechanism": "gaussian", "calibration": "analytic",
                                                          "attacker": "informed"}),
    "aggregates (Laplace counts, DeSIA)": ("aggregates", {"blocks": 1, "shadows": 1000, "targets": 100,
                                                          "epsilon": 1.0, "block_size": 200}),
    "synthetic (PrivBayes)": ("synthetic", {"generator": "privbayes", "epsilon": 1.0, "n": 200, "games": 20,
                                            "synth_size": 1000, "query_sweep": False}),
    # MST and AIM (seeded noise, OpenDP's accounting): each game fits its own release, 10–45 s of JAX compilation
    # and mirror descent, so these two are by far the slowest rows; run them alone with --only synthetic and
    # fewer --seeds / --games to keep it to minutes
    "synthetic (MST, OpenDP)": ("synthetic", {"generator": "mst", "epsilon": 1.0, "n": 200, "games": 20,
                                              "synth_size": 1000, "query_sweep": False, "attack": "all"}),
    "synthetic (AIM, OpenDP)": ("synthetic", {"generator": "aim", "epsilon": 1.0, "n": 200, "games": 20,
                                              "synth_size": 1000, "query_sweep": False, "attack": "all"}),
    "reconstruction (Gaussian noise)": ("reconstruction", {"n": 100, "trials": 2, "sweeps": False,
                                                           "defense": "gaussian", "noise_unit": "sqrt_n",
                                                           "defense_level": 0.3}),
}


def false_alarms(seeds: int, only: set[str] | None, games: int | None = None) -> None:
    print(f"Part 1 — correct mechanisms, {seeds} seeds each (flag = 95% lower bound above the claimed ε)")
    print(f"{'scenario':40s} {'runs':>5s} {'flagged':>8s} {'rate':>6s} {'95% CI':>15s} {'mean bound':>11s} "
          f"{'claimed ε':>10s} {'s/run':>6s}")
    for label, (name, config) in CORRECT.items():
        if only and name not in only:
            continue
        flagged, lows, claims, start, measured = 0, [], [], time.perf_counter(), 0
        if games and "games" in config:
            config = {**config, "games": games}
        for seed in range(seeds):
            result = run(name, config, seed=seed)
            verdict = audit_result(result)
            if verdict.status in ("not-measured", "no-claim"):
                continue
            measured += 1
            flagged += verdict.broken
            lows.append(verdict.empirical_epsilon_low)
            claims.append(verdict.claimed_epsilon)
        secs = (time.perf_counter() - start) / max(seeds, 1)
        lo, hi = clopper_pearson(flagged, measured) if measured else (float("nan"), float("nan"))
        rate = flagged / measured if measured else float("nan")
        goal = "ok" if measured and rate <= 0.05 else "ABOVE GOAL"
        print(f"{label:40s} {measured:5d} {flagged:8d} {rate:6.1%} [{lo:5.1%}, {hi:5.1%}] {np.mean(lows):11.3f} "
              f"{np.mean(claims):10.3g} {secs:6.2f}  {goal}")


def laplace_games(epsilon_true: float, games: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """One count with or without the target (sensitivity 1), Laplace noise of scale 1/ε_true; score = the count."""
    y = (np.arange(games) < games // 2).astype(int)
    return y, y + rng.laplace(0.0, 1.0 / epsilon_true, games)


def soundness_cost(seeds: int, games: int) -> None:
    print(f"\nPart 2 — sound (split) vs optimistic (same-games) bound, one Laplace count, {games} games, "
          f"{seeds} seeds")
    print(f"{'case':42s} {'bound':>11s} {'mean':>7s} {'flag rate':>10s}")
    for label, true_eps, claimed in (("correct: ε_true = claimed = 1", 1.0, 1.0),
                                     ("known leak: ε_true = 2, claims 1", 2.0, 1.0),
                                     ("known leak: ε_true = 3, claims 1", 3.0, 1.0),
                                     ("known leak: ε_true = 5, claims 0.5", 5.0, 0.5)):
        sound, optimistic = [], []
        for seed in range(seeds):
            y, s = laplace_games(true_eps, games, np.random.default_rng(seed))
            sound.append(best_threshold_epsilon(y, s))
            f, t, _ = roc_curve(y, s)  # max_threshold_epsilon, vectorised (equal; see tests/core/measure/test_audit.py)
            optimistic.append(epsilon_lower_bound_roc(f, t, int((y == 0).sum()), int((y == 1).sum())))
        for name, vals in (("sound", sound), ("optimistic", optimistic)):
            vals = np.asarray(vals)
            print(f"{label:42s} {name:>11s} {vals.mean():7.3f} {np.mean(vals > claimed):10.1%}")
        print(f"{'':42s} {'sound/opt.':>11s} {np.mean(sound) / np.mean(optimistic):7.2f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--only", default="", help="comma-separated scenario names for part 1 (default: all)")
    ap.add_argument("--leak-games", type=int, default=2000)
    ap.add_argument("--games", type=int, default=None, help="games per run of the rows that play games (default: "
                                                            "each row's own)")
    ap.add_argument("--skip-scenarios", action="store_true", help="only part 2 (no scenario runs)")
    args = ap.parse_args(argv)
    only = {s.strip() for s in args.only.split(",") if s.strip()} or None
    start = time.perf_counter()
    if not args.skip_scenarios:
        false_alarms(args.seeds, only, args.games)
    soundness_cost(args.seeds, args.leak_games)
    print(f"\ntotal {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
