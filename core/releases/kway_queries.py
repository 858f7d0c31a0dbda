"""Simple k-way marginal queries for the linear reconstruction attack on synthetic data.

Source: Annamalai, Gadotti & Rocher, "A Linear Reconstruction Approach for Attribute Inference Attacks
against Synthetic Data" (USENIX Security 2024), §4.2 (Def. 3.1), App. B/C; spec
``docs/specs/seed002_linear_recon_sdg.md`` §3.1–3.3, §3.5, §11 A9/A10/A13/A14.

A *simple k-way query* is a conjunction of ``k − 1`` quasi-identifier (QI) predicates and the secret
predicate: ``x_{a1}=v1 ∧ … ∧ x_{a(k−1)}=v(k−1) ∧ y = 1``. Its QI part is a *cell* of the attribute tuple
``A⁻ = (a1, …)``. Values ``V_a`` are those **observed in X** (the n-row QI matrix the adversary knows).

* k = 2: every attribute ``a`` and value in ``V_a``: ``q = Σ_a |V_a|``.
* k = 3 (paper default): every unordered pair ``a1 < a2`` and every value pair: ``q = Σ |V_a1|·|V_a2|``.
* k = 4: distinct attribute triples, and a uniform sample without replacement of at most
  ``max_4way`` (100,000) of their cells (decision A14: no repeated attributes, no duplicates).
* "234": all 2-way, then all 3-way, then the 4-way sample.

Linear form (§3.2): ``a_{ji} = 1`` iff record ``i`` of X lies in cell ``j``; ``n·Q_j({X|t}) = a_j·t``.

Answers on the synthetic data S (size m) in counts on the scale of n (§3.3):

* marginal: ``r̂_j = (n/m)·c_S(cell_j ∧ y=1)``;
* conditional (default): ``r̂_j = c_S(cell_j ∧ y=1) / c_S(cell_j) · c_X(cell_j)``, and ``r̂_j = 0`` when the
  cell is absent from S (the paper's fallback, decision A10).

Counting is vectorised: for each attribute tuple the cell of every row is one mixed-radix integer
(``Σ code_a·stride_a``), computed once per tuple, and counts come from one ``np.bincount`` of
``2·cell + y`` — never a loop over queries or boolean masks. A 10⁶-row S with 45 attribute pairs takes
about 45 passes over S.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..errors import ParameterError

KS = ("2", "3", "4", "234")
SCALINGS = ("conditional", "marginal")
MAX_4WAY = 100_000


@dataclass
class _Group:
    attrs: tuple[int, ...]         # QI column indices
    strides: np.ndarray            # mixed-radix strides over the full QI domains
    size: int                      # number of cells in the full domain of this tuple
    cells: np.ndarray              # full-domain cell ids queried (one per query row)


@dataclass
class KWayQueries:
    """A family of simple k-way queries over the QI matrix ``X`` (n × (d−1) codes).

    ``groups`` hold, per attribute tuple, the queried cells; query rows are numbered group by group in
    ``groups`` order. ``select(rows)`` keeps a subset (the q sweep, decision A13: uniform random subset).
    """

    X: np.ndarray
    cardinalities: tuple[int, ...]
    groups: list[_Group] = field(default_factory=list)

    @property
    def n_queries(self) -> int:
        return int(sum(len(g.cells) for g in self.groups))

    # --------------------------------------------------------------- building
    @classmethod
    def build(cls, X: np.ndarray, cardinalities, k: str = "3", rng: np.random.Generator | None = None,
              max_4way: int = MAX_4WAY) -> "KWayQueries":
        k = str(k)
        if k not in KS:
            raise ParameterError("query_k", f"expected one of {'|'.join(KS)}, got {k!r}")
        X = np.ascontiguousarray(X, dtype=np.int64)
        card = tuple(int(c) for c in cardinalities)
        if X.ndim != 2 or X.shape[1] != len(card):
            raise ParameterError("X", f"QI matrix of shape {X.shape} does not match {len(card)} cardinalities")
        fam = cls(X, card)
        observed = [np.unique(X[:, a]) for a in range(X.shape[1])]
        orders = {"2": (1,), "3": (2,), "4": (3,), "234": (1, 2, 3)}[k]
        for order in orders:
            if order == 3:
                fam.groups += _four_way(X, card, observed, rng or np.random.default_rng(0), max_4way)
            else:
                for attrs in itertools.combinations(range(X.shape[1]), order):
                    fam.groups.append(_full_group(attrs, card, observed))
        return fam

    def select(self, rows: np.ndarray) -> "KWayQueries":
        """The sub-family of the given query rows (kept in family order)."""
        rows = np.unique(np.asarray(rows, dtype=np.int64))
        out = KWayQueries(self.X, self.cardinalities)
        start = 0
        for g in self.groups:
            stop = start + len(g.cells)
            keep = rows[(rows >= start) & (rows < stop)] - start
            if keep.size:
                out.groups.append(_Group(g.attrs, g.strides, g.size, g.cells[keep]))
            start = stop
        return out

    def subset(self, q: int, rng: np.random.Generator) -> "KWayQueries":
        """A uniform random subset of ``q`` queries (all of them if ``q ≥ n_queries``)."""
        total = self.n_queries
        if q >= total:
            return self
        return self.select(rng.choice(total, size=int(q), replace=False))

    # --------------------------------------------------------------- linear form
    def matrix(self, dense: bool = True):
        """The q × n 0/1 matrix A (``a_ji = 1`` iff record i of X lies in cell j)."""
        n = self.X.shape[0]
        rows, cols = [], []
        start = 0
        for g in self.groups:
            pos = np.full(g.size, -1, dtype=np.int64)
            pos[g.cells] = np.arange(len(g.cells))
            idx = pos[_cell_index(self.X, g)]
            hit = idx >= 0
            rows.append(start + idx[hit])
            cols.append(np.nonzero(hit)[0])
            start += len(g.cells)
        r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
        A = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(start, n))
        if dense:
            out = np.zeros((start, n), dtype=np.float64, order="F")
            out[r, c] = 1.0
            return out
        return A

    # --------------------------------------------------------------- answers
    def counts(self, codes: np.ndarray, secret: np.ndarray | None = None,
               weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per query: (count of the cell, count of the cell with secret = 1) in a table of QI codes.

        ``codes`` is (rows, d−1); ``secret`` (rows,) 0/1 or None (then the second array is zeros);
        ``weights`` (rows,) multiplicities of the rows (None = 1 each).
        """
        cols = np.ascontiguousarray(np.asarray(codes, dtype=np.int64).T)  # one contiguous row per attribute
        total, ones = [], []
        for g in self.groups:
            cell = _cell_index_cols(cols, g)
            if secret is None:
                c = np.bincount(cell, weights=weights, minlength=g.size)
                total.append(c[g.cells])
                ones.append(np.zeros(len(g.cells)))
            else:
                cell *= 2
                cell += secret
                both = np.bincount(cell, weights=weights, minlength=2 * g.size).reshape(g.size, 2)
                total.append(both[g.cells].sum(axis=1))
                ones.append(both[g.cells, 1])
        if not total:
            return np.zeros(0), np.zeros(0)
        return np.concatenate(total).astype(np.float64), np.concatenate(ones).astype(np.float64)

    def answers(self, synthetic: np.ndarray, scaling: str = "conditional") -> np.ndarray:
        """Noisy answers r̂ (counts on the scale of n) computed from synthetic rows (QIs…, secret last)."""
        if scaling not in SCALINGS:
            raise ParameterError("query_scaling", f"expected one of {'|'.join(SCALINGS)}, got {scaling!r}")
        S = np.asarray(synthetic, dtype=np.int64)
        n, m = self.X.shape[0], S.shape[0]
        S, w = compress_rows(S, len(self.groups))
        cs, cs1 = self.counts(S[:, :-1], S[:, -1], w)
        if scaling == "marginal":
            return (n / m) * cs1
        cx, _ = self.counts(self.X)
        out = np.zeros(cs.shape, dtype=np.float64)
        ok = cs > 0
        out[ok] = cs1[ok] / cs[ok] * cx[ok]
        return out


def compress_rows(S: np.ndarray, n_groups: int = 1 << 30) -> tuple[np.ndarray, np.ndarray | None]:
    """(distinct rows, multiplicities) when that shrinks S by half or more, else (S, None).

    Synthetic data from low-entropy generators (NonPrivate resamples ≤ n distinct records) repeat rows;
    counting distinct rows with weights gives the same counts in a fraction of the passes.
    """
    m = S.shape[0]
    if m < 2000 or n_groups <= 16:  # a bincount pass per group is cheaper than sorting S
        return S, None
    hi = S.max(axis=0) + 1
    if float(np.prod(hi.astype(float))) >= 2**62:
        return S, None
    strides = np.ones(S.shape[1], dtype=np.int64)
    for i in range(S.shape[1] - 2, -1, -1):
        strides[i] = strides[i + 1] * hi[i + 1]
    key = S[:, 0] * strides[0]
    for j in range(1, S.shape[1]):
        key += S[:, j] * strides[j]
    uniq, first, cnt = np.unique(key, return_index=True, return_counts=True)
    if uniq.size > m // 2:
        return S, None
    return S[first], cnt.astype(np.float64)


def _cell_index_cols(cols: np.ndarray, g: _Group) -> np.ndarray:
    """Cell id of every row, from the column-major codes ``cols`` (attributes × rows)."""
    cell = cols[g.attrs[0]] * g.strides[0]
    for a, s in zip(g.attrs[1:], g.strides[1:]):
        cell += cols[a] * s
    return cell


def _cell_index(codes: np.ndarray, g: _Group) -> np.ndarray:
    cell = codes[:, g.attrs[0]] * g.strides[0]
    for a, s in zip(g.attrs[1:], g.strides[1:]):
        cell = cell + codes[:, a] * s
    return cell


def _strides(attrs, card) -> tuple[np.ndarray, int]:
    sizes = [card[a] for a in attrs]
    strides = np.ones(len(sizes), dtype=np.int64)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    return strides, int(math.prod(sizes))


def _full_group(attrs, card, observed) -> _Group:
    strides, size = _strides(attrs, card)
    grids = np.meshgrid(*[observed[a] for a in attrs], indexing="ij")
    cells = sum(gr.ravel() * s for gr, s in zip(grids, strides)).astype(np.int64)
    return _Group(tuple(attrs), strides, size, np.sort(cells))


def _four_way(X, card, observed, rng, max_4way) -> list[_Group]:
    """Cells of every distinct QI triple (values observed in X); a uniform sample of ``max_4way`` if more.

    The sample is drawn by index over the concatenated cell lists and decoded per triple
    (``np.unravel_index`` over the observed values), so the up to ~360,000 candidate cells are never built.
    """
    triples = list(itertools.combinations(range(X.shape[1]), 3))
    counts = np.array([math.prod(len(observed[a]) for a in t) for t in triples], dtype=np.int64)
    total = int(counts.sum())
    if total <= max_4way:
        return [_full_group(t, card, observed) for t in triples]
    picks = np.sort(rng.choice(total, size=max_4way, replace=False))
    starts = np.concatenate([[0], np.cumsum(counts)])
    groups = []
    for i, t in enumerate(triples):
        lo, hi = np.searchsorted(picks, [starts[i], starts[i + 1]])
        if hi == lo:
            continue
        local = picks[lo:hi] - starts[i]
        idx = np.unravel_index(local, tuple(len(observed[a]) for a in t))
        strides, size = _strides(t, card)
        cells = sum(observed[a][j] * s for a, j, s in zip(t, idx, strides)).astype(np.int64)
        groups.append(_Group(tuple(t), strides, size, np.sort(cells)))
    return groups


def full_domain_count(cardinalities, k: str) -> int:
    """Upper bound on the number of queries when every value is observed (spec §3.1, §13 item 2).

    ``cardinalities`` are those of the QI columns only. The 4-way count is before the 100k sample.
    """
    card = [int(c) for c in cardinalities]
    orders = {"2": (1,), "3": (2,), "4": (3,), "234": (1, 2, 3)}[str(k)]
    total = 0
    for order in orders:
        total += sum(math.prod(t) for t in itertools.combinations(card, order))
    return total


def available_count(cardinalities, k: str, max_4way: int = MAX_4WAY) -> int:
    """Full-domain count with the 4-way part capped at ``max_4way`` (what ``query_ratio`` can reach)."""
    k = str(k)
    if k == "4":
        return min(full_domain_count(cardinalities, "4"), max_4way)
    if k == "234":
        return (full_domain_count(cardinalities, "2") + full_domain_count(cardinalities, "3")
                + min(full_domain_count(cardinalities, "4"), max_4way))
    return full_domain_count(cardinalities, k)
