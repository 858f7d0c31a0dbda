"""Audit of a census table release's ε claim: the informed attacker against Laplace counts (known-bug gallery).

The release: one synthetic census block of ``s`` people (PPMF schema), ``m = round(m/s · s)`` cells of the SF1
Table-1 pool, each published as ``round(q(D) + Lap(1/ε))`` with ε per cell (the Aggregate statistics lab's
mechanism). One person's record moves up to ``k`` of those cells (``cells_per_person``,
:func:`core.theory.dp_roc.release_sensitivity`), so the release is ``k·ε``-DP for that person (basic composition,
Dwork & Roth 2014, Thm 3.16).

The game (the strongest attacker DP allows, as in the location gallery): the auditor knows every record but the
target's secret (its sensitive value b ∈ {0, 1}), and attacks the person whose secret moves the most cells. The
target's secret shifts each of its cells by Δⱼ ∈ {−1, 0, 1}; knowing everyone else, the auditor sees
``rⱼ = b·Δⱼ + noise`` on those cells and scores the Neyman–Pearson log-likelihood ratio

    score = Σⱼ ε·(|rⱼ| − |rⱼ − Δⱼ|)        (Laplace densities, b = 1 against b = 0).

The empirical-ε audit (:func:`core.measure.metrics.best_threshold_epsilon`, δ = 0) turns the scores into a 95% lower
bound on the ε the release really gives, and compares it with the claim.

The known bug (``bug = "forgets-composition"``): noise calibrated for ε per cell while the release claims that ε
per person — composition over the person's k cells forgotten. The measured bound then exceeds the claim; the fixed
twin claims k·ε and is not flagged.
"""
from __future__ import annotations

import numpy as np

from ..cost import Cost
from ..data.census import randomize_sensitive, synthetic_block
from ..errors import ParameterError
from ..measure.metrics import best_threshold_epsilon, roc
from ..params import Param
from ..releases.aggregate_release import AggregateRelease
from ..releases.census_tables import sf1_pool
from ..scenario import Scenario, register
from ..theory.dp_roc import release_sensitivity

BATCH = 500  # games per unit of work


@register
class TableAuditScenario(Scenario):
    name = "table-audit"
    title = "Census tables: does the release give the ε it claims?"
    summary = ("An informed auditor (knows everyone but the target's secret) attacks Laplace-noised census block "
               "counts; the measured ε is compared with the release's claim per person.")
    paper = "Dwork & Roth (2014), Thm 3.16 (basic composition); DeSIA's census block tables (seed 000)"
    unit = ("batch of games", "batches of games")
    ladder = False  # played from the known-bug gallery, not offered on the ε ladder
    params = (
        Param("block_size", "int", 200, "people in the block", low=20, high=2000, label="Block size s"),
        Param("query_ratio", "float", 0.75, "released cells per person, m/s", low=0.05, high=3.0, step=0.05,
              label="Query ratio m/s"),
        Param("epsilon", "float", 1.0, "Laplace noise per released cell (ε per cell)", low=0.01, high=20.0,
              label="ε per cell"),
        Param("games", "int", 2000, "audit games (the target's secret drawn afresh each time)", low=200,
              high=200000, label="Games"),
        Param("bug", "str", "none", "Known-bug gallery only: forgets-composition claims ε per cell as the "
              "per-person ε", choices=("none", "forgets-composition"), ui=False),
    )

    def check(self, config):
        if round(config["query_ratio"] * config["block_size"]) > len(sf1_pool()):
            raise ParameterError("query_ratio", "more cells than the SF1 pool holds; lower m/s or the block size")

    def n_games(self, config):
        return -(-config["games"] // BATCH)

    def estimate_cost(self, config):
        return Cost(seconds=1.0 + 2e-6 * config["games"] * config["block_size"], bytes=50e6, drivers=("games",),
                    basis="one release's sensitivity, then vectorised games")

    def prepare(self, config, rng):
        """The block, the released cells, and the most-exposed person's Δ over them."""
        pool = sf1_pool()
        D = randomize_sensitive(synthetic_block(config["block_size"], rng).records, 2, rng)
        m = max(1, int(round(config["query_ratio"] * len(D))))
        idx = pool.sample(m, rng)
        rel = AggregateRelease(("sex", "age", "race", "hispanic"), tuple(pool.cardinalities),
                               [pool.masks[j] for j in idx], np.zeros(m), size=len(D))
        front = np.unique(D[:, :-1], axis=0)
        m0 = rel.membership(np.column_stack([front, np.zeros(len(front), int)])).astype(int)
        m1 = rel.membership(np.column_stack([front, np.ones(len(front), int)])).astype(int)
        moved = (m0 != m1).sum(axis=1)
        worst = int(np.argmax(moved))
        delta = (m1[worst] - m0[worst])

        cells = release_sensitivity(rel.masks, rel.cardinalities, "aia", D)
        return {"delta": delta[delta != 0].astype(float), "cells_per_person": int(cells), "cells_released": m,
                "target_cells": int(moved[worst])}

    def play(self, config, context, index, rng):
        n = min(BATCH, config["games"] - index * BATCH)
        eps, delta = config["epsilon"], context["delta"]
        b = rng.integers(0, 2, size=n)
        r = np.round(b[:, None] * delta[None, :] + rng.laplace(0.0, 1.0 / eps, size=(n, len(delta))))
        score = (eps * (np.abs(r) - np.abs(r - delta[None, :]))).sum(axis=1)
        return {"labels": b.tolist(), "scores": score.tolist()}

    def summarize(self, config, context, records):
        y = np.concatenate([np.asarray(r["labels"], int) for r in records])
        s = np.concatenate([np.asarray(r["scores"], float) for r in records])
        eps, k = config["epsilon"], context["cells_per_person"]
        claimed = eps if config["bug"] == "forgets-composition" else eps * k
        metrics = {"games": int(len(y)), "cells_per_person": k, "epsilon_per_cell": float(eps),
                   "epsilon_per_person": float(eps * k), "claimed_epsilon": float(claimed), "claimed_delta": 0.0,
                   "cells_released": context["cells_released"], "target_cells": context["target_cells"]}
        if len(set(y.tolist())) == 2:
            r = roc(y, s)
            metrics["auc"] = float(r["auc"])
            metrics["empirical_epsilon_low"] = float(best_threshold_epsilon(y, s, delta=0.0))
        return metrics, {"roc": {"informed auditor": {"fpr": list(r["fpr"])[:400], "tpr": list(r["tpr"])[:400]}}
                         if "auc" in metrics else {}}
