"""Reconstruction baselines of the DeSIA paper: CIP, RAP and the neighbourhood / MIA votes."""
from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from core.attacks.aggregates.cip import CIP, aggregate_domain
from core.attacks.aggregates.neighbourhood_vote import aia_scores, mia_scores
from core.attacks.aggregates.rap import RAP
from core.errors import DataError, ParameterError, SolverError
from core.releases.aggregate_release import AggregateRelease

CARDS = (3, 4, 2)
NAMES = ("a", "b", "sensitive")


def _onehot(card, v):
    mk = np.zeros(card, dtype=bool)
    mk[v] = True
    return mk


def marginal_queries(cards, ways=(1, 2)):
    """Every cell of every k-way marginal, k in ``ways``."""
    out = []
    for k in ways:
        for attrs in itertools.combinations(range(len(cards)), k):
            for values in itertools.product(*(range(cards[a]) for a in attrs)):
                q = [None] * len(cards)
                for a, v in zip(attrs, values):
                    q[a] = _onehot(cards[a], v)
                out.append(tuple(q))
    return out


def release_of(data, masks, cards=CARDS, epsilon=0.0, answers=None):
    rel = AggregateRelease(NAMES[:len(cards)], cards, masks, np.zeros(len(masks)), len(data), epsilon)
    if answers is None:
        answers = rel.evaluate(data)
    return AggregateRelease(NAMES[:len(cards)], cards, masks, answers, len(data), epsilon)


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(7)
    data = np.stack([rng.integers(0, c, 40) for c in CARDS], axis=1)
    aux = np.stack([rng.integers(0, c, 200) for c in CARDS], axis=1)
    return data, aux, release_of(data, marginal_queries(CARDS))


def sorted_rows(x):
    return x[np.lexsort(x.T[::-1])]


# ------------------------------------------------------------------------------------------- CIP
def test_aggregation_is_lossless(small):
    data, _, rel = small
    agg = aggregate_domain(rel)
    assert agg.group_cells.sum() == np.prod(CARDS)
    counts = np.bincount(agg.groups_of(data), minlength=agg.n_groups)
    np.testing.assert_array_equal(agg.incidence.astype(int) @ counts, rel.answers)
    back = agg.disaggregate(counts, np.random.default_rng(0))
    np.testing.assert_array_equal(np.bincount(agg.groups_of(back), minlength=agg.n_groups), counts)
    np.testing.assert_array_equal(rel.evaluate(back), rel.answers)


def test_aggregation_merges_cells_with_identical_signatures():
    # only 1-way marginals of attribute a: b and the sensitive attribute are free -> 3 groups of 8 cells
    data = np.array([[0, 1, 0], [2, 3, 1], [2, 0, 0]])
    rel = release_of(data, marginal_queries(CARDS, ways=(1,))[:3])
    agg = aggregate_domain(rel)
    assert agg.n_groups == 3
    np.testing.assert_array_equal(np.sort(agg.group_cells), [8, 8, 8])


@pytest.mark.parametrize("init", ["rand", "init"])
def test_cip_satisfies_every_exact_constraint(small, init):
    data, aux, rel = small
    cip = CIP(init=init, reconstructions=6, time_limit=10)
    rec = cip.reconstruct(rel, np.random.default_rng(1), aux_records=aux)
    assert rec.shape == (6, len(data), 3)
    for r in rec:
        assert np.all((r >= 0) & (r < np.array(CARDS)))
        np.testing.assert_array_equal(rel.evaluate(r), rel.answers)
    assert all(st["l1_error"] == 0 for st in cip.stats_)


def test_cip_reconstructs_exactly_when_every_cell_is_released(small):
    data, _, _ = small
    rel = release_of(data, marginal_queries(CARDS, ways=(3,)))
    rec = CIP(reconstructions=3).reconstruct(rel, np.random.default_rng(2))
    for r in rec:
        np.testing.assert_array_equal(sorted_rows(r), sorted_rows(data))


def test_cip_same_seed_same_output_and_runs_differ(small):
    _, _, rel = small
    a = CIP(reconstructions=8).reconstruct(rel, np.random.default_rng(3))
    b = CIP(reconstructions=8).reconstruct(rel, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    distinct = {sorted_rows(r).tobytes() for r in a}
    assert len(distinct) >= 2  # seeds, permutations and perturbations give different datasets


def test_cip_inconsistent_release_raises(small):
    data, _, rel = small
    bad = rel.answers.copy()
    bad[0] += 1  # the a=0 marginal no longer matches its 2-way cells
    with pytest.raises(SolverError, match="infeasible"):
        CIP(reconstructions=1).reconstruct(release_of(data, rel.masks, answers=bad), np.random.default_rng(0))


def test_cip_noisy_release_minimises_l1(small):
    data, aux, rel = small
    rng = np.random.default_rng(4)
    noisy = np.round(rel.answers + rng.laplace(0, 2.0, rel.n_queries))
    nrel = release_of(data, rel.masks, epsilon=0.5, answers=noisy)
    cip = CIP(init="init", reconstructions=3, time_limit=10)
    rec = cip.reconstruct(nrel, np.random.default_rng(5), aux_records=aux)
    truth_l1 = np.abs(rel.answers - noisy).sum()  # the true data is a feasible point
    for r, st in zip(rec, cip.stats_):
        assert r.shape == data.shape
        l1 = np.abs(nrel.evaluate(r) - noisy).sum()
        assert l1 == pytest.approx(st["l1_error"])
        assert st["optimal"] and l1 <= truth_l1


def test_cip_time_limit_is_respected():
    rng = np.random.default_rng(0)
    cards = (2, 40, 30, 2)
    data = np.stack([rng.integers(0, c, 300) for c in cards], axis=1)
    masks = []
    while len(masks) < 80:
        q = [None] * 4
        for a in rng.choice(4, size=rng.integers(2, 4), replace=False):
            q[a] = rng.random(cards[a]) < 0.3
        masks.append(tuple(q))
    rel = AggregateRelease(("s", "age", "race", "h"), cards, masks, np.zeros(80), 300)
    rel = AggregateRelease(rel.attributes, cards, masks, rel.evaluate(data), 300)
    t = time.perf_counter()
    try:
        rec = CIP(reconstructions=2, time_limit=0.02).reconstruct(rel, np.random.default_rng(1))
        for r in rec:  # if HiGHS was fast enough, the answer must still be right
            np.testing.assert_array_equal(rel.evaluate(r), rel.answers)
    except SolverError as exc:
        assert "time_limit" in str(exc)
    assert time.perf_counter() - t < 5.0


def test_cip_bad_parameters(small):
    _, _, rel = small
    with pytest.raises(ParameterError):
        CIP(init="warm")
    with pytest.raises(ParameterError):
        CIP(init="init").reconstruct(rel, np.random.default_rng(0))


# ------------------------------------------------------------------------------------------- RAP
def test_rap_gradient_matches_finite_differences(small):
    _, _, rel = small
    rap = RAP(rows=30, queries_per_step=64)
    struct = rap._structure(rel)
    rng = np.random.default_rng(0)
    m = rel.n_queries
    target = rel.answers / rel.size
    blocks = [rng.standard_normal((60, c)) for c in CARDS]  # 2 generators x 30 rows, float64
    counts = rng.multinomial(64, np.full(m, 1 / m), size=2).astype(float)

    def loss(bl):
        ps = [rap._softmax(z.copy()) for z in bl]
        factors, prefix, ans = rap._forward(ps, struct, 2, m)
        err = ans - target
        return np.sqrt((counts * err * err).sum(axis=1)) / 64, ps, factors, prefix, err

    _, ps, factors, prefix, err = loss(blocks)
    grads = rap._gradient(ps, factors, prefix, struct, err, counts, 2)
    h = 1e-6
    for i, row, col in [(0, 3, 0), (1, 7, 3), (2, 45, 1), (1, 59, 0), (0, 31, 2)]:
        up = [z.copy() for z in blocks]
        dn = [z.copy() for z in blocks]
        up[i][row, col] += h
        dn[i][row, col] -= h
        k = row // 30
        numeric = (loss(up)[0][k] - loss(dn)[0][k]) / (2 * h)
        assert grads[i][row, col] == pytest.approx(numeric, rel=1e-4, abs=1e-10)


@pytest.mark.parametrize("init", ["rand", "init"])
def test_rap_fits_the_release(small, init):
    data, aux, rel = small
    rap = RAP(init=init, reconstructions=4, rows=100, steps=200, batch_size=3, n_jobs=2)
    rec = rap.reconstruct(rel, np.random.default_rng(1), aux_records=aux)
    assert rec.shape == (4, len(data), 3)
    assert np.all((rec >= 0) & (rec < np.array(CARDS)))
    assert rap.history_.shape == (201,)
    assert rap.history_[-1] < 0.1 * rap.history_[0]  # relaxed error drops by > 10x
    # sampled datasets fit far better than random data of the same size
    rand = np.stack([np.random.default_rng(9).integers(0, c, len(data)) for c in CARDS], axis=1)
    err_rec = np.mean([np.abs(rel.evaluate(r) - rel.answers).mean() for r in rec])
    assert err_rec < 0.5 * np.abs(rel.evaluate(rand) - rel.answers).mean()


def test_rap_same_seed_same_output(small):
    _, aux, rel = small
    kw = dict(init="init", reconstructions=3, rows=50, steps=30, batch_size=2)
    a = RAP(**kw).reconstruct(rel, np.random.default_rng(5), aux_records=aux)
    b = RAP(**kw).reconstruct(rel, np.random.default_rng(5), aux_records=aux)
    c = RAP(**kw).reconstruct(rel, np.random.default_rng(6), aux_records=aux)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_rap_bad_parameters(small):
    _, _, rel = small
    with pytest.raises(ParameterError):
        RAP(rows=10).reconstruct(rel, np.random.default_rng(0))  # fewer rows than s = 40
    with pytest.raises(ParameterError):
        RAP(init="init", rows=50).reconstruct(rel, np.random.default_rng(0))
    with pytest.raises(ParameterError):
        RAP(lr=0)


# ------------------------------------------------------------------------------- neighbourhood vote
def test_aia_zero_neighbourhood_hit():
    rec = np.array([[[0, 1, 1], [0, 1, 1], [0, 1, 0], [2, 2, 0]],
                    [[0, 1, 1], [1, 1, 0], [2, 2, 0], [2, 2, 0]]])
    scores, pred, lvl = aia_scores(rec, np.array([[0, 1], [2, 2]]), np.random.default_rng(0),
                                   return_level=True)
    np.testing.assert_allclose(scores, [3 / 4, 0.0])
    np.testing.assert_array_equal(pred, [1, 0])
    np.testing.assert_array_equal(lvl, [0, 0])


def test_aia_falls_back_to_the_next_level():
    rec = np.array([[[0, 1, 1], [0, 2, 1], [0, 3, 0], [5, 5, 0], [6, 6, 0]]])
    # target (0, 9): no exact match; L=1 holds the three records with a=0 (2 of them positive)
    scores, pred, lvl = aia_scores(rec, np.array([[0, 9], [7, 7]]), np.random.default_rng(0),
                                   return_level=True)
    np.testing.assert_allclose(scores, [2 / 3, 2 / 5])  # (7, 7): L = 2, every record
    np.testing.assert_array_equal(pred, [1, 0])
    np.testing.assert_array_equal(lvl, [1, 2])


def test_aia_tie_break_is_random_and_reproducible():
    rec = np.array([[[0, 0, 0], [0, 0, 1]]])
    targets = np.zeros((200, 2), dtype=int)
    s1, p1 = aia_scores(rec, targets, np.random.default_rng(11))
    s2, p2 = aia_scores(rec, targets, np.random.default_rng(11))
    np.testing.assert_allclose(s1, 0.5)
    np.testing.assert_array_equal(p1, p2)
    assert 60 < p1.sum() < 140  # both values are chosen


def test_aia_accepts_a_list_and_rejects_bad_shapes():
    recs = [np.array([[0, 0, 1]]), np.array([[0, 0, 1], [1, 1, 0]])]
    scores, _ = aia_scores(recs, np.array([[0, 0]]), np.random.default_rng(0))
    assert scores[0] == 1.0
    with pytest.raises(DataError):
        aia_scores(recs, np.array([[0, 0, 0]]), np.random.default_rng(0))
    with pytest.raises(DataError):  # sensitive value 1 outside a declared domain of size 1
        aia_scores(recs, np.array([[0, 0]]), np.random.default_rng(0), positive=0, n_values=1)


def test_mia_scores_count_reconstructions_with_the_exact_record():
    rec = np.array([[[0, 1, 1], [0, 1, 1], [2, 2, 0]],
                    [[0, 1, 0], [2, 2, 0], [1, 1, 1]],
                    [[0, 1, 1], [3, 3, 3], [3, 3, 3]],
                    [[2, 2, 1], [3, 3, 3], [0, 0, 0]]])
    targets = np.array([[0, 1, 1], [2, 2, 0], [3, 3, 3], [9, 9, 9]])
    np.testing.assert_allclose(mia_scores(rec, targets), [2 / 4, 2 / 4, 2 / 4, 0.0])
