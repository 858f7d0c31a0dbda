"""The released aggregate statistics of the DeSIA paper (§4.1, Table 1; spec §3.1, §3.3, §7).

A *cell* of a contingency table is a counting query ``q = (V_1, …, V_n)`` (one
boolean mask per attribute, ``None`` = unconstrained). The paper releases
``m = round(ratio · s)`` cells drawn uniformly **without replacement** from the
union of the 2010 SF1 block tables P1, P6, P7, P9, P11, P12 and P12A–I:

* P1 total (1 cell); P6 race alone-or-in-combination (6; the tally is excluded);
* P7 (Not-Hispanic / Hispanic) × race alone-or-in-combination (12);
* P9 Hispanic by race (73: total, Hispanic, Not Hispanic, NH one race, NH each
  race alone, NH two+ races, NH exactly k races and each k-subset, k = 2…6);
* P11 the same 73 cells for ages 18+;
* P12 and P12A–I sex by age (49 each: total, male, 23 male age groups, female,
  23 female age groups) filtered on race alone (A–F), two+ races (G),
  Hispanic (H) and White alone not Hispanic (I).

The paper keeps ``m < s``; ``ratio ≥ 1`` (more cells than people, "what if twice as many aggregates were
released?") is allowed up to the size of the pool.

``pool="sf1"`` deduplicates cells by predicate (≈ 650 distinct cells);
``pool="rap_reference"`` reproduces the 421-query list of the RAP reference code
(spec §3.1). For generic CSVs :func:`marginal_pool` gives all k-way marginal cells.

Noise (§5.6): ``q̃ = round(q(D) + Lap(1/ε))`` independently per released cell.

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..data.census import CARDINALITIES, CENRACE
from ..errors import DataError, ParameterError
from .aggregate_release import AggregateRelease
from .laplace import Laplace

AGE_GROUPS = ((0, 4), (5, 9), (10, 14), (15, 17), (18, 19), (20, 20), (21, 21), (22, 24),
              (25, 29), (30, 34), (35, 39), (40, 44), (45, 49), (50, 54), (55, 59), (60, 61),
              (62, 64), (65, 66), (67, 69), (70, 74), (75, 79), (80, 84), (85, 115))
_RACE_NAMES = ("White", "Black", "AIAN", "Asian", "NHPI", "Other")


@dataclass
class QueryPool:
    """Named candidate cells; ``masks[j]`` is a tuple of per-attribute masks (or None)."""

    names: list[str]
    masks: list[tuple]
    cardinalities: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.masks)

    def deduplicated(self) -> "QueryPool":
        seen, names, masks = set(), [], []
        for name, q in zip(self.names, self.masks):
            key = tuple(b"*" if m is None or m.all() else np.packbits(m).tobytes() for m in q)
            if key in seen:
                continue
            seen.add(key)
            names.append(name)
            masks.append(q)
        return QueryPool(names, masks, self.cardinalities)

    def sample(self, m: int, rng: np.random.Generator) -> np.ndarray:
        """Indices of ``m`` cells drawn uniformly without replacement."""
        if not 1 <= m <= len(self):
            raise ParameterError("query_ratio", f"m = {m} cells requested but the pool has {len(self)}")
        return np.sort(rng.choice(len(self), size=m, replace=False))


# ------------------------------------------------------------------ SF1 cell building
def _race_mask(pred) -> np.ndarray:
    return np.array([bool(pred(r)) for r in CENRACE])


def _age_mask(lo: int, hi: int) -> np.ndarray:
    m = np.zeros(CARDINALITIES[1], dtype=bool)
    m[lo:hi + 1] = True
    return m


def _onehot(card: int, value: int) -> np.ndarray:
    m = np.zeros(card, dtype=bool)
    m[value] = True
    return m


def _hisp_by_race_cells(prefix: str, age) -> list[tuple[str, tuple]]:
    """The 73 cells of P9 (age=None) or P11 (age = the 18+ mask)."""
    nh, h = _onehot(2, 0), _onehot(2, 1)
    cells = [(f"{prefix}:total", (None, age, None, None)),
             (f"{prefix}:hispanic", (None, age, None, h)),
             (f"{prefix}:not_hispanic", (None, age, None, nh)),
             (f"{prefix}:nh_one_race", (None, age, _race_mask(lambda r: len(r) == 1), nh))]
    for i, name in enumerate(_RACE_NAMES):
        cells.append((f"{prefix}:nh_{name}_alone", (None, age, _race_mask(lambda r, i=i: r == {i}), nh)))
    cells.append((f"{prefix}:nh_two_plus", (None, age, _race_mask(lambda r: len(r) >= 2), nh)))
    for k in range(2, 7):
        cells.append((f"{prefix}:nh_{k}_races", (None, age, _race_mask(lambda r, k=k: len(r) == k), nh)))
        for combo in combinations(range(6), k):
            s = frozenset(combo)
            label = "+".join(_RACE_NAMES[i] for i in combo)
            cells.append((f"{prefix}:nh_{label}", (None, age, _race_mask(lambda r, s=s: r == s), nh)))
    return cells


def _sex_by_age_cells(prefix: str, race, hisp, female_ages: bool = True) -> list[tuple[str, tuple]]:
    cells = [(f"{prefix}:total", (None, None, race, hisp))]
    for sex, sname in ((0, "male"), (1, "female")):
        smask = _onehot(2, sex)
        cells.append((f"{prefix}:{sname}", (smask, None, race, hisp)))
        if sex == 1 and not female_ages:
            continue
        for lo, hi in AGE_GROUPS:
            tag = f"{lo}-{hi}" if hi < 115 else f"{lo}+"
            cells.append((f"{prefix}:{sname}_{tag}", (smask, _age_mask(lo, hi), race, hisp)))
    return cells


def sf1_pool(variant: str = "sf1") -> QueryPool:
    """The Table-1 cells over (sex, age, race, hispanic); ``variant`` ∈ {"sf1", "rap_reference"}."""
    if variant not in ("sf1", "rap_reference"):
        raise ParameterError("query_pool", f"expected sf1|rap_reference, got {variant!r}")
    nh, h = _onehot(2, 0), _onehot(2, 1)
    cells = [("P1:total", (None, None, None, None))]
    for i, name in enumerate(_RACE_NAMES):
        cells.append((f"P6:{name}_any", (None, None, _race_mask(lambda r, i=i: i in r), None)))
    for hmask, hname in ((nh, "nh"), (h, "h")):
        for i, name in enumerate(_RACE_NAMES):
            cells.append((f"P7:{hname}_{name}_any", (None, None, _race_mask(lambda r, i=i: i in r), hmask)))
    p9 = _hisp_by_race_cells("P9", None)
    p11 = _hisp_by_race_cells("P11", _age_mask(18, 115))
    if variant == "rap_reference":
        p9 = p9[3:]              # cells 4–73
        p11 = p11[:47] + p11[48:]  # one triple lost to an off-by-one
    cells += p9 + p11
    female = variant == "sf1"
    cells += _sex_by_age_cells("P12", None, None, female)
    for letter, i in zip("ABCDEF", range(6)):
        cells += _sex_by_age_cells(f"P12{letter}", _race_mask(lambda r, i=i: r == {i}), None, female)
    cells += _sex_by_age_cells("P12G", _race_mask(lambda r: len(r) >= 2), None, female)
    cells += _sex_by_age_cells("P12H", None, h, female)
    cells += _sex_by_age_cells("P12I", _race_mask(lambda r: r == {0}), nh, female)
    pool = QueryPool([c[0] for c in cells], [c[1] for c in cells], CARDINALITIES)
    return pool.deduplicated() if variant == "sf1" else pool


def marginal_pool(cardinalities: tuple[int, ...], attributes: tuple[str, ...] | None = None,
                  ways: int = 2) -> QueryPool:
    """Total + every cell of every ≤``ways``-way marginal (the ACS / generic-CSV releases, spec §3.3)."""
    if ways < 1:
        raise ParameterError("ways", "marginals need ways ≥ 1")
    attributes = attributes or tuple(f"a{i}" for i in range(len(cardinalities)))
    names, masks = ["total"], [tuple([None] * len(cardinalities))]
    for k in range(1, min(ways, len(cardinalities)) + 1):
        for attrs in combinations(range(len(cardinalities)), k):
            for values in np.ndindex(*[cardinalities[a] for a in attrs]):
                q = [None] * len(cardinalities)
                for a, v in zip(attrs, values):
                    q[a] = _onehot(cardinalities[a], v)
                names.append(",".join(f"{attributes[a]}={v}" for a, v in zip(attrs, values)))
                masks.append(tuple(q))
    return QueryPool(names, masks, tuple(cardinalities))


def noisy_answers(exact: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """``round(q + Lap(1/ε))`` per aggregate (ε = 0: exact answers)."""
    exact = np.asarray(exact, dtype=float)
    if epsilon == 0:
        return exact.copy()
    return np.round(Laplace(epsilon).release(exact, rng))


def make_release(records: np.ndarray, pool: QueryPool, ratio: float, rng: np.random.Generator,
                 epsilon: float = 0.0, attributes: tuple[str, ...] | None = None,
                 indices: np.ndarray | None = None) -> tuple[AggregateRelease, list[str]]:
    """Sample ``m = round(ratio·s)`` cells (or use ``indices``) and answer them on ``records``."""
    records = np.asarray(records)
    s = records.shape[0]
    if s < 2:
        raise DataError("the private dataset needs at least 2 records")
    if indices is None:
        if not ratio > 0:
            raise ParameterError("query_ratio", f"m/s must be > 0, got {ratio}")
        m = max(1, int(round(ratio * s)))
        if m > len(pool):
            raise ParameterError("query_ratio", f"m = round({ratio}·{s}) = {m} exceeds the "
                                                f"{len(pool)} cells of the query pool")
        indices = pool.sample(m, rng)
    masks = [pool.masks[j] for j in indices]
    attributes = attributes or tuple(f"a{i}" for i in range(len(pool.cardinalities)))
    rel = AggregateRelease(tuple(attributes), tuple(pool.cardinalities), masks,
                           np.zeros(len(masks)), size=s, epsilon=float(epsilon))
    rel.answers = noisy_answers(rel.evaluate(records), epsilon, rng)
    return rel, [pool.names[j] for j in indices]
