"""Benchmark: Dinur–Nissim LP decoder (core.attacks.reconstruction.dinur_nissim_lp.solve_lp) vs scipy linprog.

For n ∈ {100, 400, 1000} and m = 2n uniformly random subset queries (each element with
probability 1/2), exact answers and Gaussian noise σ = 0.1·√n, time in the same process:

* ``solve_lp`` as the app calls it (``method="auto"``: certified shortcut on consistent
  answers, else the dense interior point of ``core/solvers/frisch_newton.py`` with its
  duality-gap certificate);
* ``solve_lp(method="highs")``: the same LP through highspy (dual LP on IPX);
* the straightforward primal LP for average error, variables [x; E], ``c = [0; 1]``,
  ``A_ub = [[M, −I]; [−M, −I]]``, ``b_ub = [a; −a]``, via ``scipy.optimize.linprog``
  with ``method="highs-ipm"`` and with the default ``method="highs"``.

Prints wall and CPU seconds, speed-up ratios (baseline / ours), the relative difference
of the LP objective against HiGHS, the fraction of bits recovered by each, and whether
n = 1000 met the < 1 s target (median of ``--repeats`` runs). A baseline that exceeds
``--baseline-limit`` seconds is stopped by HiGHS's time limit and shown as ``>limit``.

    python benchmarks/bench_reconstruction.py [--quick] [--repeats R] [--baseline-limit S]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from scipy.optimize import linprog  # noqa: E402

from core.attacks.reconstruction.dinur_nissim_lp import solve_lp  # noqa: E402


def instance(n: int, sigma: float, seed: int):
    rng = np.random.default_rng(seed)
    m = 2 * n
    x = rng.integers(0, 2, n)
    M = (rng.random((m, n)) < 0.5).astype(float)
    a = M @ x + (rng.normal(0.0, sigma, m) if sigma > 0 else 0.0)
    return M, a, x


def baseline_linprog(M, a, method: str, limit: float):
    """Primal LP for average error exactly as in the spec (slide 9, algorithm 3)."""
    m, n = M.shape
    Ms = sp.csr_matrix(M)
    I = sp.identity(m, format="csr")
    A = sp.vstack([sp.hstack([Ms, -I]), sp.hstack([-Ms, -I])]).tocsr()
    c = np.r_[np.zeros(n), np.ones(m)]
    res = linprog(c, A_ub=A, b_ub=np.r_[a, -a], bounds=[(0, 1)] * n + [(0, None)] * m,
                  method=method, options={"time_limit": limit})
    if res.status == 1 or res.x is None:  # time / iteration limit
        return None
    return res.x[:n]


def timed(f):
    w, c = time.perf_counter(), time.process_time()
    out = f()
    return out, time.perf_counter() - w, time.process_time() - c


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="n in {50, 100, 200} only")
    ap.add_argument("--repeats", type=int, default=5, help="median-of-R timing for solve_lp")
    ap.add_argument("--baseline-limit", type=float, default=120.0,
                    help="HiGHS time limit for each baseline solve (seconds)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sizes", default="100,400,1000", help="comma-separated n values")
    args = ap.parse_args(argv)
    sizes = [50, 100, 200] if args.quick else [int(v) for v in args.sizes.split(",")]
    lim = args.baseline_limit

    print(f"Dinur–Nissim LP decoder benchmark: m = 2n, random subsets p = 1/2, seed {args.seed}")
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          "(wall seconds inflate under load; CPU seconds less so)\n")
    hdr = (f"{'n':>5} {'answers':>10} | {'ours wall':>9} {'cpu':>6} | {'highspy':>8} {'ratio':>6} |"
           f" {'ipm wall':>9} {'ratio':>6} | {'highs wall':>10} {'ratio':>6} | {'obj vs highspy':>14} |"
           f" {'acc ours':>8} {'ipm':>5} {'highs':>5} {'same':>5}")
    print(hdr)
    print("-" * len(hdr))
    target = {}
    for n in sizes:
        for label, sigma in (("exact", 0.0), ("σ=0.1√n", 0.1 * np.sqrt(n))):
            M, a, x = instance(n, sigma, args.seed + n)
            runs = [timed(lambda: solve_lp(M, a)) for _ in range(max(1, args.repeats))]
            walls = sorted(r[1] for r in runs)
            w_o = walls[len(walls) // 2]
            xo, c_o = runs[0][0], float(np.median([r[2] for r in runs]))
            xh, w_h, _ = timed(lambda: solve_lp(M, a, method="highs"))
            xi, w_i, c_i = timed(lambda: baseline_linprog(M, a, "highs-ipm", lim))
            xs, w_s, c_s = timed(lambda: baseline_linprog(M, a, "highs", lim))

            def acc(v):
                return "  -  " if v is None else f"{np.mean((v >= 0.5) == x):.3f}"

            def fmt(v, t):
                return f">{lim:.0f}" if v is None else f"{t:.3f}"

            def ratio(v, t):
                return f">{lim / w_o:.1f}" if v is None else f"{t / w_o:.1f}"

            l1o, l1h = (float(np.abs(a - M @ v).sum()) for v in (xo, xh))
            rel = abs(l1o - l1h) / max(1.0, l1h)
            ref = xi if xi is not None else xs
            same = "  -  " if ref is None else f"{np.mean((xo >= 0.5) == (ref >= 0.5)):.3f}"
            print(f"{n:>5} {label:>10} | {w_o:>9.3f} {c_o:>6.2f} | {w_h:>8.3f} {w_h / w_o:>6.1f} |"
                  f" {fmt(xi, w_i):>9} {ratio(xi, w_i):>6} | {fmt(xs, w_s):>10} {ratio(xs, w_s):>6} |"
                  f" {rel:>14.1e} | {acc(xo):>8} {acc(xi):>5} {acc(xs):>5} {same:>5}", flush=True)
            if n == 1000:
                target[label] = walls
    print("\nours = solve_lp as the app runs it (median wall of the repeats); highspy = solve_lp(method='highs');"
          " ipm / highs = scipy linprog baselines.\nratio = other wall seconds / ours; 'obj vs highspy' ="
          " relative difference of ‖a − Mx̂‖₁; 'same' = fraction of rounded bits on which ours agrees with the"
          " highs-ipm baseline (highs if ipm timed out).")
    for label, walls in target.items():
        med = walls[len(walls) // 2]
        print(f"n=1000 target (< 1 s), {label}: median {med:.3f} s (min {walls[0]:.3f}, max {walls[-1]:.3f})"
              f" -> {'MET' if med < 1.0 else 'NOT met'}")


if __name__ == "__main__":
    main()
