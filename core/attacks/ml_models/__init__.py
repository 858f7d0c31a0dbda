"""Attribute-inference attacks on trained models and the disparity analysis of Kabir, Craig & Mehnaz,
*Disparate Privacy Vulnerability: Targeted Attribute Inference Attacks and Defenses* (arXiv 2504.04033)."""
from ..declaration import Attack, declare

# One declaration per attack (core/attacks/declaration.py): the ``attack`` parameter's choices and labels read
# them. The scenario plays and costs each attack itself (one attack per run, no "all").
declare(
    Attack(key="csmia", scenario="ml-models", name="CSMIA", long="CSMIA (confidence scores)",
           paper="Mehnaz et al. 2022, as used by Kabir, Craig & Mehnaz §4"),
    Attack(key="lomia", scenario="ml-models", name="LOMIA", long="LOMIA (labels only)",
           paper="Mehnaz et al. 2022, as used by Kabir, Craig & Mehnaz §4"),
    Attack(key="imputation-ideal", scenario="ml-models", name="Imputation", short="Imputation (ideal)",
           long="Imputation, ideal auxiliary data",
           paper="Jayaraman & Evans 2022, the baseline of Kabir, Craig & Mehnaz §6.2"),
    Attack(key="imputation-practical", scenario="ml-models", name="Imputation", short="Imputation (practical)",
           long="Imputation, practical auxiliary data",
           paper="Jayaraman & Evans 2022, the baseline of Kabir, Craig & Mehnaz §6.2"),
)
