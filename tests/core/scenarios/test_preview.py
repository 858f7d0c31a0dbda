"""What the labs draw before their runs (issues 8, 12): closed forms with known answers and invariants.

Reconstruction: :mod:`core.theory.dinur_nissim` and ``theory_curves``; aggregates: per-record sensitivity and
``block_preview``; synthetic data: ``greedy_uniqueness`` and ``data_preview``."""
import math

import numpy as np
import pytest
from scipy import stats

from core.attacks.reconstruction.dinur_nissim import DinurNissimAttack
from core.errors import ParameterError
from core.releases.aggregate_release import AggregateRelease
from core.scenario import get
from core.theory.dinur_nissim import dp_bit_bound, expected_majority, gaussian_bit_accuracy, ls_accuracy
from core.theory.dp_roc import record_sensitivity, release_sensitivity
from core.theory.fdp import gdp_accuracy_bound


# ------------------------------------------------------------------ reconstruction: closed forms
def test_expected_majority_known_values():
    assert expected_majority(1, 0.3) == pytest.approx(1.0)        # one bit: the majority is always right
    assert expected_majority(2, 0.5) == pytest.approx(0.75)       # ¼·2 + ½·1 + ¼·2, over n = 2
    assert expected_majority(100, 0.5) == pytest.approx(0.5398, abs=1e-4)
    assert expected_majority(20000, 0.3) == pytest.approx(0.7, abs=1e-3)  # → max(p, 1−p)


def test_ls_accuracy_formula_and_the_sqrt_n_rule():
    assert ls_accuracy(100, 200, 10.0) == pytest.approx(stats.norm.cdf(math.sqrt(99) / 40))
    # σ = c·√n, m = 2n: the same accuracy at every n (up to the −1 of m − n − 1)
    for c in (0.2, 0.5, 1.0):
        assert ls_accuracy(100, 200, c * 10) == pytest.approx(ls_accuracy(1600, 3200, c * 40), abs=0.003)
    sig = np.linspace(0.5, 50, 40)
    acc = ls_accuracy(100, 200, sig)
    assert np.all(np.diff(acc) < 0) and acc[-1] > 0.5              # falls with the noise, towards a coin flip
    assert ls_accuracy(100, 100, 0.0) == 1.0 and math.isnan(ls_accuracy(100, 50, 0.0))
    assert math.isnan(ls_accuracy(100, 101, 1.0))                  # m ≤ n + 1: the formula does not apply
    with pytest.raises(ParameterError):
        ls_accuracy(100, 200, -1.0)


def test_ls_accuracy_matches_the_least_squares_attack():
    rng = np.random.default_rng(7)
    n, m, sigma = 100, 200, 5.0
    accs = []
    for _ in range(30):
        x = (rng.random(n) < 0.5).astype(float)
        M = (rng.random((m, n)) < 0.5).astype(float)
        accs.append(DinurNissimAttack("lsq").fit(M, M @ x + rng.normal(0, sigma, m)).score(x))
    # 3,000 bits; the bits of one game are dependent, so a loose tolerance
    assert np.mean(accs) == pytest.approx(ls_accuracy(n, m, sigma), abs=0.03)


def test_gaussian_bit_accuracy_is_the_bayes_optimum():
    for mu in (0.3, 1.0, 2.5):
        assert gaussian_bit_accuracy(mu) == pytest.approx(gdp_accuracy_bound(mu))  # p = ½: Φ(μ/2)
        for p in (0.2, 0.65):
            t = np.linspace(-10, 10, 200001)  # every threshold test "guess 1 if y > t"
            best = np.max(p * stats.norm.sf(t - mu) + (1 - p) * stats.norm.cdf(t))
            assert gaussian_bit_accuracy(mu, p) == pytest.approx(best, abs=1e-6)
    assert gaussian_bit_accuracy(0.0, 0.7) == pytest.approx(0.7)   # no information: the majority guess
    assert gaussian_bit_accuracy(60.0, 0.7) == pytest.approx(1.0)


def test_dp_bit_bound_invariants():
    sig = np.array([0.0, 1.0, 5.0, 10.0, 30.0])
    bound = dp_bit_bound(200, sig, 0.5)
    assert bound[0] == 1.0 and np.all(np.diff(bound) < 0)
    # c ~ Bin(m, ½) and Φ(√c/2σ) is concave in c: below the bound at the mean column count (Jensen)
    for s in sig[1:]:
        assert dp_bit_bound(200, s) <= gdp_accuracy_bound(math.sqrt(100) / s) + 1e-12
    # hash predicates use the worst case c = m: a looser (larger) bound, exactly A(√m/σ)
    assert dp_bit_bound(200, 10.0, 0.5, "hash") == pytest.approx(gaussian_bit_accuracy(math.sqrt(200) / 10))
    assert dp_bit_bound(200, 10.0, 0.5, "hash") > dp_bit_bound(200, 10.0, 0.5)
    # never below the majority guess, and the least-squares attacker stays under it
    assert dp_bit_bound(200, 1e4, 0.3) >= 0.7 - 1e-12
    s = np.linspace(1, 40, 30)
    assert np.all(ls_accuracy(100, 200, s) <= dp_bit_bound(200, s))


def test_theory_curves_shapes_and_chosen_point():
    from core.scenarios.reconstruction import release_privacy, theory_curves

    sc = get("reconstruction")
    c = sc.resolve({"defense": "gaussian", "defense_level": 10.0})
    th = theory_curves(c)
    lv, rt = th["level"], th["ratio"]
    assert lv["defense"] == "gaussian" and len(lv["x"]) == len(lv["ls"]) == len(lv["dp_bound"])
    assert len(rt["x"]) == len(rt["ls"]) == len(rt["dp_bound"])
    assert lv["dp_bound"][0] is None                               # σ = 0: no guarantee
    defined = [v for v in lv["dp_bound"] if v is not None]
    assert all(a >= b for a, b in zip(defined, defined[1:]))
    ch = th["chosen"]
    assert ch["dp_bound"] == pytest.approx(dp_bit_bound(200, 10.0, 0.5))
    assert ch["ls"] == pytest.approx(ls_accuracy(100, 200, 10.0)) and ch["noise_over_sqrt_n"] == pytest.approx(1.0)
    assert ch["epsilon"] == pytest.approx(release_privacy("gaussian", 10.0, 100, 200, "random-subsets")[0])
    assert th["majority"] == pytest.approx(expected_majority(100, 0.5))
    # the ratio curve is undefined where m ≤ n + 1
    assert all(v is None for x, v in zip(rt["x"], rt["ls"]) if round(x * 100) <= 101)
    # no defence: the level sweep is Gaussian, but the ratio plot has no DP bound; subsampling has no closed form
    none = theory_curves(sc.resolve({}))
    assert none["ratio"]["dp_bound"] is None and none["chosen"]["epsilon"] is None and none["chosen"]["ls"] == 1.0
    sub = theory_curves(sc.resolve({"defense": "subsample", "defense_level": 50}))
    assert sub["level"]["ls"] is None and sub["level"]["dp_bound"] is None and sub["chosen"]["ls"] is None


# ------------------------------------------------------------------ aggregates: per-record sensitivity
def test_record_sensitivity_small_example():
    card = (2, 2)  # attribute a, sensitive s (last)
    yes = np.array([False, True])
    total, hisp, a1_hisp = (None, None), (None, yes), (yes, yes)
    records = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    masks = [total, hisp, a1_hisp]
    assert record_sensitivity(masks, card, records, "aia").tolist() == [1, 1, 2, 2]
    assert record_sensitivity(masks, card, records, "mia").tolist() == [1, 2, 1, 3]
    assert record_sensitivity([total], card, records, "aia").tolist() == [0, 0, 0, 0]
    assert release_sensitivity(masks, card, "aia") == 2 and release_sensitivity(masks, card, "mia") == 3


@pytest.fixture(scope="module")
def agg():
    from core.scenario import prepare_rng

    sc = get("aggregates")
    c = sc.resolve({"block_size": 200, "blocks": 2, "query_ratio": 0.5})
    return sc, c, sc.prepare(c, prepare_rng(3))


def test_release_sensitivity_is_the_domain_maximum_of_record_sensitivity(agg):
    sc, c, ctx = agg
    cell = ctx["cells"][0]
    masks = [ctx["pool_masks"][j] for j in cell["queries"]]
    card = ctx["cardinalities"]
    grids = np.meshgrid(*[np.arange(k) for k in card], indexing="ij")
    domain = np.column_stack([g.ravel() for g in grids])
    for task in ("aia", "mia"):
        assert record_sensitivity(masks, card, domain, task).max() == release_sensitivity(masks, card, task)


def test_block_preview_zero_cell_targets_leave_the_release_unchanged(agg):
    from core.scenarios.aggregates.preview import block_preview

    sc, c, ctx = agg
    pre = block_preview(c, 3)
    assert pre["targets"] == sum(len(cell["targets"]) for cell in ctx["cells"]) == sum(pre["moved"]["targets"])
    assert pre["releases"] == 2 and pre["cells"] == 100 and pre["bound"] is None and pre["claimed"] is None
    checked = 0
    for cell in ctx["cells"]:
        masks = [ctx["pool_masks"][j] for j in cell["queries"]]
        rel = AggregateRelease(tuple(ctx["attributes"]), tuple(ctx["cardinalities"]), masks,
                               np.zeros(len(masks)), size=0)
        k = record_sensitivity(masks, ctx["cardinalities"], cell["D"][cell["targets"]], "aia")
        for t, moved in zip(cell["targets"], k):
            flipped = cell["D"].copy()
            flipped[t, -1] = 1 - flipped[t, -1]
            change = np.abs(rel.evaluate(flipped) - rel.evaluate(cell["D"])).sum()
            assert change == moved  # exactly the cells counted, and none when k = 0: a coin flip for any attack
            checked += moved == 0
    assert checked == pre["untouched"]


def test_block_preview_with_noise_caps_each_target():
    from core.scenarios.aggregates.preview import block_preview

    sc = get("aggregates")
    c = sc.resolve({"block_size": 200, "blocks": 1, "query_ratio": 0.75, "epsilon": 0.5})
    pre = block_preview(c, 0)
    b = pre["bound"]
    assert b["accuracy"][0] == 0.5 and all(x < y for x, y in zip(b["accuracy"], b["accuracy"][1:]))
    assert b["accuracy"][2] == pytest.approx(math.exp(1.0) / (1 + math.exp(1.0)))  # ε·k = 1: pure-DP known answer
    k, n = np.array(pre["moved"]["k"]), np.array(pre["moved"]["targets"])
    assert b["mean"] == pytest.approx(np.sum(n / (1 + np.exp(-0.5 * k))) / n.sum())
    assert pre["claimed"]["epsilon"] == pytest.approx(0.5 * pre["claimed"]["cells_per_person"])
    assert pre["claimed"]["cells_per_person"] >= max(k[n > 0])  # the domain maximum covers every target


# ------------------------------------------------------------------ synthetic data
def test_greedy_uniqueness_known_answer_and_monotone():
    from core.scenarios.synthetic.preview import greedy_uniqueness

    X = np.array([[0, 0], [0, 1], [1, 0], [1, 0]])
    assert greedy_uniqueness(X, ["a", "b"]) == (["b", "a"], [0.25, 0.5])
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 4, size=(300, 6))
    order, shares = greedy_uniqueness(Y, list("uvwxyz"))
    assert sorted(order) == list("uvwxyz") and all(a <= b for a, b in zip(shares, shares[1:]))
    _, inv, cnt = np.unique(Y, axis=0, return_inverse=True, return_counts=True)
    assert shares[-1] == pytest.approx(np.mean(cnt[inv.ravel()] == 1))


@pytest.mark.parametrize("generator,eps,expected", [
    ("privbayes", 1.0, math.exp(1) / (1 + math.exp(1))),             # pure ε-DP: e^ε/(1+e^ε)
    ("rap-softmax", 10.0, (math.exp(10) + 1e-6) / (1 + math.exp(10))),  # δ = 1/n² at n = 1000
    ("nonprivate", 0.0, None),
])
def test_data_preview_bound_and_targets(generator, eps, expected):
    from core.scenarios.synthetic.data import _game, load_game_data
    from core.scenarios.synthetic.preview import data_preview

    sc = get("synthetic")
    c = sc.resolve({"generator": generator, "epsilon": eps} if eps else {"generator": generator})
    pre = data_preview(c, 5)
    if expected is None:
        assert pre["bound"] is None and not pre["dp"]
    else:
        assert pre["bound"] == pytest.approx(expected, abs=1e-12)
    # game 1 of the run itself: same prepare seed, same draws
    from core.scenario import prepare_rng

    from core.scenarios.synthetic.preview import greedy_uniqueness

    ctx = sc.prepare(c, prepare_rng(5))
    game = _game(ctx, c, 0)
    assert pre["targets"] == game["unique_targets"]
    assert (pre["order"], pre["unique_share"]) == greedy_uniqueness(game["D"][:, :-1], list(pre["qis"]))
    assert data_preview(c, 6)["unique_share"] != pre["unique_share"]  # another seed, another sample
    codes = load_game_data(c)[0]
    assert pre["secret_share"] == pytest.approx(codes[:, -1].mean()) and pre["unique_share"][-1] * 1000 == \
        pytest.approx(pre["targets"])


def test_reconstruction_theory_is_computed_once_per_configuration_and_handed_out_as_a_copy():
    """A class redrawing one lesson step asks for the same closed-form curves hundreds of times: the second call
    is the cache's, a caller changing its curves does not change the next caller's, and another configuration (or
    the same one with another seed) gets its own, equal to a fresh computation."""
    from core.scenario import get
    from core.scenarios.reconstruction import _theory_curves, theory_curves

    config = get("reconstruction").resolve({"n": 120, "query_ratio": 2.0})
    first = theory_curves(config)
    hits = _theory_curves.cache_info().hits
    second = theory_curves({**config, "seed": 99})
    assert _theory_curves.cache_info().hits == hits + 1 and second == first
    second["level"]["x"][0] = -1.0
    assert theory_curves(config)["level"]["x"][0] == first["level"]["x"][0]
    other = theory_curves({**config, "n": 140})
    assert other["level"] != first["level"]
    _theory_curves.cache_clear()
    assert theory_curves(config) == first
