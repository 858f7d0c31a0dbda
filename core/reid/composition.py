"""Composition attack on two separately k-anonymised releases (CS208 lecture 2, slides "Composition Attacks",
"EdX Quasi-identifiers" and "Failure of Composition").

[Ganti–Kasiviswanathan–Smith '08]: two k-anonymous generalisations of the same dataset can be
combined into one that is not k-anonymous. [Cohen '21] on the Harvard-MIT edX dataset [Daries et
al. '14]: 5-anonymity was enforced separately (a) on the course combination
``{Course(1).Enrolled … Course(16).Enrolled}`` and (b) on ``{YoB, Gender, Country,
Course(i).Enrolled, Course(i).Posts}`` for each i; combining the quasi-identifiers gave
**7.1% uniques (34,000 learners) and 15.3% not 5-anonymous** (the paper's figures; LinkedIn
profiles were used to re-identify, and the dataset was then heavily redacted).

This module reproduces the *mechanism* of that failure on a synthetic edX-like table
(:func:`synthetic_edx`): release A is the course-enrolment bits k-anonymised by the existing
local-recoding generaliser (:func:`core.reid.k_anonymity.mondrian`), release B is demographics +
one course's enrolment and posts, k-anonymised separately the same way. Both carry the learner's
pseudonymous ID (as the edX file did), so the attacker joins them on it and counts equivalence
classes on the union of the two generalised QI sets. Each release passes its own check; the join
need not: an equivalence class of the join is an intersection of a class of A with a class of B.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .hierarchies import IntervalHierarchy, SuppressionHierarchy
from .k_anonymity import check, mondrian

EDX_PCT_UNIQUE = 7.1          # Cohen '21 on edX (slide "Failure of Composition"): share unique on the combined QIs
EDX_N_UNIQUE = 34_000
EDX_PCT_NOT_K = 15.3          # share of learners not 5-anonymous on the combined QIs
EDX_K = 5

_COUNTRIES = ("United States", "India", "United Kingdom", "Brazil", "Canada", "Spain", "Germany", "Egypt",
              "Pakistan", "Nigeria", "Mexico", "Russia", "Australia", "France", "Philippines", "Colombia",
              "Greece", "Poland", "Indonesia", "China", "Other Europe", "Other Africa", "Other Asia",
              "Other South America", "Other Oceania")
_REGION = {"United States": "Americas", "Canada": "Americas", "Brazil": "Americas", "Mexico": "Americas",
           "Colombia": "Americas", "Other South America": "Americas",
           "India": "Asia", "Pakistan": "Asia", "Philippines": "Asia", "Indonesia": "Asia", "China": "Asia",
           "Other Asia": "Asia", "Egypt": "Africa", "Nigeria": "Africa", "Other Africa": "Africa",
           "Australia": "Oceania", "Other Oceania": "Oceania"}


def synthetic_edx(n_learners: int = 20_000, n_courses: int = 16, seed: int = 0) -> pd.DataFrame:
    """An edX-like person table: ``learner_id``, ``YoB``, ``gender``, ``country`` and, per course c,
    ``c{c}_enrolled`` (0/1) and ``c{c}_posts`` (forum posts; 0 when not enrolled).

    Distributions (made up to look like the edX release, not fitted to it): YoB ≈ 1990 − Gamma(2, 5)
    clipped to 1940–2005; gender m/f/other 0.63/0.34/0.03; country Zipf(1.2) over 25 values; course
    popularity log-uniform between 1% and 15% with at least one enrolment per learner; among the
    enrolled, 12% post, with 1 + Geometric(0.35) posts.
    """
    if not 100 <= int(n_learners) <= 200_000:
        raise ParameterError("n_learners", "must be between 100 and 200,000")
    if not 2 <= int(n_courses) <= 16:
        raise ParameterError("n_courses", "must be between 2 and 16 (the edX release had 16)")
    n, m = int(n_learners), int(n_courses)
    rng = np.random.default_rng(seed)
    yob = np.clip(np.round(1990 - rng.gamma(2.0, 5.0, n)), 1940, 2005).astype(np.int64)
    gender = rng.choice(np.array(["m", "f", "o"], dtype=object), n, p=(0.63, 0.34, 0.03))
    w = 1.0 / np.arange(1, len(_COUNTRIES) + 1) ** 1.2
    country = rng.choice(np.asarray(_COUNTRIES, dtype=object), n, p=w / w.sum())
    pop = np.exp(rng.uniform(np.log(0.01), np.log(0.15), m))
    enrolled = rng.random((n, m)) < pop
    none = ~enrolled.any(1)
    enrolled[none, rng.choice(m, none.sum(), p=pop / pop.sum())] = True
    posts = np.where(enrolled & (rng.random((n, m)) < 0.12), 1 + rng.geometric(0.35, (n, m)), 0)
    cols = {"learner_id": np.arange(n), "YoB": yob, "gender": gender, "country": country}
    for c in range(m):
        cols[f"c{c + 1}_enrolled"] = enrolled[:, c].astype(np.int64)
        cols[f"c{c + 1}_posts"] = posts[:, c].astype(np.int64)
    return pd.DataFrame(cols)


def _hierarchies(course: int) -> dict:
    return {"YoB": IntervalHierarchy([list(range(1940, 2011, 5)), list(range(1940, 2011, 10)),
                                      list(range(1940, 2011, 20))]),
            "gender": SuppressionHierarchy(),
            "country": SuppressionHierarchy(groups={c: _REGION.get(c, "Europe") for c in _COUNTRIES}),
            f"c{course}_posts": IntervalHierarchy([[1, 2, 4, 8], [1, 4]])}


@dataclass
class CompositionResult:
    k: int
    course: int
    qis_a: list[str]
    qis_b: list[str]
    release_a: pd.DataFrame
    release_b: pd.DataFrame
    joined: pd.DataFrame
    summary: pd.DataFrame          # one row per table: % unique, % not k-anonymous, classes
    class_sizes: pd.DataFrame      # joined table: records by class size

    def metrics(self) -> dict:
        s = self.summary.set_index("table")
        return {"pct_unique_a": float(s.loc["release A", "pct_unique"]),
                "pct_unique_b": float(s.loc["release B", "pct_unique"]),
                "pct_unique_joined": float(s.loc["A ⋈ B", "pct_unique"]),
                "pct_not_k_anonymous_joined": float(s.loc["A ⋈ B", "pct_not_k_anonymous"]),
                "n_unique_joined": int(s.loc["A ⋈ B", "n_unique"])}


def _row(name: str, stage: str, table: pd.DataFrame, qis: list[str], k: int) -> dict:
    rep = check(table, qis, k)
    sizes = rep.classes["size"].to_numpy()
    n_unique = int(sizes[sizes == 1].sum())
    return {"table": name, "stage": stage, "quasi_identifiers": len(qis), "n_classes": len(rep.classes),
            "n_unique": n_unique, "pct_unique": 100.0 * n_unique / rep.n_records,
            "pct_not_k_anonymous": 100.0 * rep.n_records_below_k / rep.n_records,
            "min_class_size": rep.min_class_size}


def composition_attack(n_learners: int = 20_000, n_courses: int = 16, k: int = EDX_K, course: int = 1,
                       seed: int = 0, data: pd.DataFrame | None = None) -> CompositionResult:
    """Two separately k-anonymised releases of one edX-like table, joined on the learner pseudonym."""
    if data is None:
        data = synthetic_edx(n_learners, n_courses, seed)
    m = sum(c.endswith("_enrolled") for c in data.columns)
    if int(course) != course or not 1 <= int(course) <= m:
        raise ParameterError("course", f"must be between 1 and {m}")
    if int(k) != k or not 2 <= int(k) <= 100:
        raise ParameterError("k", "must be an integer between 2 and 100")
    k, course = int(k), int(course)
    qis_a = [f"c{c + 1}_enrolled" for c in range(m)]
    qis_b = ["YoB", "gender", "country", f"c{course}_enrolled", f"c{course}_posts"]
    hier = _hierarchies(course)
    ga = mondrian(data[["learner_id", *qis_a]], qis_a, k, hier)
    gb = mondrian(data[["learner_id", *qis_b]], qis_b, k, hier)
    a = ga.table.rename(columns={f"c{course}_enrolled": f"c{course}_enrolled (A)"})
    b = gb.table.rename(columns={f"c{course}_enrolled": f"c{course}_enrolled (B)"})
    joined = a.merge(b, on="learner_id", how="inner", validate="one_to_one")
    qa = [c if c != f"c{course}_enrolled" else f"c{course}_enrolled (A)" for c in qis_a]
    qb = [c if c != f"c{course}_enrolled" else f"c{course}_enrolled (B)" for c in qis_b]
    rows = [_row("raw: course combination", "before anonymisation", data, qis_a, k),
            _row(f"raw: demographics + course {course}", "before anonymisation", data, qis_b, k),
            _row("raw: both QI sets", "before anonymisation", data, list(dict.fromkeys(qis_a + qis_b)), k),
            _row("release A", "before the join", a, qa, k),
            _row("release B", "before the join", b, qb, k),
            _row("A ⋈ B", "after the join", joined, qa + qb, k)]
    rep = check(joined, qa + qb, k)
    sizes = rep.classes["size"].to_numpy()
    uniq, cnt = np.unique(sizes, return_counts=True)
    hist = pd.DataFrame({"class_size": uniq, "n_records": uniq * cnt})
    return CompositionResult(k, course, qis_a, qis_b, a, b, joined, pd.DataFrame(rows), hist)
