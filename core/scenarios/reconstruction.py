"""Scenario ``reconstruction``: Dinur–Nissim reconstruction from noisy subset sums.

Source: CS208 lecture 2 "Reidentification & Reconstruction Attacks" (Vadhan et
al., 2025), slides 7–9, and its problem set 2; spec Part B of
``docs/specs/seed003_004_disparate_and_cs208.md``.

One game: draw a population with a secret bit per person, release
``m = round(query_ratio · n)`` subset-sum answers through the defence, run the
attack, and score the fraction of secret bits recovered. Besides the
``trials`` games at the chosen setting, the run sweeps the query ratio and the
defence level (``sweeps=true``) so the plots show where reconstruction breaks
down: at noise of order √n, the sampling error of a count.
"""
from __future__ import annotations

import copy
import functools
import json
import math
import time

import numpy as np

from ..attacks.reconstruction.dinur_nissim import DECODERS, ILP_MAX_N, DinurNissimAttack
from ..attacks.reconstruction.dinur_nissim_lp import METHODS
from ..attacks.reconstruction.exposure import CERTIFY_TRIALS, _person_rows, certify_seconds, exposure_table
from ..cancel import checkpoint
from ..data.healthcare import PUBLIC, healthcare_population
from ..errors import ParameterError
from ..measure.metrics import empirical_epsilon, proportion_ci_of_mean
from ..measure.records import RECORDS_MAX
from ..params import Param
from ..releases.gaussian import Gaussian
from ..releases.mechanism import Identity
from ..releases.rounding import Rounding
from ..releases.subsampling import Subsampling
from ..releases.subset_queries import FAMILIES, make_queries
from ..scenario import Scenario, register
from ..theory.dinur_nissim import dp_bit_bound, expected_majority, ls_accuracy
from ..cost import Cost

DEFENSES = ("none", "rounding", "gaussian", "subsample")
RATIO_GRID = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)
# Defence levels in units of √n (Gaussian σ; rounding error std R/√12 on the same scale).
NOISE_GRID = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5)
SUBSAMPLE_GRID = (1.0, 0.9, 0.75, 0.5, 0.3, 0.2, 0.1, 0.05)
DELTA = 1e-5  # δ at which the Gaussian defence's ε is reported


def defense_mechanism(defense: str, level: float, n: int):
    if defense == "none" or (defense in ("gaussian", "rounding") and level == 0):
        return Identity()
    if defense == "gaussian":
        return Gaussian.from_sigma(level, delta=DELTA)
    if defense == "rounding":
        return Rounding(level)
    if defense == "subsample":
        return Subsampling(int(round(level)), n)
    raise ParameterError("defense", f"expected one of {'|'.join(DEFENSES)}, got {defense!r}")


def release_privacy(defense: str, level: float, n: int, m: int, queries: str,
                    bug: str = "none") -> tuple[float, float]:
    """(ε, δ) the release claims: for Gaussian noise σ > 0, ε at δ = 1e-5 with L2 sensitivity √(m/2) (each person
    is in about half of m random subsets; √m for hash predicates); ``(inf, 0)`` for the other defences.
    ``bug="per-query-sensitivity"`` (known-bug gallery only) claims the ε of one query, sensitivity 1."""
    mech = defense_mechanism(defense, level, n)
    eps, delta = mech.privacy
    if defense == "gaussian" and level > 0:
        sens = math.sqrt(m / 2.0 if queries == "random-subsets" else m)
        if bug == "per-query-sensitivity":
            sens = 1.0
        eps = Gaussian.from_sigma(level, DELTA, sensitivity=sens).epsilon
    return eps, delta


def _solve_seconds(solver: str, lp_method: str, queries: str, n: int, m: int, exact: bool) -> float:
    """Estimated CPU seconds of one game's decoder (see :meth:`Reconstruction.estimate_cost`)."""
    if solver == "ilp":
        return 0.02 + 0.001 * n if exact else 0.05 + 4.0 * (n / 60) ** 3
    if solver == "lsq":
        return 0.012 + 3.5e-10 * n * n * m
    degenerate = 0.02 + 5.5e-9 * n ** 3 if exact and 0.3 * n < m < n else 0.0
    if queries == "hash":  # hashed public attributes: people collide, so even exact answers leave a degenerate LP
        seconds = max(degenerate, 0.03 + 5e-13 * n ** 3.3 * m) if exact else 0.025 + 2e-3 * m * (n / 1000) ** 1.6
    elif exact and m >= n:
        seconds = 0.006 + 1.8e-9 * n ** 1.5 * m
    else:
        seconds = degenerate or 0.025 + 1.42e-8 * n ** 1.5 * max(m, n)
    return min(60.0, seconds * (8 if lp_method == "highs" and not degenerate else 1))


def sweep_levels(defense: str, n: int) -> tuple[str, list[float]]:
    """The defence-level grid swept for the level plot (and the defence it applies)."""
    root = math.sqrt(n)
    if defense == "subsample":
        return "subsample", sorted({max(1, int(round(f * n))) for f in SUBSAMPLE_GRID}, reverse=True)
    if defense == "rounding":
        return "rounding", sorted({max(1.0, round(c * root * math.sqrt(12), 1)) for c in NOISE_GRID})
    return "gaussian", [round(c * root, 4) for c in NOISE_GRID]


@register
class Reconstruction(Scenario):
    name = "reconstruction"
    title = "Reconstruction attack (Dinur–Nissim)"
    summary = ("Release m noisy subset sums of n secret bits; an LP recovers almost every bit "
               "unless the noise reaches the order of √n.")
    paper = "CS208 lecture 2 (Vadhan et al. 2025), slides 7–9; Dinur & Nissim (2003)"
    params = (
        Param("n", "int", 100, "people (= secret bits)", label="People n", low=5, high=2000, step=5),
        Param("query_ratio", "float", 2.0, "released queries per person, m/n", label="Query ratio m/n",
              low=0.05, high=8.0, step=0.05),
        Param("queries", "str", "random-subsets", "how query sets are chosen: random halves of the people, "
              "or PS2 hash predicates on public attributes", label="Query family", choices=FAMILIES),
        Param("defense", "str", "none", "how answers are protected", label="Defence", choices=DEFENSES,
              choice_labels={"none": "none (exact answers)", "rounding": "rounding to a multiple of R",
                             "gaussian": "Gaussian noise of std σ", "subsample": "answers from a subsample of t"}),
        Param("defense_level", "float", 0.0, "rounding base R, Gaussian σ, or subsample size t",
              label="Defence level (R, σ or t)", low=0.0, high=1e6,
              active_when=("defense", ("rounding", "gaussian", "subsample"))),
        Param("noise_unit", "str", "absolute", "read the Gaussian σ or rounding base R as an absolute count, or in "
              "units of √n (σ = level·√n), so settings compare across n", label="Defence level unit",
              choices=("absolute", "sqrt_n"), choice_labels={"absolute": "absolute", "sqrt_n": "× √n"},
              active_when=("defense", ("rounding", "gaussian"))),
        Param("solver", "str", "lp", "decoder: LP for average error, least squares, "
              f"or integer program (n ≤ {ILP_MAX_N})", label="Solver", choices=DECODERS,
              choice_labels={"lp": "LP (average error)", "lsq": "least squares",
                             "ilp": f"integer program (n ≤ {ILP_MAX_N})"}),
        Param("lp_method", "str", "auto", "how the LP is solved: a dense interior-point method whose answer "
              "carries a duality-gap certificate (HiGHS if it cannot certify), or HiGHS (highspy) only; "
              "both reach the same optimum, the dense method 6–10× faster at n = 1000",
              label="LP engine", choices=METHODS,
              choice_labels={"auto": "dense interior point (certified)", "ipm": "dense interior point only",
                             "highs": "HiGHS"}, active_when=("solver", ("lp",))),
        Param("trials", "int", 10, "independent games at this setting", label="Trials", low=1, high=1000),
        Param("secret_rate", "float", 0.5, "share of people whose secret bit is 1", label="Secret rate",
              low=0.0, high=1.0),
        Param("sweeps", "bool", True, "also sweep m/n and the defence level for the plots",
              label="Sweep m/n and defence level"),
        Param("bug", "str", "none", "re-create a documented DP accounting bug (the known-bug gallery of the Paper "
              "presets page): per-query-sensitivity claims the ε of one query (L2 sensitivity 1) although each "
              "person is in about m/2 of them — the under-estimated sensitivity Casacuberta et al. (CCS 2022) "
              "found in several DP libraries", ui=False, choices=("none", "per-query-sensitivity")),
    )

    @staticmethod
    def level(config) -> float:
        """The defence level in absolute units (σ, R or t)."""
        if config["noise_unit"] == "sqrt_n" and config["defense"] in ("gaussian", "rounding"):
            return config["defense_level"] * math.sqrt(config["n"])
        return config["defense_level"]

    def check(self, config):
        if config["solver"] == "ilp" and config["n"] > ILP_MAX_N:
            raise ParameterError("n", f"solver ilp needs n <= {ILP_MAX_N} (integer programs are exponential "
                                      f"in the worst case); got n={config['n']}")
        if config["defense"] == "subsample":
            t = config["defense_level"]
            if t != int(t) or not 1 <= t <= config["n"]:
                raise ParameterError("defense_level", f"subsample size t must be an int in [1, n={config['n']}], "
                                                      f"got {t:g}")
        if config["defense"] == "rounding" and 0 < self.level(config) < 1:
            raise ParameterError("defense_level", f"rounding base R must be >= 1, got {self.level(config):g}")
        if max(1, round(config["query_ratio"] * config["n"])) > 20000:
            raise ParameterError("query_ratio", "at most 20000 queries (m = query_ratio · n)")

    def estimate_cost(self, config):
        """Σ over the run's games of one decoder solve, in CPU seconds on one core of the 2-core AMD EPYC lab machine
        (measured 2026-11-23 with benchmarks/bench_cost.py; a game's data and queries add a few milliseconds):

        * LP, **exact answers and m ≥ n** (no defence): a consistent point is found directly,
          ≈ 0.006 + 1.8e-9·n^1.5·m s (n = 1000, m = 2000: 0.10 s; n = 2000, m = 4000: 0.62 s);
        * LP, **exact answers and 0.3·n < m < n** (the m/n sweep's 0.5 and 0.75): the optimum is degenerate and
          the solver falls back to HiGHS, ≈ 0.02 + 5.5e-9·n³ s whatever m (n = 300: 0.02–0.14 s; n = 1000:
          3.9–5.3 s; n = 2000: 54 s), at most the solver's 60 s limit;
        * LP, **noisy answers** (any defence above 0) or few exact ones: the dense interior point,
          ≈ 0.025 + 1.42e-8·n^1.5·max(m, n) s (n = 300, m = 1200: 0.085 s; n = 1000, m = 2000: 0.85 s;
          n = 2000, m = 4000: 5.5 s); HiGHS alone (lp_method = highs) ≈ 8× that;
        * the **hash** query family (people who share public attributes collide, so no answer set is ever
          consistent with one point): ≈ 0.025 + 2e-3·m·(n/1000)^1.6 s noisy (n = 1000, m = 4000: 8.8 s), exact
          ≈ 0.03 + 5e-13·n^3.3·m s (n = 300, m = 1200: 0.09 s; n = 1000, m = 4000: 16 s);
        * least squares ≈ 0.012 + 3.5e-10·n²·m s (n = 1000, m = 2000: 0.41 s; n = 2000, m = 2000: 2.7 s);
        * integer program (n ≤ 60): exact answers ≈ 0.02 + 0.001·n s, noisy ≈ 0.05 + 4·(n/60)³ s (n = 40:
          0.9 s; n = 60: 0.8–3.5 s);
        * 0.2 s per run for the solvers' imports in a fresh worker.
        * the per-person certificates (who is exposed): :func:`certify_seconds`, at most
          ``certify_budget(n)`` LP/IP solves per trial for the first ``CERTIFY_TRIALS`` trials
          (:mod:`core.attacks.reconstruction.exposure`).

        The old model (7e-7·n·m s per LP in every regime) over-estimated m ≥ n by 5–27× and under-estimated
        the degenerate solves by up to 10×. Memory ≈ 40·n·m + 8·n² bytes of the largest game (n = 2000,
        m = 4000, noisy: 342 MB measured)."""
        n = config["n"]
        units = [(config["query_ratio"], config["defense"], self.level(config))]
        if config["sweeps"]:
            sweep_defense, levels = sweep_levels(config["defense"], n)
            units += [(r, config["defense"], self.level(config)) for r in RATIO_GRID]
            units += [(config["query_ratio"], sweep_defense, lv) for lv in levels]
        seconds, largest = 0.0, 0
        for ratio, defense, level in units:
            m = max(1, round(ratio * n))
            largest = max(largest, n * m)
            exact = defense == "none" or level == 0 or (defense == "subsample" and level >= n)
            seconds += _solve_seconds(config["solver"], config["lp_method"], config["queries"], n, m, exact)
        return Cost(seconds=0.2 + config["trials"] * seconds + certify_seconds(config, self.level(config)),
                    bytes=20e6 + 40 * largest + 8 * n * n,
                    drivers=("n", "trials", "query_ratio"),
                    basis="trials × Σ solve(n, m, exact answers?) + the per-person certificates' solves")

    # ------------------------------------------------------------ games
    def prepare(self, config, rng):
        units = [("main", config["query_ratio"], config["defense"], self.level(config))]
        if config["sweeps"]:
            sweep_defense, levels = sweep_levels(config["defense"], config["n"])
            units += [("ratio", r, config["defense"], self.level(config)) for r in RATIO_GRID]
            units += [("level", config["query_ratio"], sweep_defense, lv) for lv in levels]
        return {"units": units, "sweep_defense": sweep_levels(config["defense"], config["n"])[0]}

    def n_games(self, config):
        sweep = len(RATIO_GRID) + len(sweep_levels(config["defense"], config["n"])[1]) if config["sweeps"] else 0
        return config["trials"] * (1 + sweep)

    def play(self, config, context, index, rng):
        units = context["units"]
        # Trials of the main setting first, then the sweep points interleaved, so live plots fill evenly.
        trials = config["trials"]
        if index < trials:
            kind, ratio, defense, level = units[0]
        else:
            kind, ratio, defense, level = units[1 + (index - trials) % (len(units) - 1)]
        n = config["n"]
        m = max(1, int(round(ratio * n)))
        people = healthcare_population(n, rng, config["secret_rate"])
        secret = people["result"].to_numpy()
        public = people[list(PUBLIC)].to_numpy()
        queries = make_queries(config["queries"], n, m, rng, public)
        exact = queries @ secret
        mech = defense_mechanism(defense, level, n)
        answers = mech.answer(queries, secret, rng)
        checkpoint("reconstruction: before the solve")
        start = time.perf_counter()
        attack = DinurNissimAttack(config["solver"], lp_method=config["lp_method"]).fit(queries, answers)
        seconds = time.perf_counter() - start
        majority = max(secret.mean(), 1 - secret.mean())
        guess = attack.predict()  # per-bit attribute game: confusion counts for the empirical ε (core.measure.audit)
        extra = {}
        if kind == "main" and (index + 1) * n <= RECORDS_MAX:  # per-person rows, bounded across trials
            extra = _person_rows(people, secret, guess, attack.x_fractional_, queries, answers, defense, level,
                                 certify=index < CERTIFY_TRIALS)
        return {**extra, "kind": kind, "query_ratio": ratio, "defense": defense, "level": level, "m": m,
                "fp": int(((guess == 1) & (secret == 0)).sum()), "fn": int(((guess == 0) & (secret == 1)).sum()),
                "positives": int(secret.sum()),
                "accuracy": attack.score(secret), "majority": float(majority),
                "rmse": float(np.sqrt(np.mean((answers - exact) ** 2))), "solver_seconds": seconds}

    def summarize(self, config, context, records):
        n = config["n"]
        main = [r for r in records if r["kind"] == "main"]
        metrics: dict = {}
        if main:
            acc = np.array([r["accuracy"] for r in main])
            lo, hi = proportion_ci_of_mean(acc, n)
            metrics = {
                "accuracy": float(acc.mean()), "accuracy_ci_low": lo, "accuracy_ci_high": hi,
                "accuracy_sd": float(acc.std(ddof=1)) if acc.size > 1 else 0.0,
                "exact_recovery_rate": float(np.mean(acc == 1.0)),
                "majority_baseline": float(np.mean([r["majority"] for r in main])),
                "answer_rmse": float(np.mean([r["rmse"] for r in main])),
                "solver_seconds": float(np.mean([r["solver_seconds"] for r in main])),
                "sqrt_n": math.sqrt(n), "queries": main[0]["m"], "trials_done": len(main),
            }
            level = self.level(config)
            eps, delta = release_privacy(config["defense"], level, n, main[0]["m"], config["queries"],
                                         config.get("bug", "none"))
            if config["defense"] == "gaussian" and level > 0:
                metrics["noise_over_sqrt_n"] = level / math.sqrt(n)
            metrics["release_epsilon"] = eps
            metrics["release_delta"] = delta if not math.isinf(eps) else 0.0
            # Per-bit attribute game: guessing person i's bit is a test of x_i = 1 vs 0 that any (ε, δ)-DP release
            # bounds; pooled over people and trials (bits of one trial share a release, so the interval is
            # approximate). 95% lower bound on ε (core.measure.metrics.empirical_epsilon).
            pos = sum(r["positives"] for r in main)
            metrics["empirical_epsilon_low"] = empirical_epsilon(
                sum(r["fp"] for r in main), n * len(main) - pos, sum(r["fn"] for r in main), pos,
                metrics["release_delta"]) if 0 < pos < n * len(main) else float("nan")
        series = {
            "accuracy_vs_query_ratio": _curve(records, "ratio", "query_ratio", n),
            "accuracy_vs_defense_level": _curve(records, "level", "level", n),
            "sweep_defense": context["sweep_defense"],
            "theory": {"sqrt_n": math.sqrt(n),
                       "sweep_unit": "t" if context["sweep_defense"] == "subsample" else
                       ("R" if context["sweep_defense"] == "rounding" else "σ")},
            "trials": [{"accuracy": r["accuracy"], "rmse": r["rmse"], "seconds": r["solver_seconds"]}
                       for r in main],
            "accuracy_vs_rmse": [{"kind": r["kind"], "x": r["level"] if r["kind"] == "level" else r["query_ratio"],
                                  "rmse": r["rmse"], "accuracy": r["accuracy"]}
                                 for r in records if r["kind"] != "main"],
        }
        return metrics, series

    def exposure(self, config, context, records):
        return exposure_table(config, records, self.level(config))


def _curve(records, kind, key, n):
    groups: dict[float, list[dict]] = {}
    for r in records:
        if r["kind"] == kind:
            groups.setdefault(r[key], []).append(r)
    xs = sorted(groups)
    out = {"x": xs, "accuracy": [], "ci_low": [], "ci_high": [], "rmse": [], "majority": [], "trials": []}
    for x in xs:
        acc = np.array([r["accuracy"] for r in groups[x]])
        lo, hi = proportion_ci_of_mean(acc, n)
        out["accuracy"].append(float(acc.mean()))
        out["ci_low"].append(lo)
        out["ci_high"].append(hi)
        out["rmse"].append(float(np.mean([r["rmse"] for r in groups[x]])))
        out["majority"].append(float(np.mean([r["majority"] for r in groups[x]])))
        out["trials"].append(len(groups[x]))
    return out


# ----------------------------------------------------------------- closed form, before any game
def _noise_std(defense: str, level) -> np.ndarray | None:
    """Answer-error standard deviation a defence level stands for: σ itself, R/√12 for rounding (a uniform
    error), None for subsampling (no closed form here)."""
    level = np.asarray(level, dtype=float)
    if defense in ("gaussian", "none"):
        return level
    if defense == "rounding":
        return level / math.sqrt(12.0)
    return None


def theory_curves(config: dict, points: int = 121) -> dict:
    """The closed-form picture the run tests (:mod:`core.theory.dinur_nissim`), for the page's first plots.
    Computed once per configuration (a copy of the cached curves): every student of a class redraws the same
    lesson step's chart, and its scipy integrals were half of that chart's time.

    See :func:`_theory_curves` for what the curves are."""
    key = json.dumps({k: v for k, v in config.items() if k != "seed"}, sort_keys=True)
    return copy.deepcopy(_theory_curves(key, points))


@functools.lru_cache(maxsize=128)
def _theory_curves(config_json: str, points: int) -> dict:
    """The curves of :func:`theory_curves` for one configuration (as JSON, so it can key the cache).

    * ``majority``: the expected majority-guess baseline for n and the secret rate;
    * ``level``: on the run's defence-level sweep, the least-squares prediction ``Φ(√(m−n−1)/(4σ))`` (random
      subsets, Gaussian or rounding noise) and, for Gaussian noise, the DP bound on any attacker's expected
      accuracy ``E_c[A(√c/σ, p)]``, at the chosen m;
    * ``ratio``: the same two curves against m/n at the chosen defence level;
    * ``chosen``: both at the sidebar's setting, with the release's claimed (ε, δ).
    Curves are lists with None where a formula does not apply (no noise bound, m ≤ n + 1).
    """
    config = json.loads(config_json)
    n, p = int(config["n"]), float(config["secret_rate"])
    m = max(1, int(round(config["query_ratio"] * n)))
    level = Reconstruction.level(config)
    defense, queries = config["defense"], config["queries"]
    random_sets = queries == "random-subsets"
    sweep_defense, levels = sweep_levels(defense, n)

    def clean(values) -> list | None:
        if values is None:
            return None
        return [None if not np.isfinite(v) else float(v) for v in np.atleast_1d(values)]

    # the defence-level sweep (Gaussian when the defence is none)
    top = max(max(levels), level if sweep_defense == defense else 0.0)
    if sweep_defense == "subsample":
        xs = np.unique(np.linspace(1, n, points).round())
    else:
        xs = np.linspace(0.0, top * 1.02 or 1.0, points)
    std = _noise_std(sweep_defense, xs)
    level_curves = {"defense": sweep_defense, "x": xs.tolist(),
                    "ls": clean(ls_accuracy(n, m, std)) if (std is not None and random_sets) else None,
                    "dp_bound": clean(dp_bit_bound(m, xs, p, queries)) if sweep_defense == "gaussian" else None}
    if level_curves["dp_bound"] is not None:
        level_curves["dp_bound"][0] = None  # σ = 0: no guarantee at all
    # the m/n sweep at the chosen defence
    ratios = np.round(np.linspace(0.05, max(max(RATIO_GRID), config["query_ratio"]) * 1.02, (points + 1) // 2), 4)
    ms = np.maximum(1, np.round(ratios * n).astype(int))
    chosen_std = _noise_std(defense, level)
    ls_ratio = None
    if chosen_std is not None and random_sets:
        ls_ratio = clean([ls_accuracy(n, int(k), float(chosen_std)) for k in ms])
    gaussian = defense == "gaussian" and level > 0
    bound_ratio = clean([dp_bit_bound(int(k), level, p, queries) for k in ms]) if gaussian else None
    eps, delta = release_privacy(defense, level, n, m, queries)
    chosen = {"ls": clean(ls_accuracy(n, m, float(chosen_std)))[0] if (chosen_std is not None and random_sets)
              else None,
              "dp_bound": float(dp_bit_bound(m, level, p, queries)) if gaussian else None,
              "epsilon": None if math.isinf(eps) else float(eps), "delta": float(delta) if gaussian else 0.0,
              "level": float(level), "noise_over_sqrt_n": float(chosen_std) / math.sqrt(n)
              if chosen_std is not None else None}
    return {"n": n, "m": m, "sqrt_n": math.sqrt(n), "secret_rate": p, "defense": defense, "queries": queries,
            "solver": config["solver"], "query_ratio": float(config["query_ratio"]),
            "majority": expected_majority(n, p),
            "level": level_curves, "ratio": {"x": ratios.tolist(), "ls": ls_ratio, "dp_bound": bound_ratio},
            "chosen": chosen}
