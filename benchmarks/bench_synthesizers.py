"""Time every registered synthetic-data generator: fit at n = 1000 and sample(10⁶).

Setting (the linear-reconstruction paper §5; the FIRE-like width d = 10): a fixed 10-attribute categorical table
built with numpy (cardinalities 2–10, a chain of noisy copies so there is structure to learn), so the script runs
without any scenario or dataset file. Each generator is fitted with its default parameters (RAP and RAP^softmax at
the paper's T = 2000 steps, CTGAN/TVAE at the page default of 30 epochs, DP ones at ε = 1) unless changed on the
command line. Prints a table of seconds plus the mean absolute error of all 3-way marginal cells of 10⁵ sampled
records against the data (a utility check: lower is better).

Timings depend on machine load (2 shared cores): treat them as orders of magnitude. "fit cpu s" is the
process CPU time of the fit (all threads), less sensitive to other processes than the wall-clock "fit s".

    .venv/bin/python benchmarks/bench_synthesizers.py [--n 1000] [--m 1000000] [--steps 2000] [--epochs 30]
                                                      [--only rap baynet ...]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.data.dataset import Dataset  # noqa: E402
from core.releases.synthesizers import SYNTHESIZERS, get_synthesizer  # noqa: E402
from core.releases.synthesizers._relaxed_marginals import ThreeWayMarginals  # noqa: E402

CARDS = (2, 3, 4, 5, 6, 2, 3, 4, 8, 10)


def table(n: int, seed: int = 0) -> Dataset:
    """Each attribute copies (a function of) the previous one with probability 0.6, else is uniform."""
    rng = np.random.default_rng(seed)
    codes = np.empty((n, len(CARDS)), dtype=np.int64)
    codes[:, 0] = rng.integers(0, CARDS[0], n)
    for j in range(1, len(CARDS)):
        copy = rng.random(n) < 0.6
        codes[:, j] = np.where(copy, codes[:, j - 1] % CARDS[j], rng.integers(0, CARDS[j], n))
    return Dataset.from_codes(codes, {f"a{j}": tuple(range(k)) for j, k in enumerate(CARDS)}, name="bench")


def params_for(name: str, args) -> dict:
    cls = SYNTHESIZERS[name]
    kw: dict = {}
    if cls.dp:
        kw["epsilon"] = args.epsilon
    if name in ("rap", "rap-softmax"):
        kw["steps"] = args.steps
    if name in ("ctgan", "tvae"):
        kw["epochs"] = args.epochs
    return kw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--m", type=int, default=1_000_000)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()

    data = table(args.n)
    qm = ThreeWayMarginals(data.cardinalities)
    true = qm.data_answers(data.codes())
    names = args.only or sorted(SYNTHESIZERS, key=lambda s: (SYNTHESIZERS[s].slow, s))
    print(f"n = {args.n}, d = {len(CARDS)} (cardinalities {CARDS}), {qm.n_queries} 3-way cells, m = {args.m:,}")
    print(f"{'generator':<16}{'params':<44}{'fit s':>9}{'fit cpu s':>10}{'sample s':>10}{'3-way MAE':>11}")
    for name in names:
        kw = params_for(name, args)
        gen = get_synthesizer(name, **kw)
        t0, c0 = time.perf_counter(), time.process_time()
        gen.fit(data, np.random.default_rng(1))
        fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        s = gen.sample(args.m, np.random.default_rng(2))
        sample_s = time.perf_counter() - t0
        mae = float(np.abs(qm.data_answers(s[:100_000]) - true).mean())
        shown = ", ".join(f"{k}={v}" for k, v in gen.params().items())
        print(f"{name:<16}{shown:<44}{fit_s:>9.2f}{fit_cpu:>10.2f}{sample_s:>10.2f}{mae:>11.5f}", flush=True)


if __name__ == "__main__":
    main()
