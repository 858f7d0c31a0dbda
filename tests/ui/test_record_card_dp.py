"""AppTest: the record card sets the measured attack beside the DP bound — for the run itself when it is a
differentially private release, and for pinned DP runs of the same lab that hold the same record."""
from __future__ import annotations

from apptest_helpers import open_page

from core.runtime.games import run
from ui.results.pins import pin_id

PAGE = "pages/10_Reconstruction_attack.py"
SMALL = {"n": 14, "query_ratio": 0.6, "trials": 2, "sweeps": False}


def _markdown(at) -> str:
    return " ".join(md.value for md in at.markdown)


def test_a_dp_run_shows_the_records_measured_guess_beside_its_bound():
    at = open_page(PAGE, **{k: str(v).lower() for k, v in SMALL.items()}, defense="gaussian", defense_level=1.0,
                   seed=5)
    assert not at.exception, at.exception
    text = _markdown(at)
    assert "Measured where the release is differentially private" in text
    assert "In this run, a DP release at ε = " in text and "per person, this record's tier is" in text
    assert "were right" in text and ("no attack is right about it with more than" in text
                                     or "no longer limits an attack" in text)
    assert "% lower bound " in text  # the share's own interval, so chance is not read as a broken promise


def test_pinned_dp_runs_of_the_same_lab_appear_on_the_card():
    noisy = run("reconstruction", {**SMALL, "defense": "gaussian", "defense_level": 1.0}, seed=5).to_dict(records=False)
    at = open_page(PAGE, run=False, **{k: str(v).lower() for k, v in SMALL.items()}, seed=5)
    at.session_state["_pins"] = [{**noisy, "pin_id": pin_id(noisy)}]
    at.run()
    assert not at.exception, at.exception
    text = _markdown(at)
    eps = noisy["metrics"]["release_epsilon"]
    assert "In your pinned run" in text and f"a DP release at ε = {eps:.3g}" in text
    assert "In this run," not in text  # exact answers are no DP release


def test_a_lab_that_can_release_with_dp_says_how_to_compare():
    at = open_page(PAGE, **{k: str(v).lower() for k, v in SMALL.items()}, seed=5)
    assert not at.exception, at.exception
    assert any("Pin a run of this lab that releases with differential privacy" in c.value for c in at.caption)
