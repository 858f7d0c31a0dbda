"""The "Who is exposed" panel on a lab page: tier counts that match the run, the score chart, the top-k table,
the record card with its DP counterfactual, and the CSV download."""
from __future__ import annotations


from apptest_helpers import chart_titles, open_page


def test_reconstruction_page_shows_who_is_exposed():
    at = open_page("pages/10_Reconstruction_attack.py", n=20, query_ratio=0.5, trials=3, sweeps="false")
    assert not at.exception, at.exception
    assert any(h.value == "Who is exposed" for h in at.subheader)
    metrics = {m.label: m.value for m in at.metric}
    tiers = {k: int(v.replace(",", "")) for k, v in metrics.items() if k in ("Certified people", "Probable people",
                                                                             "Guess people")}
    assert len(tiers) == 3
    assert sum(tiers.values()) == 60  # 3 trials × 20 people
    assert any("Who is exposed" in t for t in chart_titles(at))
    captions = " ".join(c.value for c in at.caption)
    assert "Score distribution of 60 records" in captions and "exact answers" in captions
    assert any("Record card" in md.value for md in at.markdown)
    card = " ".join(md.value for md in at.markdown)
    assert "Under a DP release at ε = 1" in card and "bounded by" in card
    eps = next(n for n in at.number_input if n.key.startswith("exposure-eps"))
    eps.set_value(0.1).run()
    assert not at.exception
    assert "Under a DP release at ε = 0.1" in " ".join(md.value for md in at.markdown)


def test_gaussian_noise_page_says_why_nothing_is_certified():
    at = open_page("pages/10_Reconstruction_attack.py", n=30, trials=2, sweeps="false", defense="gaussian",
                   defense_level=2.0)
    assert not at.exception, at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "Gaussian noise is unbounded" in captions
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Certified people"] == "0"


def test_compare_page_shows_which_records_changed_tier():
    from streamlit.testing.v1 import AppTest

    from apptest_helpers import ROOT
    from core.measure.records import tier_changes
    from core.runtime.games import run
    from ui.results.pins import pin_id

    base = {"n": 14, "query_ratio": 0.6, "trials": 2, "sweeps": False}
    runs = [run("reconstruction", base, seed=5).to_dict(records=False),
            run("reconstruction", {**base, "defense": "gaussian", "defense_level": 1.0}, seed=5).to_dict(records=False)]
    expected = tier_changes(runs[0]["exposure"], runs[1]["exposure"])
    assert expected  # the noise takes the certificates away
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.switch_page("pages/60_Compare_runs.py")
    at.session_state["_pins"] = [{**r, "pin_id": pin_id(r)} for r in runs]
    at.run()
    assert not at.exception, at.exception
    assert any(h.value == "Who changed tier" for h in at.subheader)
    text = " ".join(md.value for md in at.markdown)
    assert f"**{len(expected):,} of 28**" in text
