"""The ε ladder: one scenario at a list of ε values — measured attack, the DP bound and the utility error against ε.

The stakeholder's question "if we release this with ε = x, how well can the best known attack do, and what does
the data lose?" in one picture. Each rung is an ordinary run (``core.runtime.sweep.sweep`` over ``epsilon``, common seed);
this module picks the light base settings per scenario, parses the ε list and turns the sweep rows into the
chart's rows: the headline attack metric (:mod:`core.measure.compare`) with its 95% Clopper–Pearson band when the
scenario reports one, the bound DP puts on that metric at the rung's claimed ε, and the utility error.
"""
from __future__ import annotations

import math
import re

from ...measure.compare import headline
from ...errors import ParameterError
from ...scenario import Scenario, all_scenarios, get
from ...theory.dp_accuracy import dp_auc_bound
from ...theory.fdp import accuracy_bound

DEFAULT_EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
MAX_RUNGS = 12
# Lighter settings so a ladder of six rungs finishes in about a minute on a laptop (shown on the page).
LADDER_BASE: dict[str, dict] = {
    "location": {"games": 5000, "shadow_sweep_max": 0, "observations": 10},
    # DeSIA on the Aggregate statistics page's own table design (s = 200, m/s = 0.75, seed 0: the same released
    # cells, so the same cells per person), over 4 blocks so the AUC's interval can include release-to-release
    # spread (core/measure/cluster_auc.py); 40 targets a block keep a rung near 30 s.
    "aggregates": {"block_size": 200, "query_ratio": 0.75, "attack": "desia", "blocks": 4, "shadows": 1000,
                   "targets": 40},
    "synthetic": {"generator": "privbayes"},  # the default generator claims no ε: the ladder needs a DP one
    "ml-models": {},
}


def ladder_scenarios() -> list[str]:
    """Registered scenarios with an ``epsilon`` parameter (the ladder varies it)."""
    return [name for name, sc in all_scenarios().items() if any(p.name == "epsilon" for p in sc.params)
            and getattr(sc, "ladder", True)]  # an audit-only game (the known-bug gallery's) is no lab to ladder


def parse_epsilons(text: str, scenario: Scenario | str) -> list[float]:
    """"0.1, 0.5, 1" → sorted distinct values, each validated by the scenario's ε parameter."""
    sc = get(scenario) if isinstance(scenario, str) else scenario
    items = [t for t in re.split(r"[,\s;]+", text.strip()) if t]
    if not items:
        raise ParameterError("epsilon", "give at least one ε value, e.g. 0.1, 0.5, 1, 2, 5, 10")
    param = sc.param("epsilon")
    values = sorted({param.parse(t) for t in items})
    if any(v <= 0 for v in values):
        raise ParameterError("epsilon", "the ladder needs ε > 0 (ε = 0 means no noise in some labs)")
    if len(values) > MAX_RUNGS:
        raise ParameterError("epsilon", f"at most {MAX_RUNGS} values, got {len(values)}")
    return values


def ladder_base(scenario: Scenario | str) -> dict:
    """The fixed (non-ε) parameters of the ladder: defaults plus :data:`LADDER_BASE`, validated."""
    sc = get(scenario) if isinstance(scenario, str) else scenario
    known = {p.name for p in sc.params}
    base = {k: v for k, v in LADDER_BASE.get(sc.name, {}).items() if k in known}
    sc.resolve({**base, "epsilon": 1.0})  # validated at a rung's ε: some labs refuse ε = 0 with a DP generator
    return base


def ladder_rows(scenario: str, sweep_out: dict) -> dict:
    """Chart rows from a sweep over ``epsilon``: ``{"scenario", "attack_label", "utility_label", "rows"}``."""
    base = dict(sweep_out.get("config") or {})
    out_rows = []
    attack_label, utility_label = "attack metric", "utility error"
    for row in sorted(sweep_out["rows"], key=lambda r: r["epsilon"]):
        metrics = {k: v for k, v in row.items() if k != "epsilon"}
        h = headline({"scenario": scenario, "config": {**base, "epsilon": row["epsilon"]}, "metrics": metrics})
        attack_label = h.attack_label if h.attack is not None else attack_label
        utility_label = h.utility_label if h.utility_error is not None else utility_label
        bound = None
        if h.attack_metric == "accuracy":
            if metrics.get("dp_bound_accuracy") is not None:
                bound = float(metrics["dp_bound_accuracy"])
            elif h.claimed_epsilon is not None:
                bound = accuracy_bound(h.claimed_epsilon, min(1.0, float(metrics.get("claimed_delta") or 0.0)))
        elif h.attack_metric == "auc":
            if metrics.get("dp_bound_auc") is not None:
                bound = float(metrics["dp_bound_auc"])
            elif h.claimed_epsilon is not None:  # one pure-ε test on the per-person total
                bound = dp_auc_bound(1, h.claimed_epsilon)
        ci = (metrics.get(f"{h.attack_metric}_ci_low"), metrics.get(f"{h.attack_metric}_ci_high")) \
            if h.attack_metric else (None, None)
        ci = tuple(None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) for v in ci)
        bound = None if bound is None else min(1.0, bound)
        per_person = metrics.get("epsilon_per_person", h.claimed_epsilon)
        cells = metrics.get("cells_per_person")
        out_rows.append({"epsilon": float(row["epsilon"]), "attack": h.attack, "attack_ci_low": ci[0],
                         "attack_ci_high": ci[1], "bound": bound, "utility": h.utility_error,
                         "empirical_epsilon_low": h.empirical_epsilon_low, "per_person_epsilon": per_person,
                         "epsilon_per_person": per_person, "epsilon_per_cell": float(row["epsilon"]),
                         "cells_per_person": None if cells is None else int(cells),
                         "clusters": metrics.get("auc_ci_clusters")})
    utils = [r["utility"] for r in out_rows if r["utility"]]
    return {"scenario": scenario, "attack_label": attack_label, "utility_label": utility_label, "rows": out_rows,
            "utility_log": bool(utils) and min(utils) > 0 and max(utils) / min(utils) > 20}


# Column names a reader understands, for the ladder's table and its download.
# ε per person first (what protects a person), the ladder's own ε (per cell or per observation) beside it.
COLUMN_NAMES = {"epsilon_per_person": "ε per person (added up over all one person is in)",
                "epsilon": "ε per cell / unit (the ladder's ε)", "attack": "attack", "attack_ci_low": "95% interval, low",
                "attack_ci_high": "95% interval, high", "bound": "DP bound (best any attack can do)",
                "utility": "utility error", "empirical_epsilon_low": "ε the attack proves (lower bound)",
                "cells_per_person": "cells one person can change"}


def ladder_table(ladder: dict) -> list[dict]:
    """The ladder's rows with readable column names; columns that are empty on every row are left out."""
    names = {**COLUMN_NAMES, "attack": ladder["attack_label"], "utility": ladder["utility_label"]}
    keep = [k for k in COLUMN_NAMES if any(r.get(k) is not None for r in ladder["rows"])]
    return [{names[k]: r.get(k) for k in keep} for r in ladder["rows"]]


# What the ladder's ε is counted per, in each lab where one person can contribute several of them.
PER_UNIT = {"aggregates": ("released cell", "released cells"), "location": ("observation", "observations")}


def per_person_sentence(ladder: dict) -> str:
    """Where the per-person total differs from the ladder's ε, say why in words (empty where it does not): ε is
    spent once per cell (or observation) a person is in, and those spends add up (sequential composition)."""
    rows = [r for r in ladder["rows"] if r.get("per_person_epsilon") is not None]
    if not rows:
        return ""
    r = rows[0]
    if abs(r["per_person_epsilon"] - r["epsilon"]) < 1e-9:
        return ""
    one, many = PER_UNIT.get(ladder["scenario"], ("unit", "units"))
    n = r.get("cells_per_person") or round(r["per_person_epsilon"] / r["epsilon"])
    return (f"The ladder's ε is per {one}. One person can be in up to {n} {many}, and the guarantee adds up over "
            f"them: ε = {r['epsilon']:g} per {one} protects a person with ε = {r['epsilon']:g} × {n} = "
            f"{r['per_person_epsilon']:.3g}. The DP bound uses that per-person total.")


def crossing(ladder: dict, margin: float = 0.05) -> float | None:
    """Largest ε at which the measured accuracy stays within ``margin`` of a coin flip (None if none does)."""
    ok = [r["epsilon"] for r in ladder["rows"] if r["attack"] is not None and r["attack"] <= 0.5 + margin
          and not math.isnan(r["attack"])]
    return max(ok) if ok else None
