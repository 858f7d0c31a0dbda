"""BCorr, the Balanced Correlation defense (Kabir, Craig & Mehnaz, arXiv 2504.04033, §7.2, Tables 5–6; spec §A11).

The disparity comes from groups in which the sensitive attribute ``s`` and the output ``y`` are strongly
correlated. BCorr removes it at the source, before training:

1. measure ``ρ_g = corr(1[s = 1], 1[y = 1])`` inside every group ``g`` of the grouping attribute;
2. set the target ``ρ* = ρ_{g₀}`` of the **least-correlated** group ``g₀ = argmin_g |ρ_g|``;
3. resample every group (``g₀`` too, spec Part C.11) with the correlation-controlled sampler (§A4) to
   ``ρ*`` with ``n_g = 4 · min_{(s, y)} count_g(s, y)`` records, without replacement ([C]'s rule, which guarantees
   that every target cell fits when ``ρ*`` has the sign of ``ρ_g`` or is 0); groups with fewer than 10 records in a
   cell are dropped ([C]);
4. retrain the same architecture on the union ``D_bc``.

Evaluation (paper Table 5): the attack-success-rate disparity ``ASRD = max_g ASR − min_g ASR`` on the new
training set, and on the original held-out test set the model accuracy (MA), the equalized-odds difference (EOD)
and the demographic-parity difference (DPD) across groups (``fairlearn.metrics``).

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import numpy as np
from ..data.disparity_population import MIN_CELL, correlation_sample, phi
from ..errors import DataError


def bcorr_indices(s: np.ndarray, y: np.ndarray, g: np.ndarray, n_groups: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Indices of the rebalanced training set ``D_bc`` and what was done per group."""
    s, y, g = np.asarray(s), np.asarray(y), np.asarray(g)
    rho = np.array([phi(s[g == k], y[g == k]) for k in range(n_groups)])
    min_cell = np.array([min(int(((g == k) & (s == a) & (y == b)).sum()) for a in (0, 1) for b in (0, 1))
                         for k in range(n_groups)])
    usable = (min_cell >= MIN_CELL) & np.isfinite(rho)
    if usable.sum() < 2:
        raise DataError("BCorr needs at least two groups with 10 or more records in every (sensitive, label) "
                        "cell")
    least = int(np.flatnonzero(usable)[np.argmin(np.abs(rho[usable]))])
    rho_star = float(rho[least])
    parts, sizes = [], np.zeros(n_groups, int)
    for k in np.flatnonzero(usable):
        idx = np.flatnonzero(g == k)
        pick = idx[correlation_sample(s[idx], y[idx], 4 * int(min_cell[k]), rho_star, rng)]
        parts.append(pick)
        sizes[k] = pick.size
    keep = np.sort(np.concatenate(parts))
    info = {"rho_star": rho_star, "least_group": least, "rho_before": rho.tolist(),
            "rho_after": [phi(s[keep][g[keep] == k], y[keep][g[keep] == k]) for k in range(n_groups)],
            "size_after": sizes.tolist(), "dropped_groups": np.flatnonzero(~usable).tolist(),
            "kept_fraction": float(keep.size / s.size)}
    return keep, info


def fairness(y_true: np.ndarray, y_pred: np.ndarray, groups: np.ndarray) -> dict:
    """Model accuracy, EOD and DPD across ``groups`` (fairlearn; NaN when a group lacks a class)."""
    from fairlearn.metrics import demographic_parity_difference, equalized_odds_difference  # slow import

    out = {"model_accuracy": float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))}
    for name, fn in (("eod", equalized_odds_difference), ("dpd", demographic_parity_difference)):
        try:
            out[name] = float(fn(y_true, y_pred, sensitive_features=groups))
        except (ValueError, ZeroDivisionError):
            out[name] = float("nan")
    return out


def asrd(group_accuracy: np.ndarray) -> float:
    """Attack success-rate disparity (Def. 7.1): max − min group accuracy over groups with records."""
    a = np.asarray(group_accuracy, float)
    a = a[np.isfinite(a)]
    return float(a.max() - a.min()) if a.size else float("nan")


def asrd_noise_floor(group_n, accuracy: float, draws: int = 2000) -> float:
    """Expected ASRD if every group had the same attack accuracy: max − min of binomial group accuracies of the
    given sizes (a fixed-seed simulation). ASRD at or below this level is sampling noise, not disparity.

    With 51 groups the range of the group accuracies is ≈ 4.5 binomial standard deviations: ≈ 15 points for the
    150–300 records per group BCorr keeps of 300, ≈ 8.5 points for the 500–1,000 it keeps of 1,000. The
    binomial is slightly conservative for correlation-controlled groups, whose (s, y) cell counts are fixed
    (a permutation of the attack's hits across groups within cells gave ≈ 6.6 points at 1,000 per group)."""
    n = np.asarray([k for k in group_n if k > 0], int)
    if n.size < 2 or not np.isfinite(accuracy):
        return float("nan")
    acc = np.random.default_rng(0).binomial(n, accuracy, size=(draws, n.size)) / n
    return float(np.mean(acc.max(axis=1) - acc.min(axis=1)))
