"""Synthetic-data generators (the linear-reconstruction paper §5.2 / App. A): contract, known answers, statistics.

Fixed seeds throughout; tolerances are several standard errors wide. The sdv models share one tiny fitted
model each (module fixture, 2 epochs) because CTGAN's first fit pays a ~4 s torch warm-up.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from core.data.dataset import Dataset
from core.errors import DataError, ParameterError
from core.releases.synthesizers import SYNTHESIZERS, get_synthesizer
from core.releases.synthesizers._categorical import draw_from_rows, cumulative, normalise_rows
from core.releases.synthesizers._relaxed_marginals import ThreeWayMarginals
from core.releases.synthesizers._zcdp import cdp_delta, cdp_rho, closed_form_rho

NUMPY_GENERATORS = {"nonprivate": {}, "indhist": {}, "baynet": {}, "privbayes": {"epsilon": 1.0},
                    "rap": {"steps": 40}, "rap-softmax": {"epsilon": 1.0, "steps": 40}, "exactcopy": {}}
SDV_GENERATORS = {"ctgan": {"epochs": 2}, "tvae": {"epochs": 2}, "gaussiancopula": {}}
SDV_VARIANTS = {**SDV_GENERATORS, "ctgan-numeric": {"epochs": 2, "numeric_codes": True}}
MBI_GENERATORS = {"mst": {"epsilon": 10.0}, "aim": {"epsilon": 10.0}}  # OpenDP; tested in test_mbi_generators.py


def planted(n: int = 1000, seed: int = 0) -> Dataset:
    """c2 = c0 XOR c1 (a pure 3-way dependence: every pair is independent), c3 ≈ c4 (2-way, corr ≈ 0.9)."""
    rng = np.random.default_rng(seed)
    x0, x1 = rng.integers(0, 2, n), rng.integers(0, 2, n)
    x4 = rng.integers(0, 3, n)
    x3 = np.where(rng.random(n) < 0.9, x4, rng.integers(0, 3, n))
    codes = np.column_stack([x0, x1, x0 ^ x1, x3, x4])
    cards = [2, 2, 2, 3, 3]
    return Dataset.from_codes(codes, {f"c{j}": tuple(range(k)) for j, k in enumerate(cards)})


def xor_agreement(s: np.ndarray) -> float:
    return float(np.mean(s[:, 2] == (s[:, 0] ^ s[:, 1])))


def corr34(s: np.ndarray) -> float:
    return float(np.corrcoef(s[:, 3], s[:, 4])[0, 1])


@pytest.fixture(scope="module")
def data() -> Dataset:
    return planted()


@pytest.fixture(scope="module")
def sdv_fitted(data):
    small = Dataset(data.frame.iloc[:200].reset_index(drop=True), data.domain)
    return {name: get_synthesizer(name.split("-")[0], **kw).fit(small, np.random.default_rng(3))
            for name, kw in SDV_VARIANTS.items()}


@pytest.fixture(scope="module")
def rap_2000(data):
    return get_synthesizer("rap", steps=2000).fit(data, np.random.default_rng(5))


# ---------------------------------------------------------------- contract, every registered generator
def test_registry_holds_every_generator():
    assert set(NUMPY_GENERATORS) | set(SDV_GENERATORS) | set(MBI_GENERATORS) == set(SYNTHESIZERS)
    for cls in SYNTHESIZERS.values():
        assert cls.title and cls.name


@pytest.mark.parametrize("name", sorted(NUMPY_GENERATORS))
def test_numpy_generators_shape_range_and_reproducibility(name, data):
    kw = NUMPY_GENERATORS[name]
    gen = get_synthesizer(name, **kw).fit(data, np.random.default_rng(1))
    s = gen.sample(1234, np.random.default_rng(2))
    assert s.shape == (1234, 5) and s.dtype == np.int64
    assert (s >= 0).all() and (s < np.array(data.cardinalities)).all()
    # same seeds → same records; another sampling seed → other records
    again = get_synthesizer(name, **kw).fit(data, np.random.default_rng(1)).sample(1234, np.random.default_rng(2))
    assert np.array_equal(s, again)
    assert not np.array_equal(s, gen.sample(1234, np.random.default_rng(7)))
    # the configuration round-trips through the registry
    assert get_synthesizer(name, **gen.params()).params() == gen.params()
    frame = gen.sample_dataset(10, np.random.default_rng(0))
    assert list(frame.columns) == data.columns and len(frame) == 10


@pytest.mark.parametrize("name", sorted(SDV_VARIANTS))
def test_sdv_generators_shape_range_and_reproducible_sampling(name, sdv_fitted, data):
    gen = sdv_fitted[name]
    assert gen.slow and gen.privacy == (math.inf, 0.0)
    s = gen.sample(500, np.random.default_rng(2))
    assert s.shape == (500, 5) and s.dtype == np.int64
    assert (s >= 0).all() and (s < np.array(data.cardinalities)).all()
    assert np.array_equal(s, gen.sample(500, np.random.default_rng(2)))
    assert not np.array_equal(s, gen.sample(500, np.random.default_rng(4)))


def test_sdv_epochs_validated_and_recorded():
    assert get_synthesizer("ctgan").params() == {"epochs": 30, "numeric_codes": False}
    with pytest.raises(ParameterError):
        get_synthesizer("ctgan", numeric_codes="yes")
    assert get_synthesizer("tvae", epochs=300).params() == {"epochs": 300}
    for bad in (0, -3, 2.5, "many"):
        with pytest.raises(ParameterError) as err:
            get_synthesizer("ctgan", epochs=bad)
        assert err.value.param == "epochs"


def test_sample_before_fit_and_bad_size():
    with pytest.raises(RuntimeError):
        get_synthesizer("baynet").sample(5, np.random.default_rng(0))
    gen = get_synthesizer("indhist").fit(planted(100), np.random.default_rng(0))
    with pytest.raises(ParameterError):
        gen.sample(0, np.random.default_rng(0))


# ---------------------------------------------------------------- privacy claims and validation
@pytest.mark.parametrize("name", ["indhist", "privbayes", "rap-softmax"])
@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, "abc", [1]])
def test_dp_generators_refuse_bad_epsilon(name, bad):
    with pytest.raises(ParameterError) as err:
        get_synthesizer(name, epsilon=bad)
    assert err.value.param == "epsilon"


@pytest.mark.parametrize("name", ["nonprivate", "baynet", "rap", "ctgan", "tvae", "gaussiancopula"])
def test_non_dp_generators_refuse_an_epsilon(name):
    with pytest.raises(ParameterError, match="not differentially private"):
        get_synthesizer(name, epsilon=1.0)
    assert get_synthesizer(name).privacy == (math.inf, 0.0)
    assert "no DP guarantee" in get_synthesizer(name).describe()


def test_privacy_claims(data):
    assert get_synthesizer("indhist").privacy == (0.1, 0.0)          # DataSynthesizer's default ε
    assert get_synthesizer("privbayes", epsilon=10).privacy == (10.0, 0.0)
    rs = get_synthesizer("rap-softmax", epsilon=10, steps=5)
    assert rs.privacy[0] == 10.0 and math.isnan(rs.privacy[1])      # δ = 1/n² needs n
    assert "(10, 1/n²)-DP" in rs.describe()
    rs.fit(data, np.random.default_rng(0))
    assert rs.privacy == (10.0, 1e-6) and "(10, 1e-06)-DP" in rs.describe()
    assert get_synthesizer("rap-softmax", epsilon=1, delta=1e-5).privacy == (1.0, 1e-5)
    for bad in (0, 1, -0.1, 2):
        with pytest.raises(ParameterError):
            get_synthesizer("rap-softmax", delta=bad)
    with pytest.raises(ParameterError):
        get_synthesizer("baynet", k=0)
    with pytest.raises(ParameterError):
        get_synthesizer("rap", steps=0)


def test_cdp_rho_known_values():
    # the optimal conversion of Canonne–Kamath–Steinke, checked against a brute-force search over α
    rho = cdp_rho(1.0, 1e-6)
    assert rho == pytest.approx(0.024356, abs=2e-6)
    alpha = np.linspace(1.0005, 300, 600_000)
    log_delta = (alpha - 1) * (alpha * rho - 1.0) + alpha * np.log1p(-1 / alpha) - np.log(alpha - 1)
    assert np.exp(log_delta.min()) == pytest.approx(1e-6, rel=1e-3)
    # OpenDP's conversion (which cdp_rho searches) and the closed form agree on ρ and on δ
    assert rho == pytest.approx(closed_form_rho(1.0, 1e-6), rel=1e-4)
    assert cdp_delta(rho, 1.0) == pytest.approx(1e-6, rel=1e-3)
    assert cdp_delta(rho, 1.0) <= 1e-6 * (1 + 1e-9)  # OpenDP rounds towards privacy: never above the asked δ
    # never below the simple bound ε = ρ + 2√(ρ log 1/δ)  (ρ = 0.017464 here), and increasing in ε
    assert rho > 0.01746
    assert cdp_rho(0.1, 1e-6) < rho < cdp_rho(10, 1e-6) < cdp_rho(100, 1e-6)
    assert cdp_rho(10, 1e-6) == pytest.approx(1.53928, rel=1e-4)


# ---------------------------------------------------------------- what each generator keeps and destroys
def test_nonprivate_samples_only_real_rows(data):
    gen = get_synthesizer("nonprivate").fit(data, np.random.default_rng(0))
    real = {tuple(r) for r in data.codes()}
    assert {tuple(r) for r in gen.sample(5000, np.random.default_rng(1))} <= real


def test_indhist_keeps_one_way_marginals_and_destroys_dependence(data):
    codes = data.codes()
    gen = get_synthesizer("indhist", epsilon=1e4).fit(data, np.random.default_rng(0))   # noise ≈ 0
    s = gen.sample(200_000, np.random.default_rng(1))
    for j, k in enumerate(data.cardinalities):
        real = np.bincount(codes[:, j], minlength=k) / len(codes)
        assert np.abs(np.bincount(s[:, j], minlength=k) / len(s) - real).max() < 0.006
    assert corr34(codes) > 0.85 and abs(corr34(s)) < 0.01
    assert xor_agreement(codes) == 1.0 and abs(xor_agreement(s) - 0.5) < 0.01


def test_indhist_default_noise_scale(data):
    gen = get_synthesizer("indhist").fit(data, np.random.default_rng(0))
    assert gen.noise_scale_ == pytest.approx(2 * 5 / (1000 * 0.1))       # 2d/(nε)
    for p in gen.marginals_:
        assert p.min() >= 0 and p.sum() == pytest.approx(1.0)


def test_baynet_keeps_planted_two_and_three_way_dependence(data):
    gen = get_synthesizer("baynet").fit(data, np.random.default_rng(0))
    s = gen.sample(50_000, np.random.default_rng(1))
    assert xor_agreement(s) > 0.99
    assert corr34(s) == pytest.approx(corr34(data.codes()), abs=0.02)
    net = gen.network()
    assert sorted(c for c, _ in net) == sorted(data.columns) and net[0][1] == ()
    assert all(len(p) == min(3, i) for i, (_, p) in enumerate(net))
    for node in gen.nodes_:
        assert np.allclose(node.cpt.sum(axis=1), 1.0)


def test_privbayes_tends_to_baynet_at_large_epsilon_and_to_noise_at_small(data):
    hi = [get_synthesizer("privbayes", epsilon=100).fit(data, np.random.default_rng(s))
          .sample(20_000, np.random.default_rng(9)) for s in range(3)]
    assert all(xor_agreement(s) > 0.98 and corr34(s) > 0.85 for s in hi)
    lo = [get_synthesizer("privbayes", epsilon=0.01).fit(data, np.random.default_rng(s))
          .sample(20_000, np.random.default_rng(9)) for s in range(6)]
    agreements = [xor_agreement(s) for s in lo]
    assert all(corr34(s) < 0.5 for s in lo)
    assert 0.35 < np.mean(agreements) < 0.65 and max(agreements) < 0.9


def test_rap_descends_and_matches_three_way_marginals(rap_2000, data):
    hist = rap_2000.history_
    assert len(hist) == 2001
    assert hist[-1] < 0.01 * hist[0]                     # mean |error| of all 3-way cells
    assert np.abs(rap_2000.marginal_errors()).max() < 0.005
    s = rap_2000.sample(100_000, np.random.default_rng(1))
    qm = rap_2000.queries_
    true = qm.data_answers(data.codes())
    assert np.abs(qm.data_answers(s) - true).max() < 0.01
    assert xor_agreement(s) > 0.99


def test_rap_softmax_is_worse_at_small_epsilon(data):
    errs = {}
    for eps in (0.1, 100.0):
        gen = get_synthesizer("rap-softmax", epsilon=eps, steps=150).fit(data, np.random.default_rng(2))
        assert gen.selections_ == 10                     # C(5, 3) workloads, each measured once
        assert len(gen.selected_) == len(set(gen.selected_)) == 10
        errs[eps] = gen.history_[-1]
    assert errs[100.0] < 0.01 < errs[0.1]
    assert errs[100.0] < 0.2 * errs[0.1]


# ---------------------------------------------------------------- engines
def test_three_way_marginals_known_answers_and_gradient():
    rng = np.random.default_rng(0)
    cards = (2, 3, 2, 4)
    qm = ThreeWayMarginals(cards)
    assert qm.n_queries == 2 * 3 * 2 + 2 * 3 * 4 + 2 * 2 * 4 + 3 * 2 * 4 and len(qm.workloads) == 4
    codes = np.column_stack([rng.integers(0, k, 60) for k in cards])
    ans = qm.answers(qm.one_hot(codes))
    assert np.allclose(ans, qm.data_answers(codes), atol=1e-6)     # relaxed path on one-hot = counting
    for a, b, c, lo, hi in qm.workloads:
        block = ans[lo:hi].reshape(cards[c], cards[a], cards[b])
        for w in range(cards[c]):
            for u in range(cards[a]):
                for v in range(cards[b]):
                    hit = (codes[:, a] == u) & (codes[:, b] == v) & (codes[:, c] == w)
                    assert block[w, u, v] == pytest.approx(hit.mean(), abs=1e-6)
    z = rng.standard_normal((qm.width, 5))
    g = rng.standard_normal(qm.n_queries) * (rng.random(qm.n_queries) < 0.6)
    x = qm.softmax(z.astype(np.float32))
    grad = qm.softmax_backward(x, qm.backward(x, g))
    loss = lambda zz: g @ qm.answers(qm.softmax(zz))  # noqa: E731  (float64 path)
    h = 1e-5
    for i, j in [(0, 0), (3, 2), (qm.width - 1, 4), (5, 1)]:
        zp, zm = z.copy(), z.copy()
        zp[i, j] += h
        zm[i, j] -= h
        assert grad[i, j] == pytest.approx((loss(zp) - loss(zm)) / (2 * h), abs=2e-6)
    with pytest.raises(DataError):
        ThreeWayMarginals((2, 3))


def test_categorical_draws_follow_their_rows():
    rng = np.random.default_rng(0)
    probs = normalise_rows(np.array([[1.0, 0.0, 3.0], [-2.0, 0.0, 0.0], [0.2, 0.3, 0.5]]))
    assert np.allclose(probs[1], 1 / 3)                  # empty row → uniform (DataSynthesizer's rule)
    rows = np.repeat(np.arange(3), 100_000)
    v = draw_from_rows(cumulative(probs), rows, rng)
    for r in range(3):
        freq = np.bincount(v[rows == r], minlength=3) / 100_000
        assert np.abs(freq - probs[r]).max() < 0.006
    assert (v[rows == 0] != 1).all()                     # zero-probability values never drawn


def test_long_fits_report_progress_and_honour_stop(data):
    from core.cancel import stop_check
    from core.errors import Cancelled

    seen: list[float] = []
    gen = get_synthesizer("rap", steps=60)
    gen.on_progress = seen.append
    gen.fit(data, np.random.default_rng(0))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen) and len(seen) >= 3
    with stop_check(lambda: True), pytest.raises(Cancelled):
        get_synthesizer("rap-softmax", steps=60).fit(data, np.random.default_rng(0))
    with stop_check(lambda: True), pytest.raises(Cancelled):
        get_synthesizer("baynet").fit(data, np.random.default_rng(0))
