"""Which ε for a table release: the stakeholder's two tolerances turned into a range of ε per person, a
recommendation and three options (below, at and above it), each with what it means for attack and accuracy.

The release is the Aggregate statistics lab's: every released count is ``round(q + Lap(1/ε_cell))``; one person's
record moves up to ``k`` released cells (:func:`core.scenarios.aggregates.per_person.cells_per_person`), so each
person is protected by ``ε = k·ε_cell`` (basic composition). Everything here is stated per person first.

* **Count error** the stakeholder accepts: within ±E (absolute) — or within a share ``r`` of a typical count c,
  i.e. E = r·c — for a share q of the counts. For the rounded Laplace count the error exceeds an integer E exactly
  when |Lap| ≥ E + ½, with probability e^(−ε_cell·(E + ½)); so the counts meet it iff
  ``ε_cell ≥ ln(1/(1 − q)) / (⌊E⌋ + ½)`` — the smallest ε per person the accuracy allows is k times that.
* **Attack advantage over guessing** the stakeholder accepts: A, read on the AUC scale (the chance the attack ranks
  a person whose secret is "yes" above one whose secret is "no", 0.5 = guessing). Whatever the attack, ε-DP caps
  that chance at :func:`core.theory.dp_accuracy.dp_auc_bound` (ε per person); the largest ε whose cap stays within
  0.5 + A is found by bisection (the cap rises with ε).

The acceptable range is [ε_accuracy, ε_privacy] per person (empty when accuracy needs more ε than privacy allows).
The recommendation is its lower end — the most protection that still meets the accuracy (the geometric middle of
the two when they conflict, so both sides are visible) — and the options are half of it, it, and twice it.
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import ParameterError
from ...output import plain_language as say
from ...scenario import get, prepare_rng
from ...scenarios.aggregates.data import _release
from ...scenarios.aggregates.per_person import cells_per_person
from ...theory import count_error
from ...theory.dp_accuracy import dp_auc_bound
from .deployment_registry import comparable, load_registry

MECHANISM = "laplace-rounded"
GRID = (0.05, 200.0)  # ε per person drawn on the chart


def _check(name: str, value: float, low: float, high: float) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, f"expected a number, got {value!r}") from None
    if not low < value < high:
        raise ParameterError(name, f"must be between {low:g} and {high:g} (exclusive), got {value:g}")
    return value


def tolerance_error(error: float, relative: bool, typical_count: float) -> float:
    """The absolute count error the stakeholder accepts (relative × typical count when ``relative``)."""
    return float(error) * float(typical_count) if relative else float(error)


def epsilon_for_accuracy(abs_error: float, confidence: float, cells: int) -> float:
    """Smallest ε per person whose rounded Laplace counts are within ±``abs_error`` for a share ``confidence``."""
    need = math.log(1.0 / (1.0 - confidence)) / (math.floor(abs_error) + 0.5)
    return need * cells


def error_at(eps_person: float, cells: int, confidence: float) -> dict:
    """Count error at one ε per person: the mean, and the bound met by a share ``confidence`` of the counts."""
    eps_cell = eps_person / cells
    bound = max(0, math.ceil(math.log(1.0 / (1.0 - confidence)) / eps_cell - 0.5))
    return {"mean": count_error.expected_abs_error(MECHANISM, eps_cell), "bound": float(bound),
            "share_within": 1.0 - count_error.prob_off_by_more(MECHANISM, eps_cell, bound)}


def epsilon_for_advantage(advantage: float) -> float:
    """Largest ε per person whose DP cap on the attack's AUC stays within 0.5 + ``advantage``."""
    lo, hi = 1e-4, 50.0
    if dp_auc_bound(1, hi) <= 0.5 + advantage:
        return hi
    for _ in range(50):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if dp_auc_bound(1, mid) <= 0.5 + advantage else (lo, mid)
    return lo


def census_deployments(k: int = 3, near: float | None = None) -> list[dict]:
    """Registry rows comparable with a table release's ε per person: person-unit deployments, U.S. Census Bureau
    tables first (nearest ``near`` on a log scale when given)."""
    rows = [r for r in load_registry() if comparable(r)[0]]
    census = [r for r in rows if "Census" in r["organisation"]]
    pool = census or rows
    if near:
        pool = sorted(pool, key=lambda r: abs(math.log(r["epsilon"] / near)))
    seen, out = set(), []
    for r in pool:
        key = (r["organisation"], r["product"])
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out[:k]


def _measured_near(ladder: dict | None, eps_person: float) -> dict | None:
    rows = [r for r in (ladder or {}).get("rows", []) if r.get("attack") is not None and r.get("epsilon_per_person")]
    if not rows:
        return None
    best = min(rows, key=lambda r: abs(math.log(r["epsilon_per_person"] / eps_person)))
    return best if abs(math.log(best["epsilon_per_person"] / eps_person)) < math.log(2.5) else None


def attack_words(eps_person: float, measured: dict | None) -> str:
    """Attack success in words: the guarantee's cap, and the measured attack with its interval when a ladder ran."""
    cap = dp_auc_bound(1, eps_person)
    text = (f"no attack can tell a person's yes from no more than {say.pct(cap)} of the time "
            "(50% is guessing)")
    if measured:
        text += (f"; the best attack we ran did so {say.pct(measured['attack'])} of the time (95% interval "
                 f"{say.pct(measured['attack_ci_low'])}–{say.pct(measured['attack_ci_high'])}, measured at "
                 f"ε = {measured['epsilon_per_person']:.3g} per person)")
    return text


def option(eps_person: float, cells: int, confidence: float, typical_count: float, label: str,
           ladder: dict | None = None) -> dict:
    """One ε option with everything the board reads about it."""
    err = error_at(eps_person, cells, confidence)
    measured = _measured_near(ladder, eps_person)
    return {"label": label, "epsilon_per_person": eps_person, "epsilon_per_cell": eps_person / cells,
            "cells_per_person": cells, "attack_cap": dp_auc_bound(1, eps_person), "measured": measured,
            "attack_words": attack_words(eps_person, measured), "error_mean": err["mean"],
            "error_bound": err["bound"], "relative_error": err["mean"] / typical_count if typical_count else None,
            "odds": say.odds_sentence(eps_person, subject="a given person's secret is “yes”"), "deployments": census_deployments(2, eps_person)}


def decide(cells: int, error: float, relative: bool, confidence: float, advantage: float,
           typical_count: float = 20.0, chosen: float | None = None, ladder: dict | None = None) -> dict:
    """The decision: range of ε per person meeting both tolerances, the recommendation, three options, the chosen
    ε (the recommendation unless given) and the chart's curves."""
    if int(cells) < 1:
        raise ParameterError("cells_per_person", f"a release needs at least one cell per person, got {cells}")
    cells = int(cells)
    confidence = _check("confidence", confidence, 0.0, 1.0)
    advantage = _check("advantage", advantage, 0.0, 0.5)
    typical_count = _check("typical_count", typical_count, 0.0, 1e9)
    abs_error = tolerance_error(_check("error", error, 0.0, 1e9), relative, typical_count)
    if abs_error < 0.5:
        raise ParameterError("error", f"an error of {abs_error:.2g} means exact counts: noise of any ε rounds to "
                             "a wrong count sometimes; accept at least ±1 (or a larger share of the count)")
    lo = epsilon_for_accuracy(abs_error, confidence, cells)
    hi = epsilon_for_advantage(advantage)
    feasible = lo <= hi
    rec = lo if feasible else math.sqrt(lo * hi)
    chosen = rec if chosen is None else _check("chosen", chosen, 0.0, 1e6)
    options = [option(rec / 2, cells, confidence, typical_count, "below", ladder),
               option(rec, cells, confidence, typical_count, "recommended", ladder),
               option(rec * 2, cells, confidence, typical_count, "above", ladder)]
    for o in options:
        o["meets_accuracy"] = o["epsilon_per_person"] >= lo * (1 - 1e-9)
        o["meets_privacy"] = o["epsilon_per_person"] <= hi * (1 + 1e-9)
    return {"cells_per_person": cells, "abs_error": abs_error, "relative": bool(relative), "error": float(error),
            "confidence": confidence, "advantage": advantage, "typical_count": typical_count,
            "epsilon_accuracy": lo, "epsilon_privacy": hi, "feasible": feasible, "recommended": rec,
            "chosen": chosen, "chosen_option": option(chosen, cells, confidence, typical_count, "chosen", ladder),
            "options": options, "curves": curves(cells, confidence, chosen), "ladder": ladder}


def curves(cells: int, confidence: float, chosen: float, points: int = 50) -> dict:
    """DP cap on the attack's AUC and the count error bound (share ``confidence``) over ε per person."""
    grid = np.unique(np.append(np.geomspace(*GRID, points), chosen))
    return {"epsilon": grid.tolist(), "attack_cap": [dp_auc_bound(1, float(e)) for e in grid],
            "error_bound": [error_at(float(e), cells, confidence)["bound"] for e in grid],
            "error_mean": [error_at(float(e), cells, confidence)["mean"] for e in grid]}


def summary_sentence(d: dict) -> str:
    """The decision in one paragraph, per person first."""
    unit = (f"within {100 * d['error']:g}% of a typical count of {d['typical_count']:g} (±{d['abs_error']:g})"
            if d["relative"] else f"within ±{d['abs_error']:g}")
    acc = (f"Counts {unit} for {say.pct(d['confidence'])} of cells need ε ≥ {d['epsilon_accuracy']:.3g} per person "
           f"({d['epsilon_accuracy'] / d['cells_per_person']:.3g} per cell × {d['cells_per_person']} cells one "
           "person is in).")
    priv = (f" An attack advantage of at most {100 * d['advantage']:g} points over guessing allows ε ≤ "
            f"{d['epsilon_privacy']:.3g} per person.")
    if d["feasible"]:
        end = (f" Both hold from ε = {d['epsilon_accuracy']:.3g} to {d['epsilon_privacy']:.3g} per person; the "
               f"recommendation is the most protective of them, ε = {d['recommended']:.3g} per person.")
    else:
        end = (" No ε meets both: loosen the count error or the attack tolerance (the options below sit between "
               "the two limits).")
    return acc + priv + end


def design(block_size: int = 200, query_ratio: float = 0.75, blocks: int = 1, seed: int = 0) -> dict:
    """The Aggregate statistics lab's table design at these settings: cells per person (the one count every
    page shows, :func:`core.scenarios.aggregates.per_person.cells_per_person`) and the median count of a
    released cell that holds anyone (a typical count, for relative errors)."""
    sc = get("aggregates")
    config = sc.resolve({"block_size": int(block_size), "query_ratio": float(query_ratio), "blocks": int(blocks),
                         "epsilon": 0.0})
    ctx = sc.prepare(config, prepare_rng(int(seed)))
    counts = np.concatenate([_release(ctx, c).evaluate(c["D"]) for c in ctx["cells"]])
    held = counts[counts >= 1]
    return {"cells_per_person": cells_per_person(ctx, config, 0),
            "typical_count": float(np.median(held)) if len(held) else 1.0,
            "cells_released": int(len(ctx["cells"][0]["queries"])), "config": config}


def accuracy_first_sentence(error: float, share: float, sensitivity: float, eps_count: float, cells: int) -> str:
    """The accuracy-first answer per person first: the ε each count needs, and what a person in ``cells`` counts
    is protected by in total (with the odds at that total)."""
    total = eps_count * int(cells)
    return (f"To keep counts of sensitivity {sensitivity:g} within ±{error:g} for {say.pct(share)} of them, each "
            f"count needs ε ≥ {eps_count:.3g} (Laplace noise); a person in {int(cells)} such counts is protected by "
            f"ε = {int(cells)} × {eps_count:.3g} = {total:.3g} per person. {say.odds_sentence(total)}")
