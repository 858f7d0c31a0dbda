"""Schema surrogates of the ACS and FIRE data sets of the linear-reconstruction paper (labelled surrogates).

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §5.1; ``docs/specs/seed002_linear_recon_sdg.md`` §6.
The real data cannot be fetched offline (folktables downloads from census.gov; DataSF is unreachable), so
these tables copy the **schemas**: the same columns, in the same order, with the spec's domain sizes (a
possible missing-value code included) and the same secret (ACS: ``SEX``; FIRE: ``ALS Unit``). The values are
not real people.

Correlation: a latent-class model. Each record draws a hidden class ``z`` from ``K`` classes; every column,
the secret included, is then drawn independently from a class-specific categorical distribution whose
probabilities come from a Dirichlet with a small concentration (peaked, long-tailed marginals like census
and dispatch data). Columns are therefore dependent through ``z``, so 2- and 3-way marginals carry
information about the secret and generators that preserve them (BayNet, RAP) leak it, while independent
histograms (IndHist) do not. The population is generated once from a fixed seed, so every run sees the same
table.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .dataset import Dataset

ACS_SCHEMA = (("MIG", 4), ("RAC1P", 9), ("CIT", 5), ("RELP", 18), ("ESP", 9), ("DIS", 2), ("SCHL", 25),
              ("DEYE", 2), ("MAR", 5), ("ANC", 5), ("SEX", 2), ("MIL", 5), ("NATIVITY", 2), ("DREM", 3),
              ("DEAR", 2), ("AGEP", 10))
FIRE_SCHEMA = (("Call Type", 31), ("Call Final Disposition", 15), ("City", 9), ("Zipcode of Incident", 27),
               ("Battalion", 12), ("Station Area", 46), ("Priority", 9), ("ALS Unit", 2), ("Call Type Group", 4),
               ("Number of Alarms", 5))
SURROGATES = {
    "acs-like": {"schema": ACS_SCHEMA, "secret": "SEX", "classes": 12, "seed": 2018,
                 "label": "ACS-like surrogate (schema of ACS 2018 California, 16 attributes; not real people)"},
    "fire-like": {"schema": FIRE_SCHEMA, "secret": "ALS Unit", "classes": 12, "seed": 2016,
                  "label": "FIRE-like surrogate (schema of SF Fire calls, 10 attributes; not real records)"},
}
POPULATION = 50_000
CONCENTRATION = 0.3


@lru_cache(maxsize=4)
def surrogate(name: str, rows: int = POPULATION) -> Dataset:
    """The surrogate population ``name`` (``acs-like`` or ``fire-like``), secret as the last column."""
    spec = SURROGATES[name]
    rng = np.random.default_rng(spec["seed"])
    K = spec["classes"]
    weights = rng.dirichlet(np.full(K, 2.0))
    z = rng.choice(K, size=rows, p=weights)
    cols = {}
    for col, size in spec["schema"]:
        # A shared, long-tailed base profile per column, tilted per class.
        base = rng.dirichlet(np.full(size, 1.0))
        probs = np.stack([rng.dirichlet(CONCENTRATION * size * base + 0.05) for _ in range(K)])
        if col == spec["secret"]:
            probs = np.stack([[1 - p, p] for p in rng.uniform(0.1, 0.9, size=K)])
        # Inverse-CDF sampling per row (vectorised over rows).
        cdf = np.cumsum(probs, axis=1)
        u = rng.random(rows)
        cols[col] = np.minimum((u[:, None] > cdf[z]).sum(axis=1), size - 1)
    order = [c for c, _ in spec["schema"] if c != spec["secret"]] + [spec["secret"]]
    codes = np.column_stack([cols[c] for c in order]).astype(np.int64)
    sizes = dict(spec["schema"])
    domain = {c: tuple(range(sizes[c])) for c in order}
    return Dataset.from_codes(codes, domain, name=spec["label"])
