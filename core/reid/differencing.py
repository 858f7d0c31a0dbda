"""Differencing attack on chosen subset-sum queries (CS208 lecture 2, slide "Attacks on Aggregate Statistics").

Set-up (slide): dataset ``x ∈ {0,1}^n``; person ``i`` (known) has the sensitive bit ``x_i``; the
adversary gets ``q_S(x) = Σ_{i∈S} x_i`` for sets ``S ⊆ [n]`` it chooses. The slide asks "how to
attack?" and "what if we restrict to sets of size at least n/10?" ([Ziv '13]: used on the
Israeli Central Bureau of Statistics). The answers (spec §B2.7, [D]):

* **complement** differencing: ``x_i = q([n]) − q([n] ∖ {i})``. One shared query plus one per
  target: ``n + 1`` queries for all ``n`` bits, every query of size ≥ ``n − 1``.
* **padded** differencing, for a size floor ``s = ⌈f·n⌉``: pick any ``S`` with ``|S| ≥ s`` and
  ``i ∉ S``; then ``x_i = q(S ∪ {i}) − q(S)``. Here ``S`` is the ``s`` indices that follow ``i``
  cyclically. Two queries per bit: all ``n`` bits with ``2n`` queries, none smaller than ``s``.

A minimum query size therefore does not protect anyone: both answers are large aggregates, yet
their difference is one person's bit. :class:`SubsetSumOracle` answers exactly and refuses sets
below its floor (so the naive ``q({i})`` is refused), logging every query it answers.

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil

import numpy as np
import pandas as pd

from ..errors import ParameterError


class QueryRefused(ParameterError):
    """The curator refuses a query set smaller than its size floor."""

    def __init__(self, size: int, floor: int):
        super().__init__("query", f"|S| = {size} is below the curator's minimum query size {floor}")


@dataclass
class SubsetSumOracle:
    """Exact answers ``q_S(x) = Σ_{i∈S} x_i`` (0-based indices), refusing ``|S| < min_size``."""

    x: np.ndarray
    min_size: int = 0
    log: list = field(default_factory=list)

    def __post_init__(self):
        self.x = np.asarray(self.x)
        if self.x.ndim != 1 or not np.isin(self.x, (0, 1)).all():
            raise ParameterError("x", "the dataset must be a vector of 0/1 bits")

    @property
    def n(self) -> int:
        return len(self.x)

    def query(self, subset) -> int:
        s = np.unique(np.asarray(list(subset), dtype=np.int64))
        if len(s) and (s.min() < 0 or s.max() >= self.n):
            raise ParameterError("query", f"indices must lie in 0..{self.n - 1}")
        if len(s) < self.min_size:
            raise QueryRefused(len(s), self.min_size)
        ans = int(self.x[s].sum())
        self.log.append((s, ans))
        return ans


def describe_set(s: np.ndarray, n: int) -> str:
    """Compact 1-based notation: ``[n]``, ``[n] ∖ {7}``, ``{3..12}``, ``{1..4, 98..100}``."""
    s = np.sort(np.asarray(s))
    if len(s) == n:
        return "[n]"
    if len(s) >= n / 2:
        missing = np.setdiff1d(np.arange(n), s)
        return "[n] ∖ " + describe_set(missing, n)
    runs, start = [], None
    for a, b in zip(s, np.append(s[1:], -10)):
        start = a if start is None else start
        if b != a + 1:
            runs.append(f"{start + 1}" if a == start else f"{start + 1}..{a + 1}")
            start = None
    return "{" + ", ".join(runs) + "}"


@dataclass
class DifferencingResult:
    method: str
    n: int
    min_size: int
    queries: pd.DataFrame     # every query asked: set (text), size, answer
    bits: pd.DataFrame        # per target: the two queries, their answers, recovered and true bit
    recovered: np.ndarray
    n_queries: int
    direct_query_refused: bool

    @property
    def n_correct(self) -> int:
        return int(self.bits["correct"].sum())

    def metrics(self) -> dict:
        return {"n": self.n, "min_query_size": self.min_size, "n_queries": self.n_queries,
                "queries_per_bit": self.n_queries / max(len(self.bits), 1), "n_bits_recovered": self.n_correct,
                "pct_bits_recovered": 100.0 * self.n_correct / max(len(self.bits), 1),
                "smallest_query": int(self.queries["size"].min())}


METHODS = {"padded": "x_i = q(S ∪ {i}) − q(S), |S| ≥ floor (2 queries per bit)",
           "complement": "x_i = q([n]) − q([n] ∖ {i}) (n + 1 queries)"}


def differencing_attack(x, min_size_fraction: float = 0.1, method: str = "padded", targets=None) -> DifferencingResult:
    """Recover ``x_i`` for each target (default: all ``i``) from exact chosen subset sums above a size floor.

    ``min_size_fraction`` is the curator's floor as a fraction of ``n`` (the slide's 1/10);
    ``targets`` are 0-based indices.
    """
    x = np.asarray(x)
    n = len(x)
    if n < 2:
        raise ParameterError("n", "need at least 2 people")
    if not 0.0 <= float(min_size_fraction) < 1.0:
        raise ParameterError("min_size_fraction", "must be in [0, 1)")
    floor = int(ceil(min_size_fraction * n))
    if floor > n - 1:
        raise ParameterError("min_size_fraction", f"a floor of {floor} leaves no room for differencing with n = {n}")
    if method not in METHODS:
        raise ParameterError("method", f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    targets = np.arange(n) if targets is None else np.asarray(targets, dtype=np.int64).ravel()
    if len(targets) == 0 or targets.min() < 0 or targets.max() >= n:
        raise ParameterError("targets", f"targets must be indices in 1..{n}")
    oracle = SubsetSumOracle(x, min_size=floor)
    try:
        oracle.query([targets[0]])
        refused = False
    except QueryRefused:
        refused = True
    oracle.log.clear()  # the probe above is not part of the attack

    rows = []
    everyone = np.arange(n)
    if method == "complement":
        a_all = oracle.query(everyone)
        for i in targets:
            s = np.delete(everyone, i)
            a_s = oracle.query(s)
            rows.append((i, "[n]", n, a_all, describe_set(s, n), n - 1, a_s))
    else:
        size = max(floor, 1)
        for i in targets:
            s = (i + 1 + np.arange(size)) % n
            with_i = np.append(s, i)
            a_with = oracle.query(with_i)
            a_s = oracle.query(s)
            rows.append((i, describe_set(with_i, n), size + 1, a_with, describe_set(s, n), size, a_s))
    bits = pd.DataFrame(rows, columns=["target", "query_with_i", "size_with_i", "answer_with_i",
                                       "query_without_i", "size_without_i", "answer_without_i"])
    bits["recovered_bit"] = bits["answer_with_i"] - bits["answer_without_i"]
    bits["true_bit"] = x[bits["target"].to_numpy()]
    bits["correct"] = bits["recovered_bit"] == bits["true_bit"]
    bits["target"] = bits["target"] + 1  # 1-based like the slides
    queries = pd.DataFrame({"set": [describe_set(s, n) for s, _ in oracle.log],
                            "size": [len(s) for s, _ in oracle.log], "answer": [a for _, a in oracle.log]})
    recovered = np.full(n, -1, dtype=np.int64)
    recovered[targets] = bits["recovered_bit"].to_numpy()
    return DifferencingResult(method, n, floor, queries, bits, recovered, len(oracle.log), refused)
