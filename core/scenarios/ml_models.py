"""Who is most exposed when a model is published? Disparate attribute inference, targeted attacks and BCorr.

Kabir, Craig & Mehnaz, *Disparate Privacy Vulnerability: Targeted Attribute Inference Attacks and Defenses*
(arXiv 2504.04033; ``docs/specs/seed003_004_disparate_and_cs208.md`` Part A).

A model ``f`` is trained on records ``(x_ns, s, y)``; the attacker queries it as a black box and infers each
record's binary sensitive attribute ``s`` (CSMIA, LOMIA) or, as a baseline, imputes it from auxiliary data.
Accuracy is not the same for everyone: groups of a public attribute (US state) in which ``s`` and ``y`` are
strongly correlated leak much more. The attacker can *find* those groups without knowing any ``s``, from the
angle between the two classes' confidence lines (AD, §5.1), and spend the attack on them (targeting, §5.3).
BCorr (§7.2) rebalances the training data so that every group has the least-correlated group's correlation.

Units of work: unit 0 trains the target model (cached in-process by dataset, model configuration and seed),
runs the chosen attack, the disparity ranking and the targeting; unit 1 (``defense = bcorr``) resamples,
retrains and re-attacks. Data are built once in :meth:`MLModels.prepare`.
"""
from __future__ import annotations

import functools
import os
import time

import numpy as np

from ..attacks.declaration import attacks_of
from ..attacks.declaration import labels as attack_labels
from ..attacks.ml_models.confidence_matrix import class_lines, correctness, group_ad
from ..attacks.ml_models.csmia import csmia
from ..attacks.ml_models.disparity import (
    DIRECTIONS,
    group_accuracy,
    rank_agreement,
    rank_groups,
    risk_score,
    seed_spread,
)
from ..attacks.ml_models.imputation import ImputationAttack
from ..attacks.ml_models.lomia import lomia
from ..attacks.ml_models.targeted import targeting
from ..basics.idle import on_idle
from ..cancel import checkpoint
from ..data import disparity_population as P
from ..defenses.bcorr import asrd, asrd_noise_floor, bcorr_indices, fairness
from ..errors import DataError, ParameterError
from ..measure import metrics as M
from ..measure.ml_records import exposure_table
from ..models.target_model import SCALINGS, Encoder, cached_target, expected_epochs, model_seed, train_target, with_s
from ..params import Param
from ..scenario import Scenario, prepare_rng, register
from ..cost import Cost
from ..measure.records import RecordTable

ATTACKS = tuple(a.key for a in attacks_of("ml-models"))  # declared in core/attacks/ml_models/__init__.py
DEFAULT_COLUMNS = {"synthetic": ("INCOME", "MAR", "ST"), "tv16": ("votetrump", "bornagain", "state"),
                   "csv": ("", "", "")}
SCATTER_POINTS = 160  # per group, for the confidence scatter
EPS_LEVELS = 24  # score quantiles scanned for the empirical ε bound (each threshold costs two exact CIs)


def columns(config: dict) -> tuple[str, str, str]:
    """(label, sensitive, group) with the dataset's defaults filled in."""
    d = DEFAULT_COLUMNS[config["dataset"]]
    return (config["label"] or d[0], config["sensitive"] or d[1], config["group"] or d[2])


def _file_key(path: str) -> tuple:
    try:
        st = os.stat(path)
        return (path, st.st_size, int(st.st_mtime))
    except OSError:
        return (path, 0, 0)


def data_key(config: dict, seed: int) -> tuple:
    label, sensitive, group = columns(config)
    key = (config["dataset"], label, sensitive, group, seed)
    if config["dataset"] == "synthetic":
        return key + (config["n_per_group"], config["groups"])
    if config["dataset"] == "csv":
        key += _file_key(config["data_path"]) + (config["categorical"],)
    return key + (config["min_group"], config["max_records"])


@functools.lru_cache(maxsize=8)
def _load(key: tuple, config_items: tuple) -> P.DisparityData:
    config = dict(config_items)
    label, sensitive, group = columns(config)
    seed = key[4]
    if config["dataset"] == "synthetic":
        return P.synthetic(config["n_per_group"], seed, n_groups=config["groups"])
    if config["dataset"] == "tv16":
        return P.tv16(label, sensitive, group, seed, min_group=config["min_group"],
                      max_train=config["max_records"])
    if not config["data_path"]:
        raise DataError("dataset = csv needs a file: upload one (or set data_path)")
    for role, col in (("label", label), ("sensitive", sensitive), ("group", group)):
        if not col:
            raise DataError(f"dataset = csv: choose the {role} column of your file")
    return P.from_csv(config["data_path"], label, sensitive, group, seed, min_group=config["min_group"],
                      max_train=config["max_records"], categorical=categorical_columns(config["categorical"]))


on_idle(_load.cache_clear)  # a file's training and population tables, read again after an idle spell


def categorical_columns(text: str) -> tuple[str, ...]:
    """The column names of the ``categorical`` parameter (comma separated, blanks ignored)."""
    return tuple(c.strip() for c in (text or "").split(",") if c.strip())


def load_population(config: dict, seed: int) -> P.DisparityData:
    """The population of ``config`` (cached); raises :class:`DataError` for unusable columns."""
    keys = ("dataset", "label", "sensitive", "group", "n_per_group", "groups", "min_group", "max_records", "data_path",
            "categorical")
    return _load(data_key(config, seed), tuple((k, config[k]) for k in keys))


def population_preview(config: dict, seed: int = 0) -> dict:
    """Per-group correlation ρ_g between s and y of the training data (the ground truth the attacker does
    not see), for an instant first plot before any model is trained."""
    d = load_population(config, _data_seed(seed))
    n = np.bincount(d.g, minlength=d.n_groups)
    return {"groups": d.group_names, "rho": d.group_rho().tolist(), "n": n.tolist(),
            "rho_target": None if d.rho_target is None else d.rho_target.tolist(), "info": d.summary(),
            "targeting_candidates": list(targeting_attributes(d))}


def targeting_attributes(d) -> dict[str, np.ndarray]:
    """The targeting step's candidates: each categorical attribute with 2 to ``MAX_GROUPS`` values among the
    training records, as integer codes (numeric inputs are not candidates: the paper targets categories)."""
    out = {}
    for c in d.categorical:
        codes = _codes(d.train[c])
        if 2 <= codes.max() + 1 <= P.MAX_GROUPS:
            out[c] = codes
    return out


def _data_seed(seed: int) -> int:
    """The data seed :meth:`MLModels.prepare` draws first from the run's prepare generator."""

    return int(prepare_rng(seed).integers(2**31))


def _eps_scores(score: np.ndarray) -> np.ndarray:
    """Rank-preserving quantisation to ≤ EPS_LEVELS values (keeps the ε bound's threshold scan short)."""
    qs = np.quantile(score, np.linspace(0, 1, EPS_LEVELS + 1)[1:-1])
    return np.searchsorted(np.unique(qs), score, side="right").astype(float)


def _codes(values) -> np.ndarray:
    _, codes = np.unique(np.asarray(values).astype(str), return_inverse=True)
    return codes.astype(int)


@register
class MLModels(Scenario):
    name = "ml-models"
    title = "ML models: who is most exposed? Disparate attribute inference"
    summary = ("A published model leaks a sensitive attribute unevenly: black-box attacks (CSMIA, LOMIA) infer it "
               "far better for groups in which it is correlated with the model's output. The attacker ranks the "
               "groups by the angle between confidence lines, targets the most exposed ones, and BCorr "
               "rebalances the training data to close the gap.")
    paper = ("Kabir, Craig & Mehnaz — Disparate Privacy Vulnerability: Targeted Attribute Inference Attacks and "
             "Defenses (arXiv 2504.04033)")
    blas_threads = 1
    params = (
        Param("dataset", "str", "synthetic", "synthetic = the paper's correlation-controlled Census-like population "
              "(ground truth known); tv16 = CCES 2016 survey (natural data); csv = your file.",
              label="Dataset", choices=("synthetic", "tv16", "csv"),
              choice_labels={"synthetic": "Synthetic census (ρ per state known)",
                             "tv16": "CCES 2016 survey (TV16, real)", "csv": "Your CSV"}),
        # The synthetic census has fixed columns (INCOME, MAR, ST): naming columns only means something for
        # real or uploaded data, so with dataset=synthetic they are reported as having no effect.
        Param("label", "str", "", "Binary column the model predicts (empty = dataset default: INCOME / "
              "votetrump).", label="Label (model output)", active_when=("dataset", ("tv16", "csv"))),
        Param("sensitive", "str", "", "Binary column the attacker infers (empty = dataset default: MAR / "
              "bornagain).", label="Sensitive attribute", active_when=("dataset", ("tv16", "csv"))),
        Param("group", "str", "", "Public categorical column whose values define the groups (empty = dataset "
              "default: ST / state).", label="Group attribute", active_when=("dataset", ("tv16", "csv"))),
        Param("model", "str", "mlp", "Target model: the paper's MLP (32, 16, 8), or a random forest as a what-if "
              "the paper did not test.", label="Target model", choices=("mlp", "forest"),
              choice_labels={"mlp": "MLP (32, 16, 8) — paper", "forest": "Random forest — not in the paper"}),
        Param("attack", "str", "csmia", "Attack whose accuracy is reported: CSMIA (confidences), LOMIA (labels "
              "only), or imputation from auxiliary data with the training distribution (ideal) or another one "
              "(practical).", label="Attack", choices=ATTACKS, choice_labels=attack_labels("ml-models", "long")),
        Param("targeting", "str", "single", "none = attack everyone; single = the best attribute's most exposed "
              "values up to the budget κ; nested = intersect several attributes' exposed values.",
              label="Targeting", choices=("none", "single", "nested"),
              choice_labels={"none": "Untargeted (every record)", "single": "Single attribute", "nested": "Nested attributes"}),
        Param("target_attribute", "str", "", "Single-attribute targeting's attribute (a categorical column); empty "
              "= the widest range of angular differences, the paper's rule.", ui=False),
        Param("kappa", "float", 0.1, "Attack budget κ: the fraction of the records the attacker targets.",
              label="Budget κ", low=0.01, high=1.0, step=0.01, active_when=("targeting", ("single", "nested"))),
        Param("defense", "str", "none", "bcorr = resample every group to the least-correlated group's ρ and "
              "retrain (before/after comparison).", label="Defense", choices=("none", "bcorr"),
              choice_labels={"none": "None", "bcorr": "BCorr (balanced correlation)"}),
        Param("n_per_group", "int", 1000, "Synthetic data: training records per group (paper: 1,000 per state). "
              "Fewer records make every group's attack accuracy noisier: with 300 per group, identical groups "
              "already differ by ≈ 13 points, which hides what BCorr achieves.",
              label="Records per group", low=50, high=5000, step=50, active_when=("dataset", ("synthetic",))),
        Param("groups", "int", 51, "Synthetic data: number of groups (states); group i has ρ = −0.5·i/groups.",
              label="Groups (states)", low=2, high=51, active_when=("dataset", ("synthetic",))),
        Param("epochs", "int", 20, "Training epochs of the MLP (paper: up to 500, spec §A15: 200). At 1,000 "
              "records per group, 20 epochs are ≈ 5,000 Adam steps and already show the paper's trends; more "
              "epochs train slower and overfit more.", label="MLP epochs", low=5, high=500, step=5,
              active_when=("model", ("mlp",))),
        Param("training", "str", "fixed", "fixed = the epochs set; converge = as the authors' code: stop when the "
              "loss on a held-out 10% validation split has not improved for 10 epochs (the epochs set are a cap), "
              "keeping the best epoch's weights.", label="MLP training", choices=("fixed", "converge"),
              choice_labels={"fixed": "Fixed number of epochs", "converge": "To convergence (early stopping)"},
              active_when=("model", ("mlp",))),
        Param("scaling", "str", "minmax", "How numeric inputs (age, hours, amounts) reach the model, both as the "
              "authors' code offers: min-max to [0, 1] over every record, or z-score (mean 0, s.d. 1 with the "
              "training records' mean and s.d.; held-out records use the same), which the authors use for "
              "heavy-tailed amounts such as capital gain. Categories are one-hot coded either way.",
              label="Numeric scaling", choices=SCALINGS,
              choice_labels={"minmax": "Min-max to [0, 1]", "zscore": "Z-score (training mean and s.d.)"}),
        Param("model_seeds", "int", 1, "Target models trained with different seeds on the same data; targeted "
              "accuracy and Kendall τ are reported as mean ± s.d. over them (the paper's 81.6% on Adult is one "
              "seed: the authors' code gives 68.1 ± 9.1 over four).", label="Target-model seeds", low=1, high=10),
        Param("rank_direction", "str", "auto", "How AD ranks groups: ascending = more negative AD is more exposed "
              "(paper, ρ < 0), descending (ρ > 0), auto = the direction of the median AD (our extension).",
              label="Ranking direction", choices=DIRECTIONS),
        Param("min_group", "int", 20, "Real or uploaded data: smallest allowed group (training records); smaller "
              "groups are rejected with a message.", label="Minimum group size", low=5, high=1000,
              active_when=("dataset", ("tv16", "csv"))),
        Param("max_records", "int", 15_000, "Real or uploaded data: at most this many training records (a random "
              "subset), to keep training fast.", label="Max training records", low=1000, high=500_000,
              active_when=("dataset", ("tv16", "csv"))),
        Param("data_path", "str", "", "Path of the CSV when dataset = csv.", ui=False,
              active_when=("dataset", ("csv",))),
        Param("categorical", "str", "", "Your CSV: numeric columns to treat as categories (one-hot coded), comma "
              "separated; every other numeric column with more than 12 values is a scaled continuous input",
              label="Numeric columns read as categories", ui=False, active_when=("dataset", ("csv",))),
    )

    # ----------------------------------------------------------------------------------------- config
    def check(self, config: dict) -> None:
        label, sensitive, group = columns(config)
        if all((label, sensitive, group)) and len({label, sensitive, group}) < 3:
            raise ParameterError("group", "label, sensitive attribute and group must be three different columns")

    def estimate_cost(self, config):
        """Data, training, attack and targeting, in CPU seconds on one core of the 2-core AMD EPYC lab machine (measured
        2026-11-23 with benchmarks/bench_cost.py, r = training records): ≈ 2 + 8e-5·r s for the data, the attack,
        the disparity ranking and the targeting, plus the MLP's ≈ 5e-6 s per record-epoch (51,000 records:
        20 epochs 6.8–8.7 s in all, 60 epochs 13.3–16.6 s, 200 epochs 41.5–52.7 s; 153,000 records × 20 epochs 20.5 s;
        scikit-learn may stop before the last epoch, so long runs are estimated high) or a forest's ≈ 2.8e-4 s per
        record (16.9 s at 51,000). LOMIA and imputation fit an attack model on top (×1.5: 11.5 s); BCorr resamples,
        retrains and re-attacks on about half the records (+50%: 9.9 s). The old model (1e-5 s per
        record-epoch) was 2.4× high at 60 epochs and under-estimated the forest by a third. Memory ≈ 200 MB + 2 kB per
        record; each target-model seed repeats training and attack; converge counts epochs to early stopping."""
        c = config
        records = c["groups"] * c["n_per_group"] if c["dataset"] == "synthetic" else c["max_records"]
        epochs = expected_epochs(c["training"], c["epochs"], c["dataset"] == "synthetic")
        train = 5e-6 * records * epochs if c["model"] == "mlp" else 2.8e-4 * records
        work = (8e-5 * records + train) * (1.0 if c["attack"] == "csmia" else 1.5)
        seconds = 2.0 + work * (c["model_seeds"] + (0.5 if c["defense"] == "bcorr" else 0.0))
        return Cost(seconds=seconds, bytes=200e6 + 2000 * records,
                    drivers=("n_per_group", "groups", "epochs", "model_seeds"),
                    basis="seeds × records × (1 + epochs)")

    def n_games(self, config: dict) -> int:
        return config["model_seeds"] + (1 if config["defense"] == "bcorr" else 0)

    unit = ("trained model", "trained models")  # the target model, and with BCorr the defended one

    # ---------------------------------------------------------------------------------------- prepare
    def prepare(self, config: dict, rng: np.random.Generator) -> dict:
        t0 = time.perf_counter()
        data_seed = int(rng.integers(2**31))
        model_seed = int(rng.integers(2**31))
        d = load_population(config, data_seed)
        checkpoint("building the population")
        enc = Encoder(d.categorical, d.numeric, config["scaling"]).fit(d.train, d.test, d.aux)
        attrs = targeting_attributes(d)
        if config["target_attribute"] and config["targeting"] == "single" and config["target_attribute"] not in attrs:
            raise ParameterError("target_attribute", f"{config['target_attribute']!r} is not a categorical "
                                 f"attribute with 2 or more values; the candidates: {', '.join(attrs) or 'none'}")
        ctx = {"data": d, "X": enc.transform(d.train), "X_test": enc.transform(d.test),
               "X_aux": enc.transform(d.aux), "attributes": attrs,
               "attribute_values": {c: sorted(np.unique(d.train[c].astype(str))) for c in attrs},
               "key": data_key(config, data_seed), "model_seed": model_seed,
               "data_seconds": time.perf_counter() - t0}
        return ctx

    # ------------------------------------------------------------------------------------------- play
    def _attack(self, config, model, X, s, y, X_aux_ideal, aux_ideal, X_aux_prac, aux_prac, rng):
        """(prediction, score for s = 1, CSMIA result, info) of the configured attack."""
        cs = csmia(model, X, y, rng)
        info = {"cases": np.bincount(cs.case, minlength=4)[1:].tolist()}
        seed = int(rng.integers(2**31))
        if config["attack"] == "csmia":
            return cs.prediction, cs.score, cs, info
        checkpoint("attack")
        if config["attack"] == "lomia":
            pred, score, extra = lomia(cs.labels, X, y, rng, seed)
            info.update(extra)
            return pred, score, cs, info
        if config["attack"] == "imputation-ideal":
            Xa, (sa, ya) = X_aux_ideal, aux_ideal
        else:
            Xa, (sa, ya) = X_aux_prac, aux_prac
        imp = ImputationAttack(seed).fit(Xa, ya, sa)
        score = imp.score(X, y)
        info["aux_records"] = int(len(sa))
        info["aux_prior_s1"] = float(np.mean(sa))
        return (score >= 0.5).astype(int), score, cs, info

    def _ideal_aux(self, n: int, rng) -> np.ndarray:
        return rng.choice(n, size=min(5000, max(50, n // 3)), replace=False)

    def play(self, config: dict, context: dict, index: int, rng: np.random.Generator) -> dict:
        if index < config["model_seeds"]:
            return self._play_main(config, context, rng, index)
        return self._play_bcorr(config, context, rng)


    def _play_main(self, config: dict, context: dict, rng: np.random.Generator, index: int = 0) -> dict:
        """One target model (seed ``index``) and every attack on it: train or reuse the model, score fairness on
        the test split, run the chosen attack on all training records, then per group its accuracy, the angular
        difference (AD) of the confidence matrix and the risk ranking against the true accuracies (Kendall τ),
        the auxiliary-data baseline ranking, the targeting step (attributes ranked by AD range, κ sweep, nested
        selection), a confidence-scatter sample per group and the empirical-ε bound. Seconds go beside the
        numbers, never into them."""
        d, X = context["data"], context["X"]
        times = {}
        t = time.perf_counter()
        model, hit = cached_target((context["key"], config["scaling"], config["model"], config["epochs"]
                                    if config["model"] == "mlp" else 0), with_s(X, d.s), d.y, config["model"], config["epochs"],
                                   model_seed(context["model_seed"], index), config["training"] == "converge")
        times["train_seconds"] = time.perf_counter() - t
        checkpoint("after training")
        fair = fairness(d.y_test, model.predict(context["X_test"], d.s_test), d.g_test)
        train_acc = float(np.mean(model.predict(X, d.s) == d.y))

        t = time.perf_counter()
        ideal = self._ideal_aux(len(d.y), rng)
        pred, score, cs, info = self._attack(config, model, X, d.s, d.y, X[ideal], (d.s[ideal], d.y[ideal]),
                                             context["X_aux"], (d.s_aux, d.y_aux), rng)
        correct = pred == d.s
        times["attack_seconds"] = time.perf_counter() - t
        checkpoint("after the attack")

        t = time.perf_counter()
        G = d.n_groups
        acc_g, n_g = group_accuracy(correct, d.g, G)
        cs_acc_g, _ = group_accuracy(cs.prediction == d.s, d.g, G)
        ad, v_rows = group_ad(cs.confidence, cs.labels, d.y, d.g, G)
        direction = config["rank_direction"]
        if direction == "auto":
            finite = ad[np.isfinite(ad)]  # no group with a slope: no evidence either way, keep the default
            direction = "ascending" if finite.size and np.median(finite) <= 0 else "descending"
        risk = risk_score(ad, direction)
        agree = rank_agreement(risk, acc_g)
        # baseline: CSMIA accuracy per group on an auxiliary set with known s (a different distribution)
        aux_cs = csmia(model, context["X_aux"], d.y_aux, rng)
        base_acc, base_n = group_accuracy(aux_cs.prediction == d.s_aux, d.g_aux, G)
        base_acc = np.where(base_n >= 5, base_acc, np.nan)
        base = rank_agreement(base_acc, acc_g)
        times["disparity_seconds"] = time.perf_counter() - t

        t = time.perf_counter()
        ranges, best, sweep, nested, skipped = targeting(config["targeting"], config["kappa"], context["attributes"],
                                                         context["attribute_values"], cs, d.y, direction, correct,
                                                         attribute=config["target_attribute"])
        times["targeting_seconds"] = time.perf_counter() - t

        # confidence scatter sample per group (v = 1 rows), with each class's regression line
        v = correctness(cs.labels, d.y)
        scatter = []
        for k in range(G):
            rows = np.flatnonzero(v & (d.g == k))
            if rows.size > SCATTER_POINTS:
                rows = np.sort(rng.choice(rows, SCATTER_POINTS, replace=False))
            in_g = np.flatnonzero(d.g == k)
            lines = class_lines(cs.confidence[in_g], cs.labels[in_g], d.y[in_g])
            scatter.append({"x": np.round(cs.confidence[rows, 1], 4).tolist(),
                            "y": np.round(cs.confidence[rows, 0], 4).tolist(),
                            "cls": d.y[rows].astype(int).tolist(),
                            "lines": {str(c): lines[c] for c in lines}})
        eps = M.best_threshold_epsilon(d.s, _eps_scores(score)) if M.has_both_classes(d.s) else float("nan")
        exposure = exposure_table(d, pred, score, config["data_path"] if config["dataset"] == "csv" else None)
        return {"exposure": exposure, "kind": "main", "model_index": index, "cache_hit": hit, "epochs": model.epochs,
                "train_accuracy": train_acc,
                **fair, "correct": int(correct.sum()), "n": int(correct.size),
                "csmia_correct": int((cs.prediction == d.s).sum()), "attack_info": info,
                "group_accuracy": acc_g.tolist(), "group_n": n_g.tolist(), "csmia_group_accuracy": cs_acc_g.tolist(),
                "group_correct": np.bincount(d.g, weights=correct, minlength=G).astype(int).tolist(),
                "ad": ad.tolist(), "risk": risk.tolist(), "v_rows": v_rows.tolist(), "direction": direction,
                "agreement": agree, "baseline": base, "baseline_accuracy": base_acc.tolist(),
                "asrd": asrd(acc_g), "rho": d.group_rho().tolist(),
                "attribute_ranges": {a: {"range": r["range"], "ad": r["ad"].tolist()} for a, r in ranges.items()},
                "best_attribute": best, "kappa_sweep": sweep, "nested": nested, "scatter": scatter,
                "targeting_skipped": skipped,
                "empirical_epsilon_low": eps, **times}

    def _play_bcorr(self, config: dict, context: dict, rng: np.random.Generator) -> dict:
        d, X = context["data"], context["X"]
        t = time.perf_counter()
        keep, info = bcorr_indices(d.s, d.y, d.g, d.n_groups, rng)
        checkpoint("BCorr resampling")
        Xb, sb, yb, gb = X[keep], d.s[keep], d.y[keep], d.g[keep]
        model = train_target(with_s(Xb, sb), yb, config["model"], config["epochs"], context["model_seed"],
                             config["training"] == "converge" and config["model"] == "mlp")
        fair = fairness(d.y_test, model.predict(context["X_test"], d.s_test), d.g_test)
        ideal = self._ideal_aux(len(yb), rng)
        pred, _, _, _ = self._attack(config, model, Xb, sb, yb, Xb[ideal], (sb[ideal], yb[ideal]), context["X_aux"],
                                     (d.s_aux, d.y_aux), rng)
        correct = pred == sb
        acc_g, n_g = group_accuracy(correct, gb, d.n_groups)
        acc_g = np.where(n_g > 0, acc_g, np.nan)
        return {"kind": "bcorr", **info, **fair, "correct": int(correct.sum()), "n": int(correct.size),
                "group_accuracy": acc_g.tolist(), "group_n": n_g.tolist(), "asrd": asrd(acc_g),
                "bcorr_seconds": time.perf_counter() - t}

    def exposure(self, config, context, records):
        main = next((r for r in records if r["kind"] == "main" and r.get("model_index", 0) == 0), None)
        return RecordTable.from_dict(main.get("exposure")) if main else None

    # -------------------------------------------------------------------------------------- summarize
    def summarize(self, config: dict, context: dict, records: list[dict]):
        """Metrics and series from the target models (the run's own seed gives the detailed views; several
        seeds add mean ± s.d.) and, with BCorr, from the model retrained on the rebalanced data: untargeted and
        targeted accuracy with Clopper–Pearson intervals, the ranking's agreement, ASRD and its noise floor,
        fairness (EOD, DPD), and the group table, κ sweep, scatter and notes the page draws."""
        mains = sorted((r for r in records if r["kind"] == "main"), key=lambda r: r.get("model_index", 0))
        main = mains[0] if mains else None  # the run's own seed: the detailed views
        bc = next((r for r in records if r["kind"] == "bcorr"), None)
        d = context["data"]
        metrics: dict = {"data_seconds": context["data_seconds"]}
        series: dict = {"info": {**d.summary(), "attack": config["attack"], "model": config["model"],
                                 "targeting": config["targeting"], "kappa": config["kappa"]},
                        "notes": list(d.skipped)}
        if main is not None:
            lo, hi = M.clopper_pearson(main["correct"], main["n"])
            sweep = main["kappa_sweep"]
            at_k = next((s for s in sweep if abs(s["kappa"] - config["kappa"]) < 1e-12), None)
            target = {"none": None, "single": at_k, "nested": main["nested"][-1] if main["nested"] else None}[
                config["targeting"]]
            metrics.update({
                "accuracy": main["correct"] / main["n"], "accuracy_ci_low": lo, "accuracy_ci_high": hi,
                "csmia_accuracy": main["csmia_correct"] / main["n"],
                "targeted_accuracy": target["accuracy"] if target else float("nan"),
                "targeted_accuracy_ci_low": target["ci_low"] if target else float("nan"),
                "targeted_accuracy_ci_high": target["ci_high"] if target else float("nan"),
                "targeted_fraction": target["fraction"] if target else float("nan"),
                "kendall_disparity": main["agreement"]["kendall"], "kendall_p": main["agreement"]["kendall_p"],
                "spearman_disparity": main["agreement"]["spearman"], "spearman_p": main["agreement"]["spearman_p"],
                "baseline_kendall": main["baseline"]["kendall"], "baseline_spearman": main["baseline"]["spearman"],
                "asrd": main["asrd"], "model_accuracy": main["model_accuracy"], "eod": main["eod"],
                "dpd": main["dpd"], "train_accuracy": main["train_accuracy"],
                "empirical_epsilon_low": main["empirical_epsilon_low"], "claimed_epsilon": float("inf"),
                "chance_accuracy": float(max(d.s.mean(), 1 - d.s.mean())),
                "train_seconds": main["train_seconds"], "attack_seconds": main["attack_seconds"],
                "disparity_seconds": main["disparity_seconds"], "targeting_seconds": main["targeting_seconds"]})
            metrics["asrd_noise_floor"] = asrd_noise_floor(main["group_n"], metrics["accuracy"])
            spread = seed_spread(mains, config)
            metrics.update(spread["metrics"], epochs_trained=float(main["epochs"]))
            series["seeds"] = spread["series"]
            order = rank_groups(np.asarray(main["risk"], float))
            series["groups"] = {
                "name": d.group_names, "n": main["group_n"], "accuracy": main["group_accuracy"],
                "csmia_accuracy": main["csmia_group_accuracy"], "correct": main["group_correct"],
                "ad": main["ad"], "risk": main["risk"], "rho": main["rho"],
                "rho_target": None if d.rho_target is None else d.rho_target.tolist(),
                "baseline_accuracy": main["baseline_accuracy"], "v_rows": main["v_rows"],
                "order": order.tolist()}
            series["ranking"] = {"direction": main["direction"], **main["agreement"],
                                 "baseline": main["baseline"]}
            series["kappa_sweep"] = sweep
            series["untargeted"] = {"accuracy": metrics["accuracy"], "ci_low": lo, "ci_high": hi}
            series["nested"] = main["nested"]
            series["best_attribute"] = main["best_attribute"]
            series["attribute_ranges"] = main["attribute_ranges"]
            series["scatter"] = main["scatter"]
            series["attack_info"] = main["attack_info"]
            if main.get("targeting_skipped"):
                series["notes"].append(f"Targeting skipped: {main['targeting_skipped']}; the results below "
                                       "attack everyone.")
            series["info"].update(cache_hit=main["cache_hit"], epochs=main["epochs"],
                                  top_groups=[d.group_names[k] for k in order[:3]])
        if bc is not None:
            blo, bhi = M.clopper_pearson(bc["correct"], bc["n"])
            metrics.update({"asrd_bcorr": bc["asrd"], "model_accuracy_bcorr": bc["model_accuracy"],
                            "eod_bcorr": bc["eod"], "dpd_bcorr": bc["dpd"],
                            "accuracy_bcorr": bc["correct"] / bc["n"], "accuracy_bcorr_ci_low": blo,
                            "accuracy_bcorr_ci_high": bhi, "rho_star": bc["rho_star"],
                            "bcorr_kept_fraction": bc["kept_fraction"], "bcorr_seconds": bc["bcorr_seconds"]})
            if main is not None and main["asrd"] > 0:
                metrics["asrd_reduction"] = 1 - bc["asrd"] / main["asrd"]
            metrics["asrd_noise_floor_bcorr"] = asrd_noise_floor(bc["group_n"], metrics["accuracy_bcorr"])
            series["bcorr"] = {"asrd_noise_floor": metrics["asrd_noise_floor_bcorr"]}
            series["bcorr"].update({k: bc[k] for k in ("rho_star", "least_group", "rho_before", "rho_after",
                                                  "size_after", "dropped_groups", "kept_fraction",
                                                  "group_accuracy", "group_n", "asrd", "model_accuracy", "eod",
                                                  "dpd")})
        return metrics, series

