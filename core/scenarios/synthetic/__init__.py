"""Scenario ``synthetic``: attribute inference against synthetic data (linear reconstruction and baselines).

Source: Annamalai, Gadotti & Rocher, "A Linear Reconstruction Approach for Attribute Inference Attacks
against Synthetic Data" (USENIX Security 2024); ``docs/specs/seed002_linear_recon_sdg.md`` (§2 game, §3–4 attacks,
§7 utility). Naming (spec §1): ``synth_size`` is the paper's m, ``q`` the number of queries and
``query_ratio`` = q/n.

One game (§2): sample n records D = {X | y}; pick a target u uniformly among records whose QI vector is
unique in X; re-draw its secret ``y'_u ~ Uniform{0,1}`` (so guessing wins half the time); fit the generator on
D'; generate the **largest** synthetic size once and take every smaller size of the ladder 10, 100, …,
``synth_size`` as a uniform subsample of it (nested prefixes of one permutation: paired curves, as the
authors' code); attack with S, X and x_u; score the guess against ``y'_u``. Utility (MRE>10, 3-TVD) is
measured on the same 100 random 3-way marginals for every size and generator of that game.

Units of work: ``games`` main units (the full size ladder), then, for Adv_recon, ``games`` query-sweep units
that re-use the same game (same D', target and synthetic sample, from an in-process LRU cache keyed by
dataset, generator, its parameters, seed and game) and solve the LP with q = 10, 100, … queries at the chosen
size. Every random draw of game g comes from ``SeedSequence(entropy, spawn_key=(g, component))`` with the
run's entropy drawn from the prepare generator, so a sweep over generators plays the very same D' and
targets (common random numbers).

The package: ``data`` (data sets, size ladder, per-game caches, the control set, identifier columns), ``scenario``
(the registered scenario: parameters, cost, one game), ``records_game`` (every record of a release attacked,
training against control, and ``release_risks`` for a release made elsewhere), ``summary`` and ``risk_summary``
(from game records to metrics and plot series, the risk against the control set), ``exposure`` (who is exposed,
traced to the file's rows), ``views`` and ``risk_views`` (what the lab page draws) and ``preview`` (the data under
attack, before any game).

Besides the paper's one-target game, every game keeps a control set of records the generator never sees and
attacks every training and control record of its largest release (``control_risk``; docs/synthetic-risk.md).
"""
from . import scenario  # noqa: F401  (registers the scenario)
