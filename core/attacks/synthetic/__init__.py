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
  the ``attack`` parameter: the scenario's ``audit_model`` switch plays it);
* :mod:`.singling_out` and :mod:`.linkability` — the other two of the regulators' three risks (Giomi et al.,
  PoPETs 2023, §4.1–4.2): they guess no secret, so they are no choice of ``attack``; every run plays them on the
  whole release against the control set (``three_risks``). Declared below under :data:`RELEASE_RISKS`.

The inference attacks also attack every training and control record at once for the risk against the control
set (:mod:`core.scenarios.synthetic.records_game`): an attack with a batch form gives it as ``player.many``
``(S, X, rng) -> (guesses, scores)``; one without is played record by record through ``player``.

Below, one declaration per attack (:mod:`core.attacks.declaration`): the ``attack`` parameter's choices, what
``attack=all`` plays (Acc_max is the best of them), the cost terms and the labels of plots and pages all read
them. An attack that reads only ``S`` and the target's quasi-identifiers ``x_u`` gives its ``player``
``(S, x_u, rng) -> (guess, score)`` with ``score`` higher for "the secret is 1".
"""
from ..declaration import Attack, declare
from .dcr import dcr_attack, dcr_attack_many
from .infer import infer_attack, infer_attack_many
from .linear_reconstruction import ReconResult, linear_reconstruction
from .linkability import linkability_successes
from .singling_out import singling_out_queries

# the batch forms, for attacking every record of a release at once
dcr_attack.many = dcr_attack_many
infer_attack.many = infer_attack_many

# The release-level risks (the "scenario" of these declarations: they play in the synthetic game but are not
# choices of its ``attack`` parameter, so they are declared under their own name).
RELEASE_RISKS = "synthetic-release-risks"

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

# Cost terms measured on the 2-core lab machine, 2026-11-29: queries read off ≤ n synthetic rows and counted in
# both sets (≈ 0.15 s a release); linkability ≈ 3 ns per target × synthetic row × column (both sets).
declare(
    Attack(key="singling-out", scenario=RELEASE_RISKS, name="Singling out",
           long="Singling out (a rule read off the synthetic data isolates one real person)",
           paper="Giomi et al. 2023, §4.1", player=singling_out_queries, seconds_per_release=0.15),
    Attack(key="linkability", scenario=RELEASE_RISKS, name="Linkability",
           long="Linkability (two halves of a person's known columns point to the same synthetic row)",
           paper="Giomi et al. 2023, §4.2", player=linkability_successes, seconds_per_row=3e-9),
)

__all__ = ["RELEASE_RISKS", "ReconResult", "dcr_attack", "infer_attack", "linear_reconstruction"]
