"""AppTest: pin a reconstruction run and a location run, open Compare, see both; a shared link restores them."""
import json

from streamlit.testing.v1 import AppTest
from lab_paths import ROOT

RECON = {"n": "30", "trials": "2", "sweeps": "false"}
LOC = {"games": "1000", "shadow_sweep_max": "0", "observations": "3", "train_shadows": "200"}


def _open(at, page, params):
    at.query_params.clear()
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _pin(at):
    button = next(b for b in at.button if b.label == "Pin this run")
    button.click().run()
    assert not at.exception, at.exception
    assert any(b.label == "Pinned" for b in at.button)


def test_pin_from_two_labs_and_compare():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    _pin(_open(at, "pages/10_Reconstruction_attack.py", RECON))
    _pin(_open(at, "pages/20_Location_membership.py", LOC))
    pins = at.session_state["_pins"]
    assert [p["scenario"] for p in pins] == ["reconstruction", "location"]
    at.query_params.clear()
    at.switch_page("pages/60_Compare_runs.py").run()
    assert not at.exception, at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "reconstruction" in text and "location" in text and "2 of 6" in " ".join(s.value for s in at.subheader)
    # the configuration diff lists parameters of both scenarios (each missing in the other run)
    frames = [d.value for d in at.dataframe]
    diff = next(f for f in frames if "parameter" in f.columns and "n" in set(f["parameter"]))
    assert {"n", "observations"} <= set(diff["parameter"])
    # ROC of the location run on one plot, and the privacy–utility scatter with both runs
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    titles = [s["layout"]["title"]["text"] for s in specs]
    roc = specs[next(i for i, t in enumerate(titles) if t.startswith("ROC of the strongest"))]
    assert any(tr.get("name", "").startswith("#2 location") for tr in roc["data"])
    scatter = specs[next(i for i, t in enumerate(titles) if t.startswith("Privacy vs utility"))]
    names = [tr.get("name", "") for tr in scatter["data"]]
    assert any(n.startswith("#1 reconstruction") for n in names) and any(n.startswith("#2 location") for n in names)
    token = at.query_params["pins"]
    assert token

    # a reload or a new tab opened from the link takes both pins back from the shared result store
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    fresh.query_params["pins"] = token
    fresh.switch_page("pages/60_Compare_runs.py").run()
    assert not fresh.exception, fresh.exception
    restored = fresh.session_state["_pins"]
    assert [p["config"] for p in restored] == [p["config"] for p in pins]
    assert restored[1]["metrics"]["accuracy"] == pins[1]["metrics"]["accuracy"]  # the stored numbers
    assert not any("pinned run(s)" in i.value for i in fresh.info)  # nothing left to rerun
    assert "2 of 6" in " ".join(s.value for s in fresh.subheader)


def test_a_link_without_stored_results_offers_a_rerun(monkeypatch):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    _pin(_open(at, "pages/10_Reconstruction_attack.py", RECON))
    pins = at.session_state["_pins"]
    at.query_params.clear()
    at.switch_page("pages/60_Compare_runs.py").run()
    token = at.query_params["pins"]
    monkeypatch.setenv("LAB_STORE", "")  # a server without the store (or one that has evicted the results)
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    fresh.query_params["pins"] = token
    fresh.switch_page("pages/60_Compare_runs.py").run()
    assert not fresh.exception, fresh.exception
    assert any("holds 1 pinned run(s)" in i.value for i in fresh.info)
    restore = next(b for b in fresh.button if b.label.startswith("Rerun the 1 linked"))
    restore.click().run()
    assert not fresh.exception, fresh.exception
    assert [p["config"] for p in fresh.session_state["_pins"]] == [p["config"] for p in pins]


def test_a_pinned_run_keeps_its_pins_in_the_lab_address():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    _pin(_open(at, "pages/10_Reconstruction_attack.py", RECON))
    assert at.query_params["pins"]  # a reload of the lab page keeps the pin


def test_empty_compare_links_every_lab_that_can_pin():
    # the empty page listed three of the five labs that offer "Pin this run"
    from ui.results.pins import PINNABLE_LABS
    with_pins = {f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*_*.py")
                 if "run_tools(" in p.read_text(encoding="utf-8") and not p.stem.startswith(("6", "7"))}
    assert {path for path, _ in PINNABLE_LABS} == with_pins
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/60_Compare_runs.py").run()
    assert not at.exception, at.exception
    links = [e.proto.label for e in at.get("page_link")]
    assert [label for _, label in PINNABLE_LABS] == links[:len(PINNABLE_LABS)]
