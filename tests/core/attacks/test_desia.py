"""DeSIA: deterministic module correctness, stochastic module equivalences, MIA variant."""
from itertools import product

import numpy as np
import pytest

from core.attacks.aggregates.desia import DeSIA, DeterministicModule, QueryGrid, solve_feasibility
from core.attacks.aggregates.desia_stochastic import StochasticModule
from core.attacks.aggregates.desia_mia import DeSIAMIA
from core.data.census import randomize_sensitive, split_block, synthetic_block, unique_on_nonsensitive
from core.errors import DataError, ParameterError
from core.releases.aggregate_release import AggregateRelease
from core.releases.census_tables import make_release, sf1_pool


@pytest.fixture(scope="module")
def block():
    rng = np.random.default_rng(7)
    pop = synthetic_block(1200, rng)
    D, aux = split_block(pop.records, 0.1, rng)
    D = randomize_sensitive(D, 2, rng)
    aux = randomize_sensitive(aux, 2, rng)
    rel, names = make_release(D, sf1_pool(), 0.5, rng)
    return D, aux, rel, names


def test_noiseless_deterministic_module_is_never_wrong(block):
    D, aux, rel, _ = block
    md = DeterministicModule(time_limit=30).fit(rel)
    rng = np.random.default_rng(0)
    targets = np.flatnonzero(unique_on_nonsensitive(D))
    settled = 0
    for t in targets:
        out = md.infer(D[t, :-1], rng)
        assert out.first_status == "feasible"  # the true D is a witness
        if out.value is not None:
            settled += 1
            assert out.value == D[t, -1]
    assert settled >= 1  # m/s = 0.5 on a 120-person block settles some targets


def test_forced_target_is_found():
    rng = np.random.default_rng(3)
    D = randomize_sensitive(synthetic_block(80, rng).records, 2, rng)
    t = int(np.flatnonzero(unique_on_nonsensitive(D))[0])
    sex, age, race, _ = D[t]
    card = (2, 116, 63, 2)

    def onehot(k, v):
        m = np.zeros(k, dtype=bool)
        m[v] = True
        return m
    # a cell that isolates the target's A' and conditions on Hispanic = 1
    q = (onehot(2, sex), onehot(116, age), onehot(63, race), onehot(2, 1))
    rel = AggregateRelease(("sex", "age", "race", "hispanic"), card, [q], [0], size=len(D))
    rel.answers = rel.evaluate(D).astype(float)
    out = DeterministicModule().fit(rel).infer(D[t, :-1], rng)
    assert out.value == D[t, -1] and out.verify_status == "verified"


def _brute_force_values(D, t, masks, card):
    """Sensitive values of the target over all datasets of size s consistent with Q(D) and uniqueness."""
    rel = AggregateRelease(tuple("abc"), card, masks, np.zeros(len(masks)), size=len(D))
    answers = rel.evaluate(D)
    cells = np.array(list(product(*[range(c) for c in card])))
    mem = rel.membership(cells).astype(int)
    s = len(D)
    values = set()
    for combo in product(range(len(cells)), repeat=s):
        if list(combo) != sorted(combo):
            continue  # multisets only
        counts = np.bincount(combo, minlength=len(cells))
        if not np.array_equal(counts @ mem, answers):
            continue
        same = np.all(cells[:, :-1] == D[t, :-1], axis=1)
        if counts[same].sum() == 1:
            values.add(int(cells[same][counts[same] == 1][0, -1]))
    return values, rel, answers


def test_deterministic_module_agrees_with_brute_force():
    card = (3, 2, 2)
    rng = np.random.default_rng(11)
    checked = settled = 0
    for trial in range(12):
        D = np.column_stack([rng.integers(0, 3, 4), rng.integers(0, 2, 4), rng.integers(0, 2, 4)])
        uniq = np.flatnonzero(unique_on_nonsensitive(D))
        if len(uniq) == 0:
            continue
        masks = []
        for _ in range(3):
            q = tuple(None if rng.random() < 0.4 else rng.random(c) < 0.5 for c in card)
            masks.append(q)
        t = int(uniq[0])
        values, rel, answers = _brute_force_values(D, t, masks, card)
        rel.answers = answers.astype(float)
        out = DeterministicModule().fit(rel).infer(D[t, :-1], rng)
        assert D[t, -1] in values
        assert (out.value is not None) == (len(values) == 1)
        if out.value is not None:
            assert out.value == D[t, -1]
            settled += 1
        checked += 1
    assert checked >= 8 and settled >= 1


def test_grid_aggregation_preserves_membership(block):
    _, _, rel, _ = block
    grid = QueryGrid(rel.masks, rel.cardinalities)
    rng = np.random.default_rng(1)
    recs = np.column_stack([rng.integers(0, c, 500) for c in rel.cardinalities])
    assert np.array_equal(grid.group_mem[grid.group_of(recs)], rel.membership(recs))
    assert grid.group_size.sum() == np.prod(rel.cardinalities)


def test_time_limit_respected_and_timeout_never_verifies(block):
    D, _, rel, _ = block
    md = DeterministicModule(time_limit=1e-6).fit(rel)
    rng = np.random.default_rng(0)
    for t in np.flatnonzero(unique_on_nonsensitive(D))[:5]:
        out = md.infer(D[t, :-1], rng)
        assert out.value is None
        assert out.seconds < 5.0
    with pytest.raises(ParameterError):
        DeterministicModule(time_limit=0)


def test_solver_status_mapping():
    import scipy.sparse as sp
    A = sp.csc_matrix(np.array([[1.0, 1.0]]))
    ok = solve_feasibility(A, np.array([1.0]), np.array([1.0]), np.zeros(2), np.ones(2), True, 5)
    assert ok.status == "feasible" and ok.x.sum() == 1
    bad = solve_feasibility(A, np.array([3.0]), np.array([3.0]), np.zeros(2), np.ones(2), True, 5)
    assert bad.status == "infeasible"


def test_shared_model_equals_a_per_target_fit(block):
    """Training on B + a_0 + z·Δ and predicting Q(D) equals training on B + z·Δ and predicting Q(D) − a_0."""
    D, aux, rel, _ = block
    ms = StochasticModule(shadows=300).fit(rel, aux, np.random.default_rng(2))
    t = np.flatnonzero(unique_on_nonsensitive(D))[0]
    proba, _ = ms.predict_proba(D[t, :-1])
    a = ms._target_vectors(D[t, :-1])
    from core.attacks.aggregates.desia_stochastic import make_classifier
    X = ms.B_ + a[ms.labels_]  # the shadows of Algorithm 2, built per target
    model = make_classifier("lr", 5, 0).fit(X[ms.train_], ms.labels_[ms.train_])
    direct = model.predict_proba(rel.answers[None, :].astype(np.float32))[0]
    assert np.allclose(proba, direct, atol=1e-3)
    # shadows are Q of (s−1 aux records + the target): totals equal s
    total = [j for j, q in enumerate(rel.masks) if all(m is None for m in q)]
    if total:
        assert np.all(X[:, total[0]] == rel.size)


def test_stochastic_module_learns_a_leaking_cell():
    """When a released cell counts exactly the target's Hispanic indicator, M_S is confident and right."""
    rng = np.random.default_rng(5)
    card = (2, 3, 2)
    recs = np.column_stack([rng.integers(0, 2, 600), rng.integers(0, 3, 600), rng.integers(0, 2, 600)])
    aux = recs[60:]  # the first 60 records play the private block; only aux is used here
    aux = aux[~((aux[:, 0] == 0) & (aux[:, 1] == 0))]  # nobody else shares the target's A'
    target = np.array([0, 0])
    q_leak = (np.array([True, False]), np.array([True, False, False]), np.array([False, True]))
    rel = AggregateRelease(tuple("abc"), card, [q_leak, (None, None, np.array([False, True]))],
                           [0, 0], size=60)
    ms = StochasticModule(shadows=400).fit(rel, aux, rng)
    # the leak cell counts only the target, so its value is the label z itself
    assert np.all(ms.B_[:, 0] == 0)
    rel.answers = np.array([1.0, 30.0])
    p_high, _ = ms.predict_proba(target)
    rel.answers = np.array([0.0, 30.0])
    p_low, _ = ms.predict_proba(target)
    assert p_high[1] > 0.9 and p_low[1] < 0.1


def test_desia_scores_and_bad_inputs(block):
    D, aux, rel, _ = block
    att = DeSIA(shadows=200, time_limit=20).fit(rel, aux, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for t in np.flatnonzero(unique_on_nonsensitive(D))[:6]:
        out = att.attack(D[t, :-1], rng)
        if out.settled:
            assert out.score in (0.0, 1.0)
        else:
            assert 0 < out.score < 1
    with pytest.raises(DataError):
        att.attack(np.array([1, 2]), rng)
    with pytest.raises(DataError):
        StochasticModule(shadows=50).fit(rel, aux[:10], rng)
    with pytest.raises(ParameterError):
        StochasticModule(shadows=2)


def test_mia_deterministic_membership_is_never_wrong(block):
    D, aux, rel, _ = block
    rng = np.random.default_rng(4)
    uniq = np.flatnonzero(unique_on_nonsensitive(D))
    mia = DeSIAMIA(shadows=200, time_limit=20).fit(rel.masks, rel.cardinalities, len(D) - 1, aux, rng)
    settled = 0
    for i, t in enumerate(uniq[:16]):
        b = i % 2
        removed = t if b == 0 else uniq[(i + 1) % len(uniq)]
        Dg = np.delete(D, removed, axis=0)
        game = AggregateRelease(rel.attributes, rel.cardinalities, rel.masks, np.zeros(rel.n_queries),
                                size=len(Dg))
        game.answers = game.evaluate(Dg).astype(float)
        out = mia.attack(game, D[t], rng)
        if out.settled:
            settled += 1
            assert out.prediction == b
        assert 0 <= out.score <= 1
    with pytest.raises(DataError):
        mia.attack(AggregateRelease(rel.attributes, rel.cardinalities, rel.masks[:1], [0.0], size=len(D) - 1),
                   D[0], rng)


def test_noisy_release_runs_and_infeasible_means_unsettled(block):
    D, aux, rel, _ = block
    noisy = AggregateRelease(rel.attributes, rel.cardinalities, rel.masks, rel.answers.copy(), rel.size, 0.5)
    noisy.answers[0] = -1.0  # a negative noisy count: the exact program is infeasible
    att = DeSIA(shadows=100, time_limit=10).fit(noisy, aux, np.random.default_rng(0))
    out = att.attack(D[np.flatnonzero(unique_on_nonsensitive(D))[0], :-1], np.random.default_rng(1))
    assert not out.settled and out.md_status == "infeasible"
