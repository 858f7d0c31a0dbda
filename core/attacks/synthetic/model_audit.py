"""Adv_model: the informed auditor that reads a released Bayesian network (a DP audit, not a realistic attacker).

Differential privacy promises that one person's record moves the *whole release* little, whatever the attacker
already knows. Auditing that promise (Jagielski et al., "Auditing differentially private machine learning",
NeurIPS 2020; Nasr et al., "Adversary instantiation", IEEE S&P 2021) uses the strongest attacker the definition
allows: one who knows every record of D' except the target's secret, and sees everything the mechanism
publishes. DataSynthesizer publishes the fitted network itself (its "description file": the structure and the
noisy conditional distributions), so the auditor reads the table of the secret's own node:

* the target's parents take values ``π_u``; among the *other* records with those parent values, ``a₀`` have the
  secret 0 and ``a₁`` have it 1 (the auditor knows them);
* if the target's secret is ``s``, the exact conditional is ``p_s = (a₁ + s) / (a₀ + a₁ + 1)`` (for the root:
  ``(a₁ + s) / n``);
* the release shows ``p̂ = P̂(secret = 1 | π_u)``; the guess is the hypothesis closer to it, and the score
  ``|p̂ − p₀| − |p̂ − p₁|`` (higher = secret 1) feeds the ROC and the empirical-ε bound.

With PrivBayes' table noise at the scale ε requires (Laplace of scale 2(d − k)/(ε/2) on every count) the two
hypotheses are buried in noise and the auditor is near a coin flip, as the claim says it must be. With the noise
of DataSynthesizer issue 34 (calibrated to probabilities, n times too small) the counts come out almost exact,
the auditor is almost always right, and the measured ε lower bound passes the claimed ε.
"""
from __future__ import annotations

import numpy as np

from ...errors import ParameterError
from ...releases.synthesizers._bayesian_network import parent_index


def released_conditional(gen, secret: int, x_u: np.ndarray) -> tuple[float, tuple[int, ...]]:
    """``(p̂, parents)``: the release's probability that the secret column is 1 given the target's parent values
    (the root's marginal when the secret is the root)."""
    if getattr(gen, "nodes_", None) is None:
        raise ParameterError("audit_model", f"generator {gen.name!r} publishes no Bayesian network to read; the "
                                            "auditor needs baynet or privbayes")
    if gen.root_ == secret:
        return float(gen.root_marginal_[1]), ()
    node = next(nd for nd in gen.nodes_ if nd.child == secret)
    idx, _ = parent_index(x_u[None, :], node.parents, gen.cardinalities_)
    return float(node.cpt[int(idx[0]), 1]), node.parents


def model_audit(gen, D: np.ndarray, u: int) -> tuple[int, float]:
    """The informed auditor's guess of record ``u``'s secret (the last column of ``D``) and its score."""
    secret = D.shape[1] - 1
    p_hat, parents = released_conditional(gen, secret, D[u])
    others = np.delete(D, u, axis=0)
    if parents:
        cards = gen.cardinalities_
        mine, _ = parent_index(D[u][None, :], parents, cards)
        same = parent_index(others, parents, cards)[0] == mine[0]
        peers = others[same, secret]
    else:
        peers = others[:, secret]
    a1, total = float(np.sum(peers == 1)), float(peers.size + 1)
    p0, p1 = a1 / total, (a1 + 1) / total
    score = abs(p_hat - p0) - abs(p_hat - p1)
    return int(score > 0), float(score)
