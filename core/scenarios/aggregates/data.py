"""The aggregate-statistics game's grids and constants, the query pool's size, and the per-process caches of
releases and fitted DeSIA models (built inside the worker from a per-block seed, so numbers never depend on the
number of workers)."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ...attacks.declaration import attacks_of, labels
from ...measure.metrics import roc, tpr_at_fpr
from ...releases.census_tables import make_release, sf1_pool
from ...basics.idle import on_idle
from ...runtime.lru import LRU
from ...theory.dp_roc import per_person_epsilon
from .per_person import cells_per_person
from ...releases.census_tables import QueryPool
from ...attacks.aggregates.desia import DeSIA, QueryGrid
from ...attacks.aggregates.desia_mia import DeSIAMIA

ATTACKS = tuple(a.key for a in attacks_of("aggregates"))  # declared in core/attacks/aggregates/__init__.py
RECONSTRUCTIONS = tuple(a for a in ATTACKS if a != "desia")  # the attacks that make K reconstructions (CIP, RAP)
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
_LABELS = {**labels("aggregates"), "random": "Random guess"}  # ROC legend: the attacks, then the baseline



EMPIRICAL_DELTA = 0.0  # Laplace counts claim pure ε-DP, so the empirical bound is computed with δ = 0


def _claimed_epsilon(context, config, setting: int, eps: float) -> dict | None:
    """Per-person (ε, δ) of the releases of one setting (max over its blocks/releases), or None without noise."""
    if not eps > 0:
        return None

    sens = cells_per_person(context, config, setting)
    return {"epsilon": per_person_epsilon(eps, sens), "delta": 0.0, "epsilon_per_aggregate": float(eps),
            "cells_per_person": int(sens)}


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
on_idle(_CACHE.clear)  # prepared blocks and releases, rebuilt from their key on the next call


def _cached(key, build):
    return _CACHE.get_or(key, build)


def _release(context, cell, records=None, rng=None):
    pool = QueryPool(context["pool_names"], context["pool_masks"], context["cardinalities"])
    rrng = rng if rng is not None else np.random.default_rng(cell["release_seed"])
    rel, _ = make_release(cell["D"] if records is None else records, pool, cell["ratio"], rrng,
                          epsilon=cell["epsilon"], attributes=context["attributes"], indices=cell["queries"])
    return rel


def _desia_fitted(config, context, cell, key):
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
    def build():
        rel = _release(context, cell)
        att = DeSIAMIA(shadows=config["shadows"], time_limit=config["time_limit"],
                       classifier=config["classifier"])
        att.fit(rel.masks, rel.cardinalities, len(cell["D"]) - 1, cell["aux"],
                np.random.default_rng(cell["seed"]), epsilon=cell["epsilon"],
                grid=QueryGrid(rel.masks, rel.cardinalities))
        return att
    return _cached(("desia_mia", config["shadows"], config["classifier"], config["time_limit"])
                   + (cell["digest"], cell["seed"]), build)


