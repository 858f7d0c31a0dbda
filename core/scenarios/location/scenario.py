"""Membership inference on DP location aggregates, measured against the DP bound.

Liu, Shilov, Guepin & de Montjoye, *Sub-optimal Learning in Meta-Classifier Attacks:
A Study of Membership Inference on Differentially Private Location Aggregates*
(``docs/specs/seed001_location_mia.md``).

Game (Definition 3): a group of G traces (sites × hourly epochs, one site per hour) is
aggregated into counts per site and hour; with probability ½ the target's trace is
added; every cell gets Laplace or Gaussian noise calibrated to ε per observation
(C = 1). The attacker sees the noisy aggregate and the target trace and guesses the
membership bit from the target's k positive cells ("observations").

* **informed** attacker (θ = 1, the DP adversary) knows every other trace, so it sees
  ``b·z + X``: only the noise protects the target, and no data is needed.
* **auxiliary** attacker (θ = 0) knows only a disjoint population sample from which it
  simulates shadow aggregates of G traces.

One unit of work evaluates every attack on ``games`` balanced test aggregates for one
(k, number of training shadows) pair, vectorised; the first unit is the requested
``observations`` and ``train_shadows``, the next ones sweep k (accuracy vs
observations) and the training-set size (accuracy vs shadows, paper App. E); the last
ones attack further users, one unit of ``user_games`` games each, for the per-user view of
who is exposed (:mod:`core.scenarios.location.users`).
"""
from __future__ import annotations

import functools
import math
import os

import numpy as np

from ...attacks.declaration import attacks_of
from ...attacks.declaration import labels as attack_labels
from ...attacks.location.likelihood_ratio import LikelihoodRatioAttack
from ...attacks.location.location_common import balanced_labels, noise, sample_counts
from ...attacks.location.one_threshold import OneThresholdAttack
from ...attacks.location.two_threshold import TwoThresholdAttack
from ...cancel import checkpoint
from ...data.traces import generate_traces, load_trace_csv
from ...errors import DataError, ParameterError
from ...measure import metrics as M
from ...measure.curves import score_histogram, thin, thin_roc, tpr_at
from ...params import Param
from ...releases.gaussian import Gaussian
from ...releases.laplace import Laplace
from ...scenario import Scenario, register
from ...theory import dp_accuracy as T
from . import users as U
from .fit import fit
from ...cost import Cost
from ...attacks.location.meta_classifier import MetaClassifierMLP
from ...attacks.location.meta_classifier import effective_input_weights, weight_summary

ATTACKS = tuple(a.key for a in attacks_of("location"))  # declared in core/attacks/location/__init__.py
K_GRID = (1, 2, 5, 10, 20, 30, 40, 50, 60, 80, 100, 120, 168, 200)
SHADOW_GRID = (400, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)
CLIP = 1.0  # C: at most one site per user and hour, so the per-epoch sensitivity is 1


def noise_scale(config: dict) -> float:
    """Laplace scale b = C/ε, or the Gaussian σ (classic or analytic calibration)."""
    if config["mechanism"] == "laplace":
        return Laplace(config["epsilon"], sensitivity=CLIP).scale
    return Gaussian(config["epsilon"], config["delta"], sensitivity=CLIP,
                    calibration=config["calibration"]).sigma


def bound_delta(config: dict) -> float:
    return config["delta"] if config["mechanism"] == "gaussian" else 0.0


@functools.lru_cache(maxsize=64)
def _theory(mechanism: str, epsilon: float, delta: float, scale: float, k_max: int) -> dict:
    ks = list(range(1, k_max + 1)) if k_max <= 100 else sorted(set(range(1, 101)) | set(range(100, k_max + 1, 4)) | {k_max})
    out = {"k": ks,
           "dp_bound": [T.dp_expected_accuracy(k, epsilon, delta) for k in ks],
           "optimal": [T.optimal_informed_accuracy(k, mechanism, scale, CLIP) for k in ks],
           "one_threshold": [T.one_threshold_informed_accuracy(k, mechanism, scale, CLIP) for k in ks],
           "two_threshold": [T.two_threshold_informed_accuracy(k, mechanism, scale, CLIP) for k in ks],
           "two_threshold_clt": [T.two_threshold_informed_clt(k, mechanism, scale, CLIP) for k in ks],
           "dp_bound_auc": [T.dp_auc_bound(k, epsilon, delta) for k in ks],
           "optimal_auc": [T.optimal_informed_auc(k, mechanism, scale, CLIP) for k in ks]}
    roc_opt = (T.laplace_lrt_roc(k_max, CLIP / scale, CLIP) if mechanism == "laplace"
               else T.gdp_roc(k_max, scale, CLIP))
    out["roc_optimal"] = {"fpr": thin(roc_opt["fpr"]), "tpr": thin(roc_opt["tpr"])}
    roc_dp = T.dp_roc_bound(k_max, epsilon, delta)
    out["roc_dp"] = {"fpr": list(roc_dp["fpr"]), "tpr": list(roc_dp["tpr"])}
    return out


def theory_curves(config: dict) -> dict:
    """Closed-form curves for the page's instant first plot (no games needed).

    * ``dp_bound``: the Kairouz-optimal expected accuracy;
    * ``optimal``: the exact optimum of the *informed* game for this mechanism (an upper bound for every
      attacker);
    * ``one_threshold`` / ``two_threshold``: informed closed forms (Theorems 2–3);
    * ``epsilon``, ``delta``, ``mechanism``: the guarantee in force, so every chart of them names it.
    """
    eps, delta = float(config["epsilon"]), bound_delta(config)
    curves = _theory(config["mechanism"], eps, delta, float(noise_scale(config)), int(config["observations"]))
    # the ε in force travels with the curves (a new dict: the cached one stays untouched)
    return {**curves, "epsilon": eps, "delta": delta, "mechanism": config["mechanism"]}


@register
class LocationMembership(Scenario):
    name = "location"
    title = "Location aggregates: membership inference vs the DP bound"
    summary = ("Does a target's trace contribute to noisy counts per site and hour? One-threshold, "
               "two-threshold, MLP meta-classifier and optimal likelihood-ratio attacks against Laplace "
               "or Gaussian noise, compared with the accuracy DP allows for k observations.")
    paper = ("Liu, Shilov, Guepin & de Montjoye — Sub-optimal Learning in Meta-Classifier Attacks: "
             "A Study of Membership Inference on Differentially Private Location Aggregates")
    params = (
        Param("mechanism", "str", "laplace", "Noise added to every cell (site, hour) of the aggregate.",
              label="Mechanism", choices=("laplace", "gaussian"),
              choice_labels={"laplace": "Laplace", "gaussian": "Gaussian"}),
        Param("epsilon", "float", 0.5, "Privacy budget per observation (per cell; C = 1 site per hour).",
              label="ε per observation", low=0.0, high=10.0, low_open=True, step=0.05),
        Param("delta", "float", 2.5013e-4, "δ of the Gaussian mechanism (paper: 1/(2·1999)); the "
              "bound uses it k times. Ignored by Laplace (pure ε-DP).",
              label="δ (Gaussian)", low=0.0, high=0.1, low_open=True, high_open=True, log=True,
              active_when=("mechanism", ("gaussian",))),
        Param("calibration", "str", "classic", "Gaussian σ: classic √(2 ln(1.25/δ))/ε (valid for ε < 1, "
              "the paper's reference [8]) or the tight analytic Gaussian mechanism (Balle & Wang).",
              label="Gaussian calibration", choices=("classic", "analytic"),
              active_when=("mechanism", ("gaussian",))),
        Param("observations", "int", 60, "k: number of the target's positive observations (cells where "
              "it was seen) that the release covers. Curves sweep k up to this value.",
              label="Observations k", low=1, high=200, step=1),
        Param("attacker", "str", "informed", "informed = the DP adversary who knows every other trace; "
              "auxiliary = knows only a disjoint sample of the population.",
              label="Attacker", choices=("informed", "auxiliary"),
              choice_labels={"informed": "Informed (DP adversary)", "auxiliary": "Auxiliary data"}),
        Param("attack", "str", "two-threshold", "Attack whose metrics are headlined. Threshold attacks "
              "and the LRT are always evaluated; the MLP only when selected (slow).",
              label="Attack", choices=ATTACKS, choice_labels=attack_labels("location", "long")),
        Param("train_shadows", "int", 2000, "Shadow aggregates (half members) used to fit thresholds or "
              "train the MLP. The paper compares 2k and 200k.",
              label="Training shadows", low=20, high=1_000_000, log=True),
        Param("games", "int", 50_000, "Balanced test aggregates per evaluated point (paper: 50,000).",
              label="Test games per point", low=100, high=1_000_000, log=True),
        Param("target_users", "int", 10, "How many users are attacked, each with its own cells, pools and "
              "games. The first gives the headline numbers; every one gets a row in the per-user view of who "
              "is exposed (the auxiliary attacker finds users of sparse cells easier; the informed one does "
              "not care who the user is). With the MLP, every user trains its own network.",
              label="Attacked users", low=1, high=100),
        Param("user_games", "int", 2000, "Balanced test games for each attacked user after the first (the "
              "first plays 'Test games per point').", label="Test games per further user", low=100,
              high=100_000, log=True),
        Param("group_size", "int", 1999, "G: traces per aggregate besides the target (paper: 1,999).",
              label="Group size G", low=10, high=100_000),
        Param("shadow_sweep_max", "int", 200_000, "Largest training-set size in the accuracy-vs-shadows "
              "sweep (0 = no sweep). With the MLP every point trains a network.",
              label="Shadow sweep up to", low=0, high=1_000_000),
        Param("mlp_hidden", "str", "k", "Hidden units: k (paper, Fig. 11b) or 100 (prior work, App. G).",
              label="MLP hidden units", choices=("k", "100"), active_when=("attack", ("mlp",))),
        Param("activity_median", "float", 3.0, "Synthetic data: median check-ins per user. Larger values "
              "make cells denser (higher mean count λ at the target's cells).",
              label="Median check-ins per user", low=0.2, high=100.0, log=True,
              active_when=("attacker", ("auxiliary",))),
        Param("site_zipf", "float", 0.7, "Synthetic data: Zipf exponent of site popularity (0 = uniform); "
              "larger values crowd the popular sites.", label="Site popularity skew", low=0.0, high=3.0,
              step=0.1, active_when=("attacker", ("auxiliary",))),
        Param("users", "int", 15_793, "Synthetic data: number of users (paper: 15,793 after filtering).",
              label="Users", low=100, high=200_000, active_when=("attacker", ("auxiliary",))),
        Param("trace_file", "str", "", "Path of a check-in CSV (user, timestamp, lat/lon or site); empty = "
              "synthetic data.", ui=False, active_when=("attacker", ("auxiliary",))),
        Param("bug", "str", "none", "Re-create a documented DP accounting bug (the known-bug gallery of the Paper "
              "presets page): forgets-composition claims the per-observation ε for the target's k observations "
              "instead of k·ε (basic composition).", ui=False, choices=("none", "forgets-composition")),
    )

    # ------------------------------------------------------------ config
    def check(self, config: dict) -> None:
        if config["epsilon"] < 1e-3:  # noise scale ≥ 1000 per cell overflows the float32 attack scores (NaN)
            raise ParameterError("epsilon", f"ε per observation must be at least 0.001, got {config['epsilon']:g}")
        if (config["mechanism"] == "gaussian" and config["calibration"] == "classic"
                and config["epsilon"] >= 1.0):
            raise ParameterError("calibration", "the classic Gaussian σ is only valid for ε < 1; "
                                 "choose the analytic calibration or a smaller ε")
        if config["attacker"] == "auxiliary" and not config["trace_file"]:
            pools = (config["users"] - 1) // (4 if config["attack"] == "mlp" else 2)
            if config["group_size"] > pools:
                raise ParameterError("group_size", f"G = {config['group_size']} exceeds the smallest "
                                     f"trace pool ({pools} of {config['users']} users after the "
                                     "target/auxiliary split); raise users or lower G")

    def fit_notes(self, config: dict) -> list[str]:
        return list(fit(config).notes)

    def tasks(self, config: dict) -> list[tuple[str, int, int]]:
        config = fit(config).played(config)  # k and the attacked users a check-in file supports
        K, Ms = config["observations"], config["train_shadows"]
        out = [("k", K, Ms)] + [("k", k, Ms) for k in K_GRID if k < K]
        out += [("M", K, m) for m in SHADOW_GRID if m <= config["shadow_sweep_max"] and m != Ms]
        return out + U.user_tasks(config)

    def n_games(self, config: dict) -> int:
        return len(self.tasks(config))

    # each unit is a batch of test games: one (k, M) sweep point (`games` games) or one further attacked user
    unit = ("game batch", "game batches")

    def estimate_cost(self, config: dict):
        """Σ over the units (k, M) of the aggregates' cells and the attacks, in CPU seconds on one core of the
        2-core AMD EPYC lab machine (measured 2026-11-23 with benchmarks/bench_cost.py; n = games, shadows = M, plus
        M training and min(M, 20,000) validation shadows for the MLP):

        * **informed** attacker, per unit: 0.05 + 7.5e-8·n·k + 4e-8·shadows·k + 1.7e-6·n s (noise, threshold
          fits, scoring and one ROC per attack); the default (17 units, 58.5 M cells) measured 4.5 s (6.5 s with
          the machine's load at 4) where the old 1 µs per cell said 58 s;
        * **auxiliary** attacker: the clean counts of G-trace groups add 1.5e-7·(n + shadows)·k +
          3.5e-8·(n + shadows)·U(k) s, U(k) = the pool's traces that visit one of the target's first k cells,
          ≈ pool·(1 − exp(−1.5·k·E[check-ins]·96·Σp²/(96·800))) from the synthetic data's parameters (Σp²:
          site popularity); building the traces ≈ users·(5e-6 + 1.2e-6·E[check-ins]) s;
        * **MLP**: torch's import (≈ 4 s) once, then per unit ≈ epochs·⌈M/batch⌉·(1.3e-3 + 2e-10·batch·k·hidden)
          s with ≈ 60 epochs (early stopping; at most 80 above 20,000 shadows): 20,000 shadows, k = 60: 4.4 s;
          200,000 shadows: 36 s (the old 3 s + 5e-5·M·hidden was 3.4× high);
        * an uploaded trace file: its size bounds the check-ins (≈ 20 bytes each) and so U(k) and the load time;
        * each further attacked user (one attack scored, no curves kept, at most its share of the 10,000 rows of
          who is exposed): 0.01 + 1.5e-8·(n + shadows)·k + 1e-6·n s, + 3.5e-9·(n + shadows)·U(k) for the
          auxiliary attacker and its pools 1.2e-7 s per check-in; n = ``user_games`` (measured 2026-11-25 with
          bench_cost.py's child runs, load 4–6: 100 informed users × 20,000 games 3.3 s CPU for 7.0 s estimated,
          × 2,000 games 2.1 s for 3.6 s; 50 auxiliary users × 5,000 games 2.8 s for 7.8 s, most of the excess
          being the first target's auxiliary estimate).

        Memory: the largest unit's ≈ 24 bytes per test cell (n·k) and 12 per shadow cell (shadows·k): measured
        growth 356 MB at n = 200,000 (k = 60), 424 MB at k = 200, 575 MB with 10⁶ shadows; the old 32 bytes per
        cell refused k = 200 (1.6 GB estimated). The MLP adds torch (≈ 250 MB)."""
        config = fit(config).played(config)
        mlp = config["attack"] == "mlp"
        informed = config["attacker"] == "informed"
        seconds, peak = (4.0 if mlp else 0.0), 0.0
        relevant = None if informed else self._relevant_traces(config)
        if relevant is not None:
            seconds += relevant[1] + (config["target_users"] - 1) * relevant[2]
        for kind, k, m in self.tasks(config):
            shadow = m + (m + min(m, 20_000) if mlp else 0)
            if kind == "user":  # one attack, no ROC curve or histogram kept
                games = config["user_games"]
                seconds += 0.01 + 1.5e-8 * (games + shadow) * k + 1e-6 * games
                if relevant is not None:
                    seconds += (games + shadow) * 3.5e-9 * relevant[0](k)
            else:
                games = config["games"]
                seconds += 0.05 + 7.5e-8 * games * k + 4e-8 * shadow * k + 1.7e-6 * games
                if relevant is not None:
                    seconds += (games + shadow) * (1.5e-7 * k + 3.5e-8 * relevant[0](k))
            if mlp:
                hidden = k if config["mlp_hidden"] == "k" else 100
                batch = min(200, m) if m <= 20_000 else 256
                epochs = 60 if m <= 20_000 else 80
                seconds += epochs * math.ceil(m / batch) * (1.3e-3 + 2e-10 * batch * k * hidden)
            peak = max(peak, (24.0 * games + 12.0 * shadow) * k)
        if not informed:
            peak += 100e6
        if mlp:
            peak += 250e6  # torch
        return Cost(seconds=seconds, bytes=20e6 + peak,
                    drivers=("games", "observations", "train_shadows", "shadow_sweep_max", "target_users",
                             "user_games"),
                    basis="Σ units (games + shadows)·k cells (+ trace groups, MLP epochs)")

    @staticmethod
    def _relevant_traces(config: dict):
        """(k ↦ expected traces of a pool that visit one of the target's first k cells, seconds to build the
        traces and the first target's pools, seconds for each further attacked user's pools: 1.2e-7 s per
        check-in, measured 0.011 s at 143k check-ins and 0.135 s at 747k) for the auxiliary attacker, from the
        synthetic data's parameters or an uploaded file's size."""
        n_cells = 96 * 800  # sites × hourly epochs
        if config["trace_file"]:
            try:
                checkins = os.path.getsize(config["trace_file"]) / 20
            except OSError:
                checkins = 1e6
            visits = 5.0 * checkins / 2  # a pool holds about half the check-ins; popular sites ×5
            return (lambda k: 1.5 * k * visits / n_cells), 3e-6 * checkins, 0.002 + 1.2e-7 * checkins
        users = config["users"]
        pool = (users - 1) // 2
        checkins = min(800.0, config["activity_median"] * math.exp(1.5 ** 2 / 2) + 0.5)  # E⌈LogNormal(ln med, 1.5)⌉
        pop = np.arange(1, 97, dtype=float) ** -config["site_zipf"]
        crowding = 96 * float(np.sum((pop / pop.sum()) ** 2))  # 1 for uniform sites, ≈ 2.4 at the default 0.7
        rate = 1.5 * checkins * crowding / n_cells
        return ((lambda k: pool * -math.expm1(-k * rate)), users * (5e-6 + 1.2e-6 * checkins),
                0.002 + 1.2e-7 * users * checkins)

    # ------------------------------------------------------------ prepare
    def prepare(self, config: dict, rng: np.random.Generator) -> dict:
        fitted = fit(config)
        config = fitted.played(config)
        scale = noise_scale(config)
        # the values the file supports travel in the context, so the games never read the file again
        ctx = {"scale": scale, "clip": CLIP, "tasks": self.tasks(config),
               "informed": config["attacker"] == "informed", "fit_notes": list(fitted.notes),
               "played": {k: config[k] for k in ("observations", "group_size", "target_users")}}
        if ctx["informed"]:
            ctx["users"] = U.nominal_users(config)
            return ctx  # Ã − A_θ = b·z + X: the informed game needs no data at all
        K = config["observations"]
        if config["trace_file"]:
            traces = load_trace_csv(config["trace_file"], rng)
        else:
            traces = generate_traces(rng, n_users=config["users"], activity_median=config["activity_median"],
                                     site_zipf=config["site_zipf"])
        checkpoint("location: traces")
        obs = traces.observations_per_user()
        cands = np.flatnonzero(obs >= K)
        if cands.size == 0:
            raise DataError(f"no user has {K} positive observations (the most is {int(obs.max())}); "
                            "lower `observations`")
        target = int(rng.choice(cands))
        ctx.update(U.target_context(traces, target, obs, config, rng), data=traces.summary())
        ctx["users"] = U.extra_users(traces, obs, cands, target, config, rng)  # after the first: its draws hold
        return ctx

    # --------------------------------------------------------------- play
    def _fit_mlp(self, config, context, k: int, m: int, rng):
        """The meta-classifier on m training shadows of the target's k cells, stopped early on a validation set
        of at most 20,000 (paper §4.3, Fig. 11b: k hidden units, or 100 as prior work)."""
        Xtr, ytr = self._aggregates(config, context, "train", k, m, rng)
        Xv, yv = self._aggregates(config, context, "val", k, min(m, 20_000), rng)
        checkpoint("location: MLP training")
        hidden = k if config["mlp_hidden"] == "k" else 100
        return MetaClassifierMLP(hidden=hidden, standardize=not context["informed"],
                                 seed=int(rng.integers(2**31))).fit(Xtr, ytr, Xv, yv)

    def _aggregates(self, config, context, pool: str, k: int, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """Ã^r at the first k target cells for n balanced aggregates, and their bits."""
        y = balanced_labels(n)
        X = noise(config["mechanism"], context["scale"], (n, k), rng)
        X += y[:, None]
        if not context["informed"]:
            X += sample_counts(context["pools"][pool].restrict(k), config["group_size"], n, rng)
        return X, y

    def play(self, config: dict, context: dict, index: int, rng: np.random.Generator) -> dict:
        """One sweep point (k observations, m shadow games): shadow aggregates to fit the threshold attacks,
        the likelihood-ratio test (informed, or from the auxiliary pool) and optionally the MLP meta-classifier,
        then the test games scored by each attack (accuracy, AUC, TPR at low FPR). The main point (index 0) also
        keeps the ROCs, score histograms, per-record exposure, the learnt thresholds or MLP weights and the
        split-half empirical-ε lower bound."""
        config = {**config, **context.get("played", {})}
        kind, k, m = context["tasks"][index]
        if kind == "user":
            return U.play_user(self, config, context, index, rng, CLIP)
        main = index == 0
        Xs, ys = self._aggregates(config, context, "aux", k, m, rng)
        checkpoint("location: shadow aggregates")
        Xt, yt = self._aggregates(config, context, "target", k, config["games"], rng)
        checkpoint("location: test aggregates")
        attacks = {"one-threshold": OneThresholdAttack().fit(Xs, ys),
                   "two-threshold": TwoThresholdAttack().fit(Xs, ys)}
        lrt = LikelihoodRatioAttack(config["mechanism"], context["scale"], CLIP)
        if context["informed"]:
            lrt.fit_informed(k)
        else:
            aux = context["pools"]["aux"].restrict(k)
            lrt.fit_pool(aux.size, context["pools"]["aux"].cell_hits()[:k], config["group_size"])
        attacks["lrt"] = lrt
        record = {"kind": kind, "k": k, "shadows": m, "games": int(yt.size), "attacks": {}}
        mlp = None
        if config["attack"] == "mlp":

            mlp = attacks["mlp"] = self._fit_mlp(config, context, k, m, rng)
        main_scores = []  # the main task's scores of every attack, for the measured ε
        for name, att in attacks.items():
            checkpoint("location: scoring")
            if name == "mlp":
                scores = att.decision_function(Xt)
                pred = (scores >= 0).astype(np.int8)
            elif name == "lrt":
                scores = att.score(Xt)
                pred = att.predict(Xt, rng)
            else:
                scores = att.score(Xt)
                pred = (scores > att.threshold_).astype(np.int8)
            if main:
                main_scores.append(scores)
            roc = M.roc(yt, scores)
            entry = {"correct": int((pred == yt).sum()), "accuracy": float((pred == yt).mean()),
                     "auc": roc["auc"], "tpr_at_fpr_0.01": tpr_at(roc, 0.01),
                     "tpr_at_fpr_0.001": tpr_at(roc, 0.001)}
            if main and name == (config["attack"] if config["attack"] in attacks else "two-threshold"):
                record["headline"] = U.headline(config, context, name, yt, pred, scores, first=True)
                record["exposure"] = record["headline"].pop("exposure")
            if main:
                entry["roc"] = thin_roc(roc["fpr"], roc["tpr"])
                entry["hist"] = score_histogram(scores, yt, k if name == "two-threshold" else None)
            record["attacks"][name] = entry
        if main:
            # Measured privacy (core.measure.audit): the attack and threshold are chosen on half the test games,
            # the 95% lower bound on ε is computed on the other half, against the claim for the target's k
            # observations (basic composition: k·ε, k·δ).
            claim_k = 1 if config.get("bug") == "forgets-composition" else k
            record["empirical_epsilon_low"] = M.split_epsilon_bound(yt, main_scores,
                                                                    min(1.0, claim_k * bound_delta(config)))
            two = attacks["two-threshold"]
            record["cell_thresholds"] = two.cell_thresholds_.tolist()
            if mlp is not None:
                W, b = mlp.raw_weights()
                ws = weight_summary(W, b)
                record["mlp"] = {"W1": ws["W1"].tolist(), "b1": ws["b1"].tolist(),
                                 "W2": mlp.coefs_[1][ws["order"]].ravel().tolist(),
                                 "b2": float(mlp.intercepts_[1][0]), "thresholds": ws["thresholds"].tolist(),
                                 "effective": effective_input_weights(W, b, mlp.coefs_[1]).tolist(),
                                 "dominance": ws["dominance"], "uniform_dominance": ws["uniform_dominance"],
                                 "best_epoch": mlp.best_epoch_, "history": mlp.history_}
        elif mlp is not None:
            record["mlp_best_epoch"] = mlp.best_epoch_
        return record

    def exposure(self, config, context, records):
        """Every attacked user's test games, users in turn, with the per-user summary (``groups``)."""
        return U.merged_exposure({**config, **context.get("played", {})}, context, records)

    # ---------------------------------------------------------- summarize
    def summarize(self, config: dict, context: dict, records: list[dict]):
        config = {**config, **context.get("played", {})}
        K = config["observations"]
        theory = theory_curves(config)
        main = records[0]
        chosen = main["attacks"].get(config["attack"]) or main["attacks"]["two-threshold"]
        lo, hi = M.clopper_pearson(chosen["correct"], main["games"])
        dp = T.dp_expected_accuracy(K, config["epsilon"], bound_delta(config))
        metrics = {"accuracy": chosen["accuracy"], "accuracy_ci_low": lo, "accuracy_ci_high": hi,
                   "auc": chosen["auc"], "dp_bound_accuracy": dp,
                   "dp_bound_auc": theory["dp_bound_auc"][theory["k"].index(K)],
                   "tpr_at_fpr_0.01": chosen["tpr_at_fpr_0.01"],
                   "optimal_informed_accuracy": theory["optimal"][theory["k"].index(K)],
                   "noise_scale": context["scale"]}
        for name, e in main["attacks"].items():
            metrics[f"{name}_accuracy"] = e["accuracy"]
        metrics["gap_to_bound"] = dp - chosen["accuracy"]
        forgets = config.get("bug") == "forgets-composition"  # known-bug gallery: the claim ignores composition
        metrics["claimed_epsilon"] = (1 if forgets else K) * config["epsilon"]
        metrics["claimed_delta"] = min(1.0, (1 if forgets else K) * bound_delta(config))
        metrics["empirical_epsilon_low"] = main["empirical_epsilon_low"]
        if not context["informed"]:
            metrics["mean_clean_count"] = float(np.mean(context["mean_clean_count"]))
        metrics.update(U.user_metrics(records))
        by_k = sorted((r for r in records if r["kind"] == "k"), key=lambda r: r["k"])
        by_m = sorted([r for r in records if r["kind"] == "M"] + [main], key=lambda r: r["shadows"])
        names = list(main["attacks"])

        def curves(rows):
            out = {}
            for n in names:
                rs = [r for r in rows if n in r["attacks"]]
                ci = [M.clopper_pearson(r["attacks"][n]["correct"], r["games"]) for r in rs]
                # balanced test games: half members, half non-members
                auc_ci = [M.auc_ci_from_counts(r["attacks"][n]["auc"], r["games"] // 2, r["games"] - r["games"] // 2)
                          for r in rs]
                out[n] = {"x": [r["k"] if rows is by_k else r["shadows"] for r in rs],
                          "accuracy": [r["attacks"][n]["accuracy"] for r in rs],
                          "auc": [r["attacks"][n]["auc"] for r in rs],
                          "ci_low": [c[0] for c in ci], "ci_high": [c[1] for c in ci],
                          "auc_ci_low": [c[0] for c in auc_ci], "auc_ci_high": [c[1] for c in auc_ci]}
            return out

        series = {"theory": {key: v for key, v in theory.items() if not key.startswith("roc")},
                  "observations": curves(by_k), "shadows": curves(by_m),
                  "roc": {n: main["attacks"][n]["roc"] for n in names},
                  "roc_optimal": theory["roc_optimal"], "roc_dp": theory["roc_dp"],
                  "histograms": {n: main["attacks"][n]["hist"] for n in names},
                  "cell_thresholds": main.get("cell_thresholds", []),
                  "info": {"attacker": config["attacker"], "mechanism": config["mechanism"], "k": K,
                           "scale": context["scale"], "synthetic": not config["trace_file"],
                           "data": context.get("data"), "target": context.get("target"),
                           "mean_clean_count": context.get("mean_clean_count"),
                           "dp_bound": dp, "optimal": metrics["optimal_informed_accuracy"],
                           "dp_bound_auc": theory["dp_bound_auc"][theory["k"].index(K)],
                           "optimal_auc": theory["optimal_auc"][theory["k"].index(K)]}}
        if "mlp" in main:
            series["mlp"] = main["mlp"]
        if context.get("fit_notes"):
            series["fit_notes"] = list(context["fit_notes"])
        return metrics, series

