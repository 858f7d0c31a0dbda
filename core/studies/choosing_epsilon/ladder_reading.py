"""What an ε ladder can and cannot say, read from its rows and their 95% intervals only.

A ladder is a handful of measured AUCs (or accuracies), each with an interval. A sentence about it may claim a
trend ("the attack weakens as noise grows") only where the intervals support it: two rungs *differ* when their
intervals do not overlap (a conservative test — non-overlapping 95% intervals differ at well below the 5% level).
Otherwise the honest reading is "these rungs cannot be told apart at this size", with the smallest difference the
ladder could have resolved (the sum of neighbouring half-widths).

A rung is "indistinguishable from a coin flip" when its interval contains 0.5, and "above chance" when its lower end
is above 0.5 — never from the point estimate alone. Adding noise cannot help the best attacker (Laplace noise of a
larger scale is a garbling of a smaller one), so a rung whose interval lies entirely *above* a less noisy rung's is
named as a warning sign, not as a finding.
"""
from __future__ import annotations

import math

CHANCE = 0.5


def _ok(r: dict) -> bool:
    vals = (r.get("attack"), r.get("attack_ci_low"), r.get("attack_ci_high"))
    return all(v is not None and isinstance(v, (int, float)) and math.isfinite(v) for v in vals)


def differs(a: dict, b: dict) -> int:
    """+1 when rung ``b``'s interval lies entirely above ``a``'s, −1 when entirely below, 0 when they overlap."""
    if b["attack_ci_low"] > a["attack_ci_high"]:
        return 1
    if b["attack_ci_high"] < a["attack_ci_low"]:
        return -1
    return 0


def resolution(ladder: dict) -> float | None:
    """The smallest difference between neighbouring rungs this ladder could tell apart (median over neighbours
    of the two half-widths added up); None without intervals."""
    rows = [r for r in ladder["rows"] if _ok(r)]
    gaps = sorted((a["attack_ci_high"] - a["attack_ci_low"]) / 2 + (b["attack_ci_high"] - b["attack_ci_low"]) / 2
                  for a, b in zip(rows, rows[1:]))
    if not gaps:
        return None
    return gaps[len(gaps) // 2]


def reading(ladder: dict) -> dict:
    """The ladder's trend as the intervals allow: ``trend`` ∈ {"weaker with more noise", "stronger with more noise",
    "none"}, the rungs ``above_chance`` (interval above 0.5), ``chance`` (interval holds 0.5), the pairs that
    differ (by ε per unit), the ``resolution`` and ``over_bound`` (rungs whose interval is wholly above the DP
    bound: a broken game or a broken claim)."""
    rows = sorted((r for r in ladder["rows"] if _ok(r)), key=lambda r: r["epsilon"])
    pairs = []
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            d = differs(a, b)
            if d:
                pairs.append((a["epsilon"], b["epsilon"], d))
    ups = [p for p in pairs if p[2] > 0]    # less noise (larger ε) clearly stronger: the expected direction
    downs = [p for p in pairs if p[2] < 0]  # more noise clearly stronger: impossible for a sound game
    trend = "none"
    if ups and not downs:
        trend = "weaker with more noise"
    elif downs and not ups:
        trend = "stronger with more noise"
    elif ups and downs:
        trend = "mixed"
    return {"trend": trend, "pairs": pairs, "resolution": resolution(ladder),
            "above_chance": [r["epsilon"] for r in rows if r["attack_ci_low"] > CHANCE],
            "chance": [r["epsilon"] for r in rows if r["attack_ci_low"] <= CHANCE <= r["attack_ci_high"]],
            "over_bound": [r["epsilon"] for r in rows if r.get("bound") is not None
                           and r["attack_ci_low"] > r["bound"]],
            "rows": rows}


def _eps(r: dict) -> str:
    pp = r.get("epsilon_per_person")
    return f"ε = {pp:.3g} per person ({r['epsilon']:g} per cell)" if pp else f"ε = {r['epsilon']:g}"


def _list(values) -> str:
    values = [f"{v:g}" for v in values]
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]


def sentences(ladder: dict) -> list[str]:
    """Plain sentences about the ladder, every claim backed by its intervals (see the module docstring)."""
    info = reading(ladder)
    rows = info["rows"]
    if not rows:
        return ["No rung of this ladder has a measured attack with an interval yet."]
    label = ladder.get("attack_label", "attack metric")
    lo, hi = rows[0], rows[-1]
    out = [f"From {_eps(lo)} to {_eps(hi)} the {label} was measured at "
           + "; ".join(f"{r['attack']:.3f} [{r['attack_ci_low']:.3f}, {r['attack_ci_high']:.3f}] at ε = "
                       f"{r['epsilon']:g}" for r in rows) + " (95% intervals)."]
    res = info["resolution"]
    if info["trend"] == "none":
        out.append("No trend can be read from it: every rung's interval overlaps every other's, so at this size "
                   "the ladder cannot tell its rungs apart"
                   + (f" (it could only see differences larger than about {res:.2f})" if res else "") + ".")
    elif info["trend"] == "weaker with more noise":
        a, b, _ = max(info["pairs"], key=lambda p: p[1] - p[0])
        out.append(f"The attack is clearly weaker at ε = {a:g} than at ε = {b:g} (their intervals do not "
                   "overlap): more noise protects more.")
    else:
        bad = [p for p in info["pairs"] if p[2] < 0]
        out.append("Warning: at " + "; ".join(f"ε = {a:g} the interval lies above the one at ε = {b:g}"
                                              for a, b, _ in bad)
                   + ". More noise cannot help the best attacker, so this is either a rare draw or a fault in "
                     "the game; rerun with more blocks or another seed before reading anything into it.")
    if info["chance"] and len(info["chance"]) == len(rows):
        out.append("At every rung the interval includes a coin flip (0.5): no rung shows the attack doing better "
                   "than guessing.")
    elif info["above_chance"]:
        out.append(f"The interval lies above a coin flip at ε = {_list(info['above_chance'])} per cell"
                   + (f", and includes it at ε = {_list(info['chance'])}" if info["chance"] else "") + ".")
    if info["over_bound"]:
        out.append(f"At ε = {_list(info['over_bound'])} the measured interval lies above the DP bound: the release "
                   "does not give the protection it claims (see the known-bug gallery).")
    return out
