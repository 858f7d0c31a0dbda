"""Census-block microdata with the PPMF schema (DeSIA paper, §4.1 and Table 2).

Schema (integer-coded, the sensitive attribute last, as :class:`AggregateRelease` expects):

==========  ===========  =========================================================
attribute   cardinality  coding
==========  ===========  =========================================================
sex         2            0 = Male, 1 = Female                 (PPMF ``QSEX`` − 1)
age         116          0 … 115                              (PPMF ``QAGE``)
race        63           CENRACE − 1: the 63 non-empty subsets of the six OMB
                         races (White, Black, AIAN, Asian, NHPI, Some Other Race),
                         singles first, then pairs, triples… in lexicographic order
hispanic    2            0 = Not Hispanic, 1 = Hispanic       (PPMF ``CENHISP`` − 1)
==========  ===========  =========================================================

Three sources:

* :func:`synthetic_block` – the embedded default. The real PPMF (a 15 GB CSV on
  census.gov) cannot be fetched here, so a block is drawn from published 2010
  national distributions: the age × sex pyramid of the 2010 Census brief
  C2010BR-03 and the race distribution of brief C2010BR-02 (72.4 % White alone,
  12.6 % Black alone, … 2.9 % two or more races). Blocks are racially more
  homogeneous than the nation, so each block's race mix is drawn from a
  Dirichlet centred on the national mix (concentration ``race_concentration``).
  Everything computed on it is **synthetic**, not a reproduction of the paper.
* :func:`load_ppmf` – a user's PPMF-format CSV (``QAGE, QSEX, CENRACE, CENHISP``
  and block-id columns); picks a block as the paper does (the smallest block
  with more than ``min_size`` users).
* :func:`load_csv` – any CSV: categorical columns are integer-coded, numeric
  columns with many values are cut into quantile bins, the chosen sensitive
  column goes last.

The paper splits each block 10 % / 90 % into the private dataset ``D`` and the
auxiliary dataset ``D_aux`` (:func:`split_block`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np

from ..errors import DataError, ParameterError

RACES = ("White", "Black", "AIAN", "Asian", "NHPI", "Other")
#: CENRACE order: every non-empty subset of the six races, by size then lexicographically.
CENRACE: tuple[frozenset, ...] = tuple(
    frozenset(c) for k in range(1, 7) for c in combinations(range(6), k))
ATTRIBUTES = ("sex", "age", "race", "hispanic")
CARDINALITIES = (2, 116, 63, 2)
MAX_AGE = 115

# 2010 Census, percent of the US population by 5-year age group (C2010BR-03, Table 1):
# 0-4, 5-9, …, 95-99, 100+.
_AGE_GROUP_PCT = np.array([6.5, 6.6, 6.7, 7.1, 7.0, 6.8, 6.5, 6.5, 6.8, 7.4, 7.2, 6.4,
                           5.4, 4.0, 3.0, 2.4, 1.9, 1.2, 0.5, 0.14, 0.017])
# Share of males by the same age groups (the sex ratio falls with age; C2010BR-03, Fig. 3).
_MALE_SHARE = np.array([.511, .511, .512, .513, .511, .503, .500, .499, .497, .494, .490,
                        .485, .479, .466, .453, .431, .397, .347, .280, .220, .170])
# 2010 race distribution in percent (C2010BR-02, Table 1 and Table 2 for the combinations).
_SINGLE_PCT = {0: 72.4, 1: 12.6, 2: 0.9, 3: 4.8, 4: 0.2, 5: 6.2}
_PAIR_PCT = {(0, 1): 0.59, (0, 5): 0.56, (0, 3): 0.52, (0, 2): 0.46, (1, 5): 0.10,
             (1, 2): 0.09, (3, 5): 0.08, (3, 4): 0.054, (1, 3): 0.06, (0, 4): 0.055}
_THREE_PLUS_PCT = {(0, 1, 2): 0.075}
_REST_BY_SIZE_PCT = {2: 0.12, 3: 0.095, 4: 0.02, 5: 0.003, 6: 0.0006}


def national_age_sex() -> tuple[np.ndarray, np.ndarray]:
    """P(age) over 0…115 and P(male | age) from the 2010 pyramid (uniform within groups)."""
    p_age = np.zeros(MAX_AGE + 1)
    male = np.zeros(MAX_AGE + 1)
    for g, pct in enumerate(_AGE_GROUP_PCT):
        lo = 5 * g
        if g < len(_AGE_GROUP_PCT) - 1:
            ages = np.arange(lo, lo + 5)
            w = np.full(5, 1.0)
        else:  # 100+: geometric tail up to 115
            ages = np.arange(100, MAX_AGE + 1)
            w = 0.6 ** np.arange(ages.size)
        p_age[ages] = pct * w / w.sum()
        male[ages] = _MALE_SHARE[g]
    return p_age / p_age.sum(), male


def national_race() -> np.ndarray:
    """P(CENRACE) over the 63 categories (2010 national distribution)."""
    p = np.zeros(len(CENRACE))
    rest_slots: dict[int, list[int]] = {}
    for code, races in enumerate(CENRACE):
        key = tuple(sorted(races))
        if len(key) == 1:
            p[code] = _SINGLE_PCT[key[0]]
        elif key in _PAIR_PCT:
            p[code] = _PAIR_PCT[key]
        elif key in _THREE_PLUS_PCT:
            p[code] = _THREE_PLUS_PCT[key]
        else:
            rest_slots.setdefault(len(key), []).append(code)
    for size, codes in rest_slots.items():
        p[codes] = _REST_BY_SIZE_PCT[size] / len(codes)
    return p / p.sum()


@dataclass
class Population:
    """Integer-coded records plus their schema; the sensitive attribute is the last column."""

    records: np.ndarray
    attributes: tuple[str, ...] = ATTRIBUTES
    cardinalities: tuple[int, ...] = CARDINALITIES
    source: str = "synthetic"
    value_labels: dict = field(default_factory=dict)

    def __post_init__(self):
        self.records = np.asarray(self.records, dtype=np.int64)
        if self.records.ndim != 2 or self.records.shape[1] != len(self.cardinalities):
            raise DataError(f"records must have shape (n, {len(self.cardinalities)})")
        if self.records.size and ((self.records < 0).any()
                                  or (self.records >= np.asarray(self.cardinalities)).any()):
            raise DataError("a record value lies outside its attribute's domain")

    @property
    def synthetic(self) -> bool:
        return self.source == "synthetic"

    def __len__(self) -> int:
        return self.records.shape[0]


def synthetic_block(n: int, rng: np.random.Generator, race_concentration: float = 50.0,
                    hispanic_share: float = 0.163) -> Population:
    """One synthetic census block of ``n`` people with the PPMF schema.

    Age and sex follow the 2010 national pyramid; race follows a block-level mix
    ``π ~ Dirichlet(race_concentration · p_nat)`` (``inf`` = the national mix);
    Hispanic origin is Bernoulli(16.3 %) – the AIA game re-draws it uniformly anyway.
    """
    if int(n) < 2:
        raise ParameterError("block_size", f"a block needs at least 2 people, got {n}")
    if not race_concentration > 0:
        raise ParameterError("race_concentration", "must be > 0")
    n = int(n)
    p_age, male = national_age_sex()
    p_race = national_race()
    if np.isfinite(race_concentration):
        p_race = rng.dirichlet(race_concentration * p_race + 1e-3)
    age = rng.choice(MAX_AGE + 1, size=n, p=p_age)
    sex = (rng.random(n) >= male[age]).astype(np.int64)  # 1 = Female
    race = rng.choice(len(CENRACE), size=n, p=p_race)
    hisp = (rng.random(n) < hispanic_share).astype(np.int64)
    return Population(np.column_stack([sex, age, race, hisp]), source="synthetic")


def split_block(records: np.ndarray, private_fraction: float, rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray]:
    """Random split into the private dataset ``D`` and the auxiliary ``D_aux`` (paper: 10 % / 90 %)."""
    records = np.asarray(records)
    n = records.shape[0]
    k = int(round(private_fraction * n))
    if not 0 < k < n:
        raise DataError(f"cannot split {n} records into a private part of {private_fraction:.0%}")
    perm = rng.permutation(n)
    return records[perm[:k]], records[perm[k:]]


def randomize_sensitive(records: np.ndarray, cardinality: int, rng: np.random.Generator) -> np.ndarray:
    """Copy of ``records`` with the last column re-drawn uniformly (the AIA defender's step 1)."""
    out = np.array(records, copy=True)
    out[:, -1] = rng.integers(0, cardinality, size=out.shape[0])
    return out


def unique_on_nonsensitive(records: np.ndarray) -> np.ndarray:
    """Boolean mask of the records whose non-sensitive part ``r^{A'}`` occurs once."""
    records = np.asarray(records)
    if records.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    _, inv, counts = np.unique(records[:, :-1], axis=0, return_inverse=True, return_counts=True)
    return counts[inv.ravel()] == 1


# ----------------------------------------------------------------------------- loaders
PPMF_COLUMNS = ("QSEX", "QAGE", "CENRACE", "CENHISP")
PPMF_BLOCK_PARTS = ("TABBLKST", "TABBLKCOU", "TABTRACTCE", "TABBLK")


def csv_columns(path: str | Path) -> list[str]:
    """Column names of a CSV file, read by the lab's one reader (:func:`core.data.dataset.read_header`:
    encoding, separator and column cap detected on the header; only the file's first megabyte is read, as a
    PPMF file may be gigabytes). Raises :class:`DataError` on an unreadable file."""
    # lazy: start-up time (pandas only when used)
    from .dataset import read_header

    path = Path(path)
    return read_header(path, name=path.name)


def binary_columns(path: str | Path) -> list[str]:
    """Columns of a CSV with exactly two distinct values (missing values count as a value, as in
    :func:`load_csv`): the candidates for the sensitive attribute of the yes/no inference game. Read by the
    lab's one reader, with its size, column and cell caps."""
    # lazy: start-up time (pandas only when used)
    from .dataset import read_table

    path = Path(path)
    df = read_table(path, name=path.name)
    return [str(c) for c in df.columns if df[c].nunique(dropna=False) == 2]


def _read_csv_header(path: Path) -> list[str]:
    return csv_columns(path)


def load_ppmf(path: str | Path, block: str | None = None, min_size: int = 4541,
              chunksize: int = 1_000_000) -> tuple[Population, str]:
    """Read one census block from a PPMF-format CSV.

    Block id = the concatenation of the present ``TABBLKST, TABBLKCOU, TABTRACTCE,
    TABBLK`` columns. With ``block=None`` the smallest block with at least
    ``min_size`` people is used (the paper: the smallest blocks with > 4,540 users).
    Returns the population (real data, not synthetic) and the block id.
    """
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise DataError(f"no such file: {path}")
    # lazy: start-up time (pandas only when used)
    from .dataset import detect_format

    with open(path, "rb") as fh:
        head = fh.read(1 << 20)
    fmt, _ = detect_format(head[:head.rfind(b"\n") + 1] or head, path.name)
    header = _read_csv_header(path)
    missing = [c for c in PPMF_COLUMNS if c not in header]
    if missing:
        raise DataError(f"{path.name} is not PPMF-format: missing column(s) {', '.join(missing)}")
    parts = [c for c in PPMF_BLOCK_PARTS if c in header]
    usecols = list(PPMF_COLUMNS) + parts

    def block_ids(df):
        if not parts:
            return pd.Series(["all"] * len(df), index=df.index)
        return df[parts].astype(str).agg("-".join, axis=1)

    def chunks():
        try:
            yield from pd.read_csv(path, usecols=usecols, dtype=str, chunksize=chunksize, sep=fmt.delimiter,
                                   encoding=fmt.encoding)
        except Exception as exc:
            raise DataError(f"cannot parse {path.name}: {exc}") from None

    if block is None:
        sizes: dict[str, int] = {}
        for df in chunks():
            for b, c in block_ids(df).value_counts().items():
                sizes[b] = sizes.get(b, 0) + int(c)
        big = {b: c for b, c in sizes.items() if c >= min_size}
        if not big:
            raise DataError(f"no block of {path.name} has {min_size} or more people "
                            f"(largest: {max(sizes.values(), default=0)})")
        block = min(big, key=lambda b: (big[b], b))
    rows = []
    for df in chunks():
        rows.append(df[block_ids(df) == block])
    data = pd.concat(rows) if rows else pd.DataFrame(columns=usecols)
    if data.empty:
        raise DataError(f"block {block!r} not found in {path.name}")
    try:
        sex = data["QSEX"].astype(int).to_numpy() - 1
        age = data["QAGE"].astype(int).to_numpy()
        race = data["CENRACE"].astype(int).to_numpy() - 1
        hisp = data["CENHISP"].astype(int).to_numpy() - 1
    except ValueError as exc:
        raise DataError(f"non-integer PPMF value in {path.name}: {exc}") from None
    for name, col, card in (("QSEX", sex, 2), ("QAGE", age, 116), ("CENRACE", race, 63),
                            ("CENHISP", hisp, 2)):
        if (col < 0).any() or (col >= card).any():
            raise DataError(f"{name} has values outside the PPMF domain")
    return Population(np.column_stack([sex, age, race, hisp]), source=f"ppmf:{path.name}"), block


def load_csv(path: str | Path, sensitive: str, columns: list[str] | None = None,
             max_categories: int = 20, bins: int = 10) -> Population:
    """Read a generic CSV as integer-coded categorical records.

    ``columns`` (default: all) are the non-sensitive attributes; a numeric column
    with more than ``max_categories`` distinct values is cut into ``bins``
    quantile bins, any other column is coded by its sorted distinct values.
    Missing values form their own category. ``sensitive`` must have 2 to
    ``max_categories`` distinct values; it is placed last.
    """
    import pandas as pd

    # lazy: start-up time (pandas only when used)
    from .dataset import read_table

    path = Path(path)
    # the lab's one CSV reader: regular files only, size/row caps, encodings, leading-zero codes kept as text
    df = read_table(path, name=path.name)
    if sensitive not in df.columns:
        raise DataError(f"sensitive column {sensitive!r} not in {path.name} "
                        f"(columns: {', '.join(map(str, df.columns))})")
    cols = [c for c in (columns or list(df.columns)) if c != sensitive]
    unknown = [c for c in cols if c not in df.columns]
    if unknown:
        raise DataError(f"unknown column(s): {', '.join(map(str, unknown))}")
    if not cols:
        raise DataError("need at least one non-sensitive column")
    if len(df) < 10:
        raise DataError(f"{path.name} has only {len(df)} rows")
    codes, cards, labels = [], [], {}
    for c in cols + [sensitive]:
        s = df[c]
        if pd.api.types.is_numeric_dtype(s) and s.nunique() > max_categories:
            if c == sensitive:
                raise DataError(f"sensitive column {c!r} has {s.nunique()} values; "
                                f"it must be categorical (at most {max_categories})")
            cut = pd.qcut(s, q=bins, duplicates="drop")
            cat = pd.Categorical(cut)
        else:
            cat = pd.Categorical(s.astype(str).where(s.notna(), "<missing>"))
        k = len(cat.categories)
        if c == sensitive and k < 2:
            raise DataError(f"sensitive column {c!r} has a single value")
        if c == sensitive and k > max_categories:
            raise DataError(f"sensitive column {c!r} has {k} values; at most {max_categories}")
        code = np.asarray(cat.codes, dtype=np.int64)
        if (code < 0).any():  # NaN in a binned numeric column
            code = np.where(code < 0, k, code)
            k += 1
        codes.append(code)
        cards.append(k)
        labels[str(c)] = [str(x) for x in cat.categories]
    return Population(np.column_stack(codes), attributes=tuple(map(str, cols + [sensitive])),
                      cardinalities=tuple(cards), source=f"csv:{path.name}", value_labels=labels)
