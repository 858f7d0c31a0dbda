"""The accuracy side of a noisy table release, beside the attack: what a stakeholder weighs before approving an ε.

At the chosen ε per cell: the expected absolute and relative error of a published count (closed form for the
rounded Laplace release, :mod:`core.theory.count_error`) and the same numbers measured on this run's own cells,
the share of cells off by more than a tolerance the reader chooses, and the total ε per person (ε per cell × the
most released cells one person's record can change — sequential composition). Against ε: the expected count
error and the best AUC any attack can reach under the per-person guarantee (one pure ε-DP test,
:func:`core.theory.dp_accuracy.dp_auc_bound`), with the run's measured AUC at the chosen ε.
"""
from __future__ import annotations

import math

import numpy as np

from ...theory import count_error
from ...theory.dp_accuracy import dp_auc_bound

MECHANISM = "laplace-rounded"  # round(q + Lap(1/ε)) per cell


def at_epsilon(metrics: dict, series: dict, epsilon: float, tolerance: float) -> dict:
    """The numbers at the chosen ε: expected and measured error per cell, share off by more than ``tolerance``,
    and the per-person total (None where the run has no noise or no cells)."""
    cells = series.get("cells") or {}
    true, published = cells.get("true") or [], cells.get("published") or []
    measured = count_error.measured_errors(true, published, tolerance) if true else None
    noisy = epsilon > 0
    return {
        "epsilon": float(epsilon),
        "per_person_epsilon": metrics.get("claimed_epsilon"),
        "cells_per_person": metrics.get("cells_per_person"),
        "tolerance": float(tolerance),
        "abs_expected": count_error.expected_abs_error(MECHANISM, epsilon) if noisy else 0.0,
        "abs_measured": None if measured is None else measured["abs_error"],
        "rel_expected": (count_error.expected_relative_error(MECHANISM, epsilon, true) if noisy else 0.0)
        if true else None,
        "rel_measured": None if measured is None else measured["relative_error"],
        "off_expected": count_error.prob_off_by_more(MECHANISM, epsilon, tolerance) if noisy else 0.0,
        "off_measured": None if measured is None else measured["share_off"],
        "cells": len(true),
        "median_count": float(np.median([c for c in true if c >= 1])) if any(c >= 1 for c in true) else None,
    }


def tradeoff_curves(metrics: dict, epsilon: float, points: int = 60) -> dict:
    """Expected count error and the DP cap on any attack's AUC over a log grid of ε per cell around the chosen
    one (0.01 … 10, always including it), with the measured AUC and its interval at the chosen ε."""
    lo, hi = 0.01, 10.0
    grid = np.geomspace(lo, hi, points)
    if epsilon > 0:
        grid = np.unique(np.append(grid, epsilon))
    cells = metrics.get("cells_per_person")
    err = [count_error.expected_abs_error(MECHANISM, float(e)) for e in grid]
    bound = [dp_auc_bound(1, float(e) * cells) if cells else None for e in grid]
    return {"epsilon": grid.tolist(), "count_error": err, "auc_bound": bound, "chosen": float(epsilon),
            "auc": metrics.get("auc"), "auc_ci": (metrics.get("auc_ci_low"), metrics.get("auc_ci_high")),
            "cells_per_person": cells}


def sentence(numbers: dict, sensitive: str = "", person: bool = True) -> str:
    """The utility side in one plain sentence (counts, not the secret's name, so it fits any upload); ``person``
    adds the per-person total (left out where the ε has its own sentence, as in the report)."""
    eps = numbers["epsilon"]
    if eps <= 0:
        return "Without noise (ε = 0) every published count is exact: the release loses no accuracy and has no " \
               "differential-privacy guarantee."
    with_person = person
    pp, cells = numbers["per_person_epsilon"], numbers["cells_per_person"]
    person = (f" One person's record can change up to {cells} of the released cells, so each person is protected "
              f"by ε = {eps:g} × {cells} = {pp:.3g} in total." if pp is not None and cells else "")
    t = numbers["tolerance"]
    tol = "wrong at all" if t < 1 else f"off by more than {t:g}"
    text = (f"At ε = {eps:g} per cell a published count is off by {numbers['abs_expected']:.2g} on average "
            f"(measured on this run's {numbers['cells']} cells: {numbers['abs_measured']:.2g})")
    if numbers.get("rel_expected") is not None and numbers.get("median_count") is not None:
        text += (f", about {100 * numbers['rel_expected']:.0f}% of the true count on average over the cells "
                 f"that hold anyone (their median count is {numbers['median_count']:g})")
    text += (f"; {100 * numbers['off_expected']:.0f}% of cells are expected to be {tol} "
             f"({100 * numbers['off_measured']:.0f}% measured).")
    return text + (person if with_person else "")


def finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)
