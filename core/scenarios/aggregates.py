"""Attribute / membership inference from limited fixed aggregate statistics (DeSIA paper, seed 000).

Game (paper Fig. 2, spec §2.1/§2.3): for each census block, ``D`` (10 %) and
``D_aux`` (90 %) are split, the sensitive attribute (Hispanic) is re-drawn
uniformly, ``m = round(ratio·s)`` Table-1 cells are released (optionally with
Laplace noise), and every user unique on the non-sensitive attributes is
attacked with the same release. One ROC pools all targets of all blocks.

Beyond the paper: ``query_ratio`` may exceed 1 (more released cells than people) up to what the query pool
offers (≈650 SF1 cells: m/s ≤ 650/s); the m/s sweep adds 1.0 and 1.25 where the pool allows and the plots mark
the paper's regime m < s. Metrics add the AUC's 95 % CI (DeLong, :func:`core.measure.metrics.auc_ci`), the empirical
ε lower bound of the main attack's scores (``empirical_epsilon_low``, δ = 0) and the release's per-person
``claimed_epsilon`` = ε per aggregate × the most cells one person's record can move
(:mod:`core.theory.dp_roc`; None without noise).

Units of work: per (sweep value, block, release) a few *target batches* for
DeSIA (contiguous slices of the targets sorted by shadow-model pattern, so
targets sharing a model land in the same batch) and
one unit per reconstruction baseline (K reconstructions scored on all targets
of the block). The expensive per-block material (shadow backgrounds, fitted
models, query grid) is built inside the worker from a per-block seed and cached
per process, so numbers never depend on the number of workers.
"""
from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from functools import lru_cache
from typing import Any

import numpy as np

from ..cancel import checkpoint
from ..data.census import (binary_columns, load_csv, load_ppmf, randomize_sensitive, split_block, synthetic_block,
                           unique_on_nonsensitive)
from ..errors import DataError, ParameterError
from ..measure.metrics import auc_ci, best_threshold_epsilon, roc, tpr_at_fpr
from ..params import Param
from ..releases.census_tables import make_release, marginal_pool, sf1_pool
from ..runtime.lru import LRU
from ..scenario import Scenario, prepare_rng, register

ATTACKS = ("desia", "cip-rand", "cip-init", "rap-rand", "rap-init")
RATIO_GRID = (0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.25)  # ≥ 1: beyond the paper (m ≥ s), kept while the pool allows
RATIO_MIN, RATIO_MAX = 0.05, 4.0
MIN_SHADOWS = 100  # the meta-classifier's 5-fold CV needs ≥ 5 shadows of each label in the 2/3 training part
MIN_TARGETS_FOR_AUC = 50  # below this (or a CI wider than 0.2) the page warns that the AUC means little
# Mean number of users unique on the non-sensitive columns in a synthetic block of s people (5 blocks each,
# measured 2026-11-23): the DeSIA targets when ``targets`` = 0.
_UNIQUE = ((20, 19), (50, 44), (100, 72), (200, 116), (300, 137), (454, 161), (700, 185), (1000, 207),
           (1500, 235), (2000, 273))
CLASSIFIER_FACTOR = 10.0  # DeSIA's MLP / random-forest meta-classifier vs logistic regression (estimate_cost)
EPS_GRID = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
FPRS = (0.1, 0.01, 0.001)
ABLATION_ROWS = (
    ("solver", "yes", "yes", "yes", "desia"),
    ("solver", "yes", "yes", "no (random guess)", "md_random"),
    ("solver", "yes", "no", "no", "md_first"),
    ("synthetic data (RAP)", "yes", "no", "no", "rap_unique"),
    ("synthetic data (RAP)", "no", "no", "no", "rap_majority"),
)
_LABELS = {"desia": "DeSIA", "cip-rand": "CIP-rand", "cip-init": "CIP-init", "rap-rand": "RAP-rand",
           "rap-init": "RAP-init", "random": "Random guess"}


@register
class AggregatesScenario(Scenario):
    name = "aggregates"
    title = "Aggregate statistics: DeSIA vs CIP vs RAP"
    summary = ("Infer a census respondent's Hispanic origin (or membership) from a few hundred released "
               "block-level counts: DeSIA's integer program + shadow classifier vs reconstruction attacks.")
    paper = ("Mao, Stevanoski & de Montjoye, \"DeSIA: Attribute Inference Attacks Against Limited Fixed "
             "Aggregate Statistics\" (§4–§7)")
    # Small, fast page defaults (first ROC within seconds); the sidebar scales up to the paper's setting.
    page_defaults = {"block_size": 200, "blocks": 1, "query_ratio": 0.75, "shadows": 1000, "reconstructions": 3,
                     "rap_steps": 100, "attack": "all", "targets": 0}
    params = (
        Param("data", "str", "synthetic", "synthetic = census blocks drawn from published 2010 national "
              "distributions (PPMF schema); ppmf / csv = your file at data_path", choices=("synthetic", "ppmf", "csv"),
              label="Data", choice_labels={"synthetic": "Synthetic census blocks (PPMF schema)",
                                           "ppmf": "PPMF-format CSV", "csv": "Generic CSV"}),
        Param("data_path", "str", "", "path of the PPMF/CSV file (data = ppmf|csv)", ui=False,
              active_when=("data", ("ppmf", "csv"))),
        Param("sensitive_column", "str", "", "CSV only: the sensitive column (it is re-drawn uniformly)",
              ui=False, active_when=("data", ("csv",))),
        Param("block_size", "int", 454, "s = |D|, the private block (paper: ≈454, the top 1% of blocks); "
              "the auxiliary data has 9·s people", low=20, high=2000, label="Block size s"),
        Param("blocks", "int", 10, "independent census blocks (paper: 10)", low=1, high=50, label="Blocks"),
        Param("query_ratio", "float", 0.25, "m/s, released cells per person (paper: 0.25, and m < s "
              "throughout); above 1 = more cells than people, up to what the query pool offers (≈650 SF1 "
              "cells: m/s ≤ 650/s)", low=RATIO_MIN, high=RATIO_MAX, step=0.05, label="Query ratio m/s"),
        Param("query_pool", "str", "sf1", "Table-1 cells: SF1 (≈650 distinct) or the RAP code's 421",
              choices=("sf1", "rap_reference"), ui=False, active_when=("data", ("synthetic", "ppmf"))),
        Param("marginal_ways", "int", 2, "CSV only: release all ≤k-way marginal cells", low=1, high=3, ui=False,
              active_when=("data", ("csv",))),
        Param("attack", "str", "desia", "the attack; 'all' runs every attack on the same targets",
              choices=ATTACKS + ("all",), label="Attack",
              choice_labels={**_LABELS, "all": "All attacks (one ROC plot)"}),
        Param("task", "str", "aia", "aia = infer the sensitive value; mia = infer membership",
              choices=("aia", "mia"), label="Task",
              choice_labels={"aia": "Attribute inference", "mia": "Membership inference"}),
        Param("epsilon", "float", 0.0, "Laplace noise per released cell, ε per aggregate (0 = exact counts)",
              low=0.0, high=100.0, label="ε per aggregate (0 = no noise)"),
        Param("releases", "int", 1, "independent releases per block (paper: 3 when noisy)", low=1, high=10,
              label="Releases per block"),
        Param("shadows", "int", 20000, "DeSIA shadow datasets per target (paper: 20,000)", low=MIN_SHADOWS,
              high=100000, label="Shadow datasets", active_when=("attack", ("desia", "all"))),
        Param("reconstructions", "int", 100, "K reconstructions per release for CIP/RAP (paper: 100)",
              low=1, high=500, label="Reconstructions K", active_when=("attack", ATTACKS[1:] + ("all",))),
        Param("targets", "int", 0, "unique users attacked per block (0 = all of them)", low=0, high=2000,
              label="Targets per block (0 = all)"),
        Param("time_limit", "float", 60.0, "solver time limit per integer program, seconds", low=0.0,
              high=3600.0, low_open=True, ui=False),
        Param("rap_steps", "int", 1000, "RAP Adam steps (paper: 1000)", low=1, high=5000, label="RAP steps"),
        Param("md_noise", "str", "exact", "DeSIA's solver on noisy counts: exact = exact equalities (spec §7; "
              "infeasible on most noisy releases, and a 'certain' answer can be wrong), bounded = each count "
              "within the noise's 99.9% bound (certain answers right with prob. ≥ 0.999, but rarely any)",
              choices=("exact", "bounded"), ui=False),
        Param("classifier", "str", "lr", "DeSIA meta-classifier (paper: logistic regression; §7: MLP, RF)",
              choices=("lr", "mlp", "rf"), ui=False, active_when=("attack", ("desia", "all"))),
        Param("ablation", "bool", False, "also run Table 3's RAP rows (one RAP reconstruction per release)",
              label="Ablation with RAP rows"),
        Param("sweep", "str", "none", "vary m/s or ε over the paper's grid (each value = a fresh release)",
              choices=("none", "query_ratio", "epsilon"), label="Sweep",
              choice_labels={"none": "No sweep", "query_ratio": "AUC vs m/s", "epsilon": "AUC vs ε"}),
        Param("batch", "int", 8, "targets per unit of work (progress granularity)", low=1, high=1000, ui=False),
    )

    # ---------------------------------------------------------------- config
    def check(self, config):
        if 0 < config["epsilon"] < 1e-3:  # Laplace scale ≥ 1000 per cell: the counts overflow the attacks' maths
            raise ParameterError("epsilon", f"ε per aggregate must be 0 (no noise) or at least 0.001, "
                                            f"got {config['epsilon']:g}")
        if config["data"] != "synthetic" and not config["data_path"]:
            raise ParameterError("data_path", f"data = {config['data']} needs a file path")
        if config["data"] == "csv" and not config["sensitive_column"]:
            raise ParameterError("sensitive_column", "a generic CSV needs the sensitive column's name")
        if config["task"] == "mia" and config["ablation"]:
            raise ParameterError("ablation", "the Table-3 ablation is defined for attribute inference only")
        s = config["block_size"]
        m = round(config["query_ratio"] * s)
        if config["sweep"] != "query_ratio" and m < 1:
            raise ParameterError("query_ratio", f"m = round(m/s · s) = {m}: no aggregate would be released")
        if config["data"] != "csv" and config["sweep"] != "query_ratio":
            n_pool = pool_size(config["query_pool"])
            if m > n_pool:
                raise ParameterError(
                    "query_ratio", f"m/s = {config['query_ratio']:g} asks for m = {m} cells of a block of "
                    f"s = {s}, but the query pool has only {n_pool} distinct cells: with s = {s} the largest "
                    f"m/s is {max_ratio(s, config['query_pool']):.2f} (or make the block smaller)")

    def _attacks(self, config) -> tuple[str, ...]:
        return ATTACKS if config["attack"] == "all" else (config["attack"],)

    def _settings(self, config) -> list[tuple[float, float]]:
        """(query_ratio, epsilon) per sweep value."""
        if config["sweep"] == "query_ratio":
            # the paper's grid plus the what-if points m ≥ s that the pool can answer (generic CSVs: paper grid)
            top = 0.75 if config["data"] == "csv" else max_ratio(config["block_size"], config["query_pool"])
            return [(r, config["epsilon"]) for r in RATIO_GRID if r <= 0.75 or r <= top + 1e-9]
        if config["sweep"] == "epsilon":
            return [(config["query_ratio"], e) for e in EPS_GRID]
        return [(config["query_ratio"], config["epsilon"])]

    def _desia_batches(self, config) -> int:
        est = config["targets"] or max(1, config["block_size"] // 4)
        return max(1, math.ceil(est / config["batch"]))

    def _units(self, config) -> list[tuple]:
        units = []
        for v in range(len(self._settings(config))):
            for b in range(config["blocks"]):
                for r in range(config["releases"]):
                    for a in self._attacks(config):
                        if a == "desia":
                            units += [("desia", v, b, r, j) for j in range(self._desia_batches(config))]
                        elif config["task"] == "aia":
                            units.append((a, v, b, r, 0))
                        else:  # MIA: one release per game, so baselines run per target batch too
                            units += [(a, v, b, r, j) for j in range(self._desia_batches(config))]
                    if config["ablation"] and config["task"] == "aia":
                        units.append(("ablation_rap", v, b, r, 0))
        return units

    def n_games(self, config):
        return len(self._units(config))

    unit = ("attack run", "attack runs")  # each unit: one attack on one release of one block (a batch of targets)

    def estimate_cost(self, config):
        """Σ over (sweep value, block, release) of the attacks' work, in CPU seconds on one core of the 2-core AMD EPYC
        lab machine (measured 2026-11-23 with benchmarks/bench_cost.py; m = round(m/s · s), T = targets per block):

        * **targets**: every user unique on the non-sensitive columns unless ``targets`` caps them; synthetic
          blocks have on average 72 (s = 100), 116 (200), 161 (454), 207 (1,000), 273 (2,000) — ``_UNIQUE``,
          taken 1.2× for the block-to-block spread; a generic CSV is assumed to have s;
        * **DeSIA**: 0.2 + 4e-7·shadows·s s to draw the shadow backgrounds, then per target the integer
          program ≈ 0.01 + 8e-7·s² s (at most 0.25 s; s = 200: 0.037 s, s = 454: 0.16 s) and one
          meta-classifier per distinct target pattern — about P·(1 − e^(−T/P)) of them, P = 0.2·m — at
          0.45 + 3e-11·shadows²·m s each (5-fold CV logistic regression; it grows faster than the shadows:
          s = 454, m = 114, all 167 targets: 9.4 s with 1,000 shadows, 12.4 s with 5,000, 34.6 s with 20,000);
          MIA ≈ 2× per target. The paper's block (s = 454, 20,000 shadows) measured 62–82 s;
        * **CIP** ≈ 0.25 + K·(0.015 + 4e-5·s) s per release (K = 100, s = 454: 3.2 s; the old 0.035·s s per
          reconstruction was 250× too high); **RAP** ≈ 0.2 + 5.5e-3·K·steps·max(1000, s)/1000 s (K = 3,
          1,000 steps: 15 s); with task = mia both run per target;
        * 1 s per run for the imports and the blocks of a fresh worker, 2 s with DeSIA (scikit-learn).

        Page default (s = 200, m/s = 0.75, 1,000 shadows, all attacks) measured 23 s; the old model said 159 s.
        Memory ≈ 100 MB + the shadow feature matrices, 40·shadows·(m + 8) bytes (5 float64 copies; measured growth
        112 MB at 5,000 shadows, 152 MB at 20,000 with m = 114)."""
        from ..cost import Cost

        s = config["block_size"]
        shadows, K, steps = config["shadows"], config["reconstructions"], config["rap_steps"]
        mia = config["task"] == "mia"
        expected = s if config["data"] == "csv" else min(s, 1.2 * float(np.interp(s, *zip(*_UNIQUE))))
        T = min(config["targets"], expected) if config["targets"] else expected
        clf = 1.0 if config["classifier"] == "lr" else CLASSIFIER_FACTOR
        rows = max(1000, s) / 1000
        seconds, m_max = (2.0 if "desia" in self._attacks(config) else 1.0), 1
        for ratio, _eps in self._settings(config):
            m = max(1, round(ratio * s))
            m_max = max(m_max, m)
            cell = 0.0
            for attack in self._attacks(config):
                if attack == "desia":
                    md = min(0.25, 0.01 + 8e-7 * s * s)
                    patterns = 0.2 * m * -math.expm1(-T / (0.2 * m))  # distinct Δ patterns among T targets
                    models = patterns * (0.45 + 3e-11 * shadows ** 2 * m) * clf
                    cell += 0.2 + 4e-7 * shadows * s + (2 if mia else 1) * (T * md + models)
                else:
                    one = 0.25 + K * (0.015 + 4e-5 * s) if attack.startswith("cip") else \
                        0.2 + 5.5e-3 * K * steps * rows
                    cell += T * one if mia else one
            if config["ablation"] and not mia:
                cell += 0.2 + 5.5e-3 * steps * rows
            seconds += cell * config["blocks"] * config["releases"]
        peak = 100e6 + 40.0 * shadows * (m_max + 8)
        return Cost(seconds=seconds, bytes=peak, drivers=("blocks", "shadows", "reconstructions", "block_size"),
                    basis="Σ releases: DeSIA per target and pattern, CIP/RAP per reconstruction")

    # --------------------------------------------------------------- prepare
    def prepare(self, config, rng):
        s = config["block_size"]
        source = config["data"]
        base_pop = None
        if source == "ppmf":
            base_pop, block_id = load_ppmf(config["data_path"], min_size=10 * s)
        elif source == "csv":
            base_pop = load_csv(config["data_path"], config["sensitive_column"])
            if base_pop.cardinalities[-1] != 2:
                binary = binary_columns(config["data_path"])
                raise DataError(
                    f"the sensitive column {config['sensitive_column']!r} has {base_pop.cardinalities[-1]} "
                    "values; the attacks infer a yes/no attribute, so choose a column with exactly two values"
                    + (f" ({', '.join(map(repr, binary))} in this file)" if binary else
                       " (this file has none)"))
        if base_pop is not None and len(base_pop) < 2 * s:
            raise DataError(f"the file has {len(base_pop)} records; block_size = {s} needs at least {2 * s} "
                            "(D plus auxiliary data)")
        card = (base_pop.cardinalities if base_pop is not None else None)
        if base_pop is not None:
            pool = marginal_pool(card, base_pop.attributes, config["marginal_ways"]) if source == "csv" \
                else sf1_pool(config["query_pool"])
        else:
            pool = sf1_pool(config["query_pool"])
        blocks = []
        for b in range(config["blocks"]):
            checkpoint("preparing the blocks")
            brng = np.random.default_rng(rng.integers(2**63))
            if base_pop is None:
                pop = synthetic_block(10 * s, brng)
                frac = 0.1
            else:
                pop = base_pop
                frac = s / len(pop)
            D, aux = split_block(pop.records, frac, brng)
            aux = aux[: 9 * s]
            blocks.append({"D_raw": D, "aux_raw": aux, "seed": int(brng.integers(2**63))})
        settings = self._settings(config)
        cells = []  # per (setting, block, release)
        k = pool.cardinalities[-1]
        for v, (ratio, eps) in enumerate(settings):
            for b, blk in enumerate(blocks):
                for r in range(config["releases"]):
                    checkpoint("preparing the releases")
                    crng = np.random.default_rng([blk["seed"], v, r])
                    D = randomize_sensitive(blk["D_raw"], k, crng)
                    aux = randomize_sensitive(blk["aux_raw"], k, crng)
                    m = max(1, int(round(ratio * len(D))))
                    if m > len(pool):
                        raise ParameterError("query_ratio", f"m = {m} exceeds the {len(pool)} cells of the pool")
                    idx = pool.sample(m, crng)
                    uniq = np.flatnonzero(unique_on_nonsensitive(D))
                    if config["targets"] and len(uniq) > config["targets"]:
                        uniq = np.sort(crng.choice(uniq, config["targets"], replace=False))
                    uniq = _order_by_pattern(uniq, D, [pool.masks[j] for j in idx], pool.cardinalities,
                                             config["task"])
                    digest = hashlib.sha1(b"".join([D.tobytes(), aux.tobytes(), idx.tobytes(),
                                                    repr((ratio, eps, config["query_pool"],
                                                          config["data"])).encode()])).hexdigest()
                    entry = {"D": D, "aux": aux, "queries": idx, "targets": uniq, "ratio": ratio, "setting": v,
                             "digest": digest,
                             "epsilon": eps, "seed": int(crng.integers(2**63)),
                             "release_seed": int(crng.integers(2**63))}
                    if config["task"] == "mia":
                        # per target game: b=0 removes the target, b=1 another unique user
                        bits = crng.integers(0, 2, size=len(uniq))
                        other = np.array([crng.choice(uniq[uniq != t]) if len(uniq) > 1 else -1
                                          for t in uniq], dtype=np.int64)
                        entry["mia_bits"], entry["mia_other"] = bits, other
                    cells.append(entry)
        if not any(len(c["targets"]) for c in cells):
            raise DataError(f"no person of the {'block' if config['blocks'] == 1 else 'blocks'} is unique on the "
                            "non-sensitive columns, so there is nobody to attack: use a larger block, or "
                            "(generic CSV) columns that single people out")
        return {"pool_masks": pool.masks, "pool_names": pool.names, "cardinalities": pool.cardinalities,
                "attributes": (base_pop.attributes if base_pop is not None else
                               ("sex", "age", "race", "hispanic")),
                "synthetic": base_pop is None, "cells": cells,
                "sensitive": "Hispanic" if source != "csv" else config["sensitive_column"], "units": self._units(config),
                "n_settings": len(settings)}

    # ------------------------------------------------------------------ play
    def play(self, config, context, index, rng):
        kind, v, b, r, j = context["units"][index]
        cell_i = (v * config["blocks"] + b) * config["releases"] + r
        cell = context["cells"][cell_i]
        key = (id(context), cell_i)
        common = {"unit": kind, "setting": v, "block": b, "release": r, "ratio": cell["ratio"],
                  "epsilon": cell["epsilon"]}
        if kind == "desia":
            rows = _play_desia(config, context, cell, key, j, self._desia_batches(config), rng)
        elif kind == "ablation_rap":
            rows = _play_ablation_rap(config, context, cell, key, rng)
        elif config["task"] == "aia":
            rows = _play_baseline_aia(config, context, cell, key, kind, rng)
        else:
            rows = _play_baseline_mia(config, context, cell, key, kind, j, self._desia_batches(config), rng)
        return {**common, "rows": rows}

    # ------------------------------------------------------------- summarize
    def summarize(self, config, context, records):
        rows_by_attack: dict[str, list[dict]] = {}
        for rec in records:
            for row in rec["rows"]:
                rows_by_attack.setdefault(row["attack"], []).append({**row, "setting": rec["setting"]})
        main = "desia" if config["attack"] == "all" else config["attack"]
        # 1 = every number comes from the synthetic census generator (not the paper's PPMF figures)
        metrics: dict[str, Any] = {"synthetic_data": int(bool(context["synthetic"]))}
        series: dict[str, Any] = {"synthetic": bool(context["synthetic"]), "task": config["task"],
                                  "note": ("synthetic census blocks (PPMF schema, 2010 national distributions); "
                                           "not a reproduction of the paper's figures")
                                  if context["synthetic"] else "user data"}
        curves = {}
        for att, rows in rows_by_attack.items():
            if att.startswith("ablation"):
                continue
            y = np.array([r["label"] for r in rows])
            sc = np.array([r["score"] for r in rows])
            res = _roc_metrics(y, sc)
            if res is not None:
                curves[att] = res["curve"]
                for name, val in res["metrics"].items():
                    metrics[f"{name}_{att.replace('-', '_')}"] = val
            if att == main:
                metrics["targets"] = len(rows)
                if res is not None:
                    metrics.update(res["metrics"])
                    lo, hi = auc_ci(y, sc)
                    metrics["auc_ci_low"], metrics["auc_ci_high"] = lo, hi
                    metrics["empirical_epsilon_low"] = float(best_threshold_epsilon(y, sc, delta=EMPIRICAL_DELTA))
                settled = np.array([bool(r.get("settled")) for r in rows])
                if att == "desia":
                    pred = np.array([r["prediction"] for r in rows])
                    metrics["deterministic_fraction"] = float(settled.mean()) if len(rows) else 0.0
                    metrics["deterministic_errors"] = int(np.sum(settled & (pred != y)))
                    metrics["deterministic_count"] = int(settled.sum())
                    metrics["timeouts"] = int(sum(r.get("md_status") == "timeout" for r in rows))
                    rest = _roc_metrics(y[~settled], sc[~settled])
                    if rest is not None:
                        metrics["auc_not_deterministic"] = rest["metrics"]["auc"]
                        metrics["tpr_at_fpr_0.001_not_deterministic"] = rest["metrics"]["tpr_at_fpr_0.001"]
                    metrics["accuracy"] = float(np.mean(pred == y)) if len(rows) else float("nan")
                    metrics["md_seconds_per_target"] = float(np.mean([r["sec_md"] for r in rows]))
                    metrics["ms_seconds_per_target"] = float(np.mean([r["sec_ms"] for r in rows]))
                    vals = [r["valid_auc"] for r in rows if r.get("valid_auc") is not None]
                    if vals:
                        metrics["shadow_validation_auc"] = float(np.nanmean(vals))
                else:
                    metrics["accuracy"] = float(np.mean(np.array([r["prediction"] for r in rows]) == y))
        # the random-guess reference on the main attack's targets
        main_rows = rows_by_attack.get(main, [])
        if main_rows:
            res = _roc_metrics(np.array([r["label"] for r in main_rows]),
                               np.array([r["random"] for r in main_rows]))
            if res is not None:
                curves["random"] = res["curve"]
                metrics["auc_random"] = res["metrics"]["auc"]
        series["roc"] = {_LABELS.get(a, a): c for a, c in curves.items()}
        # the release's own claim: per-person ε from ε per aggregate and the cells one person can move
        claimed = _claimed_epsilon(context, config, 0, config["epsilon"]) if config["sweep"] == "none" else None
        metrics["claimed_epsilon"] = claimed["epsilon"] if claimed else None
        if claimed and math.isfinite(claimed["epsilon"]):
            series["dp_bound"] = claimed
        series["sensitive"] = context.get("sensitive", "Hispanic")
        series["min_targets"] = MIN_TARGETS_FOR_AUC
        # ablation (Table 3) from DeSIA's records (+ the RAP rows when run)
        table = []
        des = rows_by_attack.get("desia", [])
        if config["task"] == "aia" and des:
            y = np.array([r["label"] for r in des])
            variants = {"desia": np.array([r["score"] for r in des]),
                        "md_random": np.array([r["score"] if r["settled"] else 0.5 for r in des]),
                        "md_first": np.array([float(r["first_value"]) if r["first_value"] >= 0
                                              else float(r["random"] >= 0.5) for r in des])}
            for att in ("ablation_rap_unique", "ablation_rap_majority"):
                rows = rows_by_attack.get(att, [])
                if rows:
                    variants[att.replace("ablation_", "")] = (np.array([r["label"] for r in rows]),
                                                              np.array([r["score"] for r in rows]))
            for find, uniq, verif, stoch, key in ABLATION_ROWS:
                if key not in variants:
                    continue
                yy, ss = variants[key] if isinstance(variants[key], tuple) else (y, variants[key])
                res = _roc_metrics(yy, ss)
                if res is None:
                    continue
                table.append({"find feasible value": find, "uniqueness c_t": uniq, "verification": verif,
                              "stochastic M_S": stoch, "AUC": res["metrics"]["auc"],
                              "TPR@10%FPR": res["metrics"]["tpr_at_fpr_0.1"],
                              "TPR@1%FPR": res["metrics"]["tpr_at_fpr_0.01"], "targets": int(len(yy))})
        series["ablation"] = table
        # sweeps: AUC per setting value and attack
        if config["sweep"] != "none":
            xs = [s[0] if config["sweep"] == "query_ratio" else s[1] for s in self._settings(config)]
            sweep: dict[str, Any] = {"x": xs, "param": config["sweep"], "ci": {}, "n": {}}
            if config["sweep"] == "query_ratio":
                sweep["paper_max"] = 1.0  # the paper's regime: m < s
            for att, rows in rows_by_attack.items():
                if att.startswith("ablation"):
                    continue
                aucs, cis, ns = [], [], []
                for v in range(len(xs)):
                    sub = [r for r in rows if r["setting"] == v]
                    yy = np.array([r["label"] for r in sub])
                    ss = np.array([r["score"] for r in sub])
                    res = _roc_metrics(yy, ss)
                    aucs.append(None if res is None else res["metrics"]["auc"])
                    cis.append(None if res is None else list(auc_ci(yy, ss)))
                    ns.append(len(sub))
                name = _LABELS.get(att, att)
                sweep[name], sweep["ci"][name], sweep["n"][name] = aucs, cis, ns
            if config["sweep"] == "epsilon":
                sweep["claimed_epsilon"] = [
                    None if e == 0 else _claimed_epsilon(context, config, v, e)["epsilon"]
                    for v, e in enumerate(xs)]
            series["sweep"] = sweep
        return metrics, series


# =============================================================================== helpers
EMPIRICAL_DELTA = 0.0  # Laplace counts claim pure ε-DP, so the empirical bound is computed with δ = 0


def _claimed_epsilon(context, config, setting: int, eps: float) -> dict | None:
    """Per-person (ε, δ) of the releases of one setting (max over its blocks/releases), or None without noise."""
    if not eps > 0:
        return None
    from ..theory.dp_roc import per_person_epsilon

    sens = 0
    for c in context["cells"]:
        if c.get("setting", 0) != setting:
            continue
        masks = [context["pool_masks"][j] for j in c["queries"]]
        sens = max(sens, _sensitivity_cached(tuple(int(j) for j in c["queries"]), masks,
                                             tuple(context["cardinalities"]), config["task"], c["D"]))
    return {"epsilon": per_person_epsilon(eps, sens), "delta": 0.0, "epsilon_per_aggregate": float(eps),
            "cells_per_person": int(sens)}


_SENS_CACHE: "OrderedDict[tuple, int]" = OrderedDict()


def _sensitivity_cached(key, masks, cardinalities, task, records) -> int:
    from ..theory.dp_roc import release_sensitivity

    full = (key, cardinalities, task)
    if full not in _SENS_CACHE:
        _SENS_CACHE[full] = release_sensitivity(masks, cardinalities, task, records)
        while len(_SENS_CACHE) > 64:
            _SENS_CACHE.popitem(last=False)
    return _SENS_CACHE[full]


@lru_cache(maxsize=4)
def pool_size(variant: str = "sf1") -> int:
    """Number of distinct cells the Table-1 query pool offers (SF1: ≈650; the RAP code's list: 421)."""
    return len(sf1_pool(variant))


def max_ratio(block_size: int, variant: str = "sf1") -> float:
    """Largest m/s the pool can answer for a block of ``block_size`` people (rounded down to 0.01)."""
    n = pool_size(variant)
    # largest r with round(r·s) ≤ n
    return math.floor((n + 0.5) / block_size * 100 - 1e-9) / 100


def _roc_metrics(y: np.ndarray, scores: np.ndarray, max_points: int = 400):
    if len(y) < 2 or y.min() == y.max():
        return None
    r = roc(y, scores)
    fpr, tpr = np.asarray(r["fpr"]), np.asarray(r["tpr"])
    if len(fpr) > max_points:  # thin the curve for plotting; keep the low-FPR end dense
        keep = np.unique(np.concatenate([np.geomspace(1, len(fpr) - 1, max_points).astype(int), [0]]))
        fpr, tpr = fpr[keep], tpr[keep]
    metrics = {"auc": float(r["auc"])}
    for f in FPRS:
        metrics[f"tpr_at_fpr_{f:g}"] = float(tpr_at_fpr(y, scores, f))
    return {"metrics": metrics, "curve": {"fpr": fpr.tolist(), "tpr": tpr.tolist(), "auc": float(r["auc"])}}


_CACHE = LRU(3)


def _cached(key, build):
    return _CACHE.get_or(key, build)


def _release(context, cell, records=None, rng=None):
    from ..releases.census_tables import QueryPool
    pool = QueryPool(context["pool_names"], context["pool_masks"], context["cardinalities"])
    rrng = rng if rng is not None else np.random.default_rng(cell["release_seed"])
    rel, _ = make_release(cell["D"] if records is None else records, pool, cell["ratio"], rrng,
                          epsilon=cell["epsilon"], attributes=context["attributes"], indices=cell["queries"])
    return rel


def _desia_fitted(config, context, cell, key):
    from ..attacks.aggregates.desia import DeSIA, QueryGrid

    def build():
        rel = _release(context, cell)
        grid = QueryGrid(rel.masks, rel.cardinalities)
        att = DeSIA(shadows=config["shadows"], time_limit=config["time_limit"],
                    classifier=config["classifier"], md_noise=config["md_noise"])
        att.fit(rel, cell["aux"], np.random.default_rng(cell["seed"]), grid=grid)
        return att
    return _cached(("desia", config["shadows"], config["classifier"], config["time_limit"], config["md_noise"])
                   + (cell["digest"], cell["seed"]), build)


def _desia_mia_fitted(config, context, cell, key):
    from ..attacks.aggregates.desia import QueryGrid
    from ..attacks.aggregates.desia_mia import DeSIAMIA

    def build():
        rel = _release(context, cell)
        att = DeSIAMIA(shadows=config["shadows"], time_limit=config["time_limit"],
                       classifier=config["classifier"])
        att.fit(rel.masks, rel.cardinalities, len(cell["D"]) - 1, cell["aux"],
                np.random.default_rng(cell["seed"]), epsilon=cell["epsilon"],
                grid=QueryGrid(rel.masks, rel.cardinalities))
        return att
    return _cached(("desia_mia", config["shadows"], config["classifier"], config["time_limit"]) + (cell["digest"], cell["seed"]), build)


def _order_by_pattern(targets, D, masks, cardinalities, task):
    """Targets sorted so that those sharing a shadow model (same Δ / membership pattern) are adjacent.

    Batches are contiguous slices of this order, so a worker fits each shared model once.
    """
    if len(targets) == 0:
        return targets
    from ..releases.aggregate_release import AggregateRelease
    rel = AggregateRelease(tuple(f"a{i}" for i in range(len(cardinalities))), tuple(cardinalities), masks,
                           np.zeros(len(masks)), size=len(D))
    if task == "aia":
        rows = [rel.membership(np.column_stack([D[targets, :-1], np.full(len(targets), v)]))
                for v in range(cardinalities[-1])]
        keys = np.hstack([r ^ rows[0] for r in rows[1:]])
    else:
        keys = rel.membership(D[targets])
    packed = [k.tobytes() for k in np.packbits(keys, axis=1)]
    order = sorted(range(len(targets)), key=lambda i: (packed[i], targets[i]))
    return targets[np.array(order)]


def _batch(n: int, j: int, n_batches: int) -> np.ndarray:
    return np.array_split(np.arange(n), n_batches)[j]


def _mia_game(cell, t_pos, rng_seed):
    """(records of the game's D, label b) for the t_pos-th target."""
    D, targets = cell["D"], cell["targets"]
    b = int(cell["mia_bits"][t_pos])
    other = int(cell["mia_other"][t_pos])
    if b == 1 and other < 0:
        b = 0
    removed = targets[t_pos] if b == 0 else other
    return np.delete(D, removed, axis=0), b


def _play_desia(config, context, cell, key, j, n_batches, rng):
    positions = _batch(len(cell["targets"]), j, n_batches)
    targets = cell["targets"][positions]
    if len(targets) == 0:
        return []
    rows = []
    if config["task"] == "aia":
        att = _desia_fitted(config, context, cell, key)
        for t in targets:
            checkpoint("DeSIA per-target solve")
            out = att.attack(cell["D"][t, :-1], rng)
            rows.append(_row("desia", int(cell["D"][t, -1]), out, rng))
    else:
        att = _desia_mia_fitted(config, context, cell, key)
        for pos, t in zip(positions, targets):
            checkpoint("DeSIA per-target solve")
            recs, b = _mia_game(cell, pos, None)
            rel = _release(context, cell, recs, np.random.default_rng([cell["release_seed"], int(pos)]))
            out = att.attack(rel, cell["D"][t], rng)
            rows.append(_row("desia", b, out, rng))
    return rows


def _row(attack, label, out, rng):
    return {"attack": attack, "label": int(label), "score": float(out.score), "prediction": int(out.prediction),
            "settled": bool(out.settled), "first_value": int(out.first_value), "md_status": out.md_status,
            "valid_auc": None if not np.isfinite(out.ms_valid_auc) else float(out.ms_valid_auc),
            "sec_md": float(out.seconds_md), "sec_ms": float(out.seconds_ms), "random": float(rng.random())}


def _reconstructor(config, kind, s, k=None):
    method, init = kind.split("-")
    k = config["reconstructions"] if k is None else k
    if method == "cip":
        from ..attacks.aggregates.cip import CIP
        return CIP(init=init, reconstructions=k, time_limit=config["time_limit"])
    from ..attacks.aggregates.rap import RAP
    return RAP(init=init, reconstructions=k, rows=max(1000, s), steps=config["rap_steps"], n_jobs=1)


def _play_baseline_aia(config, context, cell, key, kind, rng):
    from ..attacks.aggregates import neighbourhood_vote

    targets = cell["targets"]
    if len(targets) == 0:
        return []
    rel = _release(context, cell)
    recon = _reconstructor(config, kind, rel.size).reconstruct(rel, rng, aux_records=cell["aux"])
    scores, preds = neighbourhood_vote.aia_scores(recon, cell["D"][targets, :-1], rng,
                                                  n_values=rel.cardinalities[-1])
    return [{"attack": kind, "label": int(cell["D"][t, -1]), "score": float(s), "prediction": int(p),
             "random": float(rng.random())} for t, s, p in zip(targets, scores, preds)]


def _play_baseline_mia(config, context, cell, key, kind, j, n_batches, rng):
    from ..attacks.aggregates import neighbourhood_vote

    positions = _batch(len(cell["targets"]), j, n_batches)
    rows = []
    for pos in positions:
        checkpoint("reconstruction per target")
        t = cell["targets"][pos]
        recs, b = _mia_game(cell, pos, None)
        rel = _release(context, cell, recs, np.random.default_rng([cell["release_seed"], int(pos)]))
        recon = _reconstructor(config, kind, rel.size).reconstruct(rel, rng, aux_records=cell["aux"])
        score = float(neighbourhood_vote.mia_scores(recon, cell["D"][t][None, :])[0])
        rows.append({"attack": kind, "label": b, "score": score, "prediction": int(score > 0.5),
                     "random": float(rng.random())})
    return rows


def _play_ablation_rap(config, context, cell, key, rng):
    """Table 3 rows 4–5 (spec §11.14): one RAP-rand reconstruction instead of the solver."""
    from ..attacks.aggregates import neighbourhood_vote

    targets = cell["targets"]
    if len(targets) == 0:
        return []
    rel = _release(context, cell)
    recon = _reconstructor(config, "rap-rand", rel.size, k=1).reconstruct(rel, rng)
    _, majority = neighbourhood_vote.aia_scores(recon, cell["D"][targets, :-1], rng,
                                                n_values=rel.cardinalities[-1])
    rec = recon[0]
    rows = []
    for t, maj in zip(targets, majority):
        match = np.flatnonzero(np.all(rec[:, :-1] == cell["D"][t, :-1], axis=1))
        uniq_val = int(rec[rng.choice(match), -1]) if len(match) else int(maj)
        label = int(cell["D"][t, -1])
        rows.append({"attack": "ablation_rap_unique", "label": label, "score": float(uniq_val),
                     "prediction": uniq_val})
        rows.append({"attack": "ablation_rap_majority", "label": label, "score": float(maj),
                     "prediction": int(maj)})
    return rows


# ========================================================================= before any attack
def block_preview(config: dict, seed: int) -> dict:
    """The data under attack, exactly as the run will see it, for the page's first plot (no attack needed).

    ``prepare`` runs with the run's own prepare generator (:func:`core.runtime.games.prepare_rng`), so the blocks, the
    released cells and the targets are the run's. Per target (spec §2.1: a person unique on the non-sensitive
    attributes A'), the number of released cells that move when the target's secret changes
    (:func:`core.theory.dp_roc.record_sensitivity`): for attribute inference a target with 0 such cells is a
    coin flip for every attack — the sensitive values are re-drawn independently and uniformly (§2.1 step 1), so
    the release has the same distribution whichever value the target has. With Laplace noise of ε per cell
    (§7), a target whose secret moves k cells is protected by ε·k-DP, so no attack guesses it right more often
    than ``e^{εk}/(1+e^{εk})``; ``claimed`` is the release's per-person ε (the maximum over the whole domain,
    the number the run reports as ``claimed_epsilon``).
    """
    from ..theory.dp_roc import record_sensitivity

    c = {**config, "sweep": "none"}
    ctx = AggregatesScenario().prepare(c, prepare_rng(seed))
    task = c["task"]
    moved, people, ones = [], 0, 0
    for cell in ctx["cells"]:
        masks = [ctx["pool_masks"][j] for j in cell["queries"]]
        targets = cell["D"][cell["targets"]]
        moved.extend(int(k) for k in record_sensitivity(masks, ctx["cardinalities"], targets, task))
        people += len(cell["D"])
        ones += int(np.sum(cell["D"][:, -1] == 1))
    moved_arr = np.asarray(moved, dtype=int)
    counts = np.bincount(moved_arr) if moved_arr.size else np.zeros(1, dtype=int)
    eps = float(c["epsilon"])
    claimed = _claimed_epsilon(ctx, c, 0, eps)
    bound = None
    if eps > 0 and task == "aia" and moved_arr.size:
        k = np.arange(len(counts))
        per_k = 1.0 / (1.0 + np.exp(-eps * k))  # e^{εk}/(1+e^{εk}), stable
        bound = {"k": k.tolist(), "accuracy": per_k.tolist(),
                 "mean": float(np.mean(1.0 / (1.0 + np.exp(-eps * moved_arr))))}
    releases = len(ctx["cells"])
    return {"task": task, "sensitive": ctx["sensitive"], "synthetic": bool(ctx["synthetic"]),
            "blocks": int(c["blocks"]), "releases": releases, "block_size": int(c["block_size"]),
            "people": people, "targets": int(moved_arr.size),
            "cells": int(len(ctx["cells"][0]["queries"])) if releases else 0,
            "moved": {"k": list(range(len(counts))), "targets": counts.tolist()},
            "untouched": int(counts[0]) if moved_arr.size else 0,
            "sensitive_share": ones / people if people else float("nan"),
            "epsilon": eps, "claimed": claimed, "bound": bound}
