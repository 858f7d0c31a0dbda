"""Attribute / membership inference from limited fixed aggregate statistics (DeSIA paper, seed 000).

Game (paper Fig. 2, spec §2.1/§2.3): for each census block, ``D`` (10 %) and
``D_aux`` (90 %) are split, the sensitive attribute (Hispanic) is re-drawn
uniformly, ``m = round(ratio·s)`` Table-1 cells are released (optionally with
Laplace noise), and every user unique on the non-sensitive attributes is
attacked with the same release. One ROC pools all targets of all blocks.

Beyond the paper: ``query_ratio`` may exceed 1 (more released cells than people) up to what the query pool
offers (≈650 SF1 cells: m/s ≤ 650/s); the m/s sweep adds 1.0 and 1.25 where the pool allows and the plots mark
the paper's regime m < s. Metrics add the AUC's 95 % CI (DeLong, :func:`core.measure.metrics.auc_ci`), the empirical
ε lower bound of the main attack's scores (``empirical_epsilon_low``, δ = 0) and the release's per-person
``claimed_epsilon`` = ε per aggregate × the most cells one person's record can move
(:mod:`core.theory.dp_roc`; None without noise).

Units of work: per (sweep value, block, release) a few *target batches* for
DeSIA (contiguous slices of the targets sorted by shadow-model pattern, so
targets sharing a model land in the same batch) and
one unit per reconstruction baseline (K reconstructions scored on all targets
of the block). The expensive per-block material (shadow backgrounds, fitted
models, query grid) is built inside the worker from a per-block seed and cached
per process, so numbers never depend on the number of workers.

The package: ``data`` (grids, constants, caches), ``scenario`` (the registered scenario: parameters, cost, units),
``games`` (one unit of work per attack), ``summary`` (from unit records to metrics and plot series) and ``preview``
(the blocks under attack, before any game).

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from . import scenario  # noqa: F401  (registers the scenario)
