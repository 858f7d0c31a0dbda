"""Speed of the location membership game (seed 001) against the issue's goals. Prints ratios.

Goals:
* informed-attacker games, threshold attacks: >= 1e6 games/s (noise + fit on shadows + score + decide);
* MLP meta-classifier trained on 200k shadow aggregates (k = 60): <= 180 s on 2 cores;
* the page's default: first plot (closed-form bound and optimum) within 10 s, the default run itself.

    .venv/bin/python benchmarks/bench_location.py [--games 1000000] [--k 60] [--mlp-shadows 200000] [--skip-mlp]

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.runtime import games  # noqa: E402
from core.attacks.location.location_common import balanced_labels, noise  # noqa: E402
from core.attacks.location.one_threshold import OneThresholdAttack  # noqa: E402
from core.attacks.location.two_threshold import TwoThresholdAttack  # noqa: E402
from core.scenario import get  # noqa: E402
from core.scenarios.location import _theory, theory_curves  # noqa: E402


def informed_games(n: int, k: int, attack_cls, rng, batch: int = 100_000) -> tuple[float, float]:
    """Games/s and accuracy of an informed attacker: shadows (2k) + n test games, in batches."""
    ys = balanced_labels(2000)
    shadows = noise("laplace", 2.0, (2000, k), rng) + ys[:, None]
    start = time.perf_counter()
    att = attack_cls().fit(shadows, ys)
    correct = 0
    for s in range(0, n, batch):
        b = min(batch, n - s)
        y = balanced_labels(b)
        X = noise("laplace", 2.0, (b, k), rng)
        X += y[:, None]
        correct += int((att.predict(X) == y).sum())
    return n / (time.perf_counter() - start), correct / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=60)
    ap.add_argument("--mlp-shadows", type=int, default=200_000)
    ap.add_argument("--skip-mlp", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)

    print(f"# informed attacker, Laplace eps=0.5, k={args.k}, {args.games:,} games (goal >= 1e6 games/s)")
    for cls in (OneThresholdAttack, TwoThresholdAttack):
        rate, acc = informed_games(args.games, args.k, cls, rng)
        print(f"{cls.name:14s} 1 core   {rate:12,.0f} games/s  ratio {rate / 1e6:5.2f}x goal  accuracy {acc:.4f}")
    # The runner spreads units over joblib workers; time two workers on a warm pool.
    from joblib import Parallel, delayed

    with Parallel(n_jobs=2) as pool:
        pool(delayed(informed_games)(1000, args.k, OneThresholdAttack, np.random.default_rng(i)) for i in range(2))
        for cls in (OneThresholdAttack, TwoThresholdAttack):
            t = time.perf_counter()
            out = pool(delayed(informed_games)(args.games // 2, args.k, cls, np.random.default_rng(10 + i))
                       for i in range(2))
            rate = args.games / (time.perf_counter() - t)
            acc = float(np.mean([a for _, a in out]))
            print(f"{cls.name:14s} 2 workers {rate:11,.0f} games/s  ratio {rate / 1e6:5.2f}x goal  accuracy {acc:.4f}")

    print("# page default: closed-form first plot, then the default run")
    sc = get("location")
    cfg = sc.resolve({})
    _theory.cache_clear()
    t = time.perf_counter()
    theory_curves(cfg)
    first = time.perf_counter() - t
    print(f"closed-form curves (first plot): {first:6.2f} s   ratio {first / 10:5.2f} of the 10 s budget")
    t = time.perf_counter()
    res = games.run("location", {}, seed=0)
    total = time.perf_counter() - t
    print(f"default run ({res.games_done} units, {sum(r['games'] for r in res.records):,} test games): "
          f"{total:6.2f} s; two-threshold acc {res.metrics['two-threshold_accuracy']:.4f}")

    if args.skip_mlp:
        return
    from core.attacks.location.meta_classifier import MetaClassifierMLP

    k, m = args.k, args.mlp_shadows
    print(f"# MLP meta-classifier, informed, k={k}, {m:,} training shadows (goal <= 180 s)")
    y = balanced_labels(m)
    X = noise("laplace", 2.0, (m, k), rng) + y[:, None]
    yv = balanced_labels(min(m, 20_000))
    Xv = noise("laplace", 2.0, (yv.size, k), rng) + yv[:, None]
    yt = balanced_labels(50_000)
    Xt = noise("laplace", 2.0, (yt.size, k), rng) + yt[:, None]
    t = time.perf_counter()
    mlp = MetaClassifierMLP(seed=0).fit(X, y, Xv, yv)
    sec = time.perf_counter() - t
    print(f"trained in {sec:6.1f} s ({len(mlp.history_['epoch'])} epochs, best {mlp.best_epoch_})  "
          f"ratio {sec / 180:5.2f} of budget  test accuracy {mlp.score(Xt, yt):.4f} "
          f"(spec pilot 200k: 0.952; two-threshold 0.958)")


if __name__ == "__main__":
    main()
