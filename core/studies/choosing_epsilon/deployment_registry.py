"""Real differential-privacy deployments (``content/epsilon_registry.csv``) to set an ε beside what others chose.

Each row is our own transcription of one public deployment: organisation, product, year, the published ε and δ,
ρ where zero-concentrated DP (zCDP) is the published unit, the δ at which ρ is converted, the **unit of privacy**
(what one ε protects: a person, a user-day, an event …), the model (central / local), the period over which the
budget renews, and the source address.

zCDP → (ε, δ): ρ-zCDP implies (ε, δ)-DP for every δ > 0 with (Canonne, Kamath & Steinke 2020, Prop. 12 — the
tightest general conversion)

    ε(δ) = inf_{α > 1}  α·ρ + (ln(1/δ) + (α − 1)·ln(1 − 1/α) − ln α) / (α − 1),

never larger than the classic ``ρ + 2·√(ρ·ln(1/δ))`` (Bun & Steinke 2016, Prop. 1.3). Organisations that publish
both ρ and ε use one or the other (or a tighter accounting such as μ-GDP), so a published ε sits at or below the
classic bound; :func:`load_registry` keeps the published ε and adds the converted one beside it.

A deployment's unit decides whether its ε is comparable with a game's: an ε per user-day protects one day of a
person's data, so a person active for a year may lose up to 365 times as much. :func:`comparable` says when a tick
must be drawn greyed, and why.
"""
from __future__ import annotations

import csv
import functools
import math
from pathlib import Path

from scipy.optimize import minimize_scalar

from ...errors import DataError, ParameterError

PATH = Path(__file__).resolve().parents[3] / "content" / "epsilon_registry.csv"
COLUMNS = ("organisation", "product", "year", "epsilon", "delta", "rho", "conversion_delta", "unit", "unit_kind",
           "model", "period", "source", "note")
UNIT_KINDS = ("person", "user-period", "event", "other")
MODELS = ("central", "local")


def zcdp_epsilon(rho: float, delta: float) -> float:
    """Smallest ε with ρ-zCDP ⇒ (ε, δ)-DP (Canonne, Kamath & Steinke 2020)."""
    rho, delta = float(rho), float(delta)
    if not rho >= 0 or math.isinf(rho):
        raise ParameterError("rho", f"expected a finite ρ >= 0, got {rho!r}")
    if not 0 < delta < 1:
        raise ParameterError("delta", f"the conversion needs 0 < δ < 1, got {delta!r}")
    if rho == 0:
        return 0.0

    def bound(a: float) -> float:
        return a * rho + (math.log(1 / delta) + (a - 1) * math.log1p(-1 / a) - math.log(a)) / (a - 1)

    # the optimum α grows like √(ln(1/δ)/ρ); search a bracket around it
    hi = 10.0 + 10.0 * math.sqrt(math.log(1 / delta) / rho)
    res = minimize_scalar(bound, bounds=(1.0 + 1e-9, hi), method="bounded", options={"xatol": 1e-10})
    return float(min(res.fun, zcdp_epsilon_classic(rho, delta)))


def zcdp_epsilon_classic(rho: float, delta: float) -> float:
    """``ρ + 2·√(ρ·ln(1/δ))`` (Bun & Steinke 2016): simple, slightly loose."""
    return float(rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta)))


def _num(row: dict, key: str, line: int) -> float | None:
    text = (row.get(key) or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise DataError(f"epsilon registry line {line}: {key} is not a number: {text!r}") from None
    if math.isnan(value) or value < 0:
        raise DataError(f"epsilon registry line {line}: {key} must be >= 0, got {text!r}")
    return value


def parse_row(row: dict, line: int = 0) -> dict:
    """One CSV row → a deployment dict with ``epsilon`` (published, else converted from ρ), ``epsilon_converted``
    (from ρ at ``conversion_delta``, or None) and ``delta`` (published, else the conversion's δ)."""
    missing = [c for c in ("organisation", "product", "year", "unit", "unit_kind", "model", "period", "source")
               if not (row.get(c) or "").strip()]
    if missing:
        raise DataError(f"epsilon registry line {line}: missing {', '.join(missing)}")
    eps, delta, rho = _num(row, "epsilon", line), _num(row, "delta", line), _num(row, "rho", line)
    conv_delta = _num(row, "conversion_delta", line)
    if eps is None and rho is None:
        raise DataError(f"epsilon registry line {line}: needs ε or ρ")
    converted = None
    if rho is not None:
        if conv_delta is None or not 0 < conv_delta < 1:
            raise DataError(f"epsilon registry line {line}: ρ needs a conversion δ in (0, 1)")
        converted = zcdp_epsilon(rho, conv_delta)
    kind = row["unit_kind"].strip()
    if kind not in UNIT_KINDS:
        raise DataError(f"epsilon registry line {line}: unit_kind must be one of {', '.join(UNIT_KINDS)}")
    model = row["model"].strip()
    if model not in MODELS:
        raise DataError(f"epsilon registry line {line}: model must be one of {', '.join(MODELS)}")
    source = row["source"].strip()
    if not source.startswith("https://"):
        raise DataError(f"epsilon registry line {line}: source must be an https address")
    try:
        year = int(row["year"])
    except ValueError:
        raise DataError(f"epsilon registry line {line}: year is not a number: {row['year']!r}") from None
    return {"organisation": row["organisation"].strip(), "product": row["product"].strip(), "year": year,
            "epsilon": eps if eps is not None else converted, "epsilon_published": eps,
            "epsilon_converted": converted, "delta": delta if delta is not None else (conv_delta or 0.0),
            "rho": rho, "conversion_delta": conv_delta, "unit": row["unit"].strip(), "unit_kind": kind,
            "model": model, "period": row["period"].strip(), "source": source,
            "note": (row.get("note") or "").strip()}


@functools.lru_cache(maxsize=4)
def _load(path: str) -> tuple[dict, ...]:
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if tuple(reader.fieldnames or ()) != COLUMNS:
                raise DataError(f"epsilon registry {path}: expected columns {', '.join(COLUMNS)}")
            return tuple(parse_row(row, i + 2) for i, row in enumerate(reader))
    except OSError as exc:
        raise DataError(f"cannot read the epsilon registry {path}: {exc}") from None


def load_registry(path: str | Path = PATH) -> list[dict]:
    """Every deployment of the registry, in file order (copies: callers may annotate them)."""
    return [dict(r) for r in _load(str(path))]


def nearest(epsilon: float, k: int = 5, path: str | Path = PATH) -> list[dict]:
    """The ``k`` deployments whose ε is nearest to ``epsilon`` on a log scale (ties: newer first)."""
    epsilon = float(epsilon)
    if not epsilon > 0:
        raise ParameterError("epsilon", f"expected ε > 0, got {epsilon!r}")
    rows = load_registry(path)
    rows.sort(key=lambda r: (abs(math.log(r["epsilon"] / epsilon)) if r["epsilon"] > 0 else math.inf, -r["year"]))
    return rows[:max(0, int(k))]


def comparable(row: dict, game_unit: str = "person") -> tuple[bool, str]:
    """Whether a deployment's ε protects the same unit as the game's (``"person"``), and if not, why in words."""
    kind = row["unit_kind"]
    if game_unit != "person" or kind == "person":
        return True, ""
    if kind == "user-period":
        return False, (f"protects one {row['unit']}, not a whole person: a person present over many such periods "
                       "can lose that ε again in each")
    if kind == "event":
        return False, (f"protects one {row['unit']}, not a whole person: a person with many such events is "
                       "protected much less")
    return False, f"protects one {row['unit']}, not a person"


def ticks(epsilon_range: tuple[float, float] | None = None, game_unit: str = "person",
          path: str | Path = PATH) -> list[dict]:
    """Deployments ready to draw as ticks on an ε axis: each row with ``comparable``, ``reason`` and ``hover``
    (organisation, product, unit, period, source), optionally only those within ``epsilon_range``."""
    out = []
    for r in load_registry(path):
        if epsilon_range and not epsilon_range[0] <= r["epsilon"] <= epsilon_range[1]:
            continue
        ok, reason = comparable(r, game_unit)
        delta = f", δ = {r['delta']:g}" if r["delta"] else ""
        rho = f" (ρ = {r['rho']:g} zCDP)" if r["rho"] is not None else ""
        r.update(comparable=ok, reason=reason,
                 hover=(f"<b>{r['organisation']}</b> — {r['product']} ({r['year']})<br>"
                        f"ε = {r['epsilon']:.3g}{delta}{rho}, {r['model']} model<br>"
                        f"unit: {r['unit']}; budget {r['period']}<br>"
                        + (f"<i>greyed: {reason}</i><br>" if reason else "") + f"source: {r['source']}"))
        out.append(r)
    return out
