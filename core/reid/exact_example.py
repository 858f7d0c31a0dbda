"""Exact reconstruction from exact subset sums: the slides' n = 5 example (CS208 lecture 2,
slides "Attacks on Exact Releases" and "Example for n = 5").

The release is ``(S_j, a_j = q_{S_j}(x))`` for ``j = 1..m`` with ``q_S(x) = Σ_{i∈S} x_i``, i.e. the
linear system ``M x = a`` where ``M`` is the m×n 0/1 matrix whose row ``j`` indicates ``S_j``.
Slide example: S1={1,2,3}, a1=2; S2={1,3,4}, a2=1; S3={4,5}, a3=1; S4={2,3,4,5}, a4=3;
S5={1,2,4,5}, a5=2, with unique solution x = (0,1,1,0,1). Here ``det M = −1`` (spec [M]), so the
real-valued solution of ``M x = a`` is unique and already 0/1.

Two solvers, both exact:

* **linear algebra** — least squares ``x̂ = argmin ‖a − M x‖²`` (``numpy.linalg.lstsq``); when
  ``rank M = n`` it is the unique solution of ``M x = a``;
* **brute force** over all ``2^n`` vectors of ``{0,1}^n`` (feasible for n ≤ 20): list every ``x̂``
  with ``M x̂ = a`` and the number of violated equations of every candidate.

The claim on the slide — for ``m = n`` uniformly random sets the dataset is reconstructed with
probability ``1 − o(1)`` — holds because a random 0/1 matrix is nonsingular whp
[Kahn–Komlós–Szemerédi, external]. :func:`solutions_vs_queries` illustrates it on a random
system: the number of ``{0,1}`` vectors consistent with the first ``m`` answers, for m = 1..m_max.

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ParameterError

SLIDE_SETS = ({1, 2, 3}, {1, 3, 4}, {4, 5}, {2, 3, 4, 5}, {1, 2, 4, 5})
SLIDE_ANSWERS = (2, 1, 1, 3, 2)
SLIDE_SOLUTION = (0, 1, 1, 0, 1)
MAX_BRUTE_FORCE_N = 20


def query_matrix(sets, n: int | None = None) -> np.ndarray:
    """The m×n 0/1 matrix ``M_S`` of 1-based index sets."""
    sets = [set(int(i) for i in s) for s in sets]
    if not sets or any(not s for s in sets):
        raise ParameterError("queries", "every query needs a non-empty set of indices")
    top = max(max(s) for s in sets)
    n = top if n is None else int(n)
    if min(min(s) for s in sets) < 1 or top > n:
        raise ParameterError("queries", f"indices must lie in 1..{n}")
    m = np.zeros((len(sets), n), dtype=np.int64)
    for j, s in enumerate(sets):
        m[j, [i - 1 for i in s]] = 1
    return m


def equations_text(m: np.ndarray, a) -> list[str]:
    """``x1 + x2 + x3 = 2`` for every row."""
    return [" + ".join(f"x{i + 1}" for i in np.flatnonzero(row)) + f" = {int(v) if float(v).is_integer() else v}"
            for row, v in zip(m, a)]


def parse_system(text: str) -> tuple[list[set], list[float]]:
    """Parse lines like ``{1,2,3} = 2`` (braces optional, ``;`` or newlines between queries)."""
    sets, answers = [], []
    for k, line in enumerate(re.split(r"[;\n]+", text or "")):
        line = line.strip()
        if not line:
            continue
        mt = re.fullmatch(r"\{?\s*([\d\s,]+?)\s*\}?\s*=\s*(-?\d+(?:\.\d+)?)", line)
        if not mt:
            raise ParameterError("queries", f"line {k + 1}: write it like '{{1,2,3}} = 2', got {line!r}")
        idx = [int(t) for t in re.split(r"[\s,]+", mt.group(1).strip()) if t]
        if not idx:
            raise ParameterError("queries", f"line {k + 1}: empty set")
        sets.append(set(idx))
        answers.append(float(mt.group(2)))
    if not sets:
        raise ParameterError("queries", "enter at least one query")
    return sets, answers


@dataclass
class LinearSolution:
    x: np.ndarray            # least-squares solution (real)
    rank: int
    det: float | None        # for square M
    residual: float          # ‖a − M x̂‖
    unique: bool             # rank M = n
    rounded: np.ndarray


def solve_linear(m: np.ndarray, a) -> LinearSolution:
    a = np.asarray(a, dtype=float)
    x, *_ = np.linalg.lstsq(m.astype(float), a, rcond=None)
    rank = int(np.linalg.matrix_rank(m))
    det = float(round(np.linalg.det(m))) if m.shape[0] == m.shape[1] else None
    return LinearSolution(x=x, rank=rank, det=det, residual=float(np.linalg.norm(a - m @ x)),
                          unique=rank == m.shape[1], rounded=(x >= 0.5).astype(np.int64))


def all_binary_vectors(n: int) -> np.ndarray:
    """The 2^n × n matrix of {0,1}^n in lexicographic order."""
    if not 1 <= n <= MAX_BRUTE_FORCE_N:
        raise ParameterError("n", f"brute force needs 1 ≤ n ≤ {MAX_BRUTE_FORCE_N}")
    return ((np.arange(2 ** n)[:, None] >> np.arange(n - 1, -1, -1)) & 1).astype(np.int64)


@dataclass
class BruteForce:
    candidates: np.ndarray     # 2^n × n
    n_violated: np.ndarray     # equations violated by each candidate
    solutions: np.ndarray      # the consistent candidates


def brute_force(m: np.ndarray, a) -> BruteForce:
    cand = all_binary_vectors(m.shape[1])
    viol = (cand @ m.T != np.asarray(a)[None, :]).sum(axis=1)
    return BruteForce(cand, viol, cand[viol == 0])


@dataclass
class ExactExample:
    sets: list
    answers: np.ndarray
    matrix: np.ndarray
    equations: list[str]
    linear: LinearSolution
    brute: BruteForce

    def candidates_table(self) -> pd.DataFrame:
        """Every candidate in {0,1}^n with how many equations it violates."""
        c = self.brute.candidates
        return pd.DataFrame({"x̂": ["(" + ",".join(map(str, r)) + ")" for r in c],
                             "equations_violated": self.brute.n_violated})

    def metrics(self) -> dict:
        return {"n": self.matrix.shape[1], "m": self.matrix.shape[0], "rank": self.linear.rank,
                "det": self.linear.det if self.linear.det is not None else float("nan"),
                "n_binary_solutions": len(self.brute.solutions), "residual": self.linear.residual}


def exact_example(sets=SLIDE_SETS, answers=SLIDE_ANSWERS, n: int | None = None) -> ExactExample:
    """Solve ``M x = a`` both ways (the page's one engine call). Defaults to the slide's example."""
    m = query_matrix(sets, n)
    a = np.asarray(answers, dtype=float)
    if len(a) != m.shape[0]:
        raise ParameterError("answers", f"{m.shape[0]} queries but {len(a)} answers")
    return ExactExample(list(map(sorted, sets)), a, m, equations_text(m, a), solve_linear(m, a), brute_force(m, a))


def solutions_vs_queries(n: int = 12, m_max: int | None = None, p: float = 0.5, seed: int = 0) -> pd.DataFrame:
    """Random secret ``x ~ Bernoulli(p)^n`` and random sets (each index with prob. 1/2); for m = 1..m_max
    the number of ``{0,1}`` vectors consistent with the first m exact answers and ``rank M``."""
    if not 2 <= n <= 16:
        raise ParameterError("n", "must be between 2 and 16 for exhaustive search")
    m_max = 2 * n if m_max is None else int(m_max)
    rng = np.random.default_rng(seed)
    x = (rng.random(n) < p).astype(np.int64)
    m = (rng.random((m_max, n)) < 0.5).astype(np.int64)
    a = m @ x
    cand = all_binary_vectors(n)
    ok = np.ones(len(cand), dtype=bool)
    rows = []
    for j in range(m_max):
        ok &= cand @ m[j] == a[j]
        rows.append({"m": j + 1, "n_consistent": int(ok.sum()), "rank": int(np.linalg.matrix_rank(m[: j + 1])),
                     "unique": bool(ok.sum() == 1)})
    return pd.DataFrame(rows)


def exact_example_from_text(text: str, n: int | None = None) -> ExactExample:
    """:func:`parse_system` then :func:`exact_example` (for a text box of queries and answers)."""
    sets, answers = parse_system(text)
    return exact_example(sets, answers, n)


def slide_system_text() -> str:
    return "\n".join("{" + ",".join(map(str, sorted(s))) + "} = " + str(a) for s, a in zip(SLIDE_SETS, SLIDE_ANSWERS))
