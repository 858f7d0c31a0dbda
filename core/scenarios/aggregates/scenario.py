"""The ``aggregates`` scenario class: parameters, checks, cost estimate, the units of work and their dispatch.

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

import hashlib
import math

import numpy as np

from ...attacks.declaration import attack_param, in_all
from ...cancel import checkpoint
from ...data.census import (
    binary_columns,
    load_ppmf,
    randomize_sensitive,
    split_rows,
    synthetic_block,
    unique_on_nonsensitive,
)
from ...errors import DataError, ParameterError
from ...params import Param
from ...releases.census_tables import marginal_pool, sf1_pool
from ...scenario import Scenario, register
from .data import (
    _UNIQUE,
    CLASSIFIER_FACTOR,
    EPS_GRID,
    MIN_SHADOWS,
    RATIO_GRID,
    RATIO_MAX,
    RATIO_MIN,
    RECONSTRUCTIONS,
    max_ratio,
    pool_size,
)
from .fit import fit, population
from .games import _order_by_pattern, _play_ablation_rap, _play_baseline_aia, _play_baseline_mia, _play_desia
from .summary import summarize_runs
from ...cost import Cost
from .summary import exposure_table

# Which function plays a unit: DeSIA and the ablation's RAP rows by their own kind; a reconstruction baseline
# (CIP or RAP, named by the unit's kind) by the task, since membership inference attacks one release per batch.
UNIT_PLAYERS = {"desia": _play_desia, "ablation_rap": _play_ablation_rap}
BASELINE_PLAYERS = {"aia": _play_baseline_aia, "mia": _play_baseline_mia}


@register
class AggregatesScenario(Scenario):
    name = "aggregates"
    title = "Aggregate statistics: DeSIA vs CIP vs RAP"
    summary = ("Infer a census respondent's Hispanic origin (or membership) from a few hundred released "
               "block-level counts: DeSIA's integer program + shadow classifier vs reconstruction attacks.")
    paper = ("Mao, Stevanoski & de Montjoye, \"DeSIA: Attribute Inference Attacks Against Limited Fixed "
             "Aggregate Statistics\" (§4–§7)")
    # Small, fast page defaults (first ROC within seconds); the sidebar scales up to the paper's setting.
    # The page opens on a noisy release (ε = 1 per cell), so its trade-off chart is drawn from the first view.
    page_defaults = {"block_size": 200, "blocks": 1, "query_ratio": 0.75, "shadows": 1000, "reconstructions": 3,
                     "rap_steps": 100, "attack": "all", "targets": 0, "epsilon": 1.0}
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
        attack_param("aggregates", "desia", "the attack; 'all' runs every attack on the same targets",
                     all_label="All attacks (one ROC plot)"),
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
              low=1, high=500, label="Reconstructions K", active_when=("attack", RECONSTRUCTIONS + ("all",))),
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
        if config["data"] == "csv":
            fit(config)  # the file is read (and found unusable) before anything is estimated or started
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

    def fit_notes(self, config):
        return list(fit(config).notes)

    def _attacks(self, config) -> tuple[str, ...]:
        return tuple(in_all("aggregates")) if config["attack"] == "all" else (config["attack"],)

    def _settings(self, config) -> list[tuple[float, float]]:
        """(query_ratio, epsilon) per sweep value, m/s capped to what a generic CSV's cells allow (:mod:`.fit`)."""
        f = fit(config)
        if config["sweep"] == "query_ratio":
            # the paper's grid plus the what-if points m ≥ s that the pool can answer (generic CSVs: paper grid)
            top = 0.75 if config["data"] == "csv" else max_ratio(config["block_size"], config["query_pool"])
            grid = [r for r in RATIO_GRID if r <= 0.75 or r <= top + 1e-9]
            if f.ratio_cap is not None:
                grid = sorted({f.ratio(r) for r in grid})
            return [(r, config["epsilon"]) for r in grid]
        if config["sweep"] == "epsilon":
            return [(f.ratio(config["query_ratio"]), e) for e in EPS_GRID]
        return [(f.ratio(config["query_ratio"]), config["epsilon"])]

    def _desia_batches(self, config) -> int:
        est = config["targets"] or max(1, fit(config).block_size // 4)
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
          taken 1.2× for the block-to-block spread; a generic CSV's expected uniques in a block drawn from the file
          (:func:`.fit.expected_uniques`);
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
        fitted = fit(config)
        s = fitted.block_size
        shadows, K, steps = config["shadows"], config["reconstructions"], config["rap_steps"]
        mia = config["task"] == "mia"
        expected = (fitted.targets if fitted.targets is not None else s) if config["data"] == "csv" else \
            min(s, 1.2 * float(np.interp(s, *zip(*_UNIQUE))))
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
                    md = fitted.md_seconds() or min(0.25, 0.01 + 8e-7 * s * s)
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
        """The blocks and releases every unit attacks, drawn once in the parent: per block a D (10%) / D_aux
        split of synthetic, PPMF or CSV people; per (sweep value, block, release) the sensitive attribute
        re-drawn uniformly, m = round(ratio·s) released cells sampled from the query pool, the targets (people
        unique on the non-sensitive columns, ordered so that targets sharing a shadow model share a batch), and
        for membership inference each target game's bit. Raises :class:`DataError` when nobody can be attacked."""
        fitted = fit(config)
        s = fitted.block_size
        source = config["data"]
        base_pop = None
        if source == "ppmf":
            base_pop, block_id = load_ppmf(config["data_path"], min_size=10 * s)
        elif source == "csv":
            base_pop = population(config["data_path"], config["sensitive_column"], fitted.columns)
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
            d_rows, aux_rows = split_rows(len(pop), frac, brng)
            D, aux = pop.records[d_rows], pop.records[aux_rows][: 9 * s]
            blocks.append({"D_raw": D, "aux_raw": aux, "seed": int(brng.integers(2**63)),
                           "rows": d_rows if source == "csv" else None})
        settings = self._settings(config)
        cells = []  # per (setting, block, release)
        k = pool.cardinalities[-1]
        for v, (ratio, eps) in enumerate(settings):
            for b, blk in enumerate(blocks):
                for r in range(config["releases"]):
                    checkpoint("preparing the releases")
                    # an ε sweep varies the noise only: every point releases the same cells of the same people
                    # (a paired comparison, and one number of cells per person for the whole sweep)
                    crng = np.random.default_rng([blk["seed"], 0 if config["sweep"] == "epsilon" else v, r])
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
                             "file_rows": blk["rows"],
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
                "sensitive": "Hispanic" if source != "csv" else config["sensitive_column"],
                "units": self._units(config), "fit_notes": list(fitted.notes),
                "data_path": config["data_path"] if source == "csv" else None,
                "secret_values": (list((base_pop.value_labels or {}).get(base_pop.attributes[-1], []))
                                  if source == "csv" else None),
                "n_settings": len(settings)}

    # ------------------------------------------------------------------ play
    def play(self, config, context, index, rng):
        kind, v, b, r, j = context["units"][index]
        cell_i = (v * config["blocks"] + b) * config["releases"] + r
        cell = context["cells"][cell_i]
        key = (id(context), cell_i)
        common = {"unit": kind, "setting": v, "block": b, "release": r, "ratio": cell["ratio"],
                  "epsilon": cell["epsilon"]}
        batches = self._desia_batches(config)
        player = UNIT_PLAYERS.get(kind) or BASELINE_PLAYERS[config["task"]]
        rows = player(config, context, cell, key, kind, j, batches, rng)
        return {**common, "rows": rows}

    def exposure(self, config, context, records):
        return exposure_table(config, context, records)

    # ------------------------------------------------------------- summarize
    def summarize(self, config, context, records):
        """Metrics and plot series from the unit records: see :mod:`core.scenarios.aggregates.summary`."""
        return summarize_runs(config, context, records, self._settings(config))
