"""One ε in context, for the command line and for any page: the odds in plain words, and the real deployments
nearest to it (with their units), in one JSON-ready dict.

``python -m core epsilon 1 --delta 1e-6 --prior 0.1`` prints :func:`epsilon_in_context` as JSON.
"""
from __future__ import annotations

import math

from ...errors import ParameterError
from ...measure.audit import claim_of
from ...output import plain_language as say
from ...theory import odds
from .deployment_registry import comparable, nearest
from .table_epsilon import census_deployments


def epsilon_in_context(epsilon: float, delta: float = 0.0, prior: float = 0.5, k: int = 5) -> dict:
    """``posterior_bound`` (the attacker's best belief from ``prior``), ``odds_text`` (the sentence),
    ``guess_bound`` (best chance of guessing in/out right) and ``deployments`` (the ``k`` registry rows
    nearest in ε, each with its unit and whether it protects a whole person)."""
    try:
        epsilon = float(epsilon)
    except (TypeError, ValueError):
        raise ParameterError("epsilon", f"expected a number > 0, got {epsilon!r}") from None
    if not epsilon > 0 or math.isinf(epsilon):
        raise ParameterError("epsilon", f"expected a finite number > 0, got {epsilon!r}")
    post = odds.posterior_bound(epsilon, prior, delta)
    rows = []
    for r in nearest(epsilon, k):
        same, reason = comparable(r)
        rows.append({key: r[key] for key in ("organisation", "product", "year", "epsilon", "delta", "rho", "unit",
                                             "model", "period", "source")}
                    | {"same_unit_as_person": same, "unit_note": reason})
    return {"epsilon": epsilon, "delta": float(delta), "prior": float(prior), "posterior_bound": post,
            "guess_bound": odds.guess_bound(epsilon, 0.5, delta),
            "odds_text": say.odds_sentence(epsilon, delta, prior), "deployments": rows}


def report_lines(result) -> list[str]:
    """Plain-text lines for a run's report summary (``core.output.report.register_summary_hook``): the odds sentence
    at the release's claimed ε, and the three real deployments nearest to it with their units."""
    eps, delta = claim_of(result)
    if eps is None:
        return [say.odds_sentence(None)]
    lines = [say.odds_sentence(eps, delta)]
    if eps > 0:
        # like units only: deployments whose ε protects a whole person; for table releases the Census tables
        name = result.get("scenario") if isinstance(result, dict) else getattr(result, "scenario", "")
        if name == "aggregates":
            rows = census_deployments(3, eps)
        else:
            rows = [r for r in nearest(eps, 40) if comparable(r)[0]][:3]
        near = [f"{r['organisation']}, {r['product']} ({r['year']}): ε = {r['epsilon']:.3g} per {r['unit']}"
                for r in rows]
        if near:
            lines.append("Real deployments nearest this ε per person: " + "; ".join(near) + ".")
    return lines
