"""Attacks, one file per attack named after its paper, grouped by game (one subpackage per scenario):

* :mod:`.reconstruction` — Dinur–Nissim reconstruction from subset sums (CS208 lecture 2);
* :mod:`.location` — membership inference on DP location aggregates (Liu et al.);
* :mod:`.aggregates` — DeSIA, CIP and RAP on limited fixed aggregate statistics (DeSIA paper);
* :mod:`.synthetic` — attribute inference against synthetic data (Annamalai et al., USENIX Security 2024);
* :mod:`.ml_models` — attribute inference on trained models and its disparity (Kabir, Craig & Mehnaz).
"""
