"""Time the DeSIA reconstruction baselines (CIP-rand/-init, RAP-rand/-init) on a census-like release.

Setting (docs/specs/seed000_desia.md §3.2, §12): attributes sex (2), age (116), race (63 CENRACE codes), hispanic
(2, sensitive, uniformly randomised); s = 454 records; m ≈ s/4 = 113 random cells of 1- to 3-way marginals
(SF1-style age groups, race alone / alone-or-in-combination, Hispanic origin). The data here are synthetic.

Prints seconds per reconstruction for every attack plus the fit quality (CIP: exact / L1 error; RAP: mean
absolute error of the normalised answers) and, for reference, the AIA/MIA vote timings.

    .venv/bin/python benchmarks/bench_baselines.py [--k 10] [--rap-k 100] [--steps 1000] [--noise-eps 1.0]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.attacks.aggregates.cip import CIP, aggregate_domain  # noqa: E402
from core.attacks.aggregates.neighbourhood_vote import aia_scores, mia_scores  # noqa: E402
from core.attacks.aggregates.rap import RAP  # noqa: E402
from core.releases.aggregate_release import AggregateRelease  # noqa: E402

CARDS = (2, 116, 63, 2)
NAMES = ("sex", "age", "race", "hispanic")
AGE_EDGES = [0, 5, 10, 15, 18, 20, 21, 22, 25, 30, 35, 40, 45, 50, 55, 60, 62, 65, 67, 70, 75, 80, 85, 116]


def census_like(n: int, rng: np.random.Generator) -> np.ndarray:
    """Synthetic PPMF-like records: age pyramid, 50/50 sex, skewed CENRACE, random Hispanic."""
    sex = rng.integers(0, 2, n)
    age_w = np.exp(-np.arange(116) / 45.0)
    age_w[95:] *= np.exp(-(np.arange(95, 116) - 95) / 3.0)
    age = rng.choice(116, size=n, p=age_w / age_w.sum())
    race_w = np.full(63, 0.15 / 57)
    single = [0, 1, 3, 7, 15, 31]  # CENRACE code v ↔ race bit-set v+1: the six races alone
    race_w[single] = [0.70, 0.10, 0.01, 0.03, 0.002, 0.0]
    race_w /= race_w.sum()
    race = rng.choice(63, size=n, p=race_w)
    hisp = rng.integers(0, 2, n)
    return np.stack([sex, age, race, hisp], axis=1)


def random_cells(m: int, rng: np.random.Generator) -> list[tuple]:
    """m distinct random cells of 1-, 2- and 3-way marginals over (sex, age group, race, hispanic)."""
    bits = np.arange(1, 64)

    def age_mask(g):
        mk = np.zeros(116, bool)
        mk[AGE_EDGES[g]:AGE_EDGES[g + 1]] = True
        return mk

    def race_mask():
        r = rng.integers(6)
        mk = (bits & (1 << r)) > 0
        return mk & (bits == (1 << r)) if rng.random() < 0.5 else mk  # alone / alone-or-in-combination

    def value_mask(card, v):
        mk = np.zeros(card, bool)
        mk[v] = True
        return mk

    cells, seen = [], set()
    while len(cells) < m:
        k = rng.integers(1, 4)
        attrs = sorted(rng.choice(4, size=k, replace=False))
        q = [None] * 4
        for a in attrs:
            if a == 1:
                q[1] = age_mask(rng.integers(len(AGE_EDGES) - 1))
            elif a == 2:
                q[2] = race_mask()
            else:
                q[a] = value_mask(2, rng.integers(2))
        key = tuple(None if x is None else x.tobytes() for x in q)
        if key not in seen:
            seen.add(key)
            cells.append(tuple(q))
    return cells


def build_release(s: int, m: int, rng: np.random.Generator, eps: float = 0.0):
    data = census_like(s, rng)
    aux = census_like(9 * s, rng)
    masks = random_cells(m, rng)
    rel = AggregateRelease(NAMES, CARDS, masks, np.zeros(m), s)
    answers = rel.evaluate(data).astype(float)
    if eps > 0:
        answers = np.round(answers + rng.laplace(0, 1 / eps, m))
    return AggregateRelease(NAMES, CARDS, masks, answers, s, eps), data, aux


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--s", type=int, default=454)
    ap.add_argument("--k", type=int, default=10, help="CIP reconstructions")
    ap.add_argument("--rap-k", type=int, default=100)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--noise-eps", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    m = round(0.25 * args.s)
    rel, data, aux = build_release(args.s, m, rng)
    t = time.perf_counter()
    agg = aggregate_domain(rel)
    print(f"release: s={args.s}, m={m}; domain {np.prod(CARDS):,} cells -> {agg.n_groups} groups "
          f"(coarse grid {agg.coarse_shape}, {time.perf_counter() - t:.2f}s)")

    for init in ("rand", "init"):
        cip = CIP(init=init, reconstructions=args.k, time_limit=60)
        t = time.perf_counter()
        rec = cip.reconstruct(rel, np.random.default_rng(1), aux_records=aux)
        dt = time.perf_counter() - t
        exact = np.mean([np.array_equal(rel.evaluate(r), rel.answers) for r in rec])
        print(f"CIP-{init}: K={args.k}: {dt / args.k:.3f} s/reconstruction, exact fit {exact:.2f}, "
              f"distinct datasets {len({r[np.lexsort(r.T)].tobytes() for r in rec})}/{args.k}")

    noisy, _, _ = build_release(args.s, m, np.random.default_rng(args.seed), eps=args.noise_eps)
    cip = CIP(init="init", reconstructions=min(args.k, 5), time_limit=20)
    t = time.perf_counter()
    cip.reconstruct(noisy, np.random.default_rng(2), aux_records=aux)
    dt = time.perf_counter() - t
    print(f"CIP-init noisy eps={args.noise_eps}: {dt / cip.reconstructions:.3f} s/reconstruction, "
          f"L1 error {np.mean([st['l1_error'] for st in cip.stats_]):.1f} "
          f"(optimal {sum(st['optimal'] for st in cip.stats_)}/{cip.reconstructions})")

    for init in ("rand", "init"):
        rap = RAP(init=init, reconstructions=args.rap_k, steps=args.steps)
        t = time.perf_counter()
        rec = rap.reconstruct(rel, np.random.default_rng(3), aux_records=aux)
        dt = time.perf_counter() - t
        err = np.mean([np.abs(rel.evaluate(r) - rel.answers).mean() for r in rec])
        print(f"RAP-{init}: K={args.rap_k}, steps={args.steps}: {dt / args.rap_k:.3f} s/reconstruction "
              f"({dt:.1f} s total); relaxed MAE {rap.history_[0]:.4f} -> {rap.history_[-1]:.4f} "
              f"(normalised), sampled-data MAE {err:.2f} counts")

    targets = data[:, :3]
    t = time.perf_counter()
    aia_scores(rec, targets, np.random.default_rng(4))
    t_aia = time.perf_counter() - t
    t = time.perf_counter()
    mia_scores(rec, data)
    print(f"votes over K={len(rec)}: AIA {t_aia:.3f} s and MIA {time.perf_counter() - t:.3f} s "
          f"for {len(data)} targets")


if __name__ == "__main__":
    main()
