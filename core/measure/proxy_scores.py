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
disclosures. On low-cardinality survey data many real people share their whole row with someone else, so an
exact copy of the training data is at distance 0 from many holdout records too and DCROverfittingProtection
calls it well protected — the "exact copy" preset shows it beside the attacks' risk, which is high.

SDMetrics subsamples without a seed, so the lab subsamples itself (``rows`` records of each table, seeded) and
calls the metrics on the whole subsample: the same run gives the same scores. The distance computation is
quadratic in the rows (1,000 × 1,000: about 11 s on one core), hence the small default.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

PROXY_ROWS = 300
PROXY_NAMES = {"dcr_overfitting_protection": "DCR overfitting protection (SDMetrics)",
               "disclosure_protection": "Disclosure protection (SDMetrics CAP)"}


def _frame(codes: np.ndarray, names: list[str]) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(codes, dtype=np.int64).astype(str), columns=names)


def proxy_scores(train: np.ndarray, synthetic: np.ndarray, holdout: np.ndarray, names: list[str],
                 rng: np.random.Generator, rows: int = PROXY_ROWS) -> dict:
    """SDMetrics' DCR overfitting protection and disclosure protection of ``synthetic`` (category codes, secret
    last; ``names`` the columns) against ``train`` with ``holdout`` as the records not used to fit it."""
    from sdmetrics.single_table import DCROverfittingProtection, DisclosureProtection

    def pick(a: np.ndarray) -> np.ndarray:
        a = np.asarray(a)
        return a if a.shape[0] <= rows else a[rng.choice(a.shape[0], size=rows, replace=False)]

    tr, sy, ho = _frame(pick(train), names), _frame(pick(synthetic), names), _frame(pick(holdout), names)
    metadata = {"tables": {"t": {"columns": {c: {"sdtype": "categorical"} for c in names}}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcr = DCROverfittingProtection.compute_breakdown(tr, sy, ho, metadata, "t")
        cap = DisclosureProtection.compute_breakdown(tr, sy, known_column_names=names[:-1],
                                                     sensitive_column_names=names[-1:])
    return {"dcr_overfitting_protection": float(dcr["score"]),
            "dcr_closer_to_training": float(dcr["synthetic_data_percentages"]["closer_to_training"]),
            "disclosure_protection": float(cap["score"])}
