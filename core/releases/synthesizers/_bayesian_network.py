"""Greedy Bayesian networks of degree k on integer codes: the engine shared by BayNet and PrivBayes.

Source: Zhang, Cormode, Procopiuc, Srivastava & Xiao, "PrivBayes" (TODS 2017), Alg. 2–4, as implemented by
DataSynthesizer's correlated attribute mode (Ping et al. 2017), which the paper runs (Annamalai et al.,
USENIX Security 2024, §5.2, App. A); ``docs/specs/seed002_linear_recon_sdg.md`` §5.

Structure (``greedy_bayes``). The first attribute is drawn uniformly at random. With ``V`` the attributes
placed so far, every pair ``(X, Π)`` with ``X ∉ V`` and ``Π ⊆ V``, ``|Π| = min(k, |V|)``, is a candidate; the
one maximising the mutual information

    I(X; Π) = Σ_{x,π} p(x, π) log( p(x, π) / (p(x) p(π)) )        (natural log, empirical p)

is added (BayNet), or it is drawn by the exponential mechanism (PrivBayes) with probability

    P(X, Π) ∝ exp( I(X; Π) / (2Δ) ),   Δ = (d − 1) · S(X, Π) / ε_struct,

i.e. budget ``ε_struct / (d − 1)`` per choice, ``S`` the sensitivity of ``I`` under replacing one record:

    S = log(n)/n + (n−1)/n · log(n/(n−1))                       if X or a single parent is binary,
    S = 2/n · log((n+1)/2) + (n−1)/n · log((n+1)/(n−1))          otherwise.

Binary means a domain of ≤ 2 values (the domain, not the sample, so the test is data-independent).

Parameters (``conditional_tables``). The root and the first ``k`` children share one joint table of
``k + 1`` attributes; every later child gets the joint table of (parents, child): ``d − k`` tables in all
(one if ``d ≤ k + 1``). PrivBayes adds ``Lap(2(d − k)/ε_tables)`` to every cell of every table (L1
sensitivity 2 of a count table under replace-one, budget ``ε_tables/(d − k)`` per table), clips at 0, and
normalises each parent configuration's row (uniform when empty). Conditionals of the first ``k`` children
and the root's marginal are sums of the shared joint table.

Deviation from DataSynthesizer 0.1.11 (spec §11-A20): the library adds that Laplace noise, whose scale is
meant for *probabilities* (``2(d−k)/(nε)``), to *counts*, i.e. ``n`` times too little noise, and spends an
extra ε on unused 1-D histograms. We noise the counts with the scale the ε claim needs, so our PrivBayes is
ε-DP as stated (its utility at a given ε is lower than the paper's library run).

Sampling (``ancestral_sample``): attributes in network order, each drawn from its conditional given the
parents' already drawn values, vectorised over records (one ``searchsorted`` per attribute).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ...cancel import checkpoint
from ...errors import DataError
from ._categorical import cumulative, draw_from_rows, normalise_rows


@dataclass
class Node:
    """One attribute of the network: ``child`` drawn given ``parents`` with ``cpt[parent_config, value]``."""

    child: int
    parents: tuple[int, ...]
    cpt: np.ndarray | None = None


def parent_index(codes: np.ndarray, parents: tuple[int, ...], cards: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Mixed-radix index of each row's parent configuration, and the number of configurations."""
    idx = np.zeros(codes.shape[0], dtype=np.int64)
    size = 1
    for p in parents:
        idx = idx * cards[p] + codes[:, p]
        size *= cards[p]
    return idx, size


def mutual_information(x: np.ndarray, k: int, pidx: np.ndarray) -> float:
    """Empirical mutual information (nats) between codes ``x`` (domain ``k``) and parent indices ``pidx``."""
    n = x.shape[0]
    _, pc = np.unique(pidx, return_inverse=True)
    n_pc = int(pc.max()) + 1 if n else 1
    joint = np.bincount(x * n_pc + pc, minlength=k * n_pc).reshape(k, n_pc)
    px = joint.sum(axis=1, keepdims=True)
    pp = joint.sum(axis=0, keepdims=True)
    nz = joint > 0
    jn = joint[nz]
    return float(np.sum(jn / n * np.log(jn * n / (px * pp)[nz])))


def mi_sensitivity(n: int, child_binary: bool, single_binary_parent: bool) -> float:
    """Sensitivity of I(X; Π) under replacing one of ``n`` records (PrivBayes, Lemma 4.1 / 4.4)."""
    if child_binary or single_binary_parent:
        return math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    return 2 / n * math.log((n + 1) / 2) + (n - 1) / n * math.log((n + 1) / (n - 1))


def greedy_bayes(codes: np.ndarray, cards: tuple[int, ...], k: int, rng: np.random.Generator,
                 epsilon_structure: float | None = None) -> tuple[int, list[Node]]:
    """Learn a degree-``k`` network; ``epsilon_structure=None`` picks the best pair (BayNet), else the
    exponential mechanism with that budget (PrivBayes). Returns ``(root, nodes)`` in sampling order."""
    n, d = codes.shape
    if epsilon_structure is not None and n < 2:
        raise DataError("PrivBayes needs at least 2 records (its sensitivities divide by n − 1)")
    root = int(rng.integers(d))
    placed = [root]
    rest = [j for j in range(d) if j != root]
    nodes: list[Node] = []
    mi_cache: dict[tuple[int, tuple[int, ...]], float] = {}
    pidx_cache: dict[tuple[int, ...], np.ndarray] = {}
    binary = [c <= 2 for c in cards]
    sens_cache: dict[tuple[bool, bool], float] = {}
    while rest:
        checkpoint("fitting the Bayesian network")
        size = min(k, len(placed))
        candidates: list[tuple[int, tuple[int, ...]]] = []
        scores: list[float] = []
        parent_sets = [tuple(sorted(c)) for c in itertools.combinations(placed, size)]
        for parents in parent_sets:
            if parents not in pidx_cache:
                pidx_cache[parents] = parent_index(codes, parents, cards)[0]
            pidx = pidx_cache[parents]
            for child in rest:
                key = (child, parents)
                if key not in mi_cache:
                    mi_cache[key] = mutual_information(codes[:, child], cards[child], pidx)
                candidates.append(key)
                scores.append(mi_cache[key])
        mi = np.asarray(scores)
        if epsilon_structure is None:
            pick = int(np.argmax(mi))
        else:
            sens = np.empty(len(candidates))
            for i, (child, parents) in enumerate(candidates):
                flag = (binary[child], len(parents) == 1 and binary[parents[0]])
                if flag not in sens_cache:
                    sens_cache[flag] = mi_sensitivity(n, *flag)
                sens[i] = sens_cache[flag]
            delta = (d - 1) * sens / epsilon_structure
            logits = mi / (2 * delta)
            w = np.exp(logits - logits.max())
            pick = int(rng.choice(len(candidates), p=w / w.sum()))
        child, parents = candidates[pick]
        nodes.append(Node(child, parents))
        placed.append(child)
        rest.remove(child)
    return root, nodes


def _joint_counts(codes: np.ndarray, attrs: tuple[int, ...], cards: tuple[int, ...]) -> np.ndarray:
    idx, size = parent_index(codes, attrs, cards)
    return np.bincount(idx, minlength=size).astype(np.float64).reshape([cards[a] for a in attrs])


def conditional_tables(codes: np.ndarray, cards: tuple[int, ...], k: int, root: int, nodes: list[Node],
                       rng: np.random.Generator, epsilon_tables: float | None = None,
                       sensitivity: float = 2.0) -> np.ndarray:
    """Fill every node's ``cpt`` (shape ``(#parent configurations, K_child)``) from (noisy) joint counts;
    return the root's marginal. ``epsilon_tables=None``: exact counts (BayNet). ``sensitivity`` is the L1
    sensitivity of one count table under replace-one (2); only the known-bug gallery passes anything else."""
    d = codes.shape[1]
    n_tables = max(1, d - k)
    scale = None if epsilon_tables is None else sensitivity * n_tables / epsilon_tables

    def noisy(table: np.ndarray) -> np.ndarray:
        if scale is None:
            return table
        return np.clip(table + rng.laplace(0.0, scale, size=table.shape), 0.0, None)

    head = nodes[:k]
    head_attrs = (root,) + tuple(nd.child for nd in head)
    joint = noisy(_joint_counts(codes, head_attrs, cards))
    axes = {a: i for i, a in enumerate(head_attrs)}
    root_marginal = normalise_rows(joint.sum(axis=tuple(range(1, len(head_attrs)))))
    for nd in head:
        keep = [axes[p] for p in nd.parents] + [axes[nd.child]]
        drop = tuple(i for i in range(len(head_attrs)) if i not in keep)
        sub = joint.sum(axis=drop) if drop else joint
        # order the kept axes as (parents in nd.parents order, child)
        order = np.argsort(np.argsort(keep))
        sub = np.transpose(sub, order) if len(keep) > 1 else sub
        nd.cpt = normalise_rows(sub.reshape(-1, cards[nd.child]))
    for nd in nodes[k:]:
        checkpoint("fitting the Bayesian network")
        table = noisy(_joint_counts(codes, nd.parents + (nd.child,), cards))
        nd.cpt = normalise_rows(table.reshape(-1, cards[nd.child]))
    return root_marginal


def ancestral_sample(root: int, root_marginal: np.ndarray, nodes: list[Node], cards: tuple[int, ...],
                     m: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``m`` records attribute by attribute in network order (vectorised over records)."""
    out = np.zeros((m, len(cards)), dtype=np.int64)
    out[:, root] = draw_from_rows(cumulative(root_marginal[None, :]), np.zeros(m, dtype=np.int64), rng)
    for nd in nodes:
        pidx, _ = parent_index(out, nd.parents, cards)
        out[:, nd.child] = draw_from_rows(cumulative(nd.cpt), pidx, rng)
    return out
