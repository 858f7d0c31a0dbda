"""Known answers for the second reidentification page: the TB mechanism, downcoding, composition."""
from collections import Counter
from itertools import product

import pandas as pd
import pytest

from core.errors import DataError, ParameterError
from core.reid import composition, downcoding, privacy_is_relational as rel
from core.reid.k_anonymity import check


# ----------------------------------------------------------------------------- privacy is relational
def test_tb_mechanism_both_outputs_k_anonymous_but_columns_reveal_the_bit():
    # Worked by hand on slide_table(), k = 2.
    # TB world, right to left: Diagnosis → group → *, Sex → *; rows still differ by age; Age → 10-year band
    # gives pairs (02138, 40–49), (02139, 40–49), (02134, 30–39), (02135, 30–39): heights (0, 1, 1, 2).
    # No-TB world, left to right: ZIP → ***** and Age → * and Sex → * leave the diagnoses, where Chen's TB is
    # unique; Diagnosis → infectious / chronic gives two classes of 4: heights (5, 2, 1, 1).
    tw = rel.two_worlds(k=2)
    assert tw.both_k_anonymous and tw.outputs_differ and tw.attack_correct
    assert tw.worlds[True].heights == {"ZIP": 0, "Age": 1, "Sex": 1, "Diagnosis": 2}
    assert tw.worlds[False].heights == {"ZIP": 5, "Age": 2, "Sex": 1, "Diagnosis": 1}
    assert tw.worlds[True].generalised == ["Age", "Sex", "Diagnosis"]
    assert "ZIP" not in tw.worlds[True].generalised and "ZIP" in tw.worlds[False].generalised
    for out in tw.worlds.values():
        assert check(out.table, tw.columns, 2).passes
        assert "Name" not in out.table.columns
    assert tw.worlds[True].report.min_class_size == 2 and tw.worlds[False].report.min_class_size == 4
    # the two inputs are neighbours: they differ in Salil's diagnosis only
    diff = tw.inputs[True].compare(tw.inputs[False])
    assert diff.shape[0] == 1 and list(tw.inputs[True].loc[diff.index, "Name"]) == ["Salil"]


def test_tb_mechanism_leaks_for_every_k_where_it_has_to_generalise():
    for k in (2, 3, 4):
        tw = rel.two_worlds(k=k)
        assert tw.both_k_anonymous and tw.attack_correct, k
    tw = rel.two_worlds(k=1)  # already 1-anonymous: nothing generalised, nothing to read
    assert not tw.outputs_differ and all(rel.decode(o.heights, o.tops) is None for o in tw.worlds.values())


def test_decode_prefix_suffix_rule():
    tops = {"a": 2, "b": 1, "c": 3}
    assert rel.decode({"a": 0, "b": 1, "c": 3}, tops) is True     # suffix → right-to-left → TB
    assert rel.decode({"a": 2, "b": 1, "c": 1}, tops) is False    # prefix → left-to-right → no TB
    assert rel.decode({"a": 0, "b": 0, "c": 0}, tops) is None
    assert rel.decode({"a": 2, "b": 1, "c": 3}, tops) is None


def test_tb_mechanism_bad_inputs():
    with pytest.raises(ParameterError):
        rel.two_worlds(k=0)
    with pytest.raises(ParameterError):
        rel.two_worlds(k=9)  # 8 rows
    with pytest.raises(ParameterError):
        rel.two_worlds(other_value=rel.SECRET)
    with pytest.raises(DataError):
        rel.two_worlds(rel.slide_table(), target="Nobody")
    with pytest.raises(ParameterError):
        rel.tb_mechanism(rel.slide_table(), 2, sensitive="Illness")


# ----------------------------------------------------------------------------- downcoding
def _class_multisets(res: downcoding.Downcoding) -> dict:
    out = {}
    for i in range(len(res.y)):
        out.setdefault(tuple(res.y.iloc[i]), Counter())[tuple(res.z.iloc[i])] += 1
    return out


def test_downcoding_slide_example_by_hand():
    # Y = 9101*/$75–150k ×3 and 2003*/$0–75k ×3. Minimality forces each class's lowest common node to be its
    # label: its ZIPs are not all equal, and the group has just two ZIPs, so each class holds both → two ZIP
    # cells per class are downcoded to the exact value. Incomes (3 leaves per band) only need to differ:
    # nothing is forced. Counting X′ per class: ZIPs 2³ − 2 = 6, incomes 3³ − 3 = 24 → 144; 144² overall.
    x, h = downcoding.slide_example()
    res = downcoding.downcode(x, h, k=3)
    assert res.y["ZIP"].tolist() == ["9101*"] * 3 + ["2003*"] * 3
    assert res.y["Income"].tolist() == ["$75–150k"] * 3 + ["$0–75k"] * 3
    assert res.n_candidates == 6 ** 6 and res.n_consistent == 144 ** 2
    ms = _class_multisets(res)
    assert ms[("9101*", "$75–150k")] == Counter({("91010", "$75–150k"): 1, ("91011", "$75–150k"): 1,
                                                 ("9101*", "$75–150k"): 1})
    assert ms[("2003*", "$0–75k")] == Counter({("20036", "$0–75k"): 1, ("20037", "$0–75k"): 1,
                                               ("2003*", "$0–75k"): 1})
    m = res.metrics()
    assert m["n_cells_exact"] == 4 and m["n_cells_refined"] == 4 and m["n_records_refined"] == 4
    # Z generalises X and refines Y, row by row (rows aligned to the true records)
    assert (res.cells["downcoded_height"] <= res.cells["published_height"]).all()
    exact = res.cells[res.cells["downcoded_height"] == 0]
    assert (exact["downcoded"] == exact["true"]).all()


def test_downcoding_mixed_heights_rules_values_out():
    # Y: (*, d1) ×3, (b2, d1) ×2, (b2, c) ×2, k = 2. A (*, d1) record cannot be b2 (it would join the
    # exact class (b2, d1) and lower the total height), and the class's A values must span both groups;
    # b1 is the only b-leaf left, so one row is b1 exactly, one row is in group a, one stays *.
    # (b2, c) has two records under c = {c1, c2} that must differ: one c1, one c2.
    x, h = downcoding.mixed_example()
    res = downcoding.downcode(x, h, k=2)
    ms = _class_multisets(res)
    assert ms[("*", "d1")] == Counter({("b1", "d1"): 1, ("a", "d1"): 1, ("*", "d1"): 1})
    assert ms[("b2", "c")] == Counter({("b2", "c1"): 1, ("b2", "c2"): 1})
    assert ms[("b2", "d1")] == Counter({("b2", "d1"): 2})
    assert res.metrics()["n_cells_exact"] == 3


def _naive_minimal_count(x: pd.DataFrame, hier: dict, y: pd.DataFrame, k: int) -> int:
    """Independent check: X′ consistent iff no Y′ ≠ Y with X′ ⊑ Y′ ⊑ Y is k-anonymous (all Y′ enumerated)."""
    def up(col, leaf, h):
        return leaf if h == 0 else hier[col][leaf] if h == 1 else "*"

    def height(col, lab):
        return 2 if lab == "*" else 1 if lab in set(hier[col].values()) else 0

    cols, n = list(x.columns), len(x)
    cells = [(i, c) for i in range(n) for c in cols]
    opts = [[v for v in hier[c] if up(c, v, height(c, y.at[i, c])) == y.at[i, c]] for i, c in cells]
    count = 0
    for xs in product(*opts):
        leaf = dict(zip(cells, xs))
        hs = [range(height(c, y.at[i, c]) + 1) for i, c in cells]
        minimal = True
        for choice in product(*hs):
            if all(ch == height(c, y.at[i, c]) for ch, (i, c) in zip(choice, cells)):
                continue
            rows = Counter(tuple(up(c, leaf[(i, c)], choice[j * len(cols) + a]) for a, c in enumerate(cols))
                           for j, i in enumerate(range(n)))
            if min(rows.values()) >= k:
                minimal = False
                break
        count += minimal
    return count


def test_downcoding_dynamic_programme_matches_naive_minimality():
    x, h = downcoding.mixed_example()
    res = downcoding.downcode(x, h, k=2)
    assert res.n_consistent == _naive_minimal_count(x, h, res.y, 2) == 36


def test_optimal_knowledge_is_at_least_as_strong_and_mondrian_is_checked():
    x, h = downcoding.mixed_example()
    assert downcoding.downcode(x, h, 2, "optimal").n_consistent <= downcoding.downcode(x, h, 2, "minimal").n_consistent
    xs, hs = downcoding.slide_example()
    assert downcoding.downcode(xs, hs, 3, anonymiser="mondrian").y.equals(downcoding.downcode(xs, hs, 3).y)
    with pytest.raises(DataError, match="not minimal"):
        downcoding.downcode(x, h, 2, anonymiser="mondrian")  # Mondrian's Y here is not minimal


def test_downcoding_bad_inputs():
    x, h = downcoding.slide_example()
    with pytest.raises(DataError):
        downcoding.downcode(pd.concat([x, x, x]).reset_index(drop=True), h, 3)   # 18 rows
    with pytest.raises(DataError):
        downcoding.downcode(x[["ZIP"]], h, 3)                                     # one attribute
    with pytest.raises(DataError):
        downcoding.downcode(x.assign(ZIP=["99999"] * 6), h, 3)                    # not a leaf
    with pytest.raises(ParameterError):
        downcoding.downcode(x, h, 0)
    with pytest.raises(ParameterError):
        downcoding.downcode(x, h, 3, knowledge="psychic")
    with pytest.raises(ParameterError):
        downcoding.downcode(x, {"ZIP": h["ZIP"]}, 3)                              # missing hierarchy
    big = pd.concat([x, x.iloc[:2]]).reset_index(drop=True)                       # 8 rows, k = 4: too many X′
    with pytest.raises(ParameterError, match="candidate"):
        downcoding.downcode(big, h, 4)


# ----------------------------------------------------------------------------- composition
def test_synthetic_edx_is_deterministic_and_consistent():
    a, b = composition.synthetic_edx(2_000, 8, seed=3), composition.synthetic_edx(2_000, 8, seed=3)
    pd.testing.assert_frame_equal(a, b)
    enrolled = a[[f"c{c}_enrolled" for c in range(1, 9)]].to_numpy()
    posts = a[[f"c{c}_posts" for c in range(1, 9)]].to_numpy()
    assert (enrolled.sum(1) >= 1).all() and (posts[enrolled == 0] == 0).all()


def test_composition_join_breaks_k_anonymity():
    r = composition.composition_attack(n_learners=3_000, n_courses=8, k=5, course=1, seed=0)
    s = r.summary.set_index("table")
    for rel_name in ("release A", "release B"):
        assert s.loc[rel_name, "min_class_size"] >= 5
        assert s.loc[rel_name, "pct_unique"] == 0 and s.loc[rel_name, "pct_not_k_anonymous"] == 0
    m = r.metrics()
    assert m["pct_unique_joined"] > 5.0 and m["pct_not_k_anonymous_joined"] > m["pct_unique_joined"]
    assert len(r.joined) == 3_000
    # the join's QIs generalise the raw union of both QI sets, so it can only merge the raw classes
    assert m["pct_unique_joined"] <= s.loc["raw: both QI sets", "pct_unique"]
    assert r.class_sizes["n_records"].sum() == 3_000
    assert int(r.class_sizes.loc[r.class_sizes["class_size"] == 1, "n_records"].sum()) == m["n_unique_joined"]


def test_composition_paper_figures_and_bad_inputs():
    assert (composition.EDX_PCT_UNIQUE, composition.EDX_PCT_NOT_K, composition.EDX_K) == (7.1, 15.3, 5)
    with pytest.raises(ParameterError):
        composition.composition_attack(n_learners=500, n_courses=4, course=5)
    with pytest.raises(ParameterError):
        composition.composition_attack(n_learners=500, n_courses=4, k=1)
    with pytest.raises(ParameterError):
        composition.synthetic_edx(10)
    with pytest.raises(ParameterError):
        composition.synthetic_edx(1_000, n_courses=17)
