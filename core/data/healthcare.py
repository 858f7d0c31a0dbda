"""A PS2-like "fake healthcare" population (CS208 problem set 2 substitute).

PS2 uses a 100-row fake hospital sample with public columns age, sex, blood
type (0–7) and admission type (0–2), and a secret binary test result. That file
is not shipped here; this generator draws a population with the same schema:
ages 18–89, sexes and admission types uniform, blood types with the US ABO/Rh
frequencies, and the secret bit Bernoulli(``secret_rate``) independent of the
public columns (so the majority class is the best guess without the release).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

PUBLIC = ("age", "sex", "blood", "admission")
# O+, O-, A+, A-, B+, B-, AB+, AB- (approximate US frequencies).
BLOOD_P = np.array([0.374, 0.066, 0.357, 0.063, 0.085, 0.015, 0.034, 0.006])


def healthcare_population(n: int, rng: np.random.Generator, secret_rate: float = 0.5) -> pd.DataFrame:
    return pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "sex": rng.integers(0, 2, n),
        "blood": rng.choice(8, size=n, p=BLOOD_P / BLOOD_P.sum()),
        "admission": rng.integers(0, 3, n),
        "result": (rng.random(n) < secret_rate).astype(np.int8),
    })
