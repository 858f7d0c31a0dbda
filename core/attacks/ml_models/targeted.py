"""Targeted attribute inference: spend the attack on the records most likely to leak (Kabir, Craig & Mehnaz,
arXiv 2504.04033, §5.3, §6.4, Tables 2–3; spec §A10).

Objective (paper §5.3): within a budget ``κ`` (fraction of the records), find ``D_T ⊆ D`` with
``|D_T| ≈ κ|D|`` whose attack success rate is as high as possible. The search is restricted to subsets defined by
values of public attributes and uses the angular difference (AD) as the surrogate for vulnerability.

**Single attribute.** For every candidate categorical attribute ``a``, split the records by value, compute AD
per value and its range ``r_a = max AD − min AD``; take ``a* = argmax r_a``, rank its values by risk (the
direction of the disparity ranking) and let ``D_T`` be the union of the top-``j`` values with ``|D_T|/|D|``
**closest** to κ ([C]). The attack itself runs on all of D; targeting restricts where it is evaluated
(spec Part C.6), so κ = 1 is the untargeted attack.

**Nested attributes.** Take the attributes in decreasing ``r_a`` with a decreasing budget schedule
``κ_1 > κ_2 > …`` ([C]: 0.5, 0.375, 0.25, 0.1). At depth ``i``, form prefixes of attribute ``a_i``'s ranked
values intersected with the depth ``i−1`` selection and keep the **largest prefix with fraction ≤ κ_i** (if even
the first value exceeds it, keep that value alone); each attribute's ranking is computed on all of D ([C]).
We intersect with the within-budget selection (spec Part C.7).

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import warnings

import numpy as np

from ...errors import DataError
from ...measure.metrics import clopper_pearson

from .confidence_matrix import group_ad
from .disparity import rank_groups, risk_score

KAPPA_GRID = (1.0, 0.75, 0.5, 0.375, 0.25, 0.1, 0.05)
NESTED_SCHEDULE = (0.5, 0.375, 0.25, 0.1, 0.05, 0.025)


def attribute_ranges(attributes: dict[str, np.ndarray], confidence, labels, y, direction: str,
                     min_share: float = 0.01) -> dict[str, dict]:
    """AD per value and its range for every candidate attribute (values covering < ``min_share`` of the
    records are ignored: their AD is noise)."""
    out = {}
    n = len(y)
    for name, codes in attributes.items():
        k = int(codes.max()) + 1
        ad, _ = group_ad(confidence, labels, y, codes, k)
        share = np.bincount(codes, minlength=k) / n
        ad = np.where(share >= min_share, ad, np.nan)
        ok = np.isfinite(ad)
        r = float(np.nanmax(ad) - np.nanmin(ad)) if ok.sum() >= 2 else float("nan")
        out[name] = {"ad": ad, "range": r, "order": rank_groups(risk_score(ad, direction)), "share": share}
    return out


def best_attribute(ranges: dict[str, dict]) -> str:
    finite = {a: r["range"] for a, r in ranges.items() if np.isfinite(r["range"])}
    if not finite:
        raise DataError("targeting: no attribute has an angular difference in two or more of its values (too few "
                        "records per value for the model's answers to show a slope); use more records per group, "
                        "more epochs, or targeting=none")
    return max(finite, key=finite.get)


def single_selection(codes: np.ndarray, order: np.ndarray, kappa: float) -> tuple[np.ndarray, list[int]]:
    """Union of the top-j values of ``order`` whose fraction of the records is closest to κ ([C])."""
    n = codes.size
    share = np.bincount(codes, minlength=order.size)[order] / n
    cum = np.cumsum(share)
    j = int(np.argmin(np.abs(cum - kappa))) + 1
    chosen = [int(v) for v in order[:j]]
    return np.isin(codes, chosen), chosen


def nested_selection(attributes: dict[str, np.ndarray], ranges: dict[str, dict], schedule) -> list[dict]:
    """Depth-by-depth selections (mask, attribute, chosen values, fraction) for the budget ``schedule``."""
    n = len(next(iter(attributes.values())))
    by_range = sorted((a for a in ranges if np.isfinite(ranges[a]["range"])),
                      key=lambda a: -ranges[a]["range"])
    current = np.ones(n, bool)
    out = []
    for depth, (attr, kappa) in enumerate(zip(by_range, schedule), start=1):
        codes, order = attributes[attr], ranges[attr]["order"]
        chosen, mask = [], np.zeros(n, bool)
        for v in order:
            trial = current & (mask | (codes == v))
            if trial.sum() / n > kappa + 1e-12:
                if not chosen:  # even one value exceeds the budget: keep that one value
                    chosen, mask = [int(v)], codes == v
                break
            chosen.append(int(v))
            mask = mask | (codes == v)
        current = current & mask
        out.append({"depth": depth, "attribute": attr, "kappa": float(kappa), "values": chosen,
                    "mask": current.copy(), "fraction": float(current.mean())})
        if not current.any():
            break
    return out


def nested_schedule(kappa: float) -> list[float]:
    """[C]'s budget schedule down to κ (κ itself last)."""
    sched = [k for k in NESTED_SCHEDULE if k > kappa + 1e-12]
    return sched + [float(kappa)]


def targeting(mode: str, kappa: float, attributes: dict[str, np.ndarray], attribute_values: dict[str, list],
              cs, y: np.ndarray, direction: str, correct: np.ndarray, attribute: str = ""):
    """The optional targeting step (§5.3) of one run: ``(ranges, best, sweep, nested, skipped)``.

    ``attribute``: the single-attribute selection's attribute as the analyst names it (it must be one of the
    candidate categorical ``attributes``); empty = the paper's choice, ``argmax_a r_a``. Naming it reproduces a
    paper that targets a known attribute (occupation on Adult) when the range ranks another attribute first.

    ``mode = "none"`` never runs it. When no attribute shows an angular difference in two or more of its
    values (too few records per value), the run keeps its untargeted results: ``skipped`` is the one-line
    reason, and the sweep and nested levels are empty. ``sweep`` holds, per budget κ of :data:`KAPPA_GRID`
    (plus ``kappa``), the records the single-attribute selection targets and the attack's accuracy on them
    with a Clopper–Pearson 95% interval; ``nested`` the same per level of the nested schedule."""
    ranges, best, sweep, nested, skipped = {}, None, [], [], None
    if mode == "none":
        return ranges, best, sweep, nested, skipped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an attribute without a slope is NaN, handled below
        ranges = attribute_ranges(attributes, cs.confidence, cs.labels, y, direction)
    if attribute:
        if attribute not in ranges:
            raise DataError(f"targeting: {attribute!r} is not a candidate attribute; the candidates are the "
                            f"categorical attributes with 2 or more values: {', '.join(sorted(ranges)) or 'none'}")
        if not np.isfinite(ranges[attribute]["range"]):
            return ranges, None, [], [], (f"the named attribute {attribute} has no angular difference in two or "
                                          "more of its values (too few records per value)")
        best = attribute
    else:
        try:
            best = best_attribute(ranges)
        except DataError as exc:
            return ranges, None, [], [], str(exc).split(": ", 1)[-1].split(";")[0]

    def scored(mask):
        k, n = int(correct[mask].sum()), int(mask.sum())
        lo, hi = clopper_pearson(k, n)
        return {"records": n, "correct": k, "accuracy": k / max(1, n), "ci_low": lo, "ci_high": hi}

    for kap in sorted(set(KAPPA_GRID) | {float(kappa)}, reverse=True):
        mask, chosen = single_selection(attributes[best], ranges[best]["order"], kap)
        sweep.append({"kappa": kap, "fraction": float(mask.mean()), **scored(mask),
                      "values": [attribute_values[best][v] for v in chosen]})
    for level in nested_selection(attributes, ranges, nested_schedule(kappa)):
        mask = level.pop("mask")
        level.update(**scored(mask), values=[attribute_values[level["attribute"]][v] for v in level["values"]])
        nested.append(level)
    return ranges, best, sweep, nested, skipped
