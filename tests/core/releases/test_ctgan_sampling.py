"""CTGAN's direct sampler to integer codes gives the records sdv's own sampler gives for the same seed.

The synthetic lab draws 10⁶ CTGAN rows per game; drawing them straight to codes halves the cost, and is only
allowed because it is the same draw: the same random numbers, the same generator outputs, the same argmax.
"""
from __future__ import annotations

import numpy as np
import pytest

from core.data.dataset import Dataset
from core.releases.synthesizers import get_synthesizer


def table(n: int, seed: int = 0) -> Dataset:
    """Five categorical columns with a chain of dependences (cardinalities 2–6), so the generator has
    something to learn and every column has several categories."""
    rng = np.random.default_rng(seed)
    cards = (3, 2, 6, 4, 5)
    codes = np.empty((n, len(cards)), dtype=np.int64)
    codes[:, 0] = rng.integers(0, cards[0], n)
    for j in range(1, len(cards)):
        copy = rng.random(n) < 0.7
        codes[:, j] = np.where(copy, codes[:, j - 1] % cards[j], rng.integers(0, cards[j], n))
    return Dataset.from_codes(codes, {f"x{j}": tuple(range(k)) for j, k in enumerate(cards)})


@pytest.fixture(scope="module")
def fitted():
    # 600 rows: ctgan encodes tables of ≥ 500 rows through joblib, the path the lab's n = 1000 takes
    return get_synthesizer("ctgan", epochs=2).fit(table(600), np.random.default_rng(11))


def test_direct_sampler_returns_sdvs_records_for_the_same_seed(fitted, monkeypatch):
    fast = fitted.sample(2345, np.random.default_rng(5))   # 2345: a partial last batch of 500
    with monkeypatch.context() as patch:
        patch.setattr(fitted, "_fast_codes", lambda m: None)   # force sdv's sample() and its inverse transform
        slow = fitted.sample(2345, np.random.default_rng(5))
    assert fast.shape == slow.shape == (2345, 5) and fast.dtype == np.int64
    assert np.array_equal(fast, slow)
    # not a constant: every column takes several values, and another seed gives other records
    assert all(len(np.unique(fast[:, j])) > 1 for j in range(5))
    assert not np.array_equal(fast, fitted.sample(2345, np.random.default_rng(6)))


def test_fit_on_500_rows_or_more_is_reproducible(fitted):
    again = get_synthesizer("ctgan", epochs=2).fit(table(600), np.random.default_rng(11))
    rng = np.random.default_rng(8)
    assert np.array_equal(fitted.sample(700, rng), again.sample(700, np.random.default_rng(8)))


def test_numerical_columns_still_sample_through_sdv():
    gen = get_synthesizer("ctgan", epochs=1, numeric_codes=True).fit(table(200), np.random.default_rng(1))
    assert gen._fast_codes(10) is None
    s = gen.sample(300, np.random.default_rng(2))
    assert s.shape == (300, 5) and (s >= 0).all() and (s < np.array([3, 2, 6, 4, 5])).all()
