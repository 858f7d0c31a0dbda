"""What the Synthetic data page prints about the risk against the control set: the sentence, the table of the
three risks and the table of SDMetrics' proxy scores beside them (all from the run's metrics and series, so
testable without Streamlit; the words that explain each number live in content/synthetic.md)."""
from __future__ import annotations

import math

import pandas as pd

from ...attacks.declaration import attacks_of, labels
from ...attacks.synthetic import RELEASE_RISKS
from ...measure.proxy_scores import PROXY_NAMES


def risk_names() -> dict[str, str]:
    """Row labels of the risks table, from the attacks' declarations (core/attacks/synthetic/__init__.py)."""
    return {**{a.key: f"Inference: {a.long}" for a in attacks_of("synthetic")},
            **{a.metric: a.short for a in attacks_of(RELEASE_RISKS)}}


def _ok(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def risk_sentence(metrics: dict, series: dict) -> str:
    """The headline risk in words, from its direction and interval: a leak only when the interval's lower end is
    above 0, "no measurable leak" when the interval holds 0, "too few records" when it is wider than 0.5."""
    risk = (series.get("risk") or {})
    head = risk.get("headline")
    if not head or not _ok(metrics.get("risk")):
        return ""
    r, lo, hi = metrics["risk"], metrics["risk_ci_low"], metrics["risk_ci_high"]
    name = labels("synthetic", "long").get(head, head)
    per = risk["per_attack"][head]
    rates = (f"right on {per['train_rate']:.0%} of {per['train_n']:,} training records against "
             f"{per['control_rate']:.0%} of {per['control_n']:,} control records the release never saw "
             f"(always guessing the commonest value: {metrics['baseline_train']:.0%})")
    span = f"risk {r:.2f}, 95% CI {lo:.2f} to {hi:.2f}"
    if hi - lo > 0.5:
        verdict = "too few records to say how much the release leaks: attack more records or play more games"
    elif lo > 0:
        verdict = "the release leaks the secret of the people it was made from, beyond what it tells about anyone"
    elif hi < 0:
        verdict = "the attack does better on strangers than on the people in the data: no leak measured"
    else:
        verdict = "no measurable leak: the people in the data are guessed no better than strangers"
    return f"**Against a control set, {name} is {rates}: {span} — {verdict}.**"


def risks_table(metrics: dict, series: dict) -> pd.DataFrame | None:
    """One row per risk measured: success on training and on control records beside the majority baseline (for
    the inference attacks, which guess a secret), and the risk with its interval."""
    per = (series.get("risk") or {}).get("per_attack") or {}
    if not per:
        return None
    inference = {a.key for a in attacks_of("synthetic")}
    rows = []
    for key, res in per.items():
        rows.append({"risk of": risk_names().get(key, key),
                     "success on training records": _fmt(res["train_rate"], "{:.1%}"),
                     "majority baseline": _fmt(metrics.get("baseline_train"), "{:.1%}") if key in inference
                     else "—",
                     "success on control records": _fmt(res["control_rate"], "{:.1%}"),
                     "risk": _fmt(res["risk"], "{:.3f}"),
                     "95% CI": (f"{res['risk_ci_low']:.3f} – {res['risk_ci_high']:.3f}"
                                if _ok(res["risk_ci_low"]) else "—"),
                     "attempts (training / control)": f"{res['train_n']:,} / {res['control_n']:,}"})
    return pd.DataFrame(rows)


def proxies_table(metrics: dict, series: dict) -> pd.DataFrame | None:
    """SDMetrics' scores (1 = "protected") beside the largest attack risk on the same release."""
    proxies = (series.get("risk") or {}).get("proxies") or {}
    if not proxies:
        return None
    rows = [{"score": PROXY_NAMES[k], "value": f"{proxies[k]:.3f}", "reads as": _reads(proxies[k])}
            for k in PROXY_NAMES if k in proxies]
    risks = [(risk_names().get(k, k), v["risk"]) for k, v in series["risk"]["per_attack"].items() if _ok(v["risk"])]
    if risks:
        name, top = max(risks, key=lambda x: x[1])
        rows.append({"score": f"Largest attack risk ({name})", "value": f"{top:.3f}",
                     "reads as": "0 = no leak, 1 = every secret left to leak is leaked"})
    return pd.DataFrame(rows)


def _reads(score: float) -> str:
    return "looks protected" if score >= 0.8 else ("partly protected" if score >= 0.4 else "looks exposed")


def _fmt(x, fmt: str) -> str:
    return fmt.format(x) if _ok(x) else "—"
