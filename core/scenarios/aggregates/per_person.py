"""ε per person of a table release: the one place that counts how many released cells one person is in.

Laplace noise of ε per cell protects each cell; one person's record moves every released cell it falls in (for
attribute inference: every cell that moves when only the secret changes), and the guarantees of those cells add
up (sequential composition, Dwork & Roth 2014, Thm 3.16). So a person is protected by

    ε per person = ε per cell × cells per person,

where *cells per person* is the largest number of released cells one record can move
(:func:`core.theory.dp_roc.release_sensitivity`, the maximum over the whole domain; over the releases of a
setting, the largest). It depends only on which cells are released — the table design and the run's seed — not on
ε, so every rung of an ε ladder played with one seed reports the same number, and every page that shows it reads it
from the run's ``cells_per_person`` metric (computed here, once per run).
"""
from __future__ import annotations

from collections import OrderedDict

from ...theory.dp_roc import release_sensitivity

_CACHE: "OrderedDict[tuple, int]" = OrderedDict()


def cells_per_person(context: dict, config: dict, setting: int = 0) -> int:
    """Most released cells one person's record can move, over every block and release of one sweep value."""

    best = 0
    for c in context["cells"]:
        if c.get("setting", 0) != setting:
            continue
        key = (tuple(int(j) for j in c["queries"]), tuple(context["cardinalities"]), config["task"])
        if key not in _CACHE:
            masks = [context["pool_masks"][j] for j in c["queries"]]
            _CACHE[key] = release_sensitivity(masks, context["cardinalities"], config["task"], c["D"])
            while len(_CACHE) > 64:
                _CACHE.popitem(last=False)
        best = max(best, _CACHE[key])
    return int(best)


def per_person(epsilon_per_cell: float, cells: int) -> float | None:
    """ε per person from ε per cell (None without noise: exact counts carry no guarantee)."""
    return float(epsilon_per_cell) * int(cells) if epsilon_per_cell > 0 else None


def privacy_metrics(context: dict, config: dict, setting: int, epsilon_per_cell: float) -> dict:
    """``epsilon_per_person``, ``epsilon_per_cell`` and ``cells_per_person`` for a result or a ladder row."""
    cells = cells_per_person(context, config, setting)
    return {"epsilon_per_person": per_person(epsilon_per_cell, cells), "epsilon_per_cell": float(epsilon_per_cell),
            "cells_per_person": cells}
