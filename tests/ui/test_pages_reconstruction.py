"""AppTest: the landing page and the reconstruction page run their defaults without exceptions."""
import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from apptest_helpers import before_first_chart
from lab_paths import ROOT


def _app():
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()


def test_home_links_every_page():
    at = _app()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "privacy game" in text
    pages = sorted(p.name for p in (ROOT / "pages").glob("[0-9]*_*.py"))
    linked = {link.proto.page for link in at.get("page_link")}
    assert linked == {re.sub(r"^\d+_", "", Path(p).stem) for p in pages}  # every page, and nothing else
    captions = " ".join(c.value for c in at.caption)
    assert "√n" in captions and "DeSIA" in captions  # each lab is described in a line


def test_reconstruction_page_default_and_change():
    at = _app()
    at.switch_page("pages/10_Reconstruction_attack.py").run()
    assert not at.exception, at.exception
    labels = {m.label: m.value for m in at.metric}
    assert float(labels["Bits recovered"]) == 1.0  # noiseless, m = 2n: every bit recovered
    assert "metric" not in before_first_chart(at)  # the two sweeps first, their numbers under them
    charts = at.get("plotly_chart")
    assert len(charts) >= 3
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in charts]
    assert any("√n" in t for t in titles)
    specs = {json.loads(c.proto.spec)["layout"]["title"]["text"]: json.loads(c.proto.spec) for c in charts}
    # the chosen setting is marked: m/n = 2 on the ratio sweep, σ = 0 (no defence) on the noise sweep
    ratio = specs["Bits recovered vs queries per person"]
    star = [t for t in ratio["data"] if t.get("name", "").startswith("chosen")]
    assert star and star[0]["x"] == [2.0] and star[0]["y"] == [1.0]
    noise = next(v for k, v in specs.items() if k.startswith("Bits recovered vs noise"))
    assert any(t.get("name", "").startswith("chosen: σ = 0") for t in noise["data"])
    # whole trials only on the histogram's count axis
    hist = specs["Accuracy of each trial at the chosen setting"]["layout"]["yaxis"]
    assert hist["tickformat"] == "d" and float(hist["dtick"]).is_integer()
    # the plain-language sentence reads the result
    assert any("recovers 100% of the secret bits" in i.value for i in at.info)
    at.selectbox(key="reconstruction.defense").select("gaussian").run()
    at.number_input(key="reconstruction.defense_level").set_value(30.0).run()
    assert not at.exception
    labels = {m.label: m.value for m in at.metric}
    assert float(labels["Bits recovered"]) < 0.8


def test_reconstruction_page_bad_combination_shows_message():
    at = _app()
    at.switch_page("pages/10_Reconstruction_attack.py").run()
    at.selectbox(key="reconstruction.solver").select("ilp").run()
    assert not at.exception
    assert any("ilp" in e.value for e in at.error)


def test_reconstruction_heatmap_button():
    at = _app()
    at.switch_page("pages/10_Reconstruction_attack.py").run()
    at.number_input(key="reconstruction.n").set_value(20).run()
    at.selectbox(key="reconstruction.solver").select("lsq").run()
    at.button(key="_sweep.recon-heatmap.go").click().run()
    assert not at.exception, at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    heat = [s for s in specs if s["data"][0]["type"] == "heatmap"]
    assert heat, "heatmap not drawn"
    rects = [sh for sh in heat[0]["layout"].get("shapes", []) if sh["type"] == "rect"]
    assert len(rects) == 1  # the sidebar's (m/n = 2, no noise) cell is outlined
    assert rects[0]["x0"] == 2.5 and rects[0]["y0"] == -0.5
    z = heat[0]["data"][0]["z"]
    assert len(z) == 8 and len(z[0]) == 6
    assert z[0][-1] == 1.0  # no noise, m = 4n: everything recovered
    assert z[-1][0] < 0.8   # σ = 1.5·√n, m = n/2: far from it


def test_reconstruction_scaling_button():
    at = _app()
    at.switch_page("pages/10_Reconstruction_attack.py").run()
    at.button(key="_sweep.recon-scaling.go").click().run()
    assert not at.exception, at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    scaling = [s for s in specs if "σ/√n matters" in s["layout"]["title"]["text"]]
    curves = [t for t in scaling[0]["data"] if t.get("mode") == "lines+markers"]
    assert len(curves) == 3  # one curve per n
    first_points = [trace["y"][0] for trace in curves]
    assert first_points == [1.0, 1.0, 1.0]  # no noise: every n fully recovered
    bands = [t for t in scaling[0]["data"] if t.get("fill") == "toself"]
    assert len(bands) == 3  # a 95% band per n
    for b, c in zip(bands, curves):  # the band encloses its curve
        k = len(c["y"])
        high, low = b["y"][:k], b["y"][k:][::-1]
        assert all(lo - 1e-9 <= y <= hi + 1e-9 for lo, y, hi in zip(low, c["y"], high))
        assert any(hi - lo > 0.01 for lo, hi in zip(low, high))


def test_reconstruction_page_lp_engine_choice():
    # the same noisy game through the certified dense solver and through HiGHS: same bits recovered
    at = _app()
    at.switch_page("pages/10_Reconstruction_attack.py").run()
    at.toggle(key="reconstruction.sweeps").set_value(False).run()
    at.selectbox(key="reconstruction.defense").select("gaussian").run()
    at.number_input(key="reconstruction.defense_level").set_value(3.0).run()
    assert not at.exception, at.exception
    dense = float({m.label: m.value for m in at.metric}["Bits recovered"])
    at.selectbox(key="reconstruction.lp_method").select("highs").run()
    assert not at.exception, at.exception
    highs = float({m.label: m.value for m in at.metric}["Bits recovered"])
    assert 0.6 < dense < 1.0 and abs(dense - highs) <= 0.01


def test_people_n_goes_only_as_high_as_the_server_accepts(tmp_path, monkeypatch):
    # the slider went to 2,000 although the page-default run is refused above n ≈ 1,500 (cost estimate): n is
    # now a typed field whose top follows the estimate at the current settings, and a larger value is corrected
    # with the reason instead of a refusal after the click
    from apptest_helpers import open_page

    limits = tmp_path / "lab_settings.toml"  # a strict server, so the largest accepted run stays quick here
    limits.write_text("[server]\nmax_run_seconds = 10\n")
    monkeypatch.setenv("LAB_SETTINGS", str(limits))
    at = open_page("pages/10_Reconstruction_attack.py", n=2000)  # the page's defaults otherwise
    assert not at.exception
    field = at.number_input(key="reconstruction.n")
    assert 100 < field.value < 2000 and "the command line has no such limit" in field.help
    assert any("is above the maximum" in w.value for w in at.sidebar.warning)
    assert not any("the server allows" in e.value for e in at.error), [e.value for e in at.error]
    # the cap is the largest n whose estimate fits the limits: one step more would be refused
    from core.cost import largest_affordable
    from core.basics.settings import settings
    from core.scenario import get

    sc, lim = get("reconstruction"), settings()
    config = sc.resolve({})
    top = largest_affordable(sc.estimate_cost, config, "n", 5, 2000, 5, lim.max_run_seconds, lim.max_run_bytes)
    assert top == field.value
    over = sc.estimate_cost({**config, "n": top + 5})
    assert over.seconds > lim.max_run_seconds or over.bytes > lim.max_run_bytes
