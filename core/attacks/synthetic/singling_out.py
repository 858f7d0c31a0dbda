"""Singling out: predicates read off the synthetic data that isolate exactly one real person.

Source: Giomi et al., "A Unified Framework for Quantifying Privacy Risk in Synthetic Data" (PoPETs 2023), §4.1
(the multivariate singling-out attack), after the Article 29 Working Party's Opinion 05/2014, which names
singling out — "isolating some or all records which identify an individual" — as the first of the three risks
an anonymisation must defeat.

The attacker holds only the synthetic table S. A query is a conjunction of equalities ``col₁ = v₁ ∧ … ∧ col_k =
v_k`` on ``k`` columns (``n_cols``, the paper's default 3): pick a synthetic row at random and ``k`` of its columns
at random, and keep the query if it matches exactly one row of S (a synthetic "unique": the attacker's guess that a
unique real person lies behind it). Distinct queries are collected until ``n_queries`` are found or
``max_attempts`` draws are spent. A query *succeeds* on a table T if it matches exactly one row of T: it singles
out a person there.

The success rate on the training records against the rate on control records of the same size (queries that
isolate a stranger by the population's structure alone) gives the risk
(:func:`core.measure.synthetic_risk.control_risk`). The tables are category codes; equality on a code is equality
on the category (a numeric column the import binned is matched by its bin).
"""
from __future__ import annotations

import numpy as np

N_COLS = 3


class _Counts:
    """How many rows of a table match each value combination of a column subset (one sorted key array per subset,
    built on first use), so a query is counted by one binary search instead of a scan of the table."""

    def __init__(self, T: np.ndarray):
        self.T = np.asarray(T, dtype=np.int64)
        self.radix = self.T.max(axis=0) + 1 if self.T.size else np.ones(self.T.shape[1], np.int64)
        self._by_cols: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def _key(self, values: np.ndarray, cols: tuple[int, ...]) -> np.ndarray:
        key = np.zeros(values.shape[0], dtype=np.int64)
        for j, c in enumerate(cols):  # mixed radix on the subset's columns (k ≤ a few columns: no overflow)
            key = key * int(max(self.radix[c], 1)) + values[:, j]
        return key

    def count_many(self, cols: tuple[int, ...], values: np.ndarray) -> np.ndarray:
        """Rows of the table matching each row of ``values`` (one value per column of ``cols``)."""
        if cols not in self._by_cols:
            keys, counts = np.unique(self._key(self.T[:, list(cols)], cols), return_counts=True)
            self._by_cols[cols] = (keys, counts)
        keys, counts = self._by_cols[cols]
        v = np.asarray(values, dtype=np.int64).reshape(-1, len(cols))
        known = ((v < self.radix[list(cols)]) & (v >= 0)).all(axis=1)  # else a value the table never takes
        key = self._key(np.where(known[:, None], v, 0), cols)
        i = np.minimum(np.searchsorted(keys, key), max(keys.size - 1, 0))
        hit = known & (keys.size > 0) & (keys[i] == key) if keys.size else np.zeros(len(v), bool)
        return np.where(hit, counts[i] if keys.size else 0, 0)


def singling_out_queries(S: np.ndarray, rng: np.random.Generator, n_queries: int = 500, n_cols: int = N_COLS,
                         max_attempts: int | None = None) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Up to ``n_queries`` distinct queries ``(columns, values)`` that each match exactly one row of ``S``."""
    S = np.asarray(S, dtype=np.int64)
    m, d = S.shape
    k = max(1, min(int(n_cols), d))
    attempts = int(max_attempts if max_attempts is not None else 20 * n_queries)
    counts = _Counts(S)
    rows = rng.integers(0, m, size=attempts)
    cols = np.argsort(rng.random((attempts, d)), axis=1)[:, :k]
    cols.sort(axis=1)
    unique = np.zeros(attempts, dtype=bool)
    subsets, which = np.unique(cols, axis=0, return_inverse=True)
    for s_i, subset in enumerate(subsets):  # one vectorised count per column subset
        at = np.nonzero(which.ravel() == s_i)[0]
        unique[at] = counts.count_many(tuple(int(c) for c in subset), S[rows[at]][:, subset]) == 1
    found: dict[tuple, None] = {}
    for i in np.nonzero(unique)[0]:  # in draw order, so the first n_queries distinct ones are kept
        c = tuple(int(x) for x in cols[i])
        found.setdefault((c, tuple(int(v) for v in S[rows[i], list(c)])), None)
        if len(found) >= n_queries:
            break
    return list(found)


def singles_out(T: np.ndarray, queries: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> np.ndarray:
    """One bool per query: does it match exactly one row of ``T``?"""
    counts = _Counts(T)
    return np.array([counts.count_many(c, np.asarray([v]))[0] == 1 for c, v in queries], dtype=bool)
