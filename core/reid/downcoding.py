"""Downcoding attack on a minimal hierarchical k-anonymiser, by brute force (CS208 lecture 2, slide
"Downcoding Attacks [Cohen '21]"; A. Cohen, "Attacks on deidentification's defenses", USENIX Security '22).

Setting (slide). ``X`` is the original table, ``Y`` a k-anonymised version of it; a *downcoding*
``Z`` generalises ``X`` and refines ``Y`` (every cell of ``Z`` lies between the true value and the
published set). A generaliser is **hierarchical** when every published cell is a node of a fixed
per-attribute hierarchy, and **minimal** when no strict refinement ``Y' ⊏ Y`` that still
generalises ``X`` is k-anonymous. Cohen's theorem (informal, slide): there are natural data
distributions and hierarchies (depending on k) where *every* minimal hierarchical k-anonymiser —
even one enforced on all attributes — enables strong downcoding: Ω(N) records are refined
(> 3% for k ≤ 15), on 3D/8 of the D attributes (38%), with probability 1 − o(1) over the data.
(Those numbers are the paper's; this module does not reproduce them.)

Toy brute force [spec B2.5]. Tables of ≤ 8 records and 2–3 attributes, each attribute with a
2-level hierarchy ``leaf → group → *`` (heights 0, 1, 2; :class:`SuppressionHierarchy` with
groups). The attacker sees ``Y`` and knows the anonymiser is minimal (``knowledge="minimal"``,
the theorem's assumption) or, stronger, that it minimises the total height (``"optimal"``). They
enumerate every ``X'`` with ``X'_ij ∈ leaves(Y_ij)`` and keep those for which ``Y`` is still a
minimal (resp. optimal) k-anonymisation of ``X'``. A cell whose value is the same in every kept
``X'`` is **downcoded to the exact value**; a cell whose kept values share a node strictly below
``Y_ij`` is **refined**. ``Z`` is the per-cell lowest common node of the kept values.

Math used for the test. A k-anonymous hierarchical generalisation of ``X'`` that refines ``Y``
is a partition of the records into groups ``G`` with ``|G| ≥ k``, each published as a node ``L_G``
with ``X'_i ⊑ L_G ⊑ Y_i`` for ``i ∈ G``. The cheapest label is the lowest common ancestor, so with
``h`` = height, such a refinement exists strictly below ``Y`` iff

    min over partitions with |G| ≥ k and h(LCA_a(X'_G)) ≤ min_{i∈G} h(Y_ia) ∀a
        of  Σ_G |G| Σ_a h(LCA_a(X'_G))   <   Σ_ij h(Y_ij).

The left side is a dynamic programme over the 2^n subsets (vectorised over all candidates ``X'``);
dropping the ``≤ h(Y)`` constraint gives the optimal (minimum-total-height) k-anonymisation, which
is how :func:`minimal_anonymise` produces ``Y`` — an optimal one is minimal, since a strict
refinement has strictly smaller total height.

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np
import pandas as pd

from ..errors import DataError, LabError, ParameterError
from .hierarchies import STAR, SuppressionHierarchy
from .k_anonymity import check, mondrian

MAX_ROWS = 8
MAX_LEAVES = 8
MAX_CANDIDATES = 65_536  # 4^8: brute force stays near 1 s on 2 cores
KNOWLEDGE = {"minimal": "Y is minimal (Cohen's assumption)", "optimal": "Y has the least total height"}
ANONYMISERS = {"optimal": "Least total height (exact, minimal by construction)",
               "mondrian": "Top-down local recoding (core.reid.k_anonymity.mondrian)"}
INF = np.int16(10_000)


def slide_example() -> tuple[pd.DataFrame, dict[str, dict[str, str]]]:
    """The slide's ZIP/Income/COVID table with 2-level hierarchies (ZIP → 4-digit prefix → *, income → band → *)."""
    table = pd.DataFrame({"ZIP": ["91010", "91011", "91010", "20037", "20036", "20037"],
                          "Income": ["$125k", "$105k", "$80k", "$50k", "$20k", "$25k"]})
    hier = {"ZIP": {"91010": "9101*", "91011": "9101*", "20036": "2003*", "20037": "2003*"},
            "Income": {"$125k": "$75–150k", "$105k": "$75–150k", "$80k": "$75–150k",
                       "$50k": "$0–75k", "$20k": "$0–75k", "$25k": "$0–75k"}}
    return table, hier


def mixed_example() -> tuple[pd.DataFrame, dict[str, dict[str, str]]]:
    """7 records, k = 2: classes published at different heights, so minimality also rules values *out*."""
    table = pd.DataFrame({"A": ["b1", "b2", "b2", "b2", "a1", "b2", "b1"],
                          "B": ["d1", "d1", "c1", "d1", "d1", "c2", "d1"]})
    hier = {"A": {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}, "B": {"c1": "c", "c2": "c", "d1": "d", "d2": "d"}}
    return table, hier


PRESETS = {"slide": ("Slide: ZIP and income (6 records)", slide_example),
           "mixed": ("Mixed heights (7 records)", mixed_example)}


@dataclass
class _Coded:
    cols: list[str]
    leaves: list[list[str]]     # per attribute, leaf labels (index = leaf code)
    groups: list[list[str]]     # per attribute, group labels
    parent: list[np.ndarray]    # per attribute, leaf code → group code
    x: np.ndarray               # (n, A) leaf codes


def _encode(table: pd.DataFrame, hierarchy: dict) -> _Coded:
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise DataError("the table has no rows")
    if len(table) > MAX_ROWS:
        raise DataError(f"the table has {len(table)} rows; the brute force takes at most {MAX_ROWS}")
    cols = list(table.columns)
    if not 2 <= len(cols) <= 3:
        raise DataError(f"need 2 or 3 attributes, got {len(cols)}")
    leaves, groups, parent, x = [], [], [], []
    for c in cols:
        h = (hierarchy or {}).get(c)
        if not h:
            raise ParameterError("hierarchy", f"no hierarchy for attribute {c!r}")
        lv = list(dict.fromkeys(map(str, h)))
        if len(lv) > MAX_LEAVES:
            raise ParameterError("hierarchy", f"{c}: {len(lv)} leaves; at most {MAX_LEAVES} per attribute")
        gr = list(dict.fromkeys(str(h[v]) for v in lv))
        vals = table[c].astype(str)
        bad = sorted(set(vals) - set(lv))
        if bad:
            raise DataError(f"{c}: value {bad[0]!r} is not a leaf of its hierarchy")
        leaves.append(lv)
        groups.append(gr)
        parent.append(np.asarray([gr.index(str(h[v])) for v in lv]))
        x.append([lv.index(v) for v in vals])
    return _Coded(cols, leaves, groups, parent, np.asarray(x, dtype=np.int64).T)


def _k(k, n) -> int:
    if int(k) != k or int(k) < 1:
        raise ParameterError("k", "must be a positive integer")
    if int(k) > n:
        raise ParameterError("k", f"the table has {n} rows, fewer than k = {int(k)}")
    return int(k)


def _subset_costs(xs: np.ndarray, parent: list[np.ndarray], k: int, yh: np.ndarray | None, keep_heights=False):
    """Per subset S of the n rows (bitmask) and candidate c: |S| · Σ_a h(LCA_a(X'_S)), or INF if |S| < k or
    (with ``yh``) some LCA lies above the lowest published height in S. ``xs``: (C, n, A) leaf codes.
    With ``keep_heights`` also returns the LCA heights (S, C, A)."""
    C, n, A = xs.shape
    masks = np.arange(1 << n)
    pop = np.asarray([bin(m).count("1") for m in masks], dtype=np.int16)
    bits = (masks[:, None] >> np.arange(n)) & 1                                       # (S, n)
    total = np.zeros((1 << n, C), dtype=np.int16)
    ok = np.repeat((pop >= k)[:, None], C, axis=1)
    heights = np.zeros((1 << n, C, A), dtype=np.int8) if keep_heights else None
    w = (1 << np.arange(n)).astype(np.uint8)
    lowbit = np.zeros(1 << n, dtype=np.int64)
    lowbit[1:] = [(m & -m).bit_length() - 1 for m in range(1, 1 << n)]
    for a in range(A):
        leaf = xs[:, :, a]
        grp = parent[a][leaf]
        eq_leaf = ((leaf[:, :, None] == leaf[:, None, :]) * w).sum(-1).astype(np.uint8).T.copy()  # (n, C) bitmask
        eq_grp = ((grp[:, :, None] == grp[:, None, :]) * w).sum(-1).astype(np.uint8).T.copy()
        ymin = np.where(bits == 1, yh[None, :, a], 99).min(1) if yh is not None else None         # (S,)
        for low in range(n):                       # all subsets with this lowest row at once
            ms = np.flatnonzero(lowbit == low)
            ms = ms[ms > 0]
            mm = ms.astype(np.uint8)[:, None]
            h = (2 - ((mm & ~eq_grp[low][None, :]) == 0) - ((mm & ~eq_leaf[low][None, :]) == 0)).astype(np.int8)
            total[ms] += h
            if ymin is not None:
                ok[ms] &= h <= ymin[ms][:, None]
            if keep_heights:
                heights[ms, :, a] = h
    cost = np.where(ok, total * pop[:, None], INF).astype(np.int16)
    cost[0] = 0
    return cost, heights


def _best_partition(cost: np.ndarray, n: int, keep_choice: bool = False):
    """Min over partitions of all n rows of Σ cost(part), per candidate (subset DP; O(3^n) vector steps).
    With ``keep_choice`` also the part chosen at every mask (to read the partition back)."""
    C = cost.shape[1]
    useful = cost.min(1) < INF                       # parts that are feasible for some candidate
    f = np.full((1 << n, C), INF, dtype=np.int16)
    choice = np.zeros((1 << n, C), dtype=np.int16) if keep_choice else None
    f[0] = 0
    for m in range(1, 1 << n):
        low = m & -m
        rest = m ^ low
        sub = rest
        while True:
            part = sub | low
            if useful[part]:
                val = cost[part] + f[m ^ part]
                if keep_choice:
                    better = val < f[m]
                    choice[m] = np.where(better, part, choice[m])
                np.minimum(f[m], val, out=f[m])
            if sub == 0:
                break
            sub = (sub - 1) & rest
    return np.minimum(f[(1 << n) - 1], INF), choice


def _label(coded: _Coded, a: int, h: int, leaf: int) -> str:
    return coded.leaves[a][leaf] if h == 0 else coded.groups[a][coded.parent[a][leaf]] if h == 1 else STAR


def minimal_anonymise(table: pd.DataFrame, hierarchy: dict, k: int) -> pd.DataFrame:
    """A minimal hierarchical k-anonymisation: the partition (parts ≥ k) of least total LCA height, each part
    published as its per-attribute lowest common node (ties: the first partition the DP meets)."""
    coded = _encode(table, hierarchy)
    n = len(coded.x)
    k = _k(k, n)
    cost, heights = _subset_costs(coded.x[None], coded.parent, k, None, keep_heights=True)
    _, choice = _best_partition(cost, n, keep_choice=True)
    out = np.empty(coded.x.shape, dtype=object)
    m = (1 << n) - 1
    while m:
        part = int(choice[m, 0])
        rows = [i for i in range(n) if part >> i & 1]
        for a in range(len(coded.cols)):
            h = int(heights[part, 0, a])
            out[rows, a] = _label(coded, a, h, coded.x[rows[0], a])
        m ^= part
    return pd.DataFrame(out, columns=coded.cols)


_POP = np.asarray([bin(m).count("1") for m in range(1 << MAX_ROWS)], dtype=np.int64)


def _cover(coded: _Coded, a: int) -> np.ndarray:
    """(nodes × leaves) containment for attribute ``a``; node ids: leaves, then groups, then the root."""
    L, G = len(coded.leaves[a]), len(coded.groups[a])
    cov = np.zeros((L + G + 1, L), dtype=bool)
    cov[np.arange(L), np.arange(L)] = True
    cov[L + coded.parent[a], np.arange(L)] = True
    cov[L + G] = True
    return cov


def _node_height(coded: _Coded, a: int, node: int) -> int:
    L, G = len(coded.leaves[a]), len(coded.groups[a])
    return 0 if node < L else 1 if node < L + G else 2


def _node_label(coded: _Coded, a: int, node: int) -> str:
    L, G = len(coded.leaves[a]), len(coded.groups[a])
    return coded.leaves[a][node] if node < L else coded.groups[a][node - L] if node < L + G else STAR


def _all_match(z: list[tuple], multisets: np.ndarray, cover: list[np.ndarray]) -> bool:
    """Does every multiset (r, m, A) of leaf tuples have a perfect matching into the rows ``z`` (x ⊑ z)?
    Hall's condition over all subsets of ``z`` rows, vectorised over the r multisets."""
    r, m, A = multisets.shape
    adj = np.ones((r, m, m), dtype=bool)                        # [multiset, z row, record]
    for a in range(A):
        zn = np.asarray([t[a] for t in z])
        adj &= cover[a][zn[:, None], multisets[:, None, :, a]]
    nb = (adj * (1 << np.arange(m))).sum(-1)                   # (r, z rows) neighbour bitmasks
    reach = np.zeros((1 << m, r), dtype=np.int64)
    for s_ in range(1, 1 << m):
        low = (s_ & -s_).bit_length() - 1
        reach[s_] = reach[s_ & (s_ - 1)] | nb[:, low]
        if (_POP[reach[s_]] < _POP[s_]).any():
            return False
    return True


def _class_downcoding(coded: _Coded, label: tuple, multisets: np.ndarray, cover: list[np.ndarray]) -> list[tuple]:
    """Greedy most-refined-first downcoding of one equivalence class: start from |C| copies of the label; replace
    a label row by a finer node tuple while every consistent multiset still matches (sound, maximal-greedy)."""
    m = multisets.shape[1]
    per_attr = [[v for v in range(cover[a].shape[0]) if (cover[a][v] <= cover[a][label[a]]).all()]
                for a in range(len(label))]
    tuples = [t for t in product(*per_attr) if t != label]
    tuples.sort(key=lambda t: sum(_node_height(coded, a, v) for a, v in enumerate(t)))
    z = [label] * m
    for t in tuples:
        while label in z:
            trial = z.copy()
            trial[trial.index(label)] = t
            if not _all_match(trial, multisets, cover):
                break
            z = trial
    return z


@dataclass
class Downcoding:
    """The attack's result. ``z`` is the downcoding, row-aligned with ``x`` for display (see ``cells``)."""

    k: int
    knowledge: str
    x: pd.DataFrame
    y: pd.DataFrame
    z: pd.DataFrame
    cells: pd.DataFrame
    classes: pd.DataFrame
    n_candidates: int
    n_consistent: int

    def metrics(self) -> dict:
        c = self.cells
        gen = c[c["published_height"] > 0]
        per_rec = c.groupby("record")["refined"].any()
        refined = c[c["refined"]]
        return {"n_records": len(self.x), "n_candidates": self.n_candidates, "n_consistent": self.n_consistent,
                "n_cells_generalised": len(gen), "n_cells_refined": int(gen["refined"].sum()),
                "n_cells_exact": int(gen["downcoded_exact"].sum()),
                "n_records_refined": int(per_rec.sum()), "pct_records_refined": 100.0 * float(per_rec.mean()),
                "pct_attributes_refined_per_refined_record":
                    100.0 * float(refined.groupby("record").size().mean() / self.x.shape[1]) if len(refined) else 0.0}

    def status_matrix(self) -> pd.DataFrame:
        """(records × attributes): 'published exact' / 'downcoded to exact' / 'refined' / 'not refined'."""
        s = self.cells.assign(status=np.select(
            [self.cells["published_height"] == 0, self.cells["downcoded_exact"], self.cells["refined"]],
            ["published exact", "downcoded to exact", "refined"], "not refined"))
        return s.pivot(index="record", columns="attribute", values="status")[list(self.x.columns)]


def hierarchies_for(hierarchy: dict) -> dict[str, SuppressionHierarchy]:
    """The 2-level ``leaf → group → *`` hierarchies as :mod:`core.reid.hierarchies` objects."""
    return {c: SuppressionHierarchy(groups={str(v): str(g) for v, g in h.items()}) for c, h in hierarchy.items()}


def anonymise(table: pd.DataFrame, hierarchy: dict, k: int, anonymiser: str = "optimal") -> pd.DataFrame:
    """``Y`` from :func:`minimal_anonymise` or from the existing Mondrian-style generaliser."""
    if anonymiser == "optimal":
        return minimal_anonymise(table, hierarchy, k)
    if anonymiser == "mondrian":
        coded = _encode(table, hierarchy)
        _k(k, len(coded.x))
        g = mondrian(table.astype(str).reset_index(drop=True), coded.cols, int(k), hierarchies_for(hierarchy))
        return g.table[coded.cols]
    raise ParameterError("anonymiser", f"choose one of {', '.join(ANONYMISERS)}")


def downcode(table: pd.DataFrame, hierarchy: dict, k: int = 2, knowledge: str = "minimal",
             y: pd.DataFrame | None = None, anonymiser: str = "optimal") -> Downcoding:
    """Brute-force downcoding of ``Y`` (default: :func:`minimal_anonymise` of ``table``) by an attacker who knows
    the anonymiser is minimal / optimal. ``table`` is the true ``X``: it builds ``Y`` and scores the attack only.

    Records in one class of ``Y`` are indistinguishable, so — as in Cohen's definition, where a table
    generalises another up to a re-ordering of its records — ``Z`` is found per class as a multiset:
    every consistent ``X'`` must match its class records one-to-one onto ``Z``'s rows with ``x ⊑ z``.
    """
    if knowledge not in KNOWLEDGE:
        raise ParameterError("knowledge", f"choose one of {', '.join(KNOWLEDGE)}")
    coded = _encode(table, hierarchy)
    n, A = coded.x.shape
    k = _k(k, n)
    if y is None:
        y = anonymise(table, hierarchy, k, anonymiser)
    if list(y.columns) != coded.cols or len(y) != n:
        raise DataError("Y must have the same rows and attributes as X")
    if not check(y, coded.cols, k).passes:
        raise DataError(f"Y is not {k}-anonymous")
    options, yh, ynode = _options(coded, y)
    sizes = np.asarray([len(o) for o in options])
    n_cand = int(np.prod(sizes.astype(float)))
    if n_cand > MAX_CANDIDATES:
        raise ParameterError("table", f"{n_cand:,} candidate tables X' to check (limit {MAX_CANDIDATES:,}); "
                                      "use fewer records or less generalisation (smaller k)")
    return _downcode(table, coded, y, k, knowledge, options, yh, ynode, sizes, n_cand)


def _options(coded, y: pd.DataFrame):
    """Per record and attribute, the leaves Y's cell covers (the candidate values of X')."""
    n, A = coded.x.shape
    cover = [_cover(coded, a) for a in range(A)]
    yh = np.zeros((n, A), dtype=np.int64)
    ynode = np.zeros((n, A), dtype=np.int64)
    options: list[list[int]] = []
    for i in range(n):
        for a in range(A):
            lab = str(y.iat[i, a])
            L, G = len(coded.leaves[a]), len(coded.groups[a])
            if lab == STAR:
                node = L + G
            elif lab in coded.groups[a]:
                node = L + coded.groups[a].index(lab)
            elif lab in coded.leaves[a]:
                node = coded.leaves[a].index(lab)
            else:
                raise DataError(f"Y cell {lab!r} ({coded.cols[a]}) is not a node of the hierarchy")
            ynode[i, a], yh[i, a] = node, _node_height(coded, a, node)
            if not cover[a][node, coded.x[i, a]]:
                raise DataError(f"Y does not generalise X at record {i + 1}, {coded.cols[a]}")
            options.append(list(np.flatnonzero(cover[a][node])))
    return options, yh, ynode


def k_range(table: pd.DataFrame, hierarchy: dict, anonymiser: str = "optimal") -> tuple[int, int]:
    """The k (from 2) for which :func:`downcode` can run on ``table``: the brute force stays within
    ``MAX_CANDIDATES`` tables (more generalisation, i.e. larger k, means more candidates). A UI offers only
    these. Returns ``(2, 2)`` when the table itself is unusable (the engine then says why)."""
    try:
        coded = _encode(table, hierarchy)
    except LabError:
        return 2, 2
    n = len(coded.x)
    hi = 2
    for k in range(2, n + 1):
        try:
            options, _, _ = _options(coded, anonymise(table, hierarchy, k, anonymiser))
        except LabError:
            break
        if float(np.prod([float(len(o)) for o in options])) > MAX_CANDIDATES:
            break
        hi = k
    return 2, hi


def _downcode(table, coded, y, k, knowledge, options, yh, ynode, sizes, n_cand) -> "Downcoding":
    n, A = coded.x.shape
    cover = [_cover(coded, a) for a in range(A)]
    idx = np.arange(n_cand)
    strides = np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]])
    digits = (idx[:, None] // strides[None, :]) % sizes[None, :]
    lut = np.full((len(options), sizes.max()), -1)
    for j, o in enumerate(options):
        lut[j, :len(o)] = o
    xs = lut[np.arange(len(options))[None, :], digits].reshape(n_cand, n, A)
    cost, _ = _subset_costs(xs, coded.parent, k, yh if knowledge == "minimal" else None)
    best, _ = _best_partition(cost, n)
    kept = xs[best == yh.sum()]
    if not (kept == coded.x[None]).all((1, 2)).any():
        raise DataError(f"Y is not {knowledge} for X ({'a finer' if knowledge == 'minimal' else 'a cheaper'} "
                        f"{k}-anonymous generalisation exists), so the attacker's assumption does not hold")
    # per equivalence class of Y: the consistent multisets of its records, then a greedy downcoding Z
    z = np.zeros((n, A), dtype=np.int64)
    class_rows = []
    for label in dict.fromkeys(map(tuple, ynode)):
        rows = np.flatnonzero((ynode == np.asarray(label)).all(1))
        code = np.zeros(kept.shape[:1] + rows.shape, dtype=np.int64)
        for a in range(A):
            code = code * MAX_LEAVES + kept[:, rows, a]
        ms = np.unique(np.sort(code, axis=1), axis=0)
        multisets = np.stack([(ms // MAX_LEAVES ** (A - 1 - a)) % MAX_LEAVES for a in range(A)], axis=-1)
        zc = _class_downcoding(coded, label, multisets, cover)
        # align Z's rows with the true records (display only): any perfect matching x_i ⊑ z_row
        for r_ in _align(zc, coded.x[rows], cover):
            z[rows[r_[0]]] = zc[r_[1]]
        class_rows.append({"class": " | ".join(_node_label(coded, a, v) for a, v in enumerate(label)),
                           "size": len(rows), "consistent_multisets": len(ms),
                           "rows_refined": sum(t != label for t in zc)})
    cells = []
    for i in range(n):
        for a in range(A):
            h = _node_height(coded, a, int(z[i, a]))
            cells.append({"record": i + 1, "attribute": coded.cols[a], "true": coded.leaves[a][coded.x[i, a]],
                          "published": str(y.iat[i, a]), "published_height": int(yh[i, a]),
                          "downcoded": _node_label(coded, a, int(z[i, a])), "downcoded_height": h,
                          "refined": h < yh[i, a], "downcoded_exact": bool(h == 0 and yh[i, a] > 0)})
    zdf = pd.DataFrame([[_node_label(coded, a, int(z[i, a])) for a in range(A)] for i in range(n)], columns=coded.cols)
    return Downcoding(k, knowledge, table.reset_index(drop=True).astype(str), y.reset_index(drop=True), zdf,
                      pd.DataFrame(cells), pd.DataFrame(class_rows), n_cand, len(kept))


def _align(z: list[tuple], records: np.ndarray, cover: list[np.ndarray]) -> list[tuple[int, int]]:
    """A perfect matching (record index, z row) with record ⊑ z row (augmenting paths; sizes ≤ 8)."""
    m = len(z)
    ok = [[all(cover[a][z[j][a], records[i, a]] for a in range(records.shape[1])) for j in range(m)]
          for i in range(m)]
    owner = [-1] * m

    def augment(i, seen):
        for j in range(m):
            if ok[i][j] and not seen[j]:
                seen[j] = True
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(m):
        if not augment(i, [False] * m):
            raise DataError("internal: the downcoding does not generalise the true records")
    return [(owner[j], j) for j in range(m)]


THEOREM = (
    "**Cohen '21, as stated on the slide (the paper's claims, not computed here).** There are settings — a "
    "relatively natural data distribution and hierarchy that depend on k — in which *every* minimal, hierarchical "
    "k-anonymiser, even enforced on all attributes, enables strong downcoding: **Ω(N) records are refined "
    "(> 3% for k ≤ 15)**, each on **3D/8 of the D attributes (38%)**, **with probability 1 − o(1)** over a random "
    "dataset.")
