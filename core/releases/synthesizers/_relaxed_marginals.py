"""Relaxed tabular data and its 3-way marginals, with the closed-form gradient: the engine of RAP and
RAP^softmax (numpy, no autograd).

Source: Aydore et al., "Differentially private query release through adaptive projection" (ICML 2021) and
Liu, Vietri & Wu, "Iterative methods for private synthetic data" (NeurIPS 2021), as configured by Annamalai,
Gadotti & Rocher (USENIX Security 2024), App. A; ``docs/specs/seed002_linear_recon_sdg.md`` §5.

Relaxation ("FixedGenerator", one softmax block per attribute). Parameters ``Z ∈ ℝ^{K×D}`` (stored
transposed),
``D = Σ_j K_j``; the relaxed table is ``X = softmax_blocks(Z)``: row ``r``'s block ``j`` is a probability
vector over attribute ``j``'s values. A 3-way marginal query ``q = (a, b, c, u, v, w)`` (attributes
``a < b < c``, values ``u, v, w``) answers on ``X``

    q(X) = (1/K) Σ_r X[r, a:u] · X[r, b:v] · X[r, c:w],

which on a one-hot (real) table is the fraction of records with ``x_a = u, x_b = v, x_c = w``.

Vectorised evaluation. For each attribute pair ``(a, b)`` let ``P_ab[r, (u, v)] = X[r, a:u] X[r, b:v]``; the
answers of all queries whose first two attributes are ``(a, b)`` are the matrix ``X[:, tail(b)]ᵀ P_ab / K``,
``tail(b)`` = the (contiguous) columns of all attributes ``c > b``. Queries are numbered pair by pair, each
pair's block flattened row-major, so a *workload* (all cells of one triple ``(a, b, c)``) is a contiguous
index range.

Gradient of ``L = Σ_q g_q q(X)`` (``g = ∂L/∂q``, non-zero on the ≤ 1024 queries of a step): for each such
query ``(a:u, b:v, c:w)``

    ∂L/∂X[r, a:u] += g_q X[r, b:v] X[r, c:w] / K   (and symmetrically for b:v and c:w),

a gather, a product and one sparse scatter-add; then through the softmax of each block
``∂L/∂Z = X ⊙ (∂L/∂X − Σ_block X ⊙ ∂L/∂X)``. Cost per step: ``O(K · #queries)`` for the answers (needed for
the errors anyway) in a few dozen BLAS calls, ``O(K · 1024)`` for the gradient.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from ...errors import DataError
from ._categorical import cumulative, draw_from_rows

DTYPE = np.float32   # the relaxed table and its answers; errors against the data are float64


class ThreeWayMarginals:
    """All 3-way marginal queries over attributes with domain sizes ``cards`` (every cell of every triple).

    Relaxed tables are stored *transposed*, ``xt`` of shape ``(D, K)`` (one column per relaxed row), so every
    attribute block and every tail is a contiguous slab of rows and each pair costs one BLAS call.
    """

    def __init__(self, cards: tuple[int, ...]):
        cards = tuple(int(c) for c in cards)
        if len(cards) < 3:
            raise DataError(f"RAP matches 3-way marginals and needs at least 3 attributes; the table has {len(cards)}")
        self.cards = cards
        self.d = len(cards)
        self.offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
        self.width = int(self.offsets[-1])
        self.pairs: list[tuple[int, int, int, int]] = []  # (a, b, first query index, tail width)
        workloads: list[tuple[int, int, int, int, int]] = []  # (a, b, c, start, end)
        start = 0
        for a in range(self.d):
            for b in range(a + 1, self.d - 1):
                tail = self.width - int(self.offsets[b + 1])
                self.pairs.append((a, b, start, tail))
                block = cards[a] * cards[b]
                for c in range(b + 1, self.d):
                    lo = start + (int(self.offsets[c]) - int(self.offsets[b + 1])) * block
                    workloads.append((a, b, c, lo, lo + cards[c] * block))
                start += tail * block
        self.n_queries = start
        self.workloads = np.asarray(workloads, dtype=np.int64)
        # every attribute pair (a < b), its product rows ("cells" (u, v)) stacked in one matrix
        self.cell_start: dict[tuple[int, int], int] = {}
        n_cells = 0
        for a in range(self.d):
            for b in range(a + 1, self.d):
                self.cell_start[(a, b)] = n_cells
                n_cells += cards[a] * cards[b]
        self.n_cells = n_cells
        self._rows: np.ndarray | None = None
        self._cells: np.ndarray | None = None

    def _block(self, xt: np.ndarray, j: int) -> np.ndarray:
        return xt[self.offsets[j]:self.offsets[j + 1]]

    # ------------------------------------------------------------------ relaxed table
    def one_hot(self, codes: np.ndarray) -> np.ndarray:
        """The real table as a transposed ``(D, n)`` one-hot matrix (its answers are the true marginals)."""
        out = np.zeros((self.width, codes.shape[0]), dtype=DTYPE)
        cols = np.arange(codes.shape[0])
        for j in range(self.d):
            out[self.offsets[j] + codes[:, j], cols] = 1.0
        return out

    def data_answers(self, codes: np.ndarray) -> np.ndarray:
        """All query answers on a table of integer codes, by counting (``bincount`` per workload): the
        same numbers as ``answers(one_hot(codes))`` without building the one-hot products."""
        out = np.empty(self.n_queries, dtype=np.float64)
        n = codes.shape[0]
        for a, b, c, lo, hi in self.workloads:
            ca, cb = self.cards[a], self.cards[b]
            idx = (codes[:, c] * ca + codes[:, a]) * cb + codes[:, b]
            out[lo:hi] = np.bincount(idx, minlength=hi - lo) / n
        return out

    def softmax(self, zt: np.ndarray) -> np.ndarray:
        out = np.empty_like(zt)
        for j in range(self.d):
            lo, hi = self.offsets[j], self.offsets[j + 1]
            e = np.exp(zt[lo:hi] - zt[lo:hi].max(axis=0, keepdims=True))
            out[lo:hi] = e / e.sum(axis=0, keepdims=True)
        return out

    def softmax_backward(self, xt: np.ndarray, grad_x: np.ndarray) -> np.ndarray:
        xg = xt * grad_x
        block_sums = np.add.reduceat(xg, self.offsets[:-1], axis=0)
        return xg - xt * np.repeat(block_sums, self.cards, axis=0)

    # ------------------------------------------------------------------ queries
    def products(self, xt: np.ndarray) -> np.ndarray:
        """Stacked pair products, shape ``(n_cells, K)``: row ``cell_start[(a, b)] + u·K_b + v`` is
        ``X[:, a:u] ⊙ X[:, b:v]`` (every pair ``a < b``)."""
        out = np.empty((self.n_cells, xt.shape[1]), dtype=xt.dtype)
        for (a, b), lo in self.cell_start.items():
            ca, cb = self.cards[a], self.cards[b]
            np.multiply(self._block(xt, a)[:, None, :], self._block(xt, b)[None, :, :],
                        out=out[lo:lo + ca * cb].reshape(ca, cb, -1))
        return out

    def answers(self, xt: np.ndarray, products: np.ndarray | None = None) -> np.ndarray:
        """All query answers on a transposed (relaxed or one-hot) table ``xt`` of shape ``(D, rows)``."""
        if products is None:
            products = self.products(xt)
        out = np.empty(self.n_queries, dtype=np.float64)
        for a, b, start, tail in self.pairs:
            lo = self.cell_start[(a, b)]
            block = xt[self.offsets[b + 1]:] @ products[lo:lo + self.cards[a] * self.cards[b]].T
            out[start:start + block.size] = block.ravel()
        out *= 1.0 / xt.shape[1]
        return out

    def _index(self) -> None:
        """Per query: the three rows of ``xt`` it multiplies (``a:u, b:v, c:w``) and, for each, the product
        cell of the other two (``(b:v, c:w), (a:u, c:w), (a:u, b:v)``)."""
        rows, cells = [], []
        for a, b, start, tail in self.pairs:
            cb = self.cards[b]
            s = np.arange(self.cards[a] * cb)
            u, v = s // cb, s % cb
            c_of_t = np.searchsorted(self.offsets, self.offsets[b + 1] + np.arange(tail), side="right") - 1
            w_of_t = np.arange(tail) + self.offsets[b + 1] - self.offsets[c_of_t]
            shape = (tail, s.size)
            ra = np.broadcast_to(self.offsets[a] + u, shape)
            rb = np.broadcast_to(self.offsets[b] + v, shape)
            rc = np.broadcast_to((self.offsets[b + 1] + np.arange(tail))[:, None], shape)
            cc = np.array([self.cards[c] for c in c_of_t])
            start_bc = np.array([self.cell_start[(b, c)] for c in c_of_t])[:, None]
            start_ac = np.array([self.cell_start[(a, c)] for c in c_of_t])[:, None]
            cell_bc = start_bc + v[None, :] * cc[:, None] + w_of_t[:, None]
            cell_ac = start_ac + u[None, :] * cc[:, None] + w_of_t[:, None]
            cell_ab = np.broadcast_to(self.cell_start[(a, b)] + s, shape)
            rows.append(np.stack([ra.ravel(), rb.ravel(), rc.ravel()], axis=1))
            cells.append(np.stack([cell_bc.ravel(), cell_ac.ravel(), cell_ab.ravel()], axis=1))
        self._rows = np.concatenate(rows).astype(np.int64)
        self._cells = np.concatenate(cells).astype(np.int64)

    def query_rows(self) -> np.ndarray:
        """``(n_queries, 3)`` rows of ``xt`` (global one-hot columns) each query multiplies: ``a:u, b:v, c:w``."""
        if self._rows is None:
            self._index()
        return self._rows

    def backward(self, xt: np.ndarray, grad_q: np.ndarray, products: np.ndarray | None = None) -> np.ndarray:
        """``∂L/∂Xᵀ`` for ``L = Σ_q grad_q[q] · q(x)``, from the queries with a non-zero gradient only:
        query ``(a:u, b:v, c:w)`` adds ``g/K · (X[b:v] ⊙ X[c:w])`` to row ``a:u`` and symmetrically to
        ``b:v`` and ``c:w``. The products are rows of :meth:`products`, so the whole gradient is one
        sparse ``(D × n_cells)`` times dense ``(n_cells × K)`` product with ``3 · nnz(g)`` entries."""
        if products is None:
            products = self.products(xt)
        if self._rows is None:
            self._index()
        nz = np.flatnonzero(grad_q)
        g = np.repeat((grad_q[nz] / xt.shape[1]).astype(DTYPE), 3)
        scatter = sparse.csr_matrix((g, (self._rows[nz].ravel(), self._cells[nz].ravel())),
                                    shape=(self.width, self.n_cells))
        return np.asarray(scatter @ products, dtype=DTYPE)

    # ------------------------------------------------------------------ sampling
    def sample(self, xt: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
        """Records from a relaxed table (spec §5, RAP sampling): ``m // K`` passes each draw one value per
        attribute from every relaxed row's block; the remaining ``m mod K`` records come from a random
        subset of distinct rows."""
        k_rows = xt.shape[1]
        passes, rest = divmod(int(m), k_rows)
        rows = np.concatenate([np.tile(np.arange(k_rows), passes),
                               rng.choice(k_rows, size=rest, replace=False)]).astype(np.int64)
        out = np.empty((rows.shape[0], self.d), dtype=np.int64)
        for j in range(self.d):
            probs = self._block(xt, j).T.astype(np.float64)
            out[:, j] = draw_from_rows(cumulative(probs / probs.sum(axis=1, keepdims=True)), rows, rng)
        return out


class Adam:
    """Adam (Kingma & Ba 2015) with PyTorch's defaults β = (0.9, 0.999), eps = 1e-8 and bias correction."""

    def __init__(self, shape, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.m = np.zeros(shape, dtype=DTYPE)
        self.v = np.zeros(shape, dtype=DTYPE)
        self.t = 0

    def step(self, params: np.ndarray, grad: np.ndarray) -> None:
        self.t += 1
        self.m *= self.beta1
        self.m += (1 - self.beta1) * grad
        self.v *= self.beta2
        self.v += (1 - self.beta2) * grad * grad
        m_hat = self.m / (1 - self.beta1 ** self.t)
        v_hat = self.v / (1 - self.beta2 ** self.t)
        params -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
