"""Disparity inference: ranking groups by vulnerability without knowing anyone's sensitive value (Kabir, Craig &
Mehnaz, arXiv 2504.04033, §5.2, §6.3, Table 1; spec §A9).

Groups are the value sets of one public attribute (US state in the paper). The attacker computes the confidence
matrix once (Alg. 1), the angular difference AD of each group (Alg. 2) and ranks the groups by it:

* ``ascending`` — more negative AD = more exposed (paper: Census19 and Adult, where ρ < 0);
* ``descending`` — more positive AD = more exposed (paper: Texas, where ρ > 0);
* ``auto`` — larger ``|AD|`` = more exposed (our extension, spec Part C.3: AD → 0 as ρ → 0 whatever its sign, so
  an attacker who does not know the sign can still rank).

The ranking is judged against the groups' *actual* attack accuracy on the training records with Kendall's τ and
Spearman's ρ (``scipy.stats.kendalltau`` / ``spearmanr``), computed between the risk score (oriented so that a
higher value means "predicted more exposed") and the accuracy: values near +1 mean the attacker found the most
exposed groups. The **baseline** ranks the groups by CSMIA accuracy on an auxiliary set with known ``s`` drawn
from a different distribution (paper: same size as training, sampled from the full data).

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau, spearmanr

DIRECTIONS = ("auto", "ascending", "descending")


def risk_score(ad: np.ndarray, direction: str) -> np.ndarray:
    """Orient AD so that larger = predicted more exposed."""
    ad = np.asarray(ad, float)
    if direction == "ascending":
        return -ad
    if direction == "descending":
        return ad
    if direction == "auto":
        return np.abs(ad)
    raise ValueError(direction)


def rank_groups(score: np.ndarray) -> np.ndarray:
    """Group indices from most to least exposed (groups with an undefined score last)."""
    s = np.where(np.isfinite(score), score, -np.inf)
    return np.argsort(-s, kind="stable")


def rank_agreement(score: np.ndarray, accuracy: np.ndarray) -> dict:
    """Kendall τ and Spearman ρ (with p-values) between a risk score and the groups' actual accuracy."""
    score, accuracy = np.asarray(score, float), np.asarray(accuracy, float)
    ok = np.isfinite(score) & np.isfinite(accuracy)
    if ok.sum() < 3 or np.ptp(score[ok]) == 0 or np.ptp(accuracy[ok]) == 0:
        nan = float("nan")
        return {"kendall": nan, "kendall_p": nan, "spearman": nan, "spearman_p": nan, "groups": int(ok.sum())}
    kt = kendalltau(score[ok], accuracy[ok])
    sp = spearmanr(score[ok], accuracy[ok])
    return {"kendall": float(kt.statistic), "kendall_p": float(kt.pvalue), "spearman": float(sp.statistic),
            "spearman_p": float(sp.pvalue), "groups": int(ok.sum())}


def group_accuracy(correct: np.ndarray, groups: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-group accuracy (NaN for an empty group) and group sizes."""
    n = np.bincount(groups, minlength=n_groups)
    k = np.bincount(groups, weights=np.asarray(correct, float), minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, k / np.maximum(n, 1), np.nan), n


def seed_spread(mains: list[dict], config: dict) -> dict:
    """Targeted accuracy, untargeted accuracy and the ranking's Kendall τ over the target-model seeds played:
    each as mean and sample s.d. (ddof = 1; NaN with one seed), plus the per-seed values for the page.

    A single target model is one draw: on Adult the authors' own code gives 81.6, 61.4, 65.3 and 64.2% targeted
    accuracy at κ = 0.1 on four seeds, so a number from one seed says little without this spread."""
    def pick(r):
        if config["targeting"] == "nested":
            return r["nested"][-1]["accuracy"] if r["nested"] else float("nan")
        at_k = next((s for s in r["kappa_sweep"] if abs(s["kappa"] - config["kappa"]) < 1e-12), None)
        return at_k["accuracy"] if config["targeting"] == "single" and at_k else float("nan")

    per = {"targeted_accuracy": [float(pick(r)) for r in mains],
           "accuracy": [r["correct"] / r["n"] for r in mains],
           "kendall_disparity": [float(r["agreement"]["kendall"]) for r in mains],
           "epochs": [int(r["epochs"]) for r in mains], "best_attribute": [r["best_attribute"] for r in mains],
           "model_accuracy": [float(r["model_accuracy"]) for r in mains]}
    metrics: dict = {"model_seeds_done": float(len(mains))}
    for key in ("targeted_accuracy", "accuracy", "kendall_disparity"):
        v = np.asarray(per[key], float)
        v = v[np.isfinite(v)]
        metrics[f"{key}_mean"] = float(v.mean()) if v.size else float("nan")
        metrics[f"{key}_sd"] = float(v.std(ddof=1)) if v.size > 1 else float("nan")
    return {"metrics": metrics, "series": per}
