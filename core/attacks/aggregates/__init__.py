"""Attacks of the aggregate-statistics game: inference from limited fixed aggregate statistics (census blocks).

Source: Mao, Stevanoski & de Montjoye, *DeSIA: Attribute Inference Attacks Against Limited Fixed Aggregate
Statistics* (``docs/specs/seed000_desia.md``): DeSIA §5 (Algorithms 1–2) and its membership variant §6.2, against
the reconstruction baselines of §2.4–2.5. Scenario :mod:`core.scenarios.aggregates`.

* :mod:`.desia` — DeSIA attribute inference: deterministic module (integer program) + shadow classifier;
* :mod:`.desia_mia` — DeSIA adapted to membership inference (§6.2, Fig. 9);
* :mod:`.cip` — CIP, constraint integer programming reconstruction (Abowd et al.; §2.4.1);
* :mod:`.rap` — RAP, relaxed adaptive projection reconstruction (Dick et al., PNAS 2023; §2.4.2);
* :mod:`.neighbourhood_vote` — turning K reconstructions into AIA / MIA scores (§2.5, §6.3).
"""
