"""The ``synthetic`` scenario class: parameters, checks, cost estimate, and one game (fit, release, attack).

Spec sections (§) refer to docs/specs/seed002_linear_recon_sdg.md.
"""
from __future__ import annotations

import time

import numpy as np

from ...attacks.declaration import attack_of, attack_param, in_all
from ...attacks.synthetic import RELEASE_RISKS
from ...attacks.reconstruction.dinur_nissim_lp import METHODS
from ...attacks.synthetic.linear_reconstruction import ReconMatrix, solve_recon_lp
from ...attacks.synthetic.linear_reconstruction import guess as round_guess
from ...attacks.synthetic.model_audit import model_audit
from ...basics.words import count
from ...cancel import checkpoint
from ...errors import ParameterError
from ...params import Param
from ...releases.kway_queries import KS, SCALINGS, available_count
from ...releases.synthesizers import SYNTHESIZERS
from ...scenario import Scenario, register
from .data import (
    DATASETS,
    DP_GENERATORS,
    EPOCH_GENERATORS,
    GENERATORS,
    MAX_SIZE,
    MIN_CONTROL,
    NETWORK_GENERATORS,
    Q_GRID,
    _game,
    _plain,
    _queries,
    _rng,
    _synthetic,
    load_game_data,
    make_generator,
    size_ladder,
)
from .records_game import LINK_ROWS_MAX, PROXY_GAMES, attack_records, infer_scores
from .release_file import FILE, check_file, is_file, original_rows, release_codes, shared_lp
from .summary import summarize_games
from ...cost import Cost
from .summary import exposure_table
from ...releases.synthesizers._relaxed_marginals import ThreeWayMarginals

ATTACK_HELP = "which attack(s) to run; all = every attack on the same games (Acc_max)"
ALL_LABEL = "all {n} (Acc_max)"



def _with_control(config: dict) -> bool:
    """Whether a run measures risk against a control set: asked for, and the release was fitted here (a release
    made elsewhere comes without records it never saw: its audit is the paper's game on every original record)."""
    return bool(config.get("control_risk", True)) and config["generator"] != FILE

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
    _params = (
        Param("dataset", "str", "cces16", "the records the generator is fitted on", label="Data",
              choices=DATASETS,
              choice_labels={"cces16": "CCES 2016 survey (real respondents)", "acs-like": "ACS-like surrogate",
                             "fire-like": "FIRE-like surrogate", "csv": "your CSV"}),
        Param("data_path", "str", "", "CSV file to attack (dataset=csv)", label="CSV path", ui=False,
              active_when=("dataset", ("csv",))),
        Param("secret", "str", "", "the secret column (binary, or binarised as column=value); empty = the "
              "dataset's default (votetrump, SEX, ALS Unit)", label="Secret column", ui=False),
        Param("generator", "str", "nonprivate", "synthetic-data generator; file = attack a release made elsewhere "
              "(release_path, with dataset=csv and data_path the original)", label="Generator",
              choices=GENERATORS + (FILE,),
              choice_labels={**{k: SYNTHESIZERS[k].title + ("" if SYNTHESIZERS[k].in_paper
                                                                     else " (not in paper)") for k in GENERATORS},
                             FILE: "a release you already have (file)"}),
        Param("release_path", "str", "", "CSV file of a synthetic release to attack (generator=file): the original's "
              "columns, made from the original at data_path", label="Release path", ui=False,
              active_when=("generator", (FILE,))),
        Param("epsilon", "float", 0.0, "privacy budget ε of a differentially private generator (the paper uses "
              "1, 10, 100); 0 = not set, required for DP generators and refused for the others",
              label="ε (DP generators)", low=0.0, high=1e4, active_when=("generator", DP_GENERATORS)),
        Param("synth_size", "int", 10_000, "synthetic records released, the paper's m; the run also plays every "
              "smaller power of ten (subsamples of the same release); generator=file uses all the release's rows",
              label="Synthetic size m", low=10, high=MAX_SIZE, log=True, active_when=("generator", GENERATORS)),
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
        attack_param("synthetic", "recon", ATTACK_HELP, all_label=ALL_LABEL),
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
        Param("bug", "str", "none", "re-create a documented DP implementation bug (the known-bug gallery of the "
              "Paper presets page): privbayes-probability-sensitivity noises PrivBayes' count tables with the "
              "probability-scale sensitivity 2/n (DataSynthesizer issue 34)", ui=False,
              choices=("none", "privbayes-probability-sensitivity")),
        Param("control_risk", "bool", True, "attack every record of the largest release, and as many records the "
              "generator never saw (a control set), and report the risk against the control set beside the paper's "
              "one-target accuracy; off = the paper's game alone", label="Risk against a control set"),
        Param("attacked_records", "int", 0, "records attacked per game on each side for the risk against the "
              "control set (training records the release was fitted on, control records it never saw); 0 = every "
              "one (n − 1 training records: all but the coin-flipped target)", label="Records attacked per game "
              "(0 = all)", low=0, high=5000),
        Param("control_size", "int", 0, "records kept out of the release as its control set; 0 = as many as n "
              "(capped at the records the data hold besides the n)", label="Control records (0 = n)",
              low=0, high=5000),
        Param("three_risks", "bool", True, "also measure singling out and linkability against the control set "
              "(the regulators' three risks with inference)", label="Singling out and linkability"),
        Param("n_neighbors", "int", 10, "linkability: synthetic neighbours compared on each half of the known "
              "columns (1 misses verbatim copies that share their half with others)", label="Linkability "
              "neighbours", low=1, high=100),
        Param("proxy_scores", "bool", True, "also compute SDMetrics' DCR-based proxy scores on the last game's "
              "release (DCR overfitting protection, disclosure protection)", label="SDMetrics proxy scores"),
        Param("identifiers", "str", "", "columns that identify a row and are never attributes (comma-separated); "
              "empty = detected (unique per row and named like an id, text unique per row, or a row counter); "
              "none = keep every column", ui=False, active_when=("dataset", ("csv",))),
        Param("audit_model", "bool", False, "also play the informed auditor (Adv_model): it knows every record but "
              "the target's secret and reads the released network's conditional table for the secret — the "
              "strongest attacker DP allows, used to audit a release's ε claim (baynet, privbayes)", ui=False),
    )

    # ------------------------------------------------------------ config
    def check(self, config):
        if is_file(config):
            return check_file(config)
        gen = SYNTHESIZERS[config["generator"]]
        if not gen.dp and config["epsilon"] > 0:
            raise ParameterError("epsilon", f"generator {config['generator']!r} is not differentially private and "
                                            "claims no ε; set ε only for "
                                            f"{', '.join(DP_GENERATORS) or 'a DP generator'} (leave it at 0)")
        if gen.dp and config["epsilon"] <= 0:
            raise ParameterError("epsilon", f"generator {config['generator']!r} is differentially private: set its "
                                            "budget ε > 0 (the paper uses 1, 10 and 100)")
        if config["dataset"] == "csv" and not config["data_path"]:
            raise ParameterError("data_path", "dataset=csv needs data_path (the CSV file to attack)")
        if config.get("audit_model") and config["generator"] not in NETWORK_GENERATORS:
            raise ParameterError("audit_model", "the informed auditor reads a released Bayesian network: use "
                                                f"generator {' or '.join(NETWORK_GENERATORS)}")
        if config.get("bug", "none") != "none" and config["generator"] != "privbayes":
            raise ParameterError("bug", "privbayes-probability-sensitivity applies to generator=privbayes only")
        codes, domain, _, _ = load_game_data(config)
        if _with_control(config) and config["n"] > codes.shape[0] - MIN_CONTROL:
            top = codes.shape[0] - MIN_CONTROL
            raise ParameterError("n", f"the data have {codes.shape[0]:,} records and the risk needs at least "
                                      f"{MIN_CONTROL} the release never saw (its control set); choose n ≤ "
                                      f"{max(top, 0):,}")
        cards = [len(v) for v in domain.values()]
        if config["query_ratio"] > 0 and config["attack"] in ("recon", "all"):
            bound = available_count(cards[:-1], config["query_k"])
            q = int(round(config["query_ratio"] * config["n"]))
            if q > bound:
                n = config["n"]
                raise ParameterError("query_ratio", f"{config['query_k']}-way queries on this schema number at most "
                                                    f"{bound:,} (q/n ≤ {bound / n:.3g} at n = {n}); asked for "
                                                    f"q = {q:,}. Use 0 for all, or k = 4 / 234 for more queries")

    @property
    def params(self):
        """The parameters, with the ``attack`` choices read from the attacks declared for this game now
        (core/attacks/synthetic/__init__.py), so an attack declared after this module was imported is offered
        by the CLI and the page like the others."""
        return tuple(attack_param("synthetic", p.default, p.help, all_label=ALL_LABEL) if p.name == "attack"
                     else p for p in self._params)

    def attacks(self, config) -> list[str]:
        """The attacks a run plays: the chosen one, or every declared attack that "all" includes; the informed
        auditor (Adv_model) on top when ``audit_model`` is set."""
        chosen = in_all("synthetic") if config["attack"] == "all" else [config["attack"]]
        return chosen + (["model"] if config.get("audit_model") else [])

    def _q_grid(self, config, cards) -> list[int]:
        bound = available_count(cards[:-1], config["query_k"])
        top = int(round(config["query_ratio"] * config["n"])) if config["query_ratio"] > 0 else bound
        return [q for q in Q_GRID if q < min(top, bound)]

    # Per-game CPU seconds on one core of the 2-core AMD EPYC lab machine (benchmarks/bench_synthesizers.py and
    # bench_cost.py, n = 1000, d = 10; 2026-11-23): generator fit, and sampling 10⁶ rows. RAP's fit and CTGAN's
    # sampling depend on the schema and CTGAN/TVAE's fit on the epochs: see _generator_seconds.
    _FIT_SECONDS = {"nonprivate": 0.01, "indhist": 0.01, "baynet": 0.1, "privbayes": 0.15, "gaussiancopula": 4.0}
    _SAMPLE_SECONDS_PER_MILLION = {"nonprivate": 0.9, "indhist": 0.5, "baynet": 1.6, "privbayes": 1.8,
                                   "rap": 0.6, "rap-softmax": 0.6, "tvae": 20.0, "gaussiancopula": 40.0,
                                   "mst": 1.8, "aim": 1.8}
    _NEURAL_WARMUP = 5.0   # import sdv and torch's first fit, once per run (process), not per game
    # MST and AIM (OpenDP + mbi): importing OpenDP, polars and JAX once per process; then per fit, per column, the
    # JAX compilation and the mirror-descent iterations of each estimation (see _generator_seconds)
    _MBI_WARMUP = 8.0
    # 22 and 43 CPU s per fit on the default game (CCES16, n = 1000, d = 11, ε = 1), the
    # process's first fit, JAX's compilations included (bench_synthesizers.py --mbi --game, 2026-11-29); before the
    # lab ran the algorithms itself: 80 and 443 CPU s at d = 10
    _MBI_FIT_PER_COLUMN = {"mst": 2.0, "aim": 4.0}

    def _generator_seconds(self, config, cards: list[int]) -> tuple[float, float, float]:
        """(once per run, fit per game, sampling ``synth_size`` rows per game) in CPU seconds (2026-11-25,
        benchmarks/bench_synthesizers.py --games and one-core timings of the fit on each data set):

        * RAP, RAP^softmax: ``steps × (3.4 ms + 45 ns × q₃)``, ``q₃`` = the 3-way marginal cells of the schema,
          every one of which each Adam step evaluates on the 1000 relaxed rows (CCES16 q₃ = 87,658: 7.4 ms a
          step, 14.8 s a fit; ACS-like 144,910: 9.9 ms; FIRE-like 383,296: 20.8 ms);
        * CTGAN: fit 0.6 + 0.08 s per epoch at n = 1000; sampling costs the generator network's
          multiply-adds per row, ``256(128 + w) + 256(384 + w) + w(640 + w)`` for ``w`` one-hot columns, at
          34 ps each (CCES16, w = 107: 9.0 s per 10⁶ rows); TVAE: fit 0.6 + 0.03 s per epoch;
        * MST, AIM: a fit per game (each game fits its own D'; the query sweep and a repeated run reuse it),
          ``_MBI_FIT_PER_COLUMN`` seconds per column — mostly JAX compiling mirror descent afresh for every
          estimation (MST estimates twice, AIM once per round, at most 2d rounds) — after ``_MBI_WARMUP`` for the
          imports once per process (benchmarks/bench_synthesizers.py --mbi --game);
        * the others: ``_FIT_SECONDS`` and ``_SAMPLE_SECONDS_PER_MILLION``."""
        g, millions = config["generator"], config["synth_size"] / 1e6
        once = 0.0
        if g == FILE:
            fit = sample = 0.0  # nothing is fitted; the release is read once per run
            return 1.0, fit, sample
        if g in ("rap", "rap-softmax"):

            steps = getattr(make_generator(config), "steps", 2000)
            fit = steps * (3.4e-3 + 4.5e-8 * ThreeWayMarginals(cards).n_queries)
        elif g in ("ctgan", "tvae"):
            once = self._NEURAL_WARMUP
            fit = 0.6 + (0.08 if g == "ctgan" else 0.03) * config["epochs"]
        elif g in self._MBI_FIT_PER_COLUMN:
            once = self._MBI_WARMUP
            fit = self._MBI_FIT_PER_COLUMN[g] * len(cards)
        else:
            fit = self._FIT_SECONDS.get(g, 4.0)
        if g == "ctgan":
            w = sum(cards)
            sample = 3.4e-11 * (256 * (128 + w) + 256 * (384 + w) + w * (640 + w)) * config["synth_size"]
        else:
            sample = self._SAMPLE_SECONDS_PER_MILLION.get(g, 20.0) * millions
        return once, fit, sample

    # How much harder the reconstruction LP is than on CCES16 with the non-private generator: per data set (its
    # schema) and per generator (noisier synthetic answers); a CSV or an unmeasured generator gets the largest.
    _LP_DATASET = {"cces16": 1.0, "acs-like": 2.7, "fire-like": 1.3, "csv": 2.7}
    _LP_GENERATOR = {"nonprivate": 1.0, "baynet": 1.0, "privbayes": 1.8, "rap": 1.0, "ctgan": 1.8}
    _LP_OTHER_GENERATOR = 2.2

    def _lp_seconds(self, config, q_sparse: float, q_dense: float) -> float:
        """One reconstruction LP with ``q_sparse`` 3-/4-way and ``q_dense`` 2-way queries (see estimate_cost)."""
        scale = self._LP_DATASET.get(config["dataset"], 2.7) * self._LP_GENERATOR.get(config["generator"],
                                                                                  self._LP_OTHER_GENERATOR)
        n = config["n"] / 1000
        seconds = 0.03 + scale * (0.18 * n ** 1.3 * (q_sparse / 3800) ** 0.6 + 0.6 * n ** 2.5 * min(1.0, q_dense / 100))
        return seconds * (5.5 if config["lp_method"] == "ipm" else 1.0)

    def _records_seconds(self, config, d: int, recon: bool, queries) -> float:
        """Attacking every record against the control set (:mod:`.records_game`), per game: one more LP for
        the control set's QIs, and the release risks' declared cost terms (core/attacks/synthetic/__init__.py):
        singling out per release, linkability per target (both sets) × synthetic row (≤ 10⁴) × column."""
        if not _with_control(config):
            return 0.0
        seconds = self._lp_seconds(config, *queries) if recon and queries else 0.0
        if config.get("three_risks", True):
            rows = 2 * config["n"] * min(config["synth_size"], LINK_ROWS_MAX) * d
            seconds += attack_of(RELEASE_RISKS, "singling-out").seconds_per_release + \
                attack_of(RELEASE_RISKS, "linkability").seconds_per_row * rows
        return seconds

    def estimate_cost(self, config):
        """Games × (fit + sample + attacks on every size of the ladder + the query sweep), in CPU seconds on one core
        of the 2-core AMD EPYC lab machine (measured 2026-11-23 with benchmarks/bench_cost.py; q = the queries the
        chosen family offers, computed from the data's schema):

        * **fit and sample**: :meth:`_generator_seconds` (RAP's fit grows with the schema's 3-way cells, CTGAN's
          sampling with its one-hot width; CTGAN ≈ 0.08 s, TVAE ≈ 0.03 s per epoch after a 5 s warm-up per run);
        * **Adv_recon**, one LP per size: ≈ 0.03 + 0.18·(n/1000)^1.3·(q/3800)^0.6 s for 3-/4-way queries on CCES16
          with the non-private generator (n = 1000, q = 3,800: 0.18 s; n = 5000: 1.3 s; 4-way q = 72,652: 1 s),
          plus ≈ 0.6·(n/1000)^2.5 s when the dense 2-way queries are asked (q ≈ 100 queries that each cover a
          tenth of the records: n = 2000, 3 s per LP); ×2.7 on ACS-like, ×1.3 on FIRE-like, ×1.8–2.2 with a
          noisy generator, ×5.5 with lp_method = ipm; answering the queries ≈ 2 µs per synthetic row;
        * **Adv_infer** ≈ 0.05 + 1.2e-4·m s per size (a random forest on all m rows: 8.5 s at m = 100,000);
          **Adv_dcr** ≈ 1 µs per row; utility ≈ 0.5 µs per row; 1 s per run for the imports.

        Page default (10 games, m = 10,000, n = 1000, with the risk against a control set and the three risks)
        measured 14 CPU s in a warm worker (2026-11-29; estimated 30 s: the LP terms are upper bounds). Memory ≈ 24 bytes per synthetic cell
        plus the query matrix (8·q·n bytes dense)."""
        if is_file(config):  # a fixed release: every original record in the LP, every release row attacked
            config = {**config, "n": original_rows(config), "synth_size": int(release_codes(config).shape[0])}
        _codes, domain, _, _ = load_game_data(config)
        once, fit, sample = self._generator_seconds(config, [len(v) for v in domain.values()])
        sizes = size_ladder(config["synth_size"])
        rows = float(sum(sizes))
        attacks = self.attacks(config)
        per_game = 0.1 + fit + sample + 5e-7 * rows  # D', the target, the utility queries
        queries = 20_000
        q_sparse_dense = None
        if "recon" in attacks:
            _codes, domain, _, _ = load_game_data(config)
            cards = [len(v) for v in domain.values()][:-1]
            k = config["query_k"]
            available = available_count(cards, k)
            dense = available_count(cards, "2") if k in ("2", "234") else 0
            share = min(1.0, config["query_ratio"] * config["n"] / available) if config["query_ratio"] > 0 else 1.0
            q_dense, q_sparse = share * dense, share * (available - dense)
            q_sparse_dense = (q_sparse, q_dense)
            queries = max(queries, share * available)
            per_game += len(sizes) * self._lp_seconds(config, q_sparse, q_dense)
            if self._sweeps_queries(config):
                for q in self._q_grid(config, cards + [2]):
                    part = q / max(1.0, share * available)
                    per_game += self._lp_seconds(config, part * q_sparse, part * q_dense)
        for name in attacks:  # each declared attack's own terms (Adv_model's reading of the network is free)
            if name != "model":
                declared = attack_of("synthetic", name)
                per_game += len(sizes) * declared.seconds_per_release + declared.seconds_per_row * rows
        per_game += self._records_seconds(config, len(domain), "recon" in attacks, q_sparse_dense)
        seconds = 1.0 + once + config["games"] * per_game
        if config.get("proxy_scores", True) and _with_control(config):
            seconds += 4.0 + 3.0 * PROXY_GAMES  # import SDMetrics; its DCRs on 300 × 300 rows per proxy game
        mem = 200e6 + 24 * config["synth_size"] * 16 + 8 * queries * config["n"]
        return Cost(seconds=seconds, bytes=mem, drivers=("games", "synth_size", "n", "generator"),
                    basis="games × (fit + sample + LPs per size)")

    def prepare(self, config, rng):
        codes, domain, label, secret = load_game_data(config)
        cards = tuple(len(v) for v in domain.values())
        if is_file(config):
            sizes = size_ladder(int(release_codes(config).shape[0]))
            generator = {"name": FILE, "title": "your release (file)", "dp": False, "in_paper": False}
        else:
            gen = SYNTHESIZERS[config["generator"]]
            sizes = size_ladder(config["synth_size"])
            generator = {"name": gen.name, "title": gen.title, "dp": gen.dp, "in_paper": gen.in_paper}
        return {"codes": codes, "domain": domain, "cards": cards, "label": label, "secret": secret,
                "entropy": int(rng.integers(0, 2**62)), "sizes": sizes,
                "q_grid": self._q_grid(config, cards) if self._sweeps_queries(config) else [],
                "generator": generator}

    def _sweeps_queries(self, config) -> bool:
        return config["query_sweep"] and "recon" in self.attacks(config)

    def n_games(self, config):
        return config["games"] * (2 if self._sweeps_queries(config) else 1)

    def work_done(self, config, done):
        """With the query sweep on, a run plays ``games`` attack games and as many again for the accuracy-vs-
        queries curve (indices ``games`` and up, :meth:`play`); the headline's interval counts the first kind only,
        so a finished run says both ("4 attack games + 4 query-sweep games"), not "8 games" beside "4 games"."""
        games = int(config["games"])
        if self._sweeps_queries(config) and int(done) == 2 * games:
            return f"{count(games, 'attack game')} + {count(games, 'query-sweep game')}"
        return super().work_done(config, done)

    def play(self, config, context, index, rng):
        games = config["games"]
        if index < games:
            return self._play_main(config, context, index)
        return self._play_queries(config, context, index - games)

    def _play_main(self, config, context, g):
        game = _game(context, config, g)
        syn = _synthetic(context, config, g)
        D, u, truth = game["D"], game["u"], game["truth"]
        x_u = D[u, :-1]
        attacks = self.attacks(config)
        fam = A = None
        attack_seconds = 0.0
        if "recon" in attacks:
            fam, available = _queries(context, config, g, D)
            A = ReconMatrix.from_queries(fam)
        arng = _rng(context["entropy"], g, 5)
        audit = model_audit(syn["model"], D, u) if "model" in attacks else None  # the same for every size
        rows = []
        example = None
        recon_t = infer_p = None
        for m in context["sizes"]:
            checkpoint("synthetic: attacking")
            S = syn["S"][:m]
            row = {"m": m, **game["utility"].evaluate(S)}
            start = time.perf_counter()
            if "recon" in attacks:
                def solve(S=S):
                    return solve_recon_lp(A, fam.answers(S, config["query_scaling"]), config["lp_method"])
                # a release read from a file is the same in every game, and so is its LP: solved once per size
                res = shared_lp(context, config, m, solve) if is_file(config) else solve()
                t_u = float(res.t[u])
                row.update(recon_guess=round_guess(t_u), recon_score=t_u,
                           recon_all=float(np.mean((res.t >= 0.5) == D[:, -1])), recon_objective=res.objective)
                if m == context["sizes"][-1]:
                    recon_t = res.t
                    example = {"t_u": t_u, "objective": res.objective, "queries": fam.n_queries,
                               "available": available, "lp_rows": res.lp_rows}
            if "model" in attacks:
                row.update(model_guess=audit[0], model_score=audit[1])
            for name in attacks:  # the attacks that read only S and x_u, through their declared player
                player = None if name == "model" else attack_of("synthetic", name).player
                if name == "infer" and m == context["sizes"][-1] and _with_control(config):  # one forest for all
                    (gs, sc), *infer_p = infer_scores(S, x_u, D, game["control"], arng)
                    row.update(infer_guess=gs, infer_score=sc)
                elif player is not None:
                    gs, sc = player(S, x_u, arng)
                    row.update({f"{name}_guess": gs, f"{name}_score": sc})
            attack_seconds += time.perf_counter() - start
            rows.append(row)
        domain = context["domain"]
        names = list(domain)
        target = {names[j]: _plain(domain[names[j]][int(x_u[j])]) for j in range(len(x_u))}
        start = time.perf_counter()
        records = attack_records(config, context, g, game, syn["S"], attacks, recon_t, infer_p) \
            if _with_control(config) else None
        attack_seconds += time.perf_counter() - start
        return {"kind": "main", "game": g, "u": u, "row": game["row"], "truth": truth,
                "original": game["original"], "records": records,
                "target": target, "unique_targets": game["unique_targets"], "sizes": rows, "example": example,
                "epsilon": syn["epsilon"], "delta": syn["delta"], "fit_seconds": syn["fit_seconds"],
                "sample_seconds": syn["sample_seconds"], "attack_seconds": attack_seconds}

    def _play_queries(self, config, context, g):
        game = _game(context, config, g)
        syn = _synthetic(context, config, g)
        D, u = game["D"], game["u"]
        fam, _ = _queries(context, config, g, D)
        S = syn["S"]
        qrng = _rng(context["entropy"], g, 6)
        points = []
        for q in context["q_grid"]:
            if q >= fam.n_queries:  # this game offers fewer queries: its "all" point is the main game's
                break
            checkpoint("synthetic: query sweep")
            sub = fam.subset(q, qrng)
            res = solve_recon_lp(ReconMatrix.from_queries(sub), sub.answers(S, config["query_scaling"]),
                                 config["lp_method"])
            points.append({"q": int(sub.n_queries), "guess": round_guess(float(res.t[u])),
                           "score": float(res.t[u])})
        return {"kind": "q", "game": g, "truth": game["truth"], "points": points}

    def exposure(self, config, context, records):
        return exposure_table(config, context, records, self.attacks(config))

    # ------------------------------------------------------------ summary
    def summarize(self, config, context, records):
        """Metrics and plot series from the game records: see :mod:`core.scenarios.synthetic.summary`."""
        return summarize_games(config, context, records, self.attacks(config))
