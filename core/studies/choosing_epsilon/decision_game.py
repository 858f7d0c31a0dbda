"""The decision game: do decisions taken on DP results differ from decisions taken on the true ones?

A stakeholder states a threshold rule — "fund a region if its count exceeds T". The game shows K regions' counts
twice each, once true and once from a DP release (Laplace noise of scale b = Δ/ε, or Gaussian σ at δ), shuffled
together so the two copies cannot be told apart; the player decides on every card. A region's decision *flips*
when the player decides differently on its two copies. (After the PATCG "DP game", which shows practitioners true
and noisy results side by side and measures whether their decisions change.)

Closed form for the threshold rule "yes iff value > T" applied to both copies of a region with true count c:

* Laplace: the noisy copy crosses T with probability ``½·exp(−|c − T|/b)`` (the tail of Lap(b) beyond the
  distance to the threshold; at c = T a fair coin);
* Gaussian: ``Φ(−|c − T|/σ)``.

The game publishes DP counts rounded to whole numbers (post-processing, free of privacy cost) so that the two copies
look alike; for whole-number counts and threshold T, "rounded value > T" is "unrounded value ≥ T + ½", so the closed
form uses the distance to T + ½ (``rounded=True``). The expected flip rate of a rule-following player is the mean
over the K regions; it falls with ε, and
:func:`epsilon_for_agreement` finds the smallest ε at which decisions stay the same for ≥ 95% of regions. Beside it
the game draws the attacker's best chance of telling whether a person is in the data at the same ε
(:func:`core.theory.odds.guess_bound`) — the other side of the same budget.
"""
from __future__ import annotations

import json
import math
import string

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from ...errors import ParameterError
from ...releases.gaussian import Gaussian
from ...theory.odds import guess_bound

MECHANISMS = ("laplace", "gaussian")
MAX_REGIONS = 20


def _noise_scale(epsilon: float, sensitivity: float, mechanism: str, delta: float) -> float:
    if mechanism == "laplace":
        return sensitivity / epsilon
    if mechanism == "gaussian":
        return Gaussian(epsilon, delta, sensitivity).sigma
    raise ParameterError("mechanism", f"expected one of {'|'.join(MECHANISMS)}, got {mechanism!r}")


def flip_probability(counts, threshold: float, epsilon: float, sensitivity: float = 1.0,
                     mechanism: str = "laplace", delta: float = 1e-5, rounded: bool = True) -> np.ndarray:
    """Per region: chance that the DP copy falls on the other side of ``threshold`` than the true count
    (``rounded``: the DP copy is rounded to a whole number, whole-number counts and threshold)."""
    if not epsilon > 0:
        raise ParameterError("epsilon", f"expected ε > 0, got {epsilon!r}")
    c = np.asarray(counts, dtype=float)
    gap = np.abs(c - (float(threshold) + (0.5 if rounded else 0.0)))
    scale = _noise_scale(float(epsilon), float(sensitivity), mechanism, delta)
    if mechanism == "laplace":
        return 0.5 * np.exp(-gap / scale)
    return norm.cdf(-gap / scale)


def flip_rate(counts, threshold: float, epsilon: float, sensitivity: float = 1.0, mechanism: str = "laplace",
              delta: float = 1e-5, rounded: bool = True) -> float:
    """Expected share of regions whose decision flips under the threshold rule (closed form)."""
    return float(np.mean(flip_probability(counts, threshold, epsilon, sensitivity, mechanism, delta, rounded)))


def simulate_flip_rate(counts, threshold: float, epsilon: float, sensitivity: float = 1.0,
                       mechanism: str = "laplace", delta: float = 1e-5, reps: int = 2000,
                       rng: np.random.Generator | None = None, rounded: bool = True) -> float:
    """Monte-Carlo flip rate of the threshold rule (to check :func:`flip_rate`)."""
    rng = rng or np.random.default_rng(0)
    c = np.asarray(counts, dtype=float)
    scale = _noise_scale(float(epsilon), float(sensitivity), mechanism, delta)
    noise = rng.laplace(0, scale, (reps, c.size)) if mechanism == "laplace" else rng.normal(0, scale, (reps, c.size))
    shown = np.round(c + noise) if rounded else c + noise
    return float(np.mean((c > threshold) != (shown > threshold)))


def epsilon_for_agreement(counts, threshold: float, sensitivity: float = 1.0, agreement: float = 0.95,
                          mechanism: str = "laplace", delta: float = 1e-5, rounded: bool = True) -> float | None:
    """Smallest ε at which the rule's decisions stay the same for ≥ ``agreement`` of regions (None when no ε up
    to 1000 does — e.g. a region exactly at the threshold, which flips half the time whatever ε)."""
    target = 1.0 - float(agreement)
    f = lambda e: flip_rate(counts, threshold, e, sensitivity, mechanism, delta, rounded) - target  # noqa: E731
    lo, hi = 1e-4, 1000.0
    if f(hi) > 0:
        return None
    if f(lo) <= 0:
        return lo
    return float(brentq(f, lo, hi, xtol=1e-6))


def _check_setup(k: int, threshold: float, spread: float) -> tuple[int, float, float]:
    try:
        k, threshold, spread = int(k), float(threshold), float(spread)
    except (TypeError, ValueError):
        raise ParameterError("regions", "expected numbers for regions, threshold and spread") from None
    if not 2 <= k <= MAX_REGIONS:
        raise ParameterError("regions", f"expected 2 to {MAX_REGIONS} regions, got {k}")
    if not 1 <= threshold <= 1e6:
        raise ParameterError("threshold", f"expected a threshold between 1 and 1,000,000, got {threshold:g}")
    if not 0 < spread <= threshold:
        raise ParameterError("spread", f"expected a spread in (0, threshold], got {spread:g}")
    return k, threshold, spread


def regions(k: int, threshold: float, spread: float, seed: int = 0) -> list[dict]:
    """K regions with true counts spread uniformly within ±``spread`` of the threshold (whole numbers, none exactly
    at the threshold): the close calls are where noise changes decisions."""
    k, threshold, spread = _check_setup(k, threshold, spread)
    rng = np.random.default_rng([int(seed), 20])
    counts = np.round(threshold + rng.uniform(-spread, spread, k))
    counts[counts == threshold] += 1
    counts = np.maximum(counts, 0)
    names = [f"Region {string.ascii_uppercase[i]}" for i in range(k)]
    return [{"region": n, "true": float(c)} for n, c in zip(names, counts)]


def new_round(region_list: list[dict], epsilon: float, sensitivity: float = 1.0, mechanism: str = "laplace",
              delta: float = 1e-5, seed: int = 0) -> dict:
    """One round: each region's DP count at ``epsilon`` and the 2K cards (true and DP copies) shuffled.

    Cards carry only an id, the region and the shown value; which copy is which stays in ``key`` until scored.
    DP values are rounded to whole numbers like the true ones (post-processing: no privacy cost)."""
    if not epsilon > 0 or math.isinf(float(epsilon)):
        raise ParameterError("epsilon", f"expected a finite ε > 0, got {epsilon!r}")
    rng = np.random.default_rng([int(seed), 21, int(round(float(epsilon) * 1e6))])
    scale = _noise_scale(float(epsilon), float(sensitivity), mechanism, delta)
    true = np.array([r["true"] for r in region_list])
    noise = rng.laplace(0, scale, true.size) if mechanism == "laplace" else rng.normal(0, scale, true.size)
    dp = np.round(true + noise)
    cards = [{"region": r["region"], "value": float(v), "copy": copy}
             for r, t, d in zip(region_list, true, dp) for v, copy in ((t, "true"), (d, "dp"))]
    order = rng.permutation(len(cards))
    shuffled = [cards[i] for i in order]
    return {"epsilon": float(epsilon), "sensitivity": float(sensitivity), "mechanism": mechanism,
            "delta": float(delta) if mechanism == "gaussian" else 0.0, "noise_scale": float(scale),
            "cards": [{"id": i, "region": c["region"], "value": c["value"]} for i, c in enumerate(shuffled)],
            "key": [c["copy"] for c in shuffled]}


def score_round(rnd: dict, decisions: dict, threshold: float) -> dict:
    """Flips from the player's decisions (card id → True/False; every card must be decided), and what the
    threshold rule would have done on the same cards."""
    ids = [c["id"] for c in rnd["cards"]]
    missing = [i for i in ids if decisions.get(i) is None and decisions.get(str(i)) is None]
    if missing:
        raise ParameterError("decisions", f"decide on every card first ({len(missing)} left)")
    got = {i: bool(decisions.get(i, decisions.get(str(i)))) for i in ids}
    by_region: dict[str, dict] = {}
    for card, copy in zip(rnd["cards"], rnd["key"]):
        slot = by_region.setdefault(card["region"], {})
        slot[copy] = {"value": card["value"], "decision": got[card["id"]], "rule": card["value"] > threshold}
    rows = []
    for region, s in by_region.items():
        rows.append({"region": region, "true": s["true"]["value"], "dp": s["dp"]["value"],
                     "decision_true": s["true"]["decision"], "decision_dp": s["dp"]["decision"],
                     "flipped": s["true"]["decision"] != s["dp"]["decision"],
                     "rule_flipped": s["true"]["rule"] != s["dp"]["rule"],
                     "followed_rule": s["true"]["decision"] == s["true"]["rule"]
                     and s["dp"]["decision"] == s["dp"]["rule"]})
    k = len(rows)
    return {"epsilon": rnd["epsilon"], "regions": rows, "flip_rate": sum(r["flipped"] for r in rows) / k,
            "rule_flip_rate": sum(r["rule_flipped"] for r in rows) / k,
            "followed_rule": sum(r["followed_rule"] for r in rows) / k}


def chart_data(region_list: list[dict], threshold: float, scored: list[dict], sensitivity: float = 1.0,
               mechanism: str = "laplace", delta: float = 1e-5, grid=None) -> dict:
    """Series for the flip-rate chart: the closed-form flip rate and the attacker's best guessing chance against ε,
    the player's rounds as points, and the ε where decisions stay the same ≥ 95% of the time."""
    counts = [r["true"] for r in region_list]
    eps = np.geomspace(0.01, 20, 120) if grid is None else np.asarray(grid, dtype=float)
    return {"epsilon": eps.tolist(),
            "flip_rate": [flip_rate(counts, threshold, e, sensitivity, mechanism, delta) for e in eps],
            "attacker": [guess_bound(e, 0.5, delta if mechanism == "gaussian" else 0.0) for e in eps],
            "rounds": [{"epsilon": s["epsilon"], "flip_rate": s["flip_rate"]} for s in scored],
            "agreement_epsilon": epsilon_for_agreement(counts, threshold, sensitivity, 0.95, mechanism, delta),
            "threshold": float(threshold), "mechanism": mechanism}


def session_json(setup: dict, region_list: list[dict], rounds: list[dict], scored: list[dict]) -> str:
    """Everything a session produced, for download: the setup, the regions' true counts, every round's cards
    (with which copy was which) and the player's decisions and flips."""
    return json.dumps({"game": "decision-game", "setup": setup, "regions": region_list,
                       "rounds": [{**r, "score": s} for r, s in zip(rounds, scored)]}, indent=1)
