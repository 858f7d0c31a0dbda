"""Attacks of the location-membership game: membership inference on DP location aggregates.

Source: Liu, Shilov, Guepin & de Montjoye, *Sub-optimal Learning in Meta-Classifier Attacks: A Study of
Membership Inference on Differentially Private Location Aggregates*, Sec. 3–5 and App. G (spec
``docs/specs/seed001_location_mia.md`` §4). Scenario :mod:`core.scenarios.location`.

* :mod:`.one_threshold` — Score1 and its threshold (Sec. 3.2, Alg. 2–3, 6);
* :mod:`.two_threshold` — per-cell thresholds and Score2 (Sec. 3.3, Alg. 4–5, 7);
* :mod:`.meta_classifier` — the MLP meta-classifier (Sec. 4–5, App. G; Theorems 4–5);
* :mod:`.likelihood_ratio` — the optimal likelihood-ratio test (spec §4.5, an oracle curve, not in the paper);
* :mod:`.location_common` — the game's shared sampling: DP noise and shadow counts in k-cell space (spec §2, §8).
"""
