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
from ..declaration import Attack, declare

# One declaration per attack (core/attacks/declaration.py): the ``attack`` parameter's choices, what "all" plays
# and the labels of the ROC legend and the page's AUC line read them. CIP and RAP come in two variants each
# (§2.4: the K reconstructions start from random rows or from the auxiliary data); the scenario plays and costs
# them itself (one unit per attack, release and batch of targets), so no player or cost term is declared here.
declare(
    Attack(key="desia", scenario="aggregates", name="DeSIA", paper="DeSIA §5, Algorithms 1–2"),
    Attack(key="cip-rand", scenario="aggregates", name="CIP", short="CIP-rand", paper="DeSIA §2.4.1 (Abowd et al.)"),
    Attack(key="cip-init", scenario="aggregates", name="CIP", short="CIP-init", paper="DeSIA §2.4.1 (Abowd et al.)"),
    Attack(key="rap-rand", scenario="aggregates", name="RAP", short="RAP-rand", paper="DeSIA §2.4.2 (Dick et al.)"),
    Attack(key="rap-init", scenario="aggregates", name="RAP", short="RAP-init", paper="DeSIA §2.4.2 (Dick et al.)"),
)
