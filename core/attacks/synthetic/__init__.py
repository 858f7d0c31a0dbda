"""Attribute-inference attacks against synthetic data (Annamalai, Gadotti & Rocher, USENIX Security 2024, §4).

One attack per file, each a function ``attack(S, X, u, …) -> (guess, score)`` over integer codes, with the
secret as the last column of the synthetic table S:

* :mod:`.linear_reconstruction` — Adv_recon, the paper's linear reconstruction attack (§4.2);
* :mod:`.dcr` — Adv_dcr, distance to the closest synthetic record (§4.3, GAN-Leaks);
* :mod:`.infer` — Adv_infer, a random forest trained on S (§4.3, Stadler et al.).
"""
from .dcr import dcr_attack
from .infer import infer_attack
from .linear_reconstruction import ReconResult, linear_reconstruction

ATTACKS = ("recon", "dcr", "infer")

__all__ = ["ATTACKS", "ReconResult", "dcr_attack", "infer_attack", "linear_reconstruction"]
