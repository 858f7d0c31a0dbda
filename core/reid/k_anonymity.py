"""Generalisation and k-anonymity (CS208 lecture 2, slides "K-Anonymity [Sweeney '02]" and "Quasi-Identifiers").

Definitions (slides).

* A generalisation mechanism outputs ``A(x) = (T_1..T_n)`` with ``x_i ∈ T_i ⊆ 𝒳``.
* ``A`` is **k-anonymous across all fields** when every set ``T`` that occurs at all occurs at
  least ``k`` times. The **QI version** splits ``𝒳 = 𝒴 × 𝒵`` and ``T_i = U_i × V_i``; only the
  quasi-identifier part ``U_i`` must occur ≥ k times (the sensitive part is published as is).

What this module does.

* :func:`check` — equivalence classes of a (generalised) table on the QI columns, the minimum class
  size and the pass/fail flag ``min |class| ≥ k``; per class, the number of distinct sensitive
  values. A class with a single sensitive value is **homogeneous**: anyone known to be in it has
  that value disclosed — the answer to the slide's "Q: what could go wrong?" for the 4-anonymous
  Condition table (its ``3*`` class is all Cancer). The name *homogeneity attack* and the fix
  *l-diversity* (every class has ≥ l distinct sensitive values) come from Machanavajjhala et al.
  '06 — external literature, not on the slides.
* :func:`mondrian` — a **local-recoding** generaliser: top-down specialisation over the
  hierarchies, in the style of Mondrian [LeFevre–DeWitt–Ramakrishnan '06] (external literature).
  Start with every QI at its root ``*`` and one partition holding all records; repeatedly pick a QI
  whose next-finer hierarchy level splits the partition into parts that *all* have ≥ k records
  (prefer the split with the most parts; a one-part "split" just refines the label for free); stop
  when no QI can be refined. Each partition publishes the common hierarchy node of its records.
  On the slide's 6-row table with k = 3 it yields exactly the slide's output
  (``9101* $75–150k *`` ×3, ``20037 $0–75k *`` ×3): ``20037`` keeps all five digits because that
  partition is homogeneous in ZIP.
* :func:`full_domain` — **global recoding** [Samarati '01; Sweeney '02]: one generalisation
  height per column for the whole table. Search the lattice of height vectors bottom-up by total
  height; return, among the lowest-height vectors satisfying k (after optionally suppressing up to
  a fraction of the records in undersized classes), the one with the least information loss.
  Monotone: raising any height only merges classes.
* Information loss: the share of QI cells that were generalised (the spec's measure) and the mean
  normalised height ``h / height`` over QI cells (0 = published exactly, 1 = all ``*``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .hierarchies import Hierarchy, IntervalHierarchy, SuppressionHierarchy, ZipHierarchy, default_hierarchy
from .linkage import class_keys

MAX_LATTICE_NODES = 20_000


# ----------------------------------------------------------------------------- slide presets
def slide_covid_table() -> pd.DataFrame:
    """The slide's 3-anonymity example ``x`` (ZIP, Income, COVID)."""
    return pd.DataFrame({"ZIP": ["91010", "91011", "91012", "20037", "20037", "20037"],
                         "Income": [125_000, 105_000, 80_000, 50_000, 20_000, 25_000],
                         "COVID": ["Yes", "No", "No", "No", "No", "Yes"]})


def slide_covid_hierarchies() -> dict[str, Hierarchy]:
    """ZIP digit suppression, the slide's two income bands (0–75k, 75–150k), COVID suppression."""
    return {"ZIP": ZipHierarchy(5), "Income": IntervalHierarchy([[0, 75_000, 150_000]], money=True),
            "COVID": SuppressionHierarchy()}


def slide_condition_table() -> pd.DataFrame:
    """The slide's 4-anonymous table on (Zip code, Age, Nationality) with the sensitive Condition."""
    cond = ["AIDS", "Heart Disease", "Viral Infection", "Viral Infection",
            "Cancer", "Heart Disease", "Viral Infection", "Viral Infection",
            "Cancer", "Cancer", "Cancer", "Cancer"]
    return pd.DataFrame({"Zip code": ["130**"] * 12, "Age": ["<30"] * 4 + ["≥40"] * 4 + ["3*"] * 4,
                         "Nationality": ["*"] * 12, "Condition": cond})


PRESETS = {
    "covid": dict(title="Slide: 3-anonymising (ZIP, Income, COVID)", table=slide_covid_table,
                  hierarchies=slide_covid_hierarchies, qis=["ZIP", "Income", "COVID"], sensitive=None, k=3),
    "condition": dict(title="Slide: 4-anonymous (Zip code, Age, Nationality) + Condition",
                      table=slide_condition_table, hierarchies=lambda: {}, qis=["Zip code", "Age", "Nationality"],
                      sensitive="Condition", k=4),
}


# ----------------------------------------------------------------------------- checker
@dataclass
class KAnonymityReport:
    k: int
    classes: pd.DataFrame       # one row per equivalence class
    min_class_size: int
    passes: bool
    n_records: int
    n_records_below_k: int
    l_diversity: int | None     # min distinct sensitive values over classes (None without a sensitive column)
    n_homogeneous_classes: int
    n_records_homogeneous: int  # records whose sensitive value is disclosed by class membership

    def metrics(self) -> dict:
        return {"k": self.k, "min_class_size": self.min_class_size, "k_anonymous": int(self.passes),
                "n_classes": len(self.classes), "n_records_below_k": self.n_records_below_k,
                "l_diversity": self.l_diversity if self.l_diversity is not None else float("nan"),
                "n_homogeneous_classes": self.n_homogeneous_classes,
                "pct_records_disclosed_by_homogeneity": 100.0 * self.n_records_homogeneous / max(self.n_records, 1)}


def _check_columns(table: pd.DataFrame, qis, sensitive=None):
    if not qis:
        raise ParameterError("quasi_identifiers", "choose at least one quasi-identifier")
    missing = [c for c in qis if c not in table.columns]
    if missing:
        raise ParameterError("quasi_identifiers", f"unknown column(s): {', '.join(map(str, missing))}")
    if sensitive is not None:
        if sensitive not in table.columns:
            raise ParameterError("sensitive", f"unknown column {sensitive!r}")
        if sensitive in qis:
            raise ParameterError("sensitive", "the sensitive column cannot also be a quasi-identifier")


def _k(k) -> int:
    if int(k) != k or int(k) < 1:
        raise ParameterError("k", "must be a positive integer")
    return int(k)


def check(table: pd.DataFrame, qis: list[str], k: int, sensitive: str | None = None) -> KAnonymityReport:
    """k-anonymity on ``qis`` and, with a sensitive column, per-class distinct values (homogeneity)."""
    k = _k(k)
    _check_columns(table, qis, sensitive)
    if table.empty:
        raise ParameterError("table", "the table has no rows")
    t = table[list(qis)].astype(str)
    keys = class_keys(t)
    g = pd.DataFrame({"_key": keys})
    first = pd.Series(np.arange(len(t))).groupby(keys).first()
    classes = t.iloc[first.to_numpy()].reset_index(drop=True)
    classes["size"] = np.bincount(keys)[first.index.to_numpy()]
    classes["below_k"] = classes["size"] < k
    if sensitive is not None:
        g["s"] = table[sensitive].astype(str).to_numpy()
        per = g.groupby("_key")["s"]
        classes["n_distinct_sensitive"] = per.nunique().reindex(first.index).to_numpy()
        classes["sensitive_values"] = per.agg(
            lambda s: ", ".join(f"{v} ×{c}" if c > 1 else str(v) for v, c in s.value_counts().items())
        ).reindex(first.index).to_numpy()
        classes["homogeneous"] = classes["n_distinct_sensitive"] == 1
        l_div = int(classes["n_distinct_sensitive"].min())
        n_hom = int(classes["homogeneous"].sum())
        n_rec_hom = int(classes.loc[classes["homogeneous"], "size"].sum())
    else:
        l_div, n_hom, n_rec_hom = None, 0, 0
    min_size = int(classes["size"].min())
    return KAnonymityReport(k=k, classes=classes, min_class_size=min_size, passes=min_size >= k, n_records=len(t),
                            n_records_below_k=int(classes.loc[classes["below_k"], "size"].sum()),
                            l_diversity=l_div, n_homogeneous_classes=n_hom, n_records_homogeneous=n_rec_hom)


# ----------------------------------------------------------------------------- generalisers
@dataclass
class Generalisation:
    method: str
    k: int
    qis: list[str]
    table: pd.DataFrame            # the published table (suppressed rows removed)
    heights: pd.DataFrame          # per published row and QI: the generalisation height used
    hierarchies: dict[str, Hierarchy]
    n_suppressed: int = 0
    levels: dict | None = None     # full-domain only: one height per QI
    report: KAnonymityReport | None = None
    info: dict = field(default_factory=dict)

    def metrics(self) -> dict:
        out = {"n_published": len(self.table), "n_suppressed": self.n_suppressed, **self.info}
        if self.report is not None:
            out.update(self.report.metrics())
        return out


def _prepare(table, qis, hierarchies, k, sensitive):
    k = _k(k)
    _check_columns(table, qis, sensitive)
    if len(table) < k:
        raise ParameterError("k", f"the table has {len(table)} rows, fewer than k = {k}")
    hier = {c: (hierarchies or {}).get(c) or default_hierarchy(c, table[c]) for c in qis}
    labels = {c: [hier[c].generalise(table[c], h) for h in range(hier[c].height + 1)] for c in qis}
    codes = {c: [pd.factorize(pd.Series(lab), sort=False)[0] for lab in labels[c]] for c in qis}
    return k, hier, labels, codes


def _information_loss(table, qis, hier, heights: np.ndarray, labels) -> dict:
    if heights.size == 0:
        return {"pct_cells_generalised": float("nan"), "mean_normalised_height": float("nan")}
    exact = np.column_stack([labels[c][0] for c in qis])
    pub = np.column_stack([np.asarray(labels[c], dtype=object)[heights[:, j], np.arange(len(heights))]
                           for j, c in enumerate(qis)])
    changed = pub != exact
    norm = heights / np.asarray([hier[c].height for c in qis], dtype=float)
    return {"pct_cells_generalised": 100.0 * float(changed.mean()), "mean_normalised_height": float(norm.mean())}


def _publish(table, qis, hier, labels, rows: np.ndarray, heights: np.ndarray) -> pd.DataFrame:
    out = table.iloc[rows].copy()
    for j, c in enumerate(qis):
        lab = np.asarray(labels[c], dtype=object)  # (height+1, n)
        out[c] = lab[heights[:, j], rows]
    return out.reset_index(drop=True)


def mondrian(table: pd.DataFrame, qis: list[str], k: int, hierarchies: dict | None = None,
             sensitive: str | None = None) -> Generalisation:
    """Local-recoding k-anonymisation by top-down hierarchical specialisation (see module docstring)."""
    k, hier, labels, codes = _prepare(table, qis, hierarchies, k, sensitive)
    n, q = len(table), len(qis)
    top = np.array([hier[c].height for c in qis])
    final_h = np.zeros((n, q), dtype=np.int64)
    stack = [(np.arange(n), top.copy())]
    while stack:
        idx, h = stack.pop()
        best = None
        for j, c in enumerate(qis):
            if h[j] == 0:
                continue
            child = codes[c][h[j] - 1][idx]
            uniq, inv, cnt = np.unique(child, return_inverse=True, return_counts=True)
            if cnt.min() >= k and (best is None or len(uniq) > best[1]):
                best = (j, len(uniq), inv)
                if len(uniq) == 1:  # free refinement: take it at once
                    break
        if best is None:
            final_h[idx] = h
            continue
        j, n_parts, inv = best
        h2 = h.copy()
        h2[j] -= 1
        if n_parts == 1:
            stack.append((idx, h2))
        else:
            for p in range(n_parts):
                stack.append((idx[inv == p], h2))
    rows = np.arange(n)
    pub = _publish(table, qis, hier, labels, rows, final_h)
    info = _information_loss(table, qis, hier, final_h, labels)
    return Generalisation("mondrian", k, list(qis), pub, pd.DataFrame(final_h, columns=qis), hier,
                          report=check(pub, qis, k, sensitive), info=info)


def full_domain(table: pd.DataFrame, qis: list[str], k: int, hierarchies: dict | None = None,
                sensitive: str | None = None, max_suppression: float = 0.0) -> Generalisation:
    """Global-recoding k-anonymisation: minimal lattice height, then least information loss."""
    if not 0.0 <= float(max_suppression) < 1.0:
        raise ParameterError("max_suppression", "must be in [0, 1)")
    k, hier, labels, codes = _prepare(table, qis, hierarchies, k, sensitive)
    n = len(table)
    tops = [hier[c].height for c in qis]
    n_nodes = int(np.prod([t + 1 for t in tops]))
    if n_nodes > MAX_LATTICE_NODES:
        raise ParameterError("quasi_identifiers", f"{n_nodes:,} generalisation levels to search; choose fewer QIs")
    budget = int(np.floor(max_suppression * n))
    by_height: dict[int, list[tuple]] = {}
    for node in product(*[range(t + 1) for t in tops]):
        by_height.setdefault(sum(node), []).append(node)
    chosen = None
    for total in sorted(by_height):
        winners = []
        for node in by_height[total]:
            key = np.zeros(n, dtype=np.int64)
            for j, c in enumerate(qis):
                cc = codes[c][node[j]]
                key = pd.factorize(key * (cc.max() + 2) + cc, sort=False)[0].astype(np.int64)
            sizes = np.bincount(key)[key]
            small = sizes < k
            if small.sum() <= budget:
                keep = np.flatnonzero(~small)
                hts = np.tile(np.asarray(node), (len(keep), 1))
                loss = _information_loss(table, qis, hier, hts, {c: [lab[keep] for lab in labels[c]] for c in qis})
                winners.append((loss["mean_normalised_height"], loss["pct_cells_generalised"], node, keep, loss))
        if winners:
            chosen = min(winners, key=lambda w: (w[0], w[1]))
            break
    _, _, node, keep, loss = chosen  # the all-* node always qualifies (n ≥ k), so chosen is set
    hts = np.tile(np.asarray(node), (len(keep), 1))
    pub = _publish(table, qis, hier, labels, keep, hts)
    return Generalisation("full_domain", k, list(qis), pub, pd.DataFrame(hts, columns=qis), hier,
                          n_suppressed=n - len(keep), levels=dict(zip(qis, map(int, node))),
                          report=check(pub, qis, k, sensitive), info=loss)


METHODS = {"mondrian": "Local recoding (top-down, Mondrian-style)", "full_domain": "Full-domain (global) recoding"}


def anonymise(table: pd.DataFrame, qis: list[str], k: int, method: str = "mondrian",
              hierarchies: dict | None = None, sensitive: str | None = None,
              max_suppression: float = 0.0) -> Generalisation:
    """Dispatch to :func:`mondrian` or :func:`full_domain` (the page's one engine call)."""
    if method == "mondrian":
        return mondrian(table, qis, k, hierarchies, sensitive)
    if method == "full_domain":
        return full_domain(table, qis, k, hierarchies, sensitive, max_suppression)
    raise ParameterError("method", f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
