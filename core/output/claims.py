"""Comparative sentences that follow the numbers: each is built from the direction and the uncertainty of the
numbers it describes, and a claim the numbers do not support is replaced by what they do support.

* "singles out G as the most exposed groups" needs a disparity ranking that agrees with the groups' measured
  accuracies better than chance (Kendall's τ > 0 with one-sided p < 0.05) *and* an attack that beats its
  baseline (the lower end of its 95 % Clopper–Pearson interval above the accuracy of always guessing the more
  common value) — a ranking of an attack that does no better than guessing ranks noise.
* "BCorr shrinks the gap from a to b points" needs b < a by more than the gap groups with no real difference
  show by chance (the noise floor of the group-accuracy spread, ASRD); "widens" the mirror image; otherwise the
  gap is "about where it was". A gap within its noise floor before BCorr is no gap to shrink.

Values and column names of an uploaded file pass through ``text`` (the page's :func:`inert_text`), so a
stranger's cell never becomes Markdown.
"""
from __future__ import annotations

import math
from typing import Callable

ALPHA = 0.05  # one-sided level of the ranking's agreement test


def _ok(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def beats_baseline(m: dict) -> bool:
    """The attack's 95 % interval lies above the accuracy of guessing the more common value for everyone."""
    return _ok(m.get("accuracy_ci_low")) and _ok(m.get("chance_accuracy")) and \
        m["accuracy_ci_low"] > m["chance_accuracy"]


def ranking_supported(m: dict) -> bool:
    """The predicted risk ranking agrees with the groups' actual accuracies better than chance (τ > 0, one-sided
    p < :data:`ALPHA`; ``kendall_p`` is two-sided)."""
    tau, p = m.get("kendall_disparity"), m.get("kendall_p")
    return _ok(tau) and _ok(p) and tau > 0 and p / 2 < ALPHA


def ranking_clause(m: dict, groups: list[str], secret: str, by: str, text: Callable[[str], str] = str) -> str:
    """Who the disparity ranking names as most exposed — only when the ranking and the attack support it."""
    tau, p = m.get("kendall_disparity"), m.get("kendall_p")
    stats = (f"Kendall τ = {tau:.2f}, p = {p:.2g}" if _ok(tau) and _ok(p) else "no measurable agreement")
    if not beats_baseline(m):
        return (f"The attack does not beat guessing the more common value here, so its ranking of the groups (by "
                f"{text(by)}) names no most exposed group ({stats})")
    if not ranking_supported(m):
        direction = "worse than" if _ok(tau) and tau < 0 else "no better than"
        return (f"Its ranking of the groups by predicted risk agrees with their actual exposure {direction} chance "
                f"({stats}), so it names no most exposed group (by {text(by)})")
    tops = ", ".join(f"**{text(g)}**" for g in groups)
    return (f"Without knowing anyone's {text(secret)}, it singles out {tops} as the most exposed groups (by "
            f"{text(by)}; the ranking agrees with the groups' actual exposure: {stats})")


def bcorr_clause(m: dict) -> str | None:
    """What rebalancing the training data (BCorr) did to the gap between the best- and worst-protected group, in
    the direction the numbers show, or None without a BCorr run."""
    a, b = m.get("asrd"), m.get("asrd_bcorr")
    if not (_ok(a) and _ok(b)):
        return None
    f0 = m.get("asrd_noise_floor") if _ok(m.get("asrd_noise_floor")) else 0.0
    f1 = m.get("asrd_noise_floor_bcorr") if _ok(m.get("asrd_noise_floor_bcorr")) else 0.0
    noise = max(f0, f1)
    pts = f"from {100 * a:.0f} to {100 * b:.0f} points"
    floor = f"groups with no real difference would still be ≈ {100 * noise:.0f} points apart by chance"
    if a <= f0:
        verb = (f"Before rebalancing (BCorr) the gap between the best- and worst-protected group is within chance "
                f"({100 * a:.0f} points; {floor}), so there is no measured gap for it to close ({pts})")
    elif b < a - noise:
        verb = ("Rebalancing the training data (BCorr) shrinks the gap between the best- and worst-protected group "
                f"{pts} ({floor})")
    elif b > a + noise:
        verb = ("Rebalancing the training data (BCorr) widens the gap between the best- and worst-protected group "
                f"{pts} ({floor})")
    else:
        verb = (f"Rebalancing the training data (BCorr) leaves the gap between the best- and worst-protected group "
                f"about where it was, {pts} ({floor}: a change this small is not measured)")
    acc0, acc1 = m.get("model_accuracy"), m.get("model_accuracy_bcorr")
    if _ok(acc0) and _ok(acc1):
        verb += f", with model accuracy {100 * acc0:.1f}% → {100 * acc1:.1f}%"
    return verb + "."


def ml_models(m: dict, s: dict, text: Callable[[str], str] = str) -> str:
    """The ML-models lab's headline: the attack's accuracy against guessing, the ranking clause, the targeted
    accuracy and the BCorr clause, each as far as its numbers go."""
    i = s["info"]
    titles = i.get("titles", {})
    sens, group = titles.get(i["sensitive"], i["sensitive"]), titles.get(i["group"], i["group"])
    secret = f"{text(sens)} ({text(str(i['sensitive_values'][1]))} or {text(str(i['sensitive_values'][0]))})"
    out = (f"If this model is published, an attacker who only queries it guesses a person's {secret} right "
           f"**{100 * m['accuracy']:.0f}%** of the time over everyone (guessing the most common value for everyone: "
           f"{100 * m['chance_accuracy']:.0f}%). ")
    out += ranking_clause(m, i.get("top_groups", []), sens, group, text)
    if _ok(m.get("targeted_accuracy")):
        out += (f"; on the {100 * m['targeted_fraction']:.0f}% of records it targets it is right "
                f"**{100 * m['targeted_accuracy']:.0f}%** of the time")
    out += "."
    bcorr = bcorr_clause(m)
    return out + (" " + bcorr if bcorr else "")


def exposure_heading(tier_counts: dict, shown: int, unit_plural: str) -> str:
    """The heading of the exposure table's top rows: "the most exposed" only when a tier backs the order (a
    certified or probable row leads it); otherwise the rows are the attack's highest scores, which no tier
    separates from the rest. Plain text (the page sets it in bold, the report escapes it)."""
    backed = (tier_counts.get("certified", 0) or 0) + (tier_counts.get("probable", 0) or 0)
    if backed:
        return f"The {shown} most exposed {unit_plural}"
    return (f"The {shown} {unit_plural} the attack scores highest (no tier backs this order: none is certified "
            "or probable, so they are not shown to be more exposed than the rest)")
