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
from ..declaration import Attack, declare

# One declaration per attack (core/attacks/declaration.py): the ``attack`` parameter's choices and labels and the
# figures' legends read them. The scenario always evaluates the threshold attacks and the LRT and headlines the
# chosen one; it has no "all" choice, and it plays and costs each attack itself.
declare(
    Attack(key="one-threshold", scenario="location", name="One-threshold", long="One-threshold (sum)",
           paper="Liu et al., Sec. 3.2, Alg. 2–3, 6"),
    Attack(key="two-threshold", scenario="location", name="Two-threshold", paper="Liu et al., Sec. 3.3, Alg. 4–5, 7"),
    Attack(key="mlp", scenario="location", name="MLP meta-classifier", paper="Liu et al., Sec. 4–5, App. G"),
    Attack(key="lrt", scenario="location", name="Likelihood-ratio test", short="Likelihood-ratio (optimal)",
           long="Optimal likelihood ratio", paper="spec seed001 §4.5 (an oracle curve, not in the paper)"),
)
