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

``--mbi`` instead times MST and AIM (seeded noise on OpenDP's accounting, mbi's estimation) beside PrivBayes, all
at ε = 1 (``--epsilon``), fitted on n = 10⁴ and 10⁵ records of the same table and sampling as many rows (``--sizes``
to change), or with ``--game`` on the default synthetic game's data (CCES16, n = 1000, d = 11): wall and CPU
seconds of the fit (for MST and AIM mostly JAX compiling mirror descent, once per estimation), of sampling, and
the 3-way MAE. The imports of OpenDP, mbi and JAX are timed apart; the first fit of a process also pays JAX's own
start-up and first compilations.

Measured 2026-11-29 under a load average of 15–40 (CPU seconds; wall 3–10× more), before → after the lab ran
the algorithms itself with seeded noise (docs/BENCHMARKS.md has the table and where the time went):
MST 88 → 22 CPU s at n = 10⁴ (13 at 10⁵, a process's second fit); AIM 443–513 → 84–86 CPU s at n = 10⁴–10⁵; on the
default game MST 22 and AIM 43 CPU s; PrivBayes 0.1–1.6 CPU s throughout. 3-way MAE at 10⁵: MST and AIM 0.00028,
PrivBayes 0.00056.

``--games N`` instead plays N games of each 10⁶-row synthetic preset (``synthetic-rap-1e6``,
``synthetic-ctgan-1e6``: CCES16, n = 1000, 3-way queries, every size of the ladder) in this process and prints
the CPU seconds of one game — generator fit, sampling 10⁶ rows, and the rest (queries, counting, the six LPs,
utility) — once through the libraries' own sampling path ("before": sdv's ``sample()`` for CTGAN) and once as
the lab plays it ("after"), with the games that fit in a preset's 600 s at that rate and their 95% interval at
an accuracy of 0.5. CPU seconds (``time.process_time``, one thread) are what the cost estimate counts and are
far steadier than wall time on the shared machine. The first game of a process also pays sdv's import and
torch's warm-up; it is reported apart.

Measured 2026-11-25 (load average 3–4, ``--games 3``), CPU seconds per game: RAP 15.2 (fit 13.5, sample 0.42,
rest 1.3), the same code before and after; CTGAN before 19.8 (fit 2.9, sample 14.1, rest 2.7), after 14.5
(sample 8.8). At those rates 600 s holds 39 RAP and 41 CTGAN games (±0.16 at 0.5); the presets play 30 and 34,
what the scenario's more cautious cost estimate admits.
"""
from __future__ import annotations

import argparse
import contextlib
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


def game_table(n: int = 1000) -> Dataset:
    """The default synthetic game's data: the first ``n`` records of CCES16 (d = 11, a state column of 51)."""
    from core.scenario import get
    from core.scenarios.synthetic.data import load_game_data

    codes, domain, _, _ = load_game_data(get("synthetic").resolve({}))
    return Dataset.from_codes(codes[:n], domain, name="cces16")


def mbi_main(sizes: list[int], epsilon: float, only: list[str] | None, game: bool = False) -> None:
    names = only or ["privbayes", "mst", "aim"]
    t0 = time.perf_counter()
    import jax  # noqa: F401  (the imports MST and AIM pay once per process, timed apart)
    import mbi  # noqa: F401
    import opendp.prelude  # noqa: F401
    print(f"imports (OpenDP, mbi, JAX), once per process: {time.perf_counter() - t0:.1f} s", flush=True)
    tables = {("game", 1000): game_table()} if game else {("chain", n): table(n) for n in sizes}
    shape = ("the default synthetic game: CCES16, n = 1000, d = 11" if game
             else f"d = {len(CARDS)} (cardinalities {CARDS})")
    print(f"{shape}, ε = {epsilon}")
    print(f"{'generator':<12}{'n':>9}{'fit s':>9}{'fit cpu s':>10}{'sample s':>10}{'3-way MAE':>11}", flush=True)
    for name in names:  # generator by generator, so the fast ones are printed first
        for (_, n), data in tables.items():
            qm = ThreeWayMarginals(data.cardinalities)
            true = qm.data_answers(data.codes())
            gen = get_synthesizer(name, epsilon=epsilon)
            t0, c0 = time.perf_counter(), time.process_time()
            gen.fit(data, np.random.default_rng(1))
            fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
            t0 = time.perf_counter()
            s = gen.sample(n, np.random.default_rng(2))
            sample_s = time.perf_counter() - t0
            mae = float(np.abs(qm.data_answers(s[:100_000]) - true).mean())
            print(f"{name:<12}{n:>9,}{fit_s:>9.1f}{fit_cpu:>10.1f}{sample_s:>10.2f}{mae:>11.5f}", flush=True)


PRESETS = ("synthetic-rap-1e6", "synthetic-ctgan-1e6")


def _timed_games(preset: str, games: int, library_sampling: bool) -> list[dict]:
    """CPU seconds of fit, sample and the rest for each of ``games`` games of ``preset`` (fresh caches)."""
    from unittest import mock

    from core.runtime.games import game_rng
    from core.scenario import get, prepare_rng
    from core.scenarios.synthetic.data import clear_caches
    from core.studies.presets import get_preset
    from core.releases.synthesizers.base import Synthesizer
    from core.releases.synthesizers.sdv_models import CTGAN

    p = get_preset(preset)
    sc = get(p["scenario"])
    config = sc.resolve({**p["params"], "games": games})
    spent = {"fit": 0.0, "sample": 0.0}

    def clocked(name, method):
        def wrapper(self, *args, **kwargs):
            start = time.process_time()
            try:
                return method(self, *args, **kwargs)
            finally:
                spent[name] += time.process_time() - start
        return wrapper

    patches = [mock.patch.object(Synthesizer, "fit", clocked("fit", Synthesizer.fit)),
               mock.patch.object(Synthesizer, "sample", clocked("sample", Synthesizer.sample))]
    if library_sampling:
        patches.append(mock.patch.object(CTGAN, "_fast_codes", lambda self, m: None))
    clear_caches()
    out = []
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        context = sc.prepare(config, prepare_rng(p["seed"]))
        for i in range(games):
            spent.update(fit=0.0, sample=0.0)
            start = time.process_time()
            sc.play(config, context, i, game_rng(p["seed"], i))
            total = time.process_time() - start
            out.append({"fit": spent["fit"], "sample": spent["sample"],
                        "rest": total - spent["fit"] - spent["sample"], "total": total})
            clear_caches()
    return out


def games_main(games: int) -> None:
    from threadpoolctl import threadpool_limits

    from core.measure.metrics import clopper_pearson

    print(f"CPU seconds per game (one thread), mean of games 2–{games} (game 1, with imports/warm-up, apart)")
    print(f"{'preset':<22}{'path':<8}{'game 1':>8}{'fit':>8}{'sample':>8}{'rest':>8}{'game':>8}"
          f"{'in 600 s':>10}{'±95% @0.5':>11}")
    with threadpool_limits(limits=1):
        for preset in PRESETS:
            # RAP has no separate library path: its one line is the lab's code as it stands
            for label, library in ((("before", True),) if "ctgan" in preset else ()) + (("after", False),):
                rows = _timed_games(preset, games, library)
                later = rows[1:] or rows
                mean = {k: float(np.mean([r[k] for r in later])) for k in ("fit", "sample", "rest", "total")}
                fits = int((600 - 1) // mean["total"])
                lo, hi = clopper_pearson(fits // 2, fits) if fits else (0.0, 1.0)
                print(f"{preset:<22}{label:<8}{rows[0]['total']:>8.1f}{mean['fit']:>8.2f}{mean['sample']:>8.2f}"
                      f"{mean['rest']:>8.2f}{mean['total']:>8.2f}{fits:>10d}{(hi - lo) / 2:>11.3f}", flush=True)


if __name__ == "__main__":
    if "--mbi" in sys.argv:
        ap = argparse.ArgumentParser(description="MST and AIM beside PrivBayes")
        ap.add_argument("--mbi", action="store_true")
        ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
        ap.add_argument("--epsilon", type=float, default=1.0)
        ap.add_argument("--only", nargs="*", default=None)
        ap.add_argument("--game", action="store_true", help="fit on the default synthetic game's data instead")
        a = ap.parse_args()
        mbi_main(a.sizes, a.epsilon, a.only, a.game)
    elif "--games" in sys.argv:
        at = sys.argv.index("--games")
        games_main(int(sys.argv[at + 1]) if at + 1 < len(sys.argv) else 3)
    else:
        main()
