"""Attacks of the reconstruction game: Dinur–Nissim reconstruction of secret bits from noisy subset sums.

Source: CS208 lecture 2 "Reidentification & Reconstruction Attacks" (Vadhan et al., 2025), slides 7–9
(algorithms 1–4) and problem set 2; Dinur & Nissim, PODS 2003. Scenario :mod:`core.scenarios.reconstruction`.

* :mod:`.dinur_nissim` — the attack (``fit`` / ``predict`` / ``score``) with a choice of decoder;
* :mod:`.dinur_nissim_lp` — LP decoders (average error, known error bound; algorithms 2–3), also the LP
  solver of the synthetic-data game's Adv_recon;
* :mod:`.dinur_nissim_ls` — least squares (algorithm 4);
* :mod:`.dinur_nissim_ip` — integer program (algorithm 1).
"""
