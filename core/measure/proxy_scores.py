"""Proxy privacy scores of a synthetic release, as SDMetrics computes them (shown beside the attacks' risk).

Source: SDMetrics 0.32 (installed with sdv), ``sdmetrics.single_table``:

* **DCROverfittingProtection** — for each synthetic row, its distance to the closest record (DCR) in the
  training data and in a holdout set of the same population; the share of synthetic rows *strictly* closer to
  the training data, p, is mapped to a score ``min(1, 2(1 − p))``: 1 = no closer to the training data than to
  strangers ("no overfitting"), 0 = every synthetic row sits nearer a training record.
* **DisclosureProtection** — the CAP attack (correct attribution probability): the synthetic rows that match a
  real person's known columns propose a secret; the CAP *protection* is the average probability that the proposal
  is wrong (1 when no synthetic row matches), and the score divides it by the protection of a random guess
  (1 − 1/k for k secret values), capped at 1: 1 = the release discloses no more than a random guess.

Both are *proxies*: neither runs the attacks an adversary would, and DCR in particular scores distances, not
disclosures.

The distance computation grows with synthetic × real rows (1,000 × 1,000: about 11 s on one core), so, as
SDMetrics' own ``num_rows_subsample`` option does for speed, the lab scores :data:`PROXY_ROWS` rows of each table
(training, synthetic, holdout), seeded so the same run gives the same scores (SDMetrics draws without a seed).
That is exactly where DCR misleads: a synthetic row copied from a training record finds its source among the
training rows compared only as often as the subsample keeps it (300 of 1,000: 30%), so a verbatim copy looks
"no closer to the training data than to strangers" and scores as protected. Scored on every real record instead,
the same copy scores 0 — the score depends on a speed setting, the attacks' risk does not.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

PROXY_ROWS = 300  # rows of each table, as SDMetrics' num_rows_subsample
PROXY_NAMES = {"dcr_overfitting_protection": "DCR overfitting protection (SDMetrics)",
               "disclosure_protection": "Disclosure protection (SDMetrics CAP)"}


def _frame(codes: np.ndarray, names: list[str]) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(codes, dtype=np.int64).astype(str), columns=names)


def proxy_scores(train: np.ndarray, synthetic: np.ndarray, holdout: np.ndarray, names: list[str],
                 rng: np.random.Generator, rows: int = PROXY_ROWS) -> dict:
    """SDMetrics' DCR overfitting protection and disclosure protection of ``synthetic`` (category codes, secret
    last; ``names`` the columns) against ``train`` with ``holdout`` as the records not used to fit it."""
    # lazy: importing SDMetrics takes ~4 s (it pulls in sdv's stack); only runs that score proxies pay it
    from sdmetrics.single_table import DCROverfittingProtection, DisclosureProtection

    def pick(a: np.ndarray, k: int) -> np.ndarray:
        a = np.asarray(a)
        return a if a.shape[0] <= k else a[rng.choice(a.shape[0], size=k, replace=False)]

    # every table subsampled alike, as SDMetrics' num_rows_subsample does (seeded here)
    tr, sy, ho = _frame(pick(train, rows), names), _frame(pick(synthetic, rows), names), _frame(pick(holdout, rows), names)
    metadata = {"tables": {"t": {"columns": {c: {"sdtype": "categorical"} for c in names}}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcr = DCROverfittingProtection.compute_breakdown(tr, sy, ho, metadata, "t")
        cap = DisclosureProtection.compute_breakdown(tr, sy, known_column_names=names[:-1],
                                                     sensitive_column_names=names[-1:])
    return {"dcr_overfitting_protection": float(dcr["score"]),
            "dcr_closer_to_training": float(dcr["synthetic_data_percentages"]["closer_to_training"]),
            "disclosure_protection": float(cap["score"])}
