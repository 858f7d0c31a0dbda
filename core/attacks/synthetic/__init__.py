"""Attribute-inference attacks against synthetic data (Annamalai, Gadotti & Rocher, USENIX Security 2024, §4).

One attack per file, over integer codes with the secret as the last column of the synthetic table ``S``:

* :mod:`.linear_reconstruction` — Adv_recon, the paper's linear reconstruction attack (§4.2): it needs the
  query family as well, ``solve_recon_lp(ReconMatrix.from_queries(queries), queries.answers(S, scaling))``, so
  the scenario plays it itself;
* :mod:`.dcr` — Adv_dcr, distance to the closest synthetic record (§4.3, GAN-Leaks):
  ``dcr_attack(S, x_u, rng) -> (guess, score)``;
* :mod:`.infer` — Adv_infer, a random forest trained on S (§4.3, Stadler et al.):
  ``infer_attack(S, x_u, rng) -> (guess, score)``;
* :mod:`.model_audit` — Adv_model, the informed auditor reading a released Bayesian network (not a choice of
  the ``attack`` parameter: the scenario's ``audit_model`` switch plays it).

Below, one declaration per attack (:mod:`core.attacks.declaration`): the ``attack`` parameter's choices, what
``attack=all`` plays (Acc_max is the best of them), the cost terms and the labels of plots and pages all read
them. An attack that reads only ``S`` and the target's quasi-identifiers ``x_u`` gives its ``player``
``(S, x_u, rng) -> (guess, score)`` with ``score`` higher for "the secret is 1".
"""
from ..declaration import Attack, declare
from .dcr import dcr_attack
from .infer import infer_attack
from .linear_reconstruction import ReconResult, linear_reconstruction

# Cost terms: CPU seconds on one core of the lab machine (Synthetic.estimate_cost, measured 2026-11-23 with
# benchmarks/bench_cost.py). Adv_recon's LPs are costed by the scenario, which knows the query family; its term
# here is answering the queries on the synthetic rows.
declare(
    Attack(key="recon", scenario="synthetic", name="Adv_recon", long="Adv_recon (linear reconstruction)",
           paper="Annamalai et al. 2024, §4.2", seconds_per_row=2e-6),
    Attack(key="dcr", scenario="synthetic", name="Adv_dcr", long="Adv_dcr (closest record)",
           paper="Annamalai et al. 2024, §4.3 (GAN-Leaks)", player=dcr_attack, seconds_per_row=1e-6),
    Attack(key="infer", scenario="synthetic", name="Adv_infer", long="Adv_infer (random forest)",
           paper="Annamalai et al. 2024, §4.3 (Stadler et al.)", player=infer_attack,
           seconds_per_row=1.2e-4, seconds_per_release=0.05),
)

__all__ = ["ReconResult", "dcr_attack", "infer_attack", "linear_reconstruction"]
