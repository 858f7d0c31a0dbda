"""RAP — relaxed adaptive projection reconstruction (Dick et al., PNAS 2023; DeSIA paper §2.4.2, spec §4.2).

A "fixed" generator is a matrix of logits ``Θ ∈ ℝ^{K'×d}`` with ``K'`` rows (the internal dimension, 1000)
and ``d = Σ_i |𝒱_i|`` columns; row ``k`` defines one independent categorical distribution per attribute,
``p_{k,i} = softmax(Θ_{k, block i})``. The relaxed answer of a query ``q = (V_1^q..V_n^q)`` is

    â_q = (1/K') Σ_k Π_{i constrained by q} P_{k,i,q},     P_{k,i,q} = Σ_{v ∈ V_i^q} p_{k,i,v},

fitted to the normalised release ``a_q = q(D)/s``. Each of T = 1000 steps samples |I| = 1024 query indices
with replacement with probability ∝ |â − a| (recomputed every step) and takes one Adam step (lr 0.1,
β = (0.9, 0.999), ε = 1e-8, no scheduler) on ``L = ‖â_I − a_I‖₂ / |I|``. The gradient is analytic:

    ∂L/∂â_q = c_q (â_q − a_q) / (|I| ‖â_I − a_I‖₂)        (c_q = multiplicity of q in I)
    ∂â_q/∂p_{k,i,v} = (1/K') 𝟙[v ∈ V_i^q] Π_{i'≠i} P_{k,i',q}
    ∂L/∂Θ_{k,i,:} = p_{k,i} ⊙ (g_{k,i} − ⟨g_{k,i}, p_{k,i}⟩),   g_{k,i} = ∂L/∂p_{k,i}.

Initialisation (reference code, spec §4.2): logits start N(0, 1); each row is then tied to one record —
``init="init"``: a record of ``D_aux`` (drawn with replacement when ``|D_aux| ≠ K'``); ``init="rand"``: a
uniformly random domain record (the paper's wording, spec §11 item 11) — by setting the logit of the
record's value in every block to the row's maximum and all other logits to twice the row's minimum.

Output: from each of the K generators, ``s`` distinct rows are picked at random and every attribute is
sampled from the row's softmax, giving one tentative dataset of size ``s``.

Implementation: the K generators are trained together in batches of ``batch_size`` (per attribute one
contiguous ``(B·K', |𝒱_i|)`` logit block); Adam is element-wise and each generator samples its own queries
from its own random stream, so batching does not couple them, and the result does not depend on the
batch size beyond float rounding. Per attribute, the queries' masks are deduplicated: ``p_i @ U_i`` with the
``u_i`` distinct masks is one small matmul, gathered to the m queries (1 where unconstrained); the
backward pass sums over queries sharing a mask with a one-hot matmul. Leave-one-out products use
prefix/suffix products. Batches run on ``n_jobs`` threads (numpy
releases the GIL in its kernels).

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits
from concurrent.futures import ThreadPoolExecutor

from ...cancel import checkpoint
from ...errors import DataError, ParameterError
from ...releases.aggregate_release import AggregateRelease

__all__ = ["RAP"]

_INIT = ("rand", "init")


class RAP:
    """Relaxed-adaptive-projection reconstruction attack, K generators (RAP-rand / RAP-init).

    Parameters
    ----------
    init : "rand" | "init"
    reconstructions : int — K generators, one tentative dataset each (paper: 100).
    rows : int — internal dimension K' (paper: 1000); must be ≥ the release size s.
    steps : int — Adam steps T (paper: 1000).
    lr : float — Adam learning rate (0.1).
    queries_per_step : int — |I|, query indices sampled per step ∝ |error| (1024).
    batch_size : int — generators trained together in one tensor.
    n_jobs : int — threads over batches.

    After :meth:`reconstruct`, ``history_`` holds the mean absolute error of the relaxed normalised answers
    ``|â − a|`` per step (length ``steps + 1``), averaged over the K generators.
    """

    def __init__(self, init: str = "rand", reconstructions: int = 100, rows: int = 1000, steps: int = 1000,
                 lr: float = 0.1, queries_per_step: int = 1024, batch_size: int = 10, n_jobs: int = 2):
        if init not in _INIT:
            raise ParameterError("init", f"must be one of {_INIT}, got {init!r}")
        for name, val in (("reconstructions", reconstructions), ("rows", rows), ("n_jobs", n_jobs),
                          ("queries_per_step", queries_per_step), ("batch_size", batch_size)):
            if int(val) < 1:
                raise ParameterError(name, "must be at least 1")
        if int(steps) < 0:
            raise ParameterError("steps", "must be non-negative")
        if not lr > 0:
            raise ParameterError("lr", "must be positive")
        self.init = init
        self.reconstructions = int(reconstructions)
        self.rows = int(rows)
        self.steps = int(steps)
        self.lr = float(lr)
        self.queries_per_step = int(queries_per_step)
        self.batch_size = int(batch_size)
        self.n_jobs = int(n_jobs)
        self.history_: np.ndarray | None = None

    # --------------------------------------------------------------------------- structure
    @staticmethod
    def _structure(release: AggregateRelease) -> list[dict | None]:
        """Per attribute: the distinct masks ``U`` (|𝒱_i|, u_i), the index ``col`` (m,) of each query's mask
        (``u_i`` = unconstrained, a column of ones) and the one-hot ``onehot`` (m, u_i) for the backward
        pass; None if no query constrains the attribute."""
        m = release.n_queries
        out = []
        for i, card in enumerate(release.cardinalities):
            qi = [j for j, q in enumerate(release.masks) if q[i] is not None]
            if not qi:
                out.append(None)
                continue
            table = np.stack([np.asarray(release.masks[j][i], dtype=bool) for j in qi])
            uniq, assign = np.unique(table, axis=0, return_inverse=True)
            u = uniq.shape[0]
            col = np.full(m, u, dtype=np.intp)
            col[qi] = assign.ravel()
            onehot = np.zeros((m, u), dtype=np.float32)
            onehot[qi, assign.ravel()] = 1.0
            out.append(dict(U=np.ascontiguousarray(uniq.T, dtype=np.float32),
                            UT=np.ascontiguousarray(uniq, dtype=np.float32), col=col, onehot=onehot))
        return out

    # --------------------------------------------------------------------------- pieces
    def _init_logits(self, rngs, cards, aux):
        """Per attribute a (B·K', |𝒱_i|) logit block: N(0,1), then tied to one record per row."""
        n_rows, width = self.rows, int(sum(cards))
        offsets = np.concatenate([[0], np.cumsum(cards)])
        blocks = [np.empty((len(rngs) * n_rows, c), dtype=np.float32) for c in cards]
        for b, r in enumerate(rngs):
            w = r.standard_normal((n_rows, width)).astype(np.float32)
            if self.init == "init":
                idx = np.arange(n_rows) if len(aux) == n_rows else r.integers(0, len(aux), n_rows)
                recs = aux[idx]
            else:
                recs = np.stack([r.integers(0, c, n_rows) for c in cards], axis=1)
            hi = w.max(axis=1)
            lo = 2.0 * w.min(axis=1)
            w[:] = lo[:, None]
            for i in range(len(cards)):
                w[np.arange(n_rows), offsets[i] + recs[:, i]] = hi
            for i in range(len(cards)):
                blocks[i][b * n_rows:(b + 1) * n_rows] = w[:, offsets[i]:offsets[i + 1]]
        return blocks

    @staticmethod
    def _softmax(z: np.ndarray) -> np.ndarray:
        p = z - z.max(axis=1, keepdims=True)
        np.exp(p, out=p)
        p /= p.sum(axis=1, keepdims=True)
        return p

    @staticmethod
    def _forward(ps, struct, b, m):
        """Factors G_i (B·K', m) with G_i[:, q] = Σ_{v∈V_i^q} p_i[:, v] (1 if unconstrained), their prefix
        products (``prefix[j]`` = product of the first j live factors) and the relaxed answers â (B, m)."""
        factors = []
        for p, st in zip(ps, struct):
            if st is None:
                factors.append(None)
                continue
            pu = np.empty((p.shape[0], st["U"].shape[1] + 1), dtype=p.dtype)
            np.matmul(p, st["U"], out=pu[:, :-1])
            pu[:, -1] = 1.0
            factors.append(np.take(pu, st["col"], axis=1))
        live = [f for f in factors if f is not None]
        if not live:
            return factors, [None], np.ones((b, m), dtype=np.float32)
        prefix = [None, live[0]]
        for f in live[1:]:
            prefix.append(prefix[-1] * f)
        return factors, prefix, prefix[-1].reshape(b, -1, m).mean(axis=1)

    def _gradient(self, ps, factors, prefix, struct, err, counts, b):
        """∂L/∂logits per attribute for L_k = ‖â_I − a_I‖₂/|I| of every generator k.

        ``counts[k, q]`` is the multiplicity of query q in generator k's sample I."""
        r = ps[0].shape[0] // b
        m = err.shape[1]
        norm = np.sqrt((counts * err * err).sum(axis=1, keepdims=True))
        g_ans = np.where(norm > 0, counts * err / (self.queries_per_step * np.maximum(norm, 1e-30)), 0.0)
        w = (g_ans / r).astype(ps[0].dtype)[:, None, :]           # ∂L/∂(row product), (B, 1, m)
        live = [i for i, f in enumerate(factors) if f is not None]
        grads = [None] * len(ps)
        for i, p in enumerate(ps):
            if factors[i] is None:
                grads[i] = np.zeros_like(p)
        if not live:
            return grads
        # suffix[j] = w · Π_{l ≥ j} G_live[l]  (B·K', m); suffix[len] = w (broadcast)
        suffix = [None] * (len(live) + 1)
        for j in reversed(range(len(live))):
            g = factors[live[j]]
            if j == len(live) - 1:
                suffix[j] = (g.reshape(b, r, m) * w).reshape(b * r, m)
            else:
                suffix[j] = g * suffix[j + 1]
        for j, i in enumerate(live):
            if j == len(live) - 1:
                other = (prefix[j].reshape(b, r, m) * w).reshape(b * r, m) if prefix[j] is not None \
                    else np.broadcast_to(w, (b, r, m)).reshape(b * r, m)
            else:
                other = suffix[j + 1] if prefix[j] is None else prefix[j] * suffix[j + 1]
            gp = (other @ struct[i]["onehot"]) @ struct[i]["UT"]      # ∂L/∂p_i  (B·K', |𝒱_i|)
            p = ps[i]
            gp -= (gp * p).sum(axis=1, keepdims=True)
            gp *= p
            grads[i] = gp
        return grads

    # --------------------------------------------------------------------------- public
    def reconstruct(self, release: AggregateRelease, rng: np.random.Generator,
                    aux_records: np.ndarray | None = None) -> np.ndarray:
        """Return K tentative datasets as an integer array of shape ``(K, s, d)``."""
        s = int(release.size)
        d = len(release.cardinalities)
        if s < 1:
            raise DataError("the release has no records (size < 1)")
        if s > self.rows:
            raise ParameterError("rows", f"the internal dimension ({self.rows}) must be at least s = {s}")
        if self.init == "init":
            if aux_records is None or len(aux_records) == 0:
                raise ParameterError("aux_records", "RAP-init needs auxiliary records")
            aux_records = np.asarray(aux_records)
            if aux_records.ndim != 2 or aux_records.shape[1] != d:
                raise DataError(f"aux_records must have shape (n, {d})")
        cards = [int(c) for c in release.cardinalities]
        struct = self._structure(release)
        target = (np.asarray(release.answers, dtype=np.float64) / s).astype(np.float32)
        seeds = rng.integers(0, 2**62, size=self.reconstructions)
        batches = [seeds[lo:lo + self.batch_size] for lo in range(0, self.reconstructions, self.batch_size)]

        def run(batch_seeds):
            rngs = [np.random.default_rng(int(x)) for x in batch_seeds]
            blocks, hist = self._fit(rngs, cards, struct, target, aux_records)
            return self._sample(blocks, rngs, s), hist * len(rngs)

        # single-threaded BLAS: these matmuls are small, and two OpenBLAS threads fighting over two
        # cores (or over other work) were measured 4-8x slower; parallelism comes from n_jobs instead
        with threadpool_limits(limits=1, user_api="blas"):
            if self.n_jobs > 1 and len(batches) > 1:
                with ThreadPoolExecutor(max_workers=min(self.n_jobs, len(batches))) as pool:
                    results = list(pool.map(run, batches))
            else:
                results = [run(bs) for bs in batches]
        self.history_ = sum(h for _, h in results) / self.reconstructions
        return np.concatenate([rec for rec, _ in results])

    def _fit(self, rngs, cards, struct, target, aux):
        blocks = self._init_logits(rngs, cards, aux)
        b = len(rngs)
        m = target.size
        mom = [np.zeros_like(z) for z in blocks]
        vel = [np.zeros_like(z) for z in blocks]
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        hist = np.empty(self.steps + 1)
        counts = np.empty((b, m), dtype=np.float32)
        for t in range(self.steps + 1):
            if t % 25 == 0:
                checkpoint("RAP reconstruction")
            ps = [self._softmax(z) for z in blocks]
            factors, prefix, ans = self._forward(ps, struct, b, m)
            err = ans - target[None, :]
            abs_err = np.abs(err)
            hist[t] = abs_err.mean()
            if t == self.steps:
                break
            # query indices sampled with replacement ∝ |error|, per generator
            tot = abs_err.sum(axis=1, dtype=np.float64)
            for k in range(b):
                pk = abs_err[k].astype(np.float64) / tot[k] if tot[k] > 0 else np.full(m, 1.0 / m)
                counts[k] = rngs[k].multinomial(self.queries_per_step, pk / pk.sum())
            grads = self._gradient(ps, factors, prefix, struct, err, counts, b)
            # Adam (torch defaults), element-wise so generators stay independent
            step = t + 1
            lr_t = self.lr / (1 - beta1 ** step)
            inv_c2 = 1.0 / np.sqrt(1 - beta2 ** step)
            for z, mo, ve, g in zip(blocks, mom, vel, grads):
                mo -= g
                mo *= beta1
                mo += g                     # β1·m + (1 − β1)·g
                g *= g
                ve -= g
                ve *= beta2
                ve += g                     # β2·v + (1 − β2)·g²
                np.sqrt(ve, out=g)
                g *= inv_c2
                g += eps
                np.divide(mo, g, out=g)
                g *= lr_t
                z -= g
        return blocks, hist

    def _sample(self, blocks, rngs, s):
        out = np.empty((len(rngs), s, len(blocks)), dtype=np.int64)
        for k, r in enumerate(rngs):
            rows = k * self.rows + r.choice(self.rows, size=s, replace=False)
            for i, z in enumerate(blocks):
                p = self._softmax(z[rows].astype(np.float64))
                cdf = np.cumsum(p, axis=1)
                u = r.random(s) * cdf[:, -1]
                out[k, :, i] = np.minimum((cdf < u[:, None]).sum(axis=1), z.shape[1] - 1)
        return out

