"""Defaults that fit the file: what a generic CSV can support, and the one-line notes that say what was capped.

The aggregate-statistics game asks three things of a table that a user's file may not have:

* **rows** — a block of ``s`` people plus auxiliary data need at least ``2·s`` records (the paper's 10 % / 90 %
  split would need ``10·s``; the lab settles for ``D`` and ``D_aux`` of any sizes). A file with fewer rows gets
  blocks of ``⌊n / 2⌋`` people.
* **cells** — ``m = round(m/s · s)`` released cells are drawn from the file's ≤k-way marginal cells; a few
  columns with few values offer fewer cells than that, so m/s is capped to what the pool offers.
* **a tractable domain** — DeSIA's solver works over the product of the columns' values (spec §8.2: the query set
  splits the domain into classes); a whole file of a dozen columns splits it into 10⁸ classes and more. The
  columns with the fewest values are kept while the product stays within :data:`DOMAIN_CELLS_MAX`; the others
  are left out, by name, and so is an identifier (a different value on every row).

Each cap comes with one sentence, carried in the run's series (``fit_notes``) and shown on the page and by the
command line. The run's configuration keeps what was asked for; the notes say what was played.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...basics.idle import on_idle
from ...data.census import load_csv, Population
from ...data.file_rows import text_frame
from ...errors import DataError
from ...releases.census_tables import marginal_pool

# Product of the kept columns' numbers of values (the secret included) that DeSIA's integer program handles in
# well under a second per target (every ≤2-way marginal cell splits the domain, so each product cell is its own
# class); the solver's own refusal sits at 4,000,000 (core/attacks/aggregates/desia.py).
DOMAIN_CELLS_MAX = 300
# Per-target integer-program seconds over a generic CSV's ≤2-way marginals grow with the domain's cells: measured
# 0.10 s at 120 cells and 4.1 s at 1,200 (Salaries, s = 198, m/s = 0.75, on the loaded 2-core lab machine,
# 2026-11-29): ≈ 0.1·(cells/120)^1.6.
MD_SECONDS_AT_120, MD_EXPONENT = 0.10, 1.6
MIN_BLOCK = 20  # the block_size parameter's lower bound


@dataclass(frozen=True)
class Fit:
    """What a generic CSV supports: the block size, the largest m/s (None = no cap), the non-sensitive columns kept
    (None = all; the file's order) and one sentence per cap."""

    block_size: int
    ratio_cap: float | None = None
    columns: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()
    domain: int | None = None  # product of the kept columns' numbers of values, the secret's included
    # expected people unique on the kept columns in a block of ``block_size`` drawn from the file (the targets)
    targets: float | None = None

    def md_seconds(self) -> float | None:
        """Estimated seconds of one target's integer program (None: the census model applies)."""
        return None if self.domain is None else MD_SECONDS_AT_120 * (self.domain / 120) ** MD_EXPONENT

    def ratio(self, asked: float) -> float:
        return asked if self.ratio_cap is None else min(asked, self.ratio_cap)


@lru_cache(maxsize=8)
def _population(path: str, sensitive: str, _stamp: tuple):
    return load_csv(path, sensitive)


on_idle(_population.cache_clear)  # an upload's coded records: not kept in the server past an idle spell


def population(path: str, sensitive: str, columns: tuple[str, ...] | None = None):
    """The file's records, coded (:func:`core.data.census.load_csv`), read once per file version; ``columns``
    keeps those non-sensitive columns (and the secret, last)."""
    try:
        st = os.stat(path)
    except OSError:
        raise DataError(f"cannot read {os.path.basename(path) or path!r}: no such file") from None
    pop = _population(str(path), sensitive, (st.st_mtime_ns, st.st_size))
    if columns is None or tuple(columns) == tuple(pop.attributes[:-1]):
        return pop
    keep = [pop.attributes.index(c) for c in columns] + [len(pop.attributes) - 1]

    return Population(pop.records[:, keep], attributes=tuple(pop.attributes[i] for i in keep),
                      cardinalities=tuple(pop.cardinalities[i] for i in keep), source=pop.source,
                      value_labels={pop.attributes[i]: pop.value_labels[pop.attributes[i]] for i in keep
                                    if pop.value_labels and pop.attributes[i] in pop.value_labels})


def fit_csv(config: dict) -> Fit:
    """The :class:`Fit` of a generic CSV run (``data = csv``): rows, domain and cells, in that order (fewer
    columns mean fewer cells; a smaller block asks for fewer cells)."""
    pop = population(config["data_path"], config["sensitive_column"])
    notes = []
    n, s = len(pop), int(config["block_size"])
    if n < 2 * MIN_BLOCK:
        raise DataError(f"the file has {n} records; the smallest block ({MIN_BLOCK} people) needs at least "
                        f"{2 * MIN_BLOCK} (the block plus auxiliary data)")
    if n < 2 * s:
        notes.append(f"block_size = {s} needs at least {2 * s} records (the block plus auxiliary data); your file "
                     f"has {n:,}, so blocks of {n // 2} people are used.")
        s = n // 2
    names, cards = list(pop.attributes[:-1]), list(pop.cardinalities[:-1])

    text = text_frame(config["data_path"])
    ids = [c for c in names if c in text.columns and text[c].nunique() == len(text) and len(text) > 20]
    if ids:  # a value of its own on every row names the person: an identifier, never an attribute
        notes.append(f"{', '.join(ids[:4])}{' …' if len(ids) > 4 else ''}: a different value on every row, so an "
                     "identifier of the row rather than something an attacker knows; left out.")
    kept, product = [], pop.cardinalities[-1]
    # the columns with fewest values first (sex, region… before a decile of wages): the most facts within the limit
    for name, card in sorted(zip(names, cards), key=lambda nc: nc[1]):
        if name in ids:
            continue
        if product * card <= DOMAIN_CELLS_MAX:
            kept.append(name)
            product *= card
    kept = [c for c in names if c in kept]  # in the file's order
    usable = [j for j, c in enumerate(names) if c not in ids]
    if not usable:
        raise DataError("every column but the secret is an identifier (a different value on every row): the "
                        "attacker needs a column people share, such as age, sex or place")
    if not kept:  # one column alone is too fine: keep the coarsest so the attacker knows something
        j = min(usable, key=lambda j: cards[j])
        kept, product = [names[j]], pop.cardinalities[-1] * cards[j]
    columns = None
    left = [c for c in names if c not in kept and c not in ids]
    if left:
        full = math.prod([pop.cardinalities[-1], *(cards[j] for j in usable)])
        notes.append(f"your {len(usable)} columns split the domain into {full:,} classes, more than the solver can "
                     f"search (limit {DOMAIN_CELLS_MAX:,}): the attacker knows {', '.join(kept)}; left out "
                     f"{', '.join(left[:6])}{' …' if len(left) > 6 else ''} (choose fewer columns to pick others).")
    if len(kept) < len(names):
        columns = tuple(kept)
    attrs = tuple(kept) + (pop.attributes[-1],)
    kept_cards = tuple(pop.cardinalities[pop.attributes.index(c)] for c in attrs)
    cells = len(marginal_pool(kept_cards, attrs, int(config["marginal_ways"])))
    cap = None
    asked = float(config["query_ratio"])
    if round(asked * s) > cells:
        cap = math.floor(cells / s * 100 + 1e-9) / 100
        while cap > 0 and round(cap * s) > cells:
            cap -= 0.01
        cap = round(cap, 2)
        if round(cap * s) < 1:
            raise DataError(f"your file's columns give {cells} distinct ≤{config['marginal_ways']}-way cells, too "
                            f"few to release any for a block of {s}")
        notes.append(f"m/s = {asked:g} asks for m = {round(asked * s)} cells, but your file's columns give only "
                     f"{cells} distinct ≤{config['marginal_ways']}-way cells: m/s = {cap:g} (m = {round(cap * s)}) "
                     "is used.")
    return Fit(block_size=s, ratio_cap=cap, columns=columns, notes=tuple(notes), domain=int(product),
               targets=expected_uniques(pop, kept, s))


def expected_uniques(pop, kept: list[str], s: int) -> float:
    """Expected number of people unique on the ``kept`` columns in a block of ``s`` drawn from ``pop``: the
    targets the game attacks, Σ_c s·p_c·(1 − p_c)^(s−1) over the file's classes c of share p_c. On a whole file
    a few coarse columns leave few people unique (CPS1988's 28,155 rows on smsa, region and part-time: under one
    in a block of 454), where the estimate once took all s."""

    cols = [pop.attributes.index(c) for c in kept]
    _, counts = np.unique(pop.records[:, cols], axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(np.sum(s * p * (1 - p) ** (s - 1)))


def fit(config: dict) -> Fit:
    """What the run plays: a generic CSV's :func:`fit_csv`; the census sources as configured."""
    if config.get("data") == "csv" and config.get("data_path") and config.get("sensitive_column"):
        return fit_csv(config)
    return Fit(block_size=int(config["block_size"]))
