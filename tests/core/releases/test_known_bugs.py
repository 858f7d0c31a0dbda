"""Gallery of broken releases: every known-bug preset is flagged by the empirical-ε audit at its seed, every fixed
twin is not; the bug knobs exist only in the engine (never on a lab page); PrivBayes' probability-scale bug puts
n times too little noise on the tables."""
import pytest

from core.runtime.games import run
from core.scenario import get
from core.studies.presets import is_known_bug, known_bug_pairs, known_bug_verdict, load_presets

pytestmark = pytest.mark.slow  # every known-bug preset and its fixed twin are played at their seeds

PRESETS = load_presets()
PAIRS = known_bug_pairs(PRESETS)


def test_the_gallery_has_at_least_two_pairs_with_references():
    assert len(PAIRS) >= 2
    for bug, fixed in PAIRS:
        assert fixed == bug + "-fixed" and is_known_bug(fixed)
        assert PRESETS[bug]["expect"] == "flag" and PRESETS[fixed]["expect"] == "no-flag"
        assert PRESETS[bug]["reference"].startswith("https://")
        assert PRESETS[bug]["available"] and PRESETS[fixed]["available"]


@pytest.mark.parametrize("pair", PAIRS, ids=[b for b, _ in PAIRS])
def test_bug_flags_and_twin_does_not(pair):
    for name in pair:
        p = PRESETS[name]
        result = run(p["scenario"], p["params"], seed=int(p.get("seed", 0)))
        verdict = known_bug_verdict(p, result)
        assert verdict["ok"], f"{name}: {verdict['message']}"
        assert result.metrics["empirical_epsilon_low"] is not None


def test_bug_knobs_are_never_offered_on_the_lab_pages():
    for name in ("location", "reconstruction", "synthetic", "table-audit"):
        param = get(name).param("bug")
        assert not param.ui and param.default == "none"


def test_privbayes_probability_scale_bug_uses_n_times_too_little_noise():
    from core.releases.synthesizers.privbayes import PrivBayes

    right, wrong = PrivBayes(1.0), PrivBayes(1.0, count_sensitivity="probability")
    assert right._table_sensitivity(500) == 2.0
    assert wrong._table_sensitivity(500) == pytest.approx(2.0 / 500)
    assert wrong.params()["count_sensitivity"] == "probability" and "count_sensitivity" not in right.params()


def test_synthetic_bug_only_with_privbayes():
    from core.errors import ParameterError

    with pytest.raises(ParameterError):
        get("synthetic").resolve({"generator": "nonprivate", "bug": "privbayes-probability-sensitivity"})


def test_the_informed_auditor_is_always_right_on_an_exact_network():
    """BayNet publishes exact conditional tables: an auditor who knows everyone but the target can compute the
    target's secret from the secret's own table, so it never misses; the audit needs a network to read."""
    from core.errors import ParameterError

    result = run("synthetic", {"generator": "baynet", "attack": "dcr", "audit_model": True, "n": 200, "games": 40,
                               "synth_size": 10, "query_sweep": False}, seed=3)
    assert result.metrics["accuracy_model"] == 1.0 and result.metrics["auc_model"] == 1.0
    with pytest.raises(ParameterError, match="audit_model"):
        get("synthetic").resolve({"generator": "nonprivate", "audit_model": True})


def test_census_tables_bug_flags_and_its_twin_does_not():
    """The table-release bug: noise for ε per cell claimed as ε per person; its twin claims ε × cells per person."""
    bug, fixed = "known-bug-census-tables-forget-composition", "known-bug-census-tables-forget-composition-fixed"
    assert (bug, fixed) in PAIRS
    results = {n: run(PRESETS[n]["scenario"], PRESETS[n]["params"], seed=0) for n in (bug, fixed)}
    m_bug, m_fixed = results[bug].metrics, results[fixed].metrics
    assert m_bug["claimed_epsilon"] == 1.0 and m_fixed["claimed_epsilon"] == m_fixed["epsilon_per_person"]
    assert m_fixed["epsilon_per_person"] == pytest.approx(m_fixed["cells_per_person"] * 1.0)
    assert m_bug["empirical_epsilon_low"] > m_bug["claimed_epsilon"]  # the audit's evidence of the bug
    assert m_fixed["empirical_epsilon_low"] <= m_fixed["claimed_epsilon"]
    assert known_bug_verdict(PRESETS[bug], results[bug])["flagged"]
    assert not known_bug_verdict(PRESETS[fixed], results[fixed])["flagged"]
