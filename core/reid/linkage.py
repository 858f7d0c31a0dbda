"""Reidentification via linkage (CS208 lecture 2, slide "Reidentification via Linkage" [Sweeney '97]).

Setting. A "de-identified" table ``R`` (names removed, quasi-identifiers ``Q`` and a sensitive
column kept) is released about a sample of a population. An attacker holds an identified
public list ``V`` (a voter list: name + the same ``Q``) covering another sample. The attacker
joins ``R ⋈_Q V``.

Definitions used here.

* Equivalence class of record ``r`` in a table ``T``: ``C_T(r) = {r' ∈ T : Q(r') = Q(r)}``;
  ``r`` is *unique* on ``Q`` when ``|C_T(r)| = 1``. The uniqueness rate is
  ``#{r : |C_T(r)| = 1} / |T|`` (the slide's "uniquely identify > 60% of the US population"
  [Sweeney '00: 87% on {5-digit ZIP, gender, date of birth}; Golle '06: 63%]).
* The attacker *re-identifies* release record ``r`` when the match is one-to-one: exactly one
  voter has ``Q(r)`` and ``r`` is alone in ``R`` on ``Q``. The claimed name is *correct* when that
  voter is the same person (hidden ``person_id``); a claim can be wrong when the true person is
  not on the voter list but a look-alike is.

QIs can be coarsened (ZIP digits, birth year instead of date, age bands, …) through each
column's :mod:`hierarchy <core.reid.hierarchies>`; a level of ``h`` means height ``h``.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .people import People, fake_names

MAX_COMBINATION_COLUMNS = 8


def qi_view(people: People, levels: dict[str, int]) -> pd.DataFrame:
    """The QI columns of ``people`` generalised to the given heights (``{column: h}``), as strings."""
    if not levels:
        raise ParameterError("quasi_identifiers", "choose at least one quasi-identifier")
    out = {}
    for col, h in levels.items():
        if col not in people.hierarchies:
            raise ParameterError("quasi_identifiers", f"{col!r} is not a quasi-identifier column of {people.source}")
        out[col] = people.hierarchies[col].generalise(people.table[col], int(h))
    return pd.DataFrame(out, index=people.table.index)


def class_keys(view: pd.DataFrame) -> np.ndarray:
    """One integer per row, equal for rows with identical QI values (equivalence-class id)."""
    key = np.zeros(len(view), dtype=np.int64)
    for c in view.columns:
        codes, uniq = pd.factorize(view[c], sort=False)
        key = pd.factorize(key * (len(uniq) + 1) + codes, sort=False)[0].astype(np.int64)
    return key


def class_sizes(keys: np.ndarray) -> np.ndarray:
    """``|C(r)|`` for every row."""
    _, inv, counts = np.unique(keys, return_inverse=True, return_counts=True)
    return counts[inv]


@dataclass
class Uniqueness:
    n_records: int
    n_classes: int
    n_unique: int
    pct_unique: float
    size_histogram: pd.DataFrame  # class size -> number of records in classes of that size

    def as_dict(self) -> dict:
        return {"n_records": self.n_records, "n_classes": self.n_classes, "n_unique": self.n_unique,
                "pct_unique": self.pct_unique}


def uniqueness(view: pd.DataFrame) -> Uniqueness:
    """Equivalence-class sizes and the share of records unique on the columns of ``view``."""
    keys = class_keys(view)
    sizes = class_sizes(keys)
    n = len(view)
    vals, counts = np.unique(sizes, return_counts=True)
    hist = pd.DataFrame({"class_size": vals, "n_records": counts, "n_classes": counts // vals})
    n_unique = int((sizes == 1).sum())
    return Uniqueness(n, int(len(np.unique(keys))), n_unique, 100.0 * n_unique / max(n, 1), hist)


def uniqueness_by_combination(view: pd.DataFrame) -> pd.DataFrame:
    """% of records unique on every non-empty subset of the columns of ``view`` (2^k − 1 rows)."""
    cols = list(view.columns)
    if len(cols) > MAX_COMBINATION_COLUMNS:
        raise ParameterError("quasi_identifiers", f"at most {MAX_COMBINATION_COLUMNS} columns for all combinations")
    codes = {c: pd.factorize(view[c], sort=False)[0].astype(np.int64) for c in cols}
    rows = []
    for r in range(1, len(cols) + 1):
        for combo in combinations(cols, r):
            key = np.zeros(len(view), dtype=np.int64)
            for c in combo:
                key = pd.factorize(key * (codes[c].max() + 2) + codes[c], sort=False)[0].astype(np.int64)
            sizes = np.bincount(key)[key]
            rows.append({"quasi_identifiers": " + ".join(combo), "n_columns": r,
                         "pct_unique": 100.0 * float((sizes == 1).mean()),
                         "n_classes": int(key.max() + 1) if len(key) else 0})
    return pd.DataFrame(rows).sort_values(["pct_unique", "n_columns"], ascending=[False, True],
                                          ignore_index=True)


@dataclass
class LinkageResult:
    """Outcome of joining a de-identified release with a voter list on the QIs."""

    qi_columns: list[str]
    levels: dict
    population: Uniqueness          # uniqueness on the QIs in the whole population/data set
    release: Uniqueness             # ... in the released table
    n_release: int
    n_voters: int
    n_one_voter_match: int          # release records with exactly one voter on their QIs
    n_reidentified: int             # one-to-one matches (name claimed)
    n_correct: int                  # claimed names that are right
    join: pd.DataFrame              # every release record with its match
    voters: pd.DataFrame
    combos: pd.DataFrame | None

    @property
    def pct_reidentified(self) -> float:
        return 100.0 * self.n_reidentified / max(self.n_release, 1)

    @property
    def pct_correct(self) -> float:
        return 100.0 * self.n_correct / max(self.n_release, 1)

    @property
    def precision(self) -> float:
        return self.n_correct / self.n_reidentified if self.n_reidentified else float("nan")

    def metrics(self) -> dict:
        return {"n_release": self.n_release, "n_voters": self.n_voters,
                "pct_unique_population": self.population.pct_unique, "pct_unique_release": self.release.pct_unique,
                "n_reidentified": self.n_reidentified, "pct_reidentified": self.pct_reidentified,
                "n_correct": self.n_correct, "pct_correct": self.pct_correct, "precision": self.precision}


def voter_list(people: People, view: pd.DataFrame, fraction: float, rng: np.random.Generator) -> pd.DataFrame:
    """A simulated identified public list: a ``fraction`` of the population with a name and their QIs.

    Real names are used when the table has a ``name`` column, otherwise made-up ones (the real
    survey extracts carry none). ``person_id`` is kept for scoring only; the attacker never uses it.
    """
    idx = np.sort(rng.choice(people.n, size=max(1, int(round(fraction * people.n))), replace=False))
    names = (people.table["name"].to_numpy()[idx] if "name" in people.table.columns
             else fake_names(len(idx), rng))
    v = view.iloc[idx].reset_index(drop=True)
    v.insert(0, "name", names)
    v["person_id"] = people.table["person_id"].to_numpy()[idx]
    return v


def link(people: People, levels: dict[str, int], release_fraction: float = 1.0, voter_fraction: float = 0.5,
         seed: int = 0, combinations_chart: bool = True) -> LinkageResult:
    """Release a de-identified sample, simulate a voter list, join them on the QIs and score the join.

    ``levels`` maps each chosen QI to its generalisation height (0 = exact). The release keeps the
    QIs at those heights and the sensitive column; the voter list is an independent sample of
    ``voter_fraction`` of the population. Each release record gets the number of voters and of
    release records sharing its QIs; a name is claimed on one-to-one matches only.
    """
    for name, f in (("release_fraction", release_fraction), ("voter_fraction", voter_fraction)):
        if not 0.0 < float(f) <= 1.0:
            raise ParameterError(name, "must be in (0, 1]")
    rng = np.random.default_rng(seed)
    view = qi_view(people, levels)
    qis = list(view.columns)
    rel_idx = np.sort(rng.choice(people.n, size=max(1, int(round(release_fraction * people.n))), replace=False))
    voters = voter_list(people, view, voter_fraction, rng)

    release = view.iloc[rel_idx].reset_index(drop=True)
    release[people.sensitive] = people.table[people.sensitive].to_numpy()[rel_idx]
    true_id = people.table["person_id"].to_numpy()[rel_idx]

    # one key space for both tables
    both = pd.concat([release[qis], voters[qis]], ignore_index=True)
    keys = class_keys(both)
    k_rel, k_vot = keys[:len(release)], keys[len(release):]
    n_keys = int(keys.max()) + 1
    rel_count = np.bincount(k_rel, minlength=n_keys)
    vot_count = np.bincount(k_vot, minlength=n_keys)
    # the (only) voter of each key when there is exactly one
    only_voter = np.full(n_keys, -1, dtype=np.int64)
    single = vot_count[k_vot] == 1
    only_voter[k_vot[single]] = np.flatnonzero(single)

    n_vm = vot_count[k_rel]
    one_to_one = (n_vm == 1) & (rel_count[k_rel] == 1)
    matched = np.where(n_vm == 1, only_voter[k_rel], -1)
    claimed = np.where(one_to_one, matched, -1)
    names = voters["name"].to_numpy()
    vid = voters["person_id"].to_numpy()
    correct = one_to_one & (vid[np.maximum(claimed, 0)] == true_id)

    join = release.copy()
    join.insert(0, "claimed_name", np.where(one_to_one, names[np.maximum(claimed, 0)], ""))
    join["n_release_same_qis"] = rel_count[k_rel]
    join["n_voters_same_qis"] = n_vm
    join["reidentified"] = one_to_one
    join["correct"] = correct
    join["true_person_id"] = true_id

    return LinkageResult(
        qi_columns=qis, levels=dict(levels), population=uniqueness(view), release=uniqueness(release[qis]),
        n_release=len(release), n_voters=len(voters), n_one_voter_match=int((n_vm == 1).sum()),
        n_reidentified=int(one_to_one.sum()), n_correct=int(correct.sum()), join=join, voters=voters,
        combos=uniqueness_by_combination(view) if combinations_chart else None)
