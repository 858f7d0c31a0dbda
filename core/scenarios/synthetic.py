"""Scenario ``synthetic``: attribute inference against synthetic data (linear reconstruction and baselines).

Source: Annamalai, Gadotti & Rocher, "A Linear Reconstruction Approach for Attribute Inference Attacks
against Synthetic Data" (USENIX Security 2024); spec ``seed002_linear_recon_sdg.md`` (§2 game, §3–4 attacks,
§7 utility). Naming (spec §1): ``synth_size`` is the paper's m, ``q`` the number of queries and
``query_ratio`` = q/n.

One game (§2): sample n records D = {X | y}; pick a target u uniformly among records whose QI vector is
unique in X; re-draw its secret ``y'_u ~ Uniform{0,1}`` (so guessing wins half the time); fit the generator on
D'; generate the **largest** synthetic size once and take every smaller size of the ladder 10, 100, …,
``synth_size`` as a uniform subsample of it (nested prefixes of one permutation: paired curves, as the
authors' code); attack with S, X and x_u; score the guess against ``y'_u``. Utility (MRE>10, 3-TVD) is
measured on the same 100 random 3-way marginals for every size and generator of that game.

Units of work: ``games`` main units (the full size ladder), then, for Adv_recon, ``games`` query-sweep units
that re-use the same game (same D', target and synthetic sample, from an in-process LRU cache keyed by
dataset, generator, its parameters, seed and game) and solve the LP with q = 10, 100, … queries at the chosen
size. Every random draw of game g comes from ``SeedSequence(entropy, spawn_key=(g, component))`` with the
run's entropy drawn from the prepare generator, so a sweep over generators plays the very same D' and
targets (common random numbers).
"""
from __future__ import annotations

import inspect
import math
import os
import time
from functools import lru_cache

import numpy as np
import pandas as pd

from ..output import plain_language as say
from ..attacks.reconstruction.dinur_nissim_lp import METHODS
from ..attacks.synthetic.dcr import dcr_attack
from ..attacks.synthetic.infer import infer_attack
from ..attacks.synthetic.linear_reconstruction import guess as round_guess
from ..attacks.synthetic.linear_reconstruction import ReconMatrix, solve_recon_lp
from ..cancel import checkpoint
from ..data.dataset import Dataset, load_csv
from ..data.sdg_surrogates import SURROGATES, surrogate
from ..data.surveys import SURVEYS, survey
from ..errors import DataError, ParameterError
from ..measure.metrics import accuracy_summary, best_threshold_epsilon, roc, tpr_at_fpr
from ..params import Param
from ..releases.kway_queries import KS, MAX_4WAY, SCALINGS, KWayQueries, available_count
from ..releases.synthesizers import SYNTHESIZERS, get_synthesizer
from ..runtime.lru import LRU
from ..scenario import Scenario, prepare_rng, register
from ..measure.utility import UtilityQueries

DATASETS = ("cces16", "acs-like", "fire-like", "csv")
DEFAULT_SECRET = {"cces16": "votetrump", "acs-like": "SEX", "fire-like": "ALS Unit"}
ATTACK_CHOICES = ("recon", "dcr", "infer", "all")
ATTACK_NAMES = {"recon": "Adv_recon (linear reconstruction)", "dcr": "Adv_dcr (closest record)",
                "infer": "Adv_infer (random forest)"}
GENERATORS = tuple(sorted(SYNTHESIZERS, key=lambda k: (k != "nonprivate", k)))
DP_GENERATORS = tuple(k for k in GENERATORS if SYNTHESIZERS[k].dp)
EPOCH_GENERATORS = tuple(k for k in GENERATORS
                         if "epochs" in inspect.signature(SYNTHESIZERS[k].__init__).parameters)
Q_GRID = (10, 100, 1000, 10_000, 100_000)
MAX_SIZE = 1_000_000
CACHE_ENTRIES = 32
HIGH_RISK = 0.6      # the paper's "high attack accuracy" line (Acc_max > 60%)
GOOD_UTILITY = 0.2   # the paper's "good utility" line (MRE>10 and 3-TVD < 0.2)


def size_ladder(synth_size: int) -> list[int]:
    """10, 100, … up to ``synth_size`` (which is always the last rung)."""
    sizes = [10 ** k for k in range(1, 7) if 10 ** k < synth_size]
    return sizes + [int(synth_size)]


# ----------------------------------------------------------------------------- data
@lru_cache(maxsize=8)
def _csv(path: str, mtime: float) -> Dataset:
    return load_csv(path, name=os.path.basename(path))


def base_dataset(dataset: str, data_path: str = "") -> tuple[Dataset, str]:
    """(Dataset, label) for a dataset name (CSV read through :func:`core.data.dataset.load_csv`)."""
    if dataset == "cces16":
        data = survey("cces16")
        return data, SURVEYS["cces16"]
    if dataset in SURROGATES:
        return surrogate(dataset), SURROGATES[dataset]["label"]
    if dataset == "csv":
        if not data_path:
            raise ParameterError("data_path", "dataset=csv needs data_path (the CSV file to attack)")
        try:
            mtime = os.path.getmtime(data_path)
        except OSError:
            raise ParameterError("data_path", f"cannot open {data_path!r} (no such file)") from None
        data = _csv(data_path, mtime)
        return data, f"your CSV ({os.path.basename(data_path)}, {len(data):,} rows)"
    raise ParameterError("dataset", f"expected one of {'|'.join(DATASETS)}, got {dataset!r}")


@lru_cache(maxsize=8)
def _prepared(dataset: str, data_path: str, secret: str, mtime: float) -> tuple[np.ndarray, dict, str, str]:
    data, label = base_dataset(dataset, data_path)
    secret = secret or DEFAULT_SECRET.get(dataset, "")
    if not secret:
        raise ParameterError("secret", f"name the secret column; the file has {', '.join(data.columns)}")
    frame = data.frame
    if "=" in secret and secret not in data.columns:
        col, value = secret.split("=", 1)
        col = col.strip()
        if col not in data.columns:
            raise ParameterError("secret", f"no column {col!r}; the data have {', '.join(data.columns)}")
        values = [str(v) for v in data.domain[col]]
        if value.strip() not in values:
            raise ParameterError("secret", f"column {col!r} never takes the value {value.strip()!r}; its values: "
                                           f"{', '.join(values[:20])}")
        bit = frame[col].astype(str).eq(value.strip()).astype(int)
        frame = frame.drop(columns=[col]).assign(**{secret: bit})
        domain = {k: v for k, v in data.domain.items() if k != col}
        domain[secret] = (0, 1)
    else:
        if secret not in data.columns:
            raise ParameterError("secret", f"no column {secret!r}; the data have {', '.join(data.columns)}")
        k = len(data.domain[secret])
        if k != 2:
            raise DataError(f"the secret column {secret!r} has {k} distinct values; the attack needs a binary "
                            f"secret: choose a two-valued column or binarise it as '{secret}=<value>'")
        domain = dict(data.domain)
    qis = [col for col in frame.columns if col != secret]
    if len(qis) < 2:
        raise DataError("the data need at least two quasi-identifier columns besides the secret")
    frame = frame[qis + [secret]]
    domain = {col: domain[col] for col in qis + [secret]}
    ds = Dataset(frame.reset_index(drop=True), domain, name=label)
    codes = ds.codes()
    if codes[:, -1].min() == codes[:, -1].max():
        raise DataError(f"the secret column {secret!r} takes a single value in the data")
    return codes, domain, label, secret


def load_game_data(c: dict) -> tuple[np.ndarray, dict, str, str]:
    """(codes with the secret last, domain, label, secret name) for a config."""
    mtime = os.path.getmtime(c["data_path"]) if c["dataset"] == "csv" and c["data_path"] and \
        os.path.exists(c["data_path"]) else 0.0
    return _prepared(c["dataset"], c["data_path"] if c["dataset"] == "csv" else "", c["secret"], mtime)


# ----------------------------------------------------------------------------- caches
_GAMES = LRU(CACHE_ENTRIES)
_SAMPLES = LRU(CACHE_ENTRIES)


def clear_caches() -> None:
    _GAMES.clear()
    _SAMPLES.clear()


def _rng(entropy: int, game: int, component: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(game, component)))


def _data_key(c: dict) -> tuple:
    return (c["dataset"], c["data_path"], c["secret"], c["n"])


def _game(ctx: dict, c: dict, g: int) -> dict:
    """D', target u and the utility queries of game g (cached)."""

    def make():
        codes = ctx["codes"]
        rng = _rng(ctx["entropy"], g, 0)
        n = c["n"]
        for _ in range(100):
            rows = rng.choice(codes.shape[0], size=n, replace=False)
            D = codes[rows].copy()
            _, inv, cnt = np.unique(D[:, :-1], axis=0, return_inverse=True, return_counts=True)
            unique = np.nonzero(cnt[inv.ravel()] == 1)[0]
            if unique.size:
                break
        else:
            raise DataError("no sample of n records had a record with unique quasi-identifiers; "
                            "use more QI columns or a smaller n")
        u = int(rng.choice(unique))
        original = int(D[u, -1])
        D[u, -1] = int(rng.integers(0, 2))
        util = UtilityQueries(D, ctx["cards"], _rng(ctx["entropy"], g, 1))
        return {"D": D, "u": u, "original": original, "truth": int(D[u, -1]), "utility": util,
                "unique_targets": int(unique.size)}

    return _GAMES.get_or((_data_key(c), ctx["entropy"], g), make)


def _synthetic(ctx: dict, c: dict, g: int) -> dict:
    """The generator fitted on game g's D' and its largest sample, permuted (cached)."""
    key = (_data_key(c), c["generator"], c["epsilon"], c["epochs"] if c["generator"] in EPOCH_GENERATORS else None,
           c["synth_size"], ctx["entropy"], g)

    def make():
        game = _game(ctx, c, g)
        synth = make_generator(c)
        data = Dataset.from_codes(game["D"], ctx["domain"], name="D'")
        start = time.perf_counter()
        synth.fit(data, _rng(ctx["entropy"], g, 2))
        fit_seconds = time.perf_counter() - start
        checkpoint("synthetic: generator fitted")
        start = time.perf_counter()
        srng = _rng(ctx["entropy"], g, 3)
        big = synth.sample(c["synth_size"], srng)
        big = big[srng.permutation(big.shape[0])]  # prefixes are uniform subsamples without replacement
        sample_seconds = time.perf_counter() - start
        eps, delta = synth.privacy
        return {"S": big, "fit_seconds": fit_seconds, "sample_seconds": sample_seconds,
                "epsilon": eps, "delta": delta}

    return _SAMPLES.get_or(key, make)


def make_generator(c: dict):
    cls = SYNTHESIZERS[c["generator"]]
    kwargs = {}
    accepted = inspect.signature(cls.__init__).parameters
    if cls.dp:
        kwargs["epsilon"] = c["epsilon"]
        if "delta" in accepted:
            kwargs["delta"] = 1.0 / c["n"] ** 2  # the paper's δ = 1/n² (RAP^softmax)
    if "epochs" in accepted:
        kwargs["epochs"] = c["epochs"]
    return get_synthesizer(c["generator"], **kwargs)


def _queries(ctx: dict, c: dict, g: int, D: np.ndarray) -> tuple[KWayQueries, int]:
    """Game g's query family (q of the available queries, the same for every generator and size)."""
    rng = _rng(ctx["entropy"], g, 4)
    q = max(1, int(round(c["query_ratio"] * c["n"]))) if c["query_ratio"] > 0 else None
    # k = 4 alone: draw the q cells directly (the same uniform sample as drawing 100k and keeping q)
    cap = min(MAX_4WAY, q) if (q is not None and c["query_k"] == "4") else MAX_4WAY
    fam = KWayQueries.build(D[:, :-1], ctx["cards"][:-1], c["query_k"], rng, max_4way=cap)
    available = fam.n_queries if cap == MAX_4WAY else available_count(ctx["cards"][:-1], "4")
    if q is not None:
        fam = fam.subset(q, rng)
    return fam, available


# ----------------------------------------------------------------------------- scenario
@register
class Synthetic(Scenario):
    name = "synthetic"
    title = "Synthetic data: linear-reconstruction attribute inference"
    summary = ("Fit a synthetic-data generator on n records, release m synthetic rows, and let an attacker who "
               "knows everyone's quasi-identifiers reconstruct a target's secret from k-way queries on the "
               "synthetic data; compare with the utility of the release.")
    paper = ("Annamalai, Gadotti & Rocher, \"A Linear Reconstruction Approach for Attribute Inference Attacks "
             "against Synthetic Data\", USENIX Security 2024")
    sweep_series = ("roc",)  # "Compare generators" draws one ROC per generator from the sweep rows
    # The paper's main grid (spec §8) over its non-DP numpy generators and its six release sizes m; the
    # benchmarks (bench_dask_sweep.py) play it at reduced games.
    paper_grid = {"generator": ["nonprivate", "baynet"],
                  "synth_size": [10, 100, 1_000, 10_000, 100_000, 1_000_000]}
    bench_overrides = {"games": 3, "query_sweep": False}
    # Small, fast page defaults (first plot within seconds); the sidebar scales up to the paper's setting.
    page_defaults = {"games": 10, "synth_size": 10_000, "n": 1000}
    params = (
        Param("dataset", "str", "cces16", "the records the generator is fitted on", label="Data",
              choices=DATASETS,
              choice_labels={"cces16": "CCES 2016 survey (real respondents)", "acs-like": "ACS-like surrogate",
                             "fire-like": "FIRE-like surrogate", "csv": "your CSV"}),
        Param("data_path", "str", "", "CSV file to attack (dataset=csv)", label="CSV path", ui=False,
              active_when=("dataset", ("csv",))),
        Param("secret", "str", "", "the secret column (binary, or binarised as column=value); empty = the "
              "dataset's default (votetrump, SEX, ALS Unit)", label="Secret column", ui=False),
        Param("generator", "str", "nonprivate", "synthetic-data generator", label="Generator", choices=GENERATORS,
              choice_labels={k: (SYNTHESIZERS[k].title or k) + ("" if SYNTHESIZERS[k].in_paper else " (not in paper)")
                             for k in GENERATORS}),
        Param("epsilon", "float", 0.0, "privacy budget ε of a differentially private generator (the paper uses "
              "1, 10, 100); 0 = not set, required for DP generators and refused for the others",
              label="ε (DP generators)", low=0.0, high=1e4, active_when=("generator", DP_GENERATORS)),
        Param("synth_size", "int", 10_000, "synthetic records released, the paper's m; the run also plays every "
              "smaller power of ten (subsamples of the same release)", label="Synthetic size m",
              low=10, high=MAX_SIZE, log=True),
        Param("query_k", "str", "3", "order k of the simple k-way queries (counting the secret): 3 = pairs of QIs, "
              "the paper's default; 4 samples ≤ 100,000 cells; 234 = all of 2, 3 and 4",
              label="Query order k", choices=KS, choice_labels={"2": "2-way", "3": "3-way (paper)",
                                                                 "4": "4-way (100k sample)", "234": "2+3+4-way"}),
        Param("query_scaling", "str", "conditional", "how answers are read off the synthetic data: conditional "
              "(P_S(secret | cell) × count in X, the paper's attack) or marginal (count in S × n/m)",
              label="Query scaling", choices=SCALINGS),
        Param("query_ratio", "float", 0.0, "queries per record, q/n; 0 = every query the k-way family offers "
              "(the paper's setting); capped at what k offers", label="Query ratio q/n (0 = all)",
              low=0.0, high=400.0),
        Param("attack", "str", "recon", "which attack(s) to run; all = every attack on the same games (Acc_max)",
              label="Attack", choices=ATTACK_CHOICES,
              choice_labels={"recon": "Adv_recon (linear reconstruction)", "dcr": "Adv_dcr (closest record)",
                             "infer": "Adv_infer (random forest)", "all": "all three (Acc_max)"}),
        Param("n", "int", 1000, "records the generator is fitted on (the paper: 1000)", label="Records n",
              low=50, high=5000, step=50),
        Param("games", "int", 10, "independent games (fresh sample, target and release each); the paper: 500",
              label="Games", low=1, high=1000),
        Param("epochs", "int", 30, "training epochs of the neural generators (the paper: 300)", label="Epochs",
              low=1, high=1000, active_when=("generator", EPOCH_GENERATORS)),
        Param("query_sweep", "bool", True, "also solve the LP with q = 10, 100, 1000, … queries at the chosen size "
              "(the accuracy-vs-queries plot; doubles the LP work)", label="Sweep the number of queries",
              active_when=("attack", ("recon", "all"))),
        Param("lp_method", "str", "auto", "how the LP is solved: auto picks by the density of the query matrix "
              "(HiGHS for the sparse k-way matrices, the certified dense interior point for dense ones); both "
              "reach the same optimum", label="LP engine", choices=METHODS,
              choice_labels={"auto": "auto (by matrix density)", "ipm": "dense interior point (certified)",
                             "highs": "HiGHS"}, active_when=("attack", ("recon", "all"))),
    )

    # ------------------------------------------------------------ config
    def check(self, c):
        gen = SYNTHESIZERS[c["generator"]]
        if not gen.dp and c["epsilon"] > 0:
            raise ParameterError("epsilon", f"generator {c['generator']!r} is not differentially private and "
                                            "claims no ε; set ε only for "
                                            f"{', '.join(DP_GENERATORS) or 'a DP generator'} (leave it at 0)")
        if gen.dp and c["epsilon"] <= 0:
            raise ParameterError("epsilon", f"generator {c['generator']!r} is differentially private: set its "
                                            "budget ε > 0 (the paper uses 1, 10 and 100)")
        if c["dataset"] == "csv" and not c["data_path"]:
            raise ParameterError("data_path", "dataset=csv needs data_path (the CSV file to attack)")
        codes, domain, _, _ = load_game_data(c)
        if c["n"] > codes.shape[0]:
            raise ParameterError("n", f"the data have {codes.shape[0]:,} records; choose n ≤ {codes.shape[0]:,}")
        cards = [len(v) for v in domain.values()]
        if c["query_ratio"] > 0 and c["attack"] in ("recon", "all"):
            bound = available_count(cards[:-1], c["query_k"])
            q = int(round(c["query_ratio"] * c["n"]))
            if q > bound:
                raise ParameterError("query_ratio", f"{c['query_k']}-way queries on this schema number at most "
                                                    f"{bound:,} (q/n ≤ {bound / c['n']:.3g} at n = {c['n']}); "
                                                    f"asked for q = {q:,}. Use 0 for all, or k = 4 / 234 for "
                                                    "more queries")

    def attacks(self, c) -> list[str]:
        return list(ATTACK_NAMES) if c["attack"] == "all" else [c["attack"]]

    def _q_grid(self, c, cards) -> list[int]:
        bound = available_count(cards[:-1], c["query_k"])
        top = int(round(c["query_ratio"] * c["n"])) if c["query_ratio"] > 0 else bound
        return [q for q in Q_GRID if q < min(top, bound)]

    # Per-game CPU seconds on one core of the 2-core AMD EPYC lab machine (benchmarks/bench_synthesizers.py and
    # bench_cost.py, n = 1000, d = 10; 2026-11-23): generator fit, and sampling 10⁶ rows. CTGAN/TVAE: estimate_cost.
    _FIT_SECONDS = {"nonprivate": 0.01, "indhist": 0.01, "baynet": 0.1, "privbayes": 0.15, "rap": 35.0,
                    "rap-softmax": 35.0, "gaussiancopula": 4.0}
    _SAMPLE_SECONDS_PER_MILLION = {"nonprivate": 0.9, "indhist": 0.5, "baynet": 1.6, "privbayes": 1.8,
                                   "rap": 3.0, "rap-softmax": 3.0, "ctgan": 40.0, "tvae": 20.0,
                                   "gaussiancopula": 40.0}
    # How much harder the reconstruction LP is than on CCES16 with the non-private generator: per data set (its
    # schema) and per generator (noisier synthetic answers); a CSV or an unmeasured generator gets the largest.
    _LP_DATASET = {"cces16": 1.0, "acs-like": 2.7, "fire-like": 1.3, "csv": 2.7}
    _LP_GENERATOR = {"nonprivate": 1.0, "baynet": 1.0, "privbayes": 1.8}
    _LP_OTHER_GENERATOR = 2.2

    def _lp_seconds(self, c, q_sparse: float, q_dense: float) -> float:
        """One reconstruction LP with ``q_sparse`` 3-/4-way and ``q_dense`` 2-way queries (see estimate_cost)."""
        scale = self._LP_DATASET.get(c["dataset"], 2.7) * self._LP_GENERATOR.get(c["generator"],
                                                                                  self._LP_OTHER_GENERATOR)
        n = c["n"] / 1000
        seconds = 0.03 + scale * (0.18 * n ** 1.3 * (q_sparse / 3800) ** 0.6 + 0.6 * n ** 2.5 * min(1.0, q_dense / 100))
        return seconds * (5.5 if c["lp_method"] == "ipm" else 1.0)

    def estimate_cost(self, c):
        """Games × (fit + sample + attacks on every size of the ladder + the query sweep), in CPU seconds on one core
        of the 2-core AMD EPYC lab machine (measured 2026-11-23 with benchmarks/bench_cost.py; q = the queries the
        chosen family offers, computed from the data's schema):

        * **fit and sample**: ``_FIT_SECONDS`` and ``_SAMPLE_SECONDS_PER_MILLION``; CTGAN ≈ 0.08 s, TVAE ≈ 0.03 s
          per epoch after a 4 s warm-up;
        * **Adv_recon**, one LP per size: ≈ 0.03 + 0.18·(n/1000)^1.3·(q/3800)^0.6 s for 3-/4-way queries on CCES16
          with the non-private generator (n = 1000, q = 3,800: 0.18 s; n = 5000: 1.3 s; 4-way q = 72,652: 1 s),
          plus ≈ 0.6·(n/1000)^2.5 s when the dense 2-way queries are asked (q ≈ 100 queries that each cover a
          tenth of the records: n = 2000, 3 s per LP); ×2.7 on ACS-like, ×1.3 on FIRE-like, ×1.8–2.2 with a
          noisy generator, ×5.5 with lp_method = ipm; answering the queries ≈ 2 µs per synthetic row;
        * **Adv_infer** ≈ 0.05 + 1.2e-4·m s per size (a random forest on all m rows: 8.5 s at m = 100,000);
          **Adv_dcr** ≈ 1 µs per row; utility ≈ 0.5 µs per row; 1 s per run for the imports.

        Page default (10 games, m = 10,000, n = 1000) measured 9.9–10.8 s. Memory ≈ 24 bytes per synthetic cell
        plus the query matrix (8·q·n bytes dense)."""
        from ..cost import Cost

        g = c["generator"]
        fit = self._FIT_SECONDS.get(g)
        if fit is None:  # neural generators: per-epoch cost plus torch warm-up
            fit = 4.0 + (0.08 if g == "ctgan" else 0.03) * c["epochs"]
        sample = self._SAMPLE_SECONDS_PER_MILLION.get(g, 20.0) * c["synth_size"] / 1e6
        sizes = size_ladder(c["synth_size"])
        rows = float(sum(sizes))
        attacks = self.attacks(c)
        per_game = 0.1 + fit + sample + 5e-7 * rows  # D', the target, the utility queries
        queries = 20_000
        if "recon" in attacks:
            _codes, domain, _, _ = load_game_data(c)
            cards = [len(v) for v in domain.values()][:-1]
            k = c["query_k"]
            available = available_count(cards, k)
            dense = available_count(cards, "2") if k in ("2", "234") else 0
            share = min(1.0, c["query_ratio"] * c["n"] / available) if c["query_ratio"] > 0 else 1.0
            q_dense, q_sparse = share * dense, share * (available - dense)
            queries = max(queries, share * available)
            per_game += len(sizes) * self._lp_seconds(c, q_sparse, q_dense) + 2e-6 * rows
            if self._sweeps_queries(c):
                for q in self._q_grid(c, cards + [2]):
                    part = q / max(1.0, share * available)
                    per_game += self._lp_seconds(c, part * q_sparse, part * q_dense)
        if "infer" in attacks:
            per_game += len(sizes) * 0.05 + 1.2e-4 * rows
        if "dcr" in attacks:
            per_game += 1e-6 * rows
        seconds = 1.0 + c["games"] * per_game
        mem = 200e6 + 24 * c["synth_size"] * 16 + 8 * queries * c["n"]
        return Cost(seconds=seconds, bytes=mem, drivers=("games", "synth_size", "n", "generator"),
                    basis="games × (fit + sample + LPs per size)")

    def prepare(self, c, rng):
        codes, domain, label, secret = load_game_data(c)
        cards = tuple(len(v) for v in domain.values())
        gen = SYNTHESIZERS[c["generator"]]
        return {"codes": codes, "domain": domain, "cards": cards, "label": label, "secret": secret,
                "entropy": int(rng.integers(0, 2**62)), "sizes": size_ladder(c["synth_size"]),
                "q_grid": self._q_grid(c, cards) if self._sweeps_queries(c) else [],
                "generator": {"name": gen.name, "title": gen.title or gen.name, "dp": gen.dp,
                              "in_paper": gen.in_paper}}

    def _sweeps_queries(self, c) -> bool:
        return c["query_sweep"] and "recon" in self.attacks(c)

    def n_games(self, c):
        return c["games"] * (2 if self._sweeps_queries(c) else 1)

    def play(self, c, ctx, index, rng):
        games = c["games"]
        if index < games:
            return self._play_main(c, ctx, index)
        return self._play_queries(c, ctx, index - games)

    def _play_main(self, c, ctx, g):
        game = _game(ctx, c, g)
        syn = _synthetic(ctx, c, g)
        D, u, truth = game["D"], game["u"], game["truth"]
        x_u = D[u, :-1]
        attacks = self.attacks(c)
        fam = A = None
        attack_seconds = 0.0
        if "recon" in attacks:
            fam, available = _queries(ctx, c, g, D)
            A = ReconMatrix.from_queries(fam)
        arng = _rng(ctx["entropy"], g, 5)
        rows = []
        example = None
        for m in ctx["sizes"]:
            checkpoint("synthetic: attacking")
            S = syn["S"][:m]
            row = {"m": m, **game["utility"].evaluate(S)}
            start = time.perf_counter()
            if "recon" in attacks:
                res = solve_recon_lp(A, fam.answers(S, c["query_scaling"]), c["lp_method"])
                t_u = float(res.t[u])
                row.update(recon_guess=round_guess(t_u), recon_score=t_u,
                           recon_all=float(np.mean((res.t >= 0.5) == D[:, -1])), recon_objective=res.objective)
                if m == ctx["sizes"][-1]:
                    example = {"t_u": t_u, "objective": res.objective, "queries": fam.n_queries,
                               "available": available, "lp_rows": res.lp_rows}
            if "dcr" in attacks:
                gs, sc = dcr_attack(S, x_u, arng)
                row.update(dcr_guess=gs, dcr_score=sc)
            if "infer" in attacks:
                gs, sc = infer_attack(S, x_u, arng)
                row.update(infer_guess=gs, infer_score=sc)
            attack_seconds += time.perf_counter() - start
            rows.append(row)
        domain = ctx["domain"]
        names = list(domain)
        target = {names[j]: _plain(domain[names[j]][int(x_u[j])]) for j in range(len(x_u))}
        return {"kind": "main", "game": g, "u": u, "truth": truth, "original": game["original"],
                "target": target, "unique_targets": game["unique_targets"], "sizes": rows, "example": example,
                "epsilon": syn["epsilon"], "delta": syn["delta"], "fit_seconds": syn["fit_seconds"],
                "sample_seconds": syn["sample_seconds"], "attack_seconds": attack_seconds}

    def _play_queries(self, c, ctx, g):
        game = _game(ctx, c, g)
        syn = _synthetic(ctx, c, g)
        D, u = game["D"], game["u"]
        fam, _ = _queries(ctx, c, g, D)
        S = syn["S"]
        qrng = _rng(ctx["entropy"], g, 6)
        points = []
        for q in ctx["q_grid"]:
            if q >= fam.n_queries:  # this game offers fewer queries: its "all" point is the main game's
                break
            checkpoint("synthetic: query sweep")
            sub = fam.subset(q, qrng)
            res = solve_recon_lp(ReconMatrix.from_queries(sub), sub.answers(S, c["query_scaling"]), c["lp_method"])
            points.append({"q": int(sub.n_queries), "guess": round_guess(float(res.t[u])),
                           "score": float(res.t[u])})
        return {"kind": "q", "game": g, "truth": game["truth"], "points": points}

    # ------------------------------------------------------------ summary
    def summarize(self, c, ctx, records):
        main = sorted((r for r in records if r["kind"] == "main"), key=lambda r: r["game"])
        qrecs = [r for r in records if r["kind"] == "q"]
        attacks = self.attacks(c)
        sizes = ctx["sizes"]
        metrics: dict = {}
        series: dict = {"sizes": sizes, "attacks": attacks, "dataset_label": ctx["label"],
                        "secret": ctx["secret"], "generator": ctx["generator"], "by_size": {}, "roc": {},
                        "utility": {}, "privacy_utility": [], "accuracy_vs_queries": {}, "example": None,
                        "high_risk": HIGH_RISK, "good_utility": GOOD_UTILITY}
        if not main:
            return metrics, series
        truth = np.array([r["truth"] for r in main])
        eps = main[0]["epsilon"]
        delta = main[0]["delta"] if eps is not None and math.isfinite(eps) else 0.0
        per_size: dict[int, dict] = {}
        for i, m in enumerate(sizes):
            rows = [r["sizes"][i] for r in main]
            mre = np.array([x["mre_gt10"] for x in rows], dtype=float)
            mre = mre[~np.isnan(mre)]  # NaN: no 3-way cell of D' holds more than 10 records
            stats = {"mre_gt10": float(mre.mean()) if mre.size else float("nan"),
                     "tvd3": float(np.mean([x["tvd3"] for x in rows])),
                     "mre_gt10_sd": float(mre.std()) if mre.size else float("nan"),
                     "tvd3_sd": float(np.std([x["tvd3"] for x in rows]))}
            for a in attacks:
                guesses = np.array([x[f"{a}_guess"] for x in rows])
                scores = np.array([x[f"{a}_score"] for x in rows])
                acc = accuracy_summary(guesses == truth)
                stats[a] = {**acc, "auc": roc(truth, scores)["auc"], "tpr_at_fpr_0.1": tpr_at_fpr(truth, scores, 0.1),
                            "empirical_epsilon_low": best_threshold_epsilon(truth, scores, delta),
                            "roc": roc(truth, scores)}
            best = max(attacks, key=lambda a: stats[a]["accuracy"])
            stats["best"] = best
            if "recon" in attacks:
                stats["recon_all"] = float(np.mean([x["recon_all"] for x in rows]))
            per_size[m] = stats
        top = per_size[sizes[-1]]
        best = top["best"]
        head = top[best]
        metrics.update({"accuracy": head["accuracy"], "accuracy_ci_low": head["accuracy_ci_low"],
                        "accuracy_ci_high": head["accuracy_ci_high"], "auc": head["auc"],
                        "tpr_at_fpr_0.1": head["tpr_at_fpr_0.1"], "mre_gt10": top["mre_gt10"],
                        "tvd3": top["tvd3"], "claimed_epsilon": eps if eps is not None and math.isfinite(eps)
                        else None, "claimed_delta": delta,
                        "empirical_epsilon_low": head["empirical_epsilon_low"], "games_done": len(main),
                        "target_secret_one_rate": float(truth.mean()),
                        "target_kept_original_rate": float(np.mean([r["truth"] == r["original"] for r in main]))})
        if len(attacks) > 1:
            for a in attacks:
                metrics[f"accuracy_{a}"] = top[a]["accuracy"]
                metrics[f"auc_{a}"] = top[a]["auc"]
            metrics["accuracy_max"] = top[best]["accuracy"]
        if "recon" in attacks:
            metrics["recon_all_records_accuracy"] = top["recon_all"]
            ex = [r["example"] for r in main if r["example"]]
            metrics["queries_used"] = float(np.mean([e["queries"] for e in ex]))
            metrics["queries_available"] = float(np.mean([e["available"] for e in ex]))
        for m in sizes:
            st = per_size[m]
            metrics[f"accuracy_at_{m}"] = st[st["best"]]["accuracy"]
            metrics[f"mre_gt10_at_{m}"] = st["mre_gt10"]
            metrics[f"tvd3_at_{m}"] = st["tvd3"]
        metrics["fit_seconds"] = float(np.mean([r["fit_seconds"] for r in main]))
        metrics["sample_seconds"] = float(np.mean([r["sample_seconds"] for r in main]))
        metrics["attack_seconds"] = float(np.mean([r["attack_seconds"] for r in main]))
        # ----- series
        for a in attacks:
            series["by_size"][a] = {k: [per_size[m][a][k] for m in sizes]
                                    for k in ("accuracy", "accuracy_ci_low", "accuracy_ci_high", "auc")}
            series["roc"][a] = {"fpr": top[a]["roc"]["fpr"], "tpr": top[a]["roc"]["tpr"], "auc": top[a]["auc"]}
        if len(attacks) > 1:
            series["by_size"]["max"] = {"accuracy": [per_size[m][per_size[m]["best"]]["accuracy"] for m in sizes],
                                        "accuracy_ci_low": [per_size[m][per_size[m]["best"]]["accuracy_ci_low"]
                                                            for m in sizes],
                                        "accuracy_ci_high": [per_size[m][per_size[m]["best"]]["accuracy_ci_high"]
                                                             for m in sizes],
                                        "auc": [per_size[m][per_size[m]["best"]]["auc"] for m in sizes]}
        series["utility"] = {k: [per_size[m][k] for m in sizes] for k in ("mre_gt10", "tvd3", "mre_gt10_sd",
                                                                          "tvd3_sd")}
        gen = ctx["generator"]
        for m in sizes:
            st = per_size[m]
            series["privacy_utility"].append({
                "generator": gen["name"], "title": gen["title"], "epsilon": metrics["claimed_epsilon"],
                "m": m, "accuracy": st[st["best"]]["accuracy"], "attack": st["best"],
                "ci_low": st[st["best"]]["accuracy_ci_low"], "ci_high": st[st["best"]]["accuracy_ci_high"],
                "mre_gt10": st["mre_gt10"], "tvd3": st["tvd3"], "games": len(main)})
        if qrecs and "recon" in attacks:
            by_q: dict[int, list] = {}
            for r in qrecs:
                for p in r["points"]:
                    by_q.setdefault(p["q"], []).append(p["guess"] == r["truth"])
            qs = sorted(by_q)
            curve = {"q": [], "accuracy": [], "accuracy_ci_low": [], "accuracy_ci_high": [], "games": []}
            for q in qs:
                s = accuracy_summary(by_q[q])
                curve["q"].append(q)
                for k in ("accuracy", "accuracy_ci_low", "accuracy_ci_high"):
                    curve[k].append(s[k])
                curve["games"].append(len(by_q[q]))
            # the chosen setting itself (all queries, or q = ratio·n) from the main games
            curve["q"].append(metrics["queries_used"])
            for k in ("accuracy", "accuracy_ci_low", "accuracy_ci_high"):
                curve[k].append(top["recon"][k])
            curve["games"].append(len(main))
            series["accuracy_vs_queries"] = curve
        first = main[0]
        series["example"] = {"game": first["game"], "target": first["target"], "truth": first["truth"],
                             "original": first["original"], "unique_targets": first["unique_targets"],
                             "m": sizes[-1], "n": c["n"],
                             "guesses": {a: first["sizes"][-1][f"{a}_guess"] for a in attacks},
                             "scores": {a: first["sizes"][-1][f"{a}_score"] for a in attacks},
                             "t_u_by_size": [x.get("recon_score") for x in first["sizes"]],
                             "recon": first["example"]}
        return metrics, series


# ----------------------------------------------------------------------------- what the lab page shows
# The page (pages/40_Synthetic_data.py) is widgets → one engine call → plots; its choice lists and the tables
# and sentences it prints come from here, so they are testable without Streamlit.
UTILITY_METRICS = {"mre_gt10": "MRE>10", "tvd3": "3-TVD"}  # x axis of the privacy–utility scatter
EPSILON_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)  # ε slider of a DP generator (plus its own default)
COMPARE_EPSILONS = (1.0, 10.0, 100.0)  # the paper's ε values
# Generators quick enough to compare by default; RAP-style ones (2,000 optimisation steps) and the neural ones
# (CTGAN, TVAE) take minutes per game on two cores.
FAST_GENERATORS = ("nonprivate", "baynet", "indhist", "privbayes")
PAGE_PARAMS = ("dataset", "data_path", "secret", "generator", "epsilon")  # set by the page's own sidebar widgets


def secret_choices(dataset: str, data_path: str = "", name: str = "") -> list[str]:
    """Secret-column choices for a data set: its default secret first, the other two-valued columns, then
    ``column=value`` (binarised by the game) for the first 12 values of every wider column.

    ``name`` is the uploaded file's name, used in error messages about a CSV (``dataset="csv"``)."""
    if dataset == "csv":
        if not data_path:
            raise ParameterError("data_path", "dataset=csv needs data_path (the CSV file to attack)")
        table = load_csv(data_path, name=name or os.path.basename(data_path))
    else:
        table, _ = base_dataset(dataset)
    default = DEFAULT_SECRET.get(dataset)
    options = ([default] if default else []) + \
        [c for c in table.columns if len(table.domain[c]) == 2 and c != default]
    options += [f"{c}={v}" for c in table.columns if len(table.domain[c]) > 2 for v in table.domain[c][:12]]
    if not options:
        raise DataError("The file has no column to use as the secret.")
    return options


def secret_param(dataset: str, choice: str) -> str:
    """The ``secret`` parameter for a sidebar choice: empty for a built-in data set's default secret, so the
    config (and the stored result's key) is the default one."""
    return "" if dataset != "csv" and choice == DEFAULT_SECRET.get(dataset) else choice


def epsilon_choices(generator: str) -> tuple[list[float], float]:
    """(ε values offered, default ε) for a DP generator: the grid plus the generator's own default budget
    (10 when its constructor names none)."""
    own = inspect.signature(SYNTHESIZERS[generator].__init__).parameters.get("epsilon")
    default = float(own.default) if own is not None and isinstance(own.default, (int, float)) else 10.0
    return sorted({*EPSILON_GRID, default}), default


def page_params(generator: str) -> tuple[str, ...]:
    """Parameters the page does not draw as generated widgets: its own sidebar choices, and ``epochs`` unless
    the generator is a neural one (the only ones it matters for)."""
    return PAGE_PARAMS + (() if generator in EPOCH_GENERATORS else ("epochs",))


def games_table(records: list[dict]) -> pd.DataFrame:
    """One row per (main game, synthetic size): the per-game records the page shows and offers for download."""
    return pd.DataFrame([{"game": r["game"], "truth": r["truth"], **row}
                         for r in records if r["kind"] == "main" for row in r["sizes"]])


def example_view(series: dict) -> dict | None:
    """The "one game, step by step" panel: what the attacker saw in the first game and what each attack said."""
    ex = series.get("example")
    if not ex:
        return None
    view = {
        "intro": (f"Game {ex['game'] + 1}: among the {ex['n']:,} records, {ex['unique_targets']:,} have a unique "
                  "combination of quasi-identifiers; one of them is the target. Its true secret was "
                  f"**{ex['original']}**, and the coin re-drew it as **{ex['truth']}** before the generator "
                  f"saw the data. The attacker sees these quasi-identifiers and {ex['m']:,} synthetic rows:"),
        "target": pd.DataFrame([ex["target"]]),
        "guesses": pd.DataFrame([{"attack": a, "score": round(float(ex["scores"][a]), 4), "guess": g,
                                  "truth": ex["truth"], "won": "yes" if g == ex["truth"] else "no"}
                                 for a, g in ex["guesses"].items()]),
        "recon": None}
    rec = ex.get("recon")
    if rec:
        by_size = ", ".join(f"m={m:,}: {t:.2f}" for m, t in zip(series["sizes"], ex["t_u_by_size"]) if t is not None)
        view["recon"] = (f"Adv_recon asked **{rec['queries']:,}** queries ({rec['lp_rows']:,} cover at least one "
                         f"record); the LP's value for the target is **t_u = {rec['t_u']:.3f}** (guess 1 if ≥ 0.5); "
                         f"total error of the best fit ‖A t − r̂‖₁ = {rec['objective']:.1f}. "
                         "t_u at every size: " + by_size)
    return view


def result_view(metrics: dict, series: dict) -> dict:
    """Everything the page prints about one run besides its plots: the data set's caption, the plain-language
    sentence, the metric rows (ε shown as "none (not DP)" for a generator without a guarantee, per-attack
    accuracies when several attacks ran) and the one-game panel. Empty before the first game."""
    if not metrics:
        return {}
    label = series.get("dataset_label", "")
    eps = dict(metrics)
    if eps.get("claimed_epsilon") is None:
        eps["claimed_epsilon"] = "none (not DP)"
    return {"label": label, "surrogate": "surrogate" in label, "sentence": say.synthetic(metrics, series),
            "metrics": metrics, "eps_metrics": eps, "per_attack": len(series.get("attacks", [])) > 1,
            "example": example_view(series)}


def compare_setup(config: dict) -> dict:
    """The "Compare generators" section before it runs: the sweep's base config (the run's settings without
    seed, generator and ε, size ladder only) and the generator and ε choices with their defaults."""
    base = {k: v for k, v in config.items() if k not in ("seed", "generator", "epsilon")}
    base["query_sweep"] = False  # only the size ladder enters the comparison
    fast = [g for g in FAST_GENERATORS if g in GENERATORS]
    return {"base": base,
            "plain": [g for g in GENERATORS if g not in DP_GENERATORS],
            "plain_default": [g for g in fast if g not in DP_GENERATORS],
            "dp": list(DP_GENERATORS), "dp_default": [g for g in DP_GENERATORS if g in fast],
            "epsilons": list(COMPARE_EPSILONS), "epsilons_default": list(COMPARE_EPSILONS)}


def compare_view(rows: list[dict], synth_size: int, metric: str = "mre_gt10") -> dict:
    """The compared releases from sweep rows: scatter points (generator × ε × size), the best release that keeps
    the attack at or below the paper's high-risk line (the lowest utility error on the Pareto front), the
    attack whose ROC curves are drawn, and the comparison table."""
    from ..measure.compare import pareto_points
    from ..plots.synthetic import point_name, points_from_rows

    sizes = size_ladder(synth_size)
    points = points_from_rows(rows, sizes)
    front = pareto_points([p for p in points if p["accuracy"] <= HIGH_RISK], metric)
    best = front[0] if front else None
    sentence = say.synthetic_best(point_name(best) if best else None, best, UTILITY_METRICS[metric], metric,
                                  HIGH_RISK)
    roc_attack = next((a for a in ("recon", "dcr", "infer")
                       if any(a in r.get("series", {}).get("roc", {}) for r in rows)), None)
    table = pd.DataFrame([{"generator": r["generator"], "ε": r.get("epsilon") or "—", "accuracy": r.get("accuracy"),
                           "AUC": r.get("auc"), "MRE>10": r.get("mre_gt10"), "3-TVD": r.get("tvd3"),
                           "empirical ε ≥": r.get("empirical_epsilon_low")} for r in rows])
    return {"sizes": sizes, "points": points, "best": best, "sentence": sentence, "roc_attack": roc_attack,
            "by_epsilon": any(r.get("epsilon") for r in rows), "table": table}


def _plain(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v if isinstance(v, (int, float, str)) else str(v)


# ----------------------------------------------------------------------------- before any game
def greedy_uniqueness(X: np.ndarray, names) -> tuple[list[str], list[float]]:
    """Quasi-identifiers in the order that singles out the most records, and the share of records unique after
    each: step j adds the column that makes the most rows of ``X`` unique together with the j−1 before it (ties:
    the earlier column). The last share is that of records unique on every column."""
    X = np.asarray(X, dtype=np.int64)
    X = X - X.min(axis=0)  # non-negative codes, so a column extends a key as one more mixed-radix digit
    radix = X.max(axis=0) + 1
    order: list[int] = []
    shares: list[float] = []
    left = list(range(X.shape[1]))
    prefix = np.zeros(X.shape[0], dtype=np.int64)  # dense id of each row's values on the chosen columns
    while left:
        best, best_share, best_ids = left[0], -1.0, prefix
        for j in left:
            _, inv, cnt = np.unique(prefix * radix[j] + X[:, j], return_inverse=True, return_counts=True)
            share = float(np.mean(cnt[inv] == 1))
            if share > best_share:
                best, best_share, best_ids = j, share, inv
        order.append(best)
        shares.append(best_share)
        left.remove(best)
        prefix = best_ids.astype(np.int64)
    return [names[j] for j in order], shares


def data_preview(c: dict, seed: int) -> dict:
    """The data under attack, for the page's first plot (no generator fitted): spec §2 game, step 1–3.

    * the data set, its size, the secret column and its share of 1s (the population the n records come from);
    * the quasi-identifiers the attacker knows (every column but the secret, with their numbers of values) and,
      on game 1's own sample of n records (the run's generator: same prepare seed, same game-0 draws), how
      quickly they single people out (:func:`greedy_uniqueness`) — the records unique on all of them are the
      possible targets;
    * the guarantee: the target's secret is re-drawn uniformly, so guessing wins 50%; a generator that is
      (ε, δ)-DP on its training records caps *any* attack on every synthetic size at ``(e^ε + δ)/(1 + e^ε)``
      (:func:`core.theory.fdp.accuracy_bound`; the generated sample is post-processing of the fitted model).
    """
    from ..theory.fdp import accuracy_bound

    codes, domain, label, secret = load_game_data(c)
    cards = tuple(len(v) for v in domain.values())
    ctx = {"codes": codes, "cards": cards, "entropy": int(prepare_rng(seed).integers(0, 2**62))}  # = prepare's
    game = _game(ctx, c, 0)
    names = list(domain)[:-1]
    order, shares = greedy_uniqueness(game["D"][:, :-1], names)
    gen = SYNTHESIZERS[c["generator"]]
    eps, delta = make_generator(c).privacy
    dp = bool(gen.dp) and math.isfinite(eps)
    values = list(domain[secret])
    return {"label": label, "records": int(codes.shape[0]), "n": int(c["n"]), "secret": secret,
            "secret_values": [str(v) for v in values], "secret_share": float(np.mean(codes[:, -1] == 1)),
            "qis": {k: len(domain[k]) for k in names}, "order": order, "unique_share": shares,
            "targets": int(game["unique_targets"]), "sizes": size_ladder(c["synth_size"]),
            "generator": gen.title or gen.name, "dp": dp, "epsilon": float(eps) if dp else None,
            "delta": float(delta) if dp else None, "bound": accuracy_bound(eps, delta) if dp else None}
