"""Scenario ``location``: membership inference on DP location aggregates, measured against the DP bound.

Liu, Shilov, Guepin & de Montjoye, *Sub-optimal Learning in Meta-Classifier Attacks: A Study of Membership
Inference on Differentially Private Location Aggregates* (``docs/specs/seed001_location_mia.md``).

The package: ``scenario`` (the registered scenario: parameters, cost, the game, sweeps, summary) and ``users``
(several attacked users in one run, and who among them is exposed: per-game rows and a per-user summary).
"""
from . import scenario  # noqa: F401  (registers the scenario)
from .scenario import (  # noqa: F401  (what other modules import from core.scenarios.location)
    ATTACKS,
    CLIP,
    K_GRID,
    SHADOW_GRID,
    LocationMembership,
    _theory,
    bound_delta,
    noise_scale,
    theory_curves,
)
