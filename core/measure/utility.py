"""Utility of synthetic data: MRE>10 and 3-TVD on random 3-way marginals.

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §5.3 (Def. 5.1/5.2); spec
``docs/specs/seed002_linear_recon_sdg.md`` §7 and §11 A17.

Per game, :class:`UtilityQueries` draws ``p = 100`` random attribute triples over all d columns (the secret
included; distinct attributes within a triple, draws with replacement, duplicate draws merged) and, for each
triple, every cell of values **observed in D'** (the data the generator was fitted on). The same queries
serve every generator and every synthetic size of that game. With ``c_D'`` and ``c_S`` the cell counts in
D' (n rows) and S (m rows):

* **MRE>10** = mean over all cells with ``c_D' > 10`` of ``|c_D' − (n/m)·c_S| / c_D'`` (MAPE / 100, as the
  NIST 2018 challenge);
* **3-TVD** = mean over triples of ``½ Σ_v |p_D'(v) − p_S(v)|``, where each triple's cell vector is
  renormalised separately for D' and S over the enumerated cells only (the authors' code; synthetic mass on
  values unseen in D' is dropped). A synthetic table with no mass on any enumerated cell has TVD 1.

Counting is one ``np.bincount`` per triple on mixed-radix cell ids.
"""
from __future__ import annotations

import math

import numpy as np

N_TRIPLES = 100
MIN_COUNT = 10


class UtilityQueries:
    """The random 3-way marginals of one game, with D''s counts; :meth:`evaluate` scores a synthetic table."""

    def __init__(self, data: np.ndarray, cardinalities, rng: np.random.Generator, n_triples: int = N_TRIPLES):
        data = np.asarray(data, dtype=np.int64)
        self.n = data.shape[0]
        card = [int(c) for c in cardinalities]
        d = len(card)
        draws = [tuple(sorted(rng.choice(d, size=min(3, d), replace=False))) for _ in range(n_triples)]
        self.triples = sorted(set(draws))
        observed = [np.unique(data[:, a]) for a in range(d)]
        self._groups = []
        cols = np.ascontiguousarray(data.T)
        for t in self.triples:
            sizes = [card[a] for a in t]
            strides = np.array([math.prod(sizes[i + 1:]) for i in range(len(t))], dtype=np.int64)
            grids = np.meshgrid(*[observed[a] for a in t], indexing="ij")
            cells = np.sort(sum(g.ravel() * s for g, s in zip(grids, strides)).astype(np.int64))
            size = int(math.prod(sizes))
            true = np.bincount(_cells(cols, t, strides), minlength=size)[cells].astype(np.float64)
            self._groups.append((t, strides, size, cells, true))

    def evaluate(self, synthetic: np.ndarray) -> dict:
        """``{"mre_gt10", "tvd3", "mae_gt10", "sample_equivalent"}`` of a synthetic table (rows of codes over the
        same columns). ``sample_equivalent``: the fraction of a Bernoulli sample of D' whose scaled-up counts err
        by the same mean absolute amount on the same cells (> 10 records) as the synthetic counts scaled to n
        (:func:`core.theory.odds.equivalent_sample_fraction`)."""
        # lazy: start-up time (scipy only when used)
        from ..theory.odds import equivalent_sample_fraction

        S = np.asarray(synthetic, dtype=np.int64)
        m = S.shape[0]
        cols = np.ascontiguousarray(S.T)
        errs, tvds, abs_errs, bigs = [], [], [], []
        for t, strides, size, cells, true in self._groups:
            syn = np.bincount(_cells(cols, t, strides), minlength=size)[cells].astype(np.float64)
            big = true > MIN_COUNT
            if big.any():
                errs.append(np.abs(true[big] - (self.n / m) * syn[big]) / true[big])
                abs_errs.append(np.abs(true[big] - (self.n / m) * syn[big]))
                bigs.append(true[big])
            tot = syn.sum()
            if tot == 0:
                tvds.append(1.0)
            else:
                tvds.append(0.5 * float(np.abs(true / true.sum() - syn / tot).sum()))
        mre = float(np.concatenate(errs).mean()) if errs else float("nan")
        mae = float(np.concatenate(abs_errs).mean()) if abs_errs else float("nan")
        frac = equivalent_sample_fraction(np.concatenate(bigs), mae) if bigs else float("nan")
        return {"mre_gt10": mre, "tvd3": float(np.mean(tvds)) if tvds else float("nan"), "mae_gt10": mae,
                "sample_equivalent": frac}


def _cells(cols: np.ndarray, attrs, strides) -> np.ndarray:
    cell = cols[attrs[0]] * strides[0]
    for a, s in zip(attrs[1:], strides[1:]):
        cell = cell + cols[a] * s
    return cell


__all__ = ["UtilityQueries", "N_TRIPLES", "MIN_COUNT"]
