"""Before any game: the blocks under attack (how many targets each holds, how many cells are released).

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

import numpy as np

from ...scenario import prepare_rng
from .data import _claimed_epsilon
from .scenario import AggregatesScenario
from ...theory.dp_roc import record_sensitivity
from .data import _release


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
    sample = None
    if eps > 0 and releases:
        # What the noise costs, in the currency of sampling: the released cells' true counts against Laplace
        # noise of scale 1/ε per cell (mean absolute error 1/ε); core.theory.odds.equivalent_sample_fraction.
        from ...theory.odds import equivalent_sample_fraction

        true = np.concatenate([_release(ctx, cell).evaluate(cell["D"]) for cell in ctx["cells"]])
        sample = {"fraction": equivalent_sample_fraction(true, 1.0 / eps), "mae": 1.0 / eps,
                  "mean_count": float(np.mean(true)), "cells": int(true.size)}
    return {"task": task, "sensitive": ctx["sensitive"], "synthetic": bool(ctx["synthetic"]),
            "blocks": int(c["blocks"]), "releases": releases, "block_size": int(c["block_size"]),
            "people": people, "targets": int(moved_arr.size),
            "cells": int(len(ctx["cells"][0]["queries"])) if releases else 0,
            "moved": {"k": list(range(len(counts))), "targets": counts.tolist()},
            "untouched": int(counts[0]) if moved_arr.size else 0,
            "sensitive_share": ones / people if people else float("nan"),
            "epsilon": eps, "claimed": claimed, "bound": bound, "equivalent_sample": sample}
