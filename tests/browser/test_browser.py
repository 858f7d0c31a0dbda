"""Real-browser smoke test: every page opens in Debian Chromium, runs its default, shows a plot, no exception."""
from __future__ import annotations

import re
import time
import urllib.request
from pathlib import Path

import pytest
from lab_paths import ROOT
from browser_helpers import ARGS, CHROMIUM, SHOTS  # noqa: F401  (also read by other browser tests)


pytestmark = pytest.mark.browser


def _pages():
    return sorted((ROOT / "pages").glob("[0-9]*_*.py"))


def _slug(path: Path) -> str:
    return re.sub(r"^\d+_", "", path.stem)


def settle(page, need_plot: bool) -> bool:
    """Wait for the sidebar (and a plot where the page draws one), then for the page's full view: a new tab's
    first view ends at its first chart and the page runs again in full (ui/charts/first_view.py), so the first view's
    signal must be gone; then for the page to be still — no run shown as going and nothing added or removed for
    1.5 s (a short run shows no status at all). False if the page is still changing after 4 minutes."""
    page.wait_for_selector('[data-testid="stSidebar"]', timeout=60_000)
    if need_plot:
        page.wait_for_selector(".js-plotly-plot", timeout=120_000)
        from ui.charts.first_view import SIGNAL_KEY

        page.wait_for_selector(f'[class*="st-key-{SIGNAL_KEY}"]', state="detached", timeout=120_000)
    deadline, still_since, last = time.time() + 240, time.time(), None
    while time.time() < deadline:
        now = page.evaluate("""() => [document.getElementsByTagName('*').length,
            !!document.querySelector('[data-testid="stStatusWidget"]'),
            /(^|\\n)Running /.test(document.body.innerText)]""")
        if now != last or now[1] or now[2]:
            last, still_since = now, time.time()
        elif time.time() - still_since >= 1.5:
            return True
        page.wait_for_timeout(250)
    return False


def _check_page(browser, url: str, name: str, need_plot: bool = True) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="domcontentloaded")
    assert settle(page, need_plot), f"{name}: the default run did not finish within 4 minutes"
    assert page.get_by_text("Page not found").count() == 0, f"{name}: Streamlit could not find the page"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{name}: exception on the page: {exceptions.first.inner_text()[:500]}"
    body = page.locator("body").inner_text()
    assert "Traceback" not in body, f"{name}: traceback text on the page"
    # Each chart drawn once: Plotly's automargin found its axes' labels room enough (core/plots/margins.py). A
    # chart whose labels outgrow the margin Plotly draws a second time and notes it on its full layout.
    redrawn = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')]
        .filter(gd => gd._fullLayout && '_redrawFromAutoMarginCount' in gd._fullLayout)
        .map(gd => (gd._fullLayout.title && gd._fullLayout.title.text || '?')
                   .replace(/<[^>]+>/g, '').slice(0, 60))""")
    assert not redrawn, f"{name}: charts drawn twice for want of margin room: {redrawn}"
    page.close()


def test_home_page(server, browser):
    # the home page draws the DP bound teaser (it also loads the chart library for the first lab)
    _check_page(browser, server, "home", need_plot=True)


def test_browser_tests_share_one_worker_when_run_in_parallel(request, server):
    # Under ``--dist loadgroup`` (pyproject.toml) pytest-xdist sends a group's tests to one worker only if it could
    # append the group to each test's id (``…@browser``); when it cannot (pytest 9.2 with pytest-xdist 3.8) the
    # browser tests spread over both workers without a word, each worker starts its own lab server and fills its
    # own result store, and the suite runs minutes longer. The group marker alone is not enough: the id says
    # whether the scheduler saw it.
    assert request.node.get_closest_marker("xdist_group").args == ("browser",)
    if request.config.getvalue("loadgroup"):
        assert request.node.nodeid.endswith("@browser"), request.node.nodeid


def test_no_other_site_may_control_the_lab_from_a_frame(server):
    # Streamlit's default lets pages of its Community Cloud domains (where anyone can publish) send a framed app
    # messages that rerun or stop its script; the browser reads the allowed origins from this endpoint and opens
    # no channel when the list is empty (.streamlit/config.toml)
    import json

    config = json.loads(urllib.request.urlopen(f"{server}/_stcore/host-config", timeout=10).read())
    assert config["allowedOrigins"] == []


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.stem)
def test_every_page_runs_its_default(server, browser, path):
    # reference pages (90_Glossary), Compare (no pins yet), the presets list and a lesson step (a prediction comes
    # first) draw no chart until the user acts
    _check_page(browser, f"{server}/{_slug(path)}", path.stem,
                need_plot=not path.stem.startswith("9")
                and path.stem not in ("03_Lessons", "60_Compare_runs", "70_Paper_presets"))


# ----------------------------------------------------------------- shareable links
def _slider_shows(page, label: str, text: str) -> None:
    """The slider whose label is ``label`` shows ``text`` (polled: the widget may still be settling)."""
    from playwright.sync_api import expect
    box = page.locator('[data-testid="stSlider"]').filter(has_text=label).first
    expect(box.locator('[data-testid="stSliderThumbValue"]').first).to_have_text(text, timeout=10_000)


def _field_holds(page, label: str, value: str) -> None:
    """The number input whose label is ``label`` holds ``value`` (polled, as above)."""
    from playwright.sync_api import expect
    box = page.locator('[data-testid="stNumberInput"]').filter(has_text=label).first
    expect(box.locator("input").first).to_have_value(value, timeout=10_000)


def _select_holds(page, label: str, value: str) -> None:
    """The select box whose label is ``label`` shows ``value`` (its input's value: not part of the page's text)."""
    from playwright.sync_api import expect
    expect(page.get_by_role("combobox", name=label, exact=True)).to_have_value(value, timeout=10_000)


def _shows(page, text: str, timeout: int = 10_000) -> None:
    """``text`` appears on the page (polled: under load a page is drawn in several messages)."""
    from playwright.sync_api import expect
    expect(page.locator("body")).to_contain_text(text, use_inner_text=True, timeout=timeout)


def _open(browser, url: str):
    """A fresh browser context (no cookies, no session): only the link carries the configuration."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = ctx.new_page()
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector('[data-testid="stSidebar"]', timeout=60_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    return ctx, page


def test_links_restore_the_configuration(server, browser):
    # ε explorer: every control is bound to the URL
    ctx, page = _open(browser, f"{server}/Epsilon_explorer?eps.epsilon=2.0&eps.k=30&eps.n=500&eps.delta=1e-05")
    _slider_shows(page, "ε per observation", "2.0")
    _slider_shows(page, "Observations k", "30")
    _slider_shows(page, "δ", "1e-05")
    _field_holds(page, "People n", "500")
    _shows(page, "after k = 30")
    ctx.close()
    # Reconstruction: scenario parameters by name
    ctx, page = _open(browser, f"{server}/Reconstruction_attack?n=40&defense=gaussian&defense_level=2.5&trials=2"
                               "&sweeps=false&seed=7")
    _field_holds(page, "People n", "40")  # a typed field: its top follows the server's cost limits
    _field_holds(page, "Defence level", "2.5")
    _field_holds(page, "Seed", "7")
    # defence = gaussian came through: the level control is active (it is disabled for defence none)
    from playwright.sync_api import expect
    expect(page.locator('[data-testid="stNumberInput"]').filter(has_text="Defence level").locator("input")
           ).to_be_enabled(timeout=10_000)
    ctx.close()
    # Second reidentification page: a number, a toggle and a select slider
    ctx, page = _open(browser, f"{server}/More_reidentification_demos?rm.k_rel=3&rm.tb=false&rm.k_c=7")
    _field_holds(page, "k", "3")
    _shows(page, "Salil has no TB")
    ctx.close()


def test_changed_control_lands_in_the_link(server, browser):
    ctx, page = _open(browser, f"{server}/Reidentification_lecture")
    page.locator('[data-testid="stSidebar"]').get_by_text("Synthetic town").click()
    # Streamlit writes a bound choice widget's shown label into the link
    page.wait_for_function("() => location.search.includes('reid.source=Synthetic')", timeout=60_000)
    link = page.url
    ctx.close()
    ctx, page = _open(browser, link)
    from playwright.sync_api import expect
    expect(page.locator('[data-testid="stSidebar"] label:has(input[type=radio]:checked)').first
           ).to_contain_text("Synthetic town", timeout=10_000)
    _shows(page, "People in the town")
    ctx.close()


def test_reid_lecture_runs_a_demo_when_its_tab_opens(server, browser):
    # lazy tabs (a fast first view): the differencing demo is not on the page until its tab is chosen; the
    # choice travels in the link, and a control of a closed tab keeps its value
    ctx, page = _open(browser, f"{server}/Reidentification_lecture?reid.vot=0.9")
    assert page.get_by_text("Queries asked").count() == 0
    page.get_by_role("tab", name="4 · Differencing").click()
    _shows(page, "Queries asked")
    page.wait_for_function("() => location.search.includes('reid.tab=')", timeout=30_000)
    link = page.url
    page.get_by_role("tab", name="1 · Linkage").click()
    _slider_shows(page, "Share of people on the voter list", "0.90")
    ctx.close()
    ctx, page = _open(browser, link)
    _shows(page, "Queries asked")
    ctx.close()


def _metric(page, label: str):
    return page.locator('[data-testid="stMetric"]').filter(has_text=label).first.locator(
        '[data-testid="stMetricValue"]')


def test_more_reid_table_edits_survive_a_closed_tab(server, browser):
    # lazy tabs: Streamlit forgets a widget that a run does not draw; the downcoding table's edits must not
    # be lost when the student looks at another demo and comes back
    from playwright.sync_api import expect
    ctx, page = _open(browser, f"{server}/More_reidentification_demos")
    page.get_by_role("tab", name="2 · Downcoding").click()
    expect(_metric(page, "Tables X′ tried")).to_have_text("46,656", timeout=30_000)
    grid = page.locator('[data-testid="stDataFrame"]').first
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + 52)  # the first row's marker: selects the row
    grid.hover()
    page.get_by_role("button", name=re.compile("delete", re.I)).first.click()
    expect(_metric(page, "Tables X′ tried")).to_have_text("7,776", timeout=30_000)  # 5 records left
    page.get_by_role("tab", name="3 · Composition").click()
    _shows(page, "% unique in A ⋈ B", timeout=30_000)
    page.get_by_role("tab", name="2 · Downcoding").click()
    expect(_metric(page, "Tables X′ tried")).to_have_text("7,776", timeout=30_000)
    ctx.close()


def test_synthetic_lab_link_restores_data_and_generator(server, browser):
    # the synthetic lab's own sidebar choices (data, generator) travel in the link
    # Streamlit writes a bound select box's *shown label* into the link
    from urllib.parse import quote

    ctx, page = _open(browser, f"{server}/Synthetic_data?synthetic.dataset={quote('ACS-like surrogate')}"
                               f"&synthetic.generator={quote('BayNet (Bayesian network, degree k)')}"
                               "&games=2&synth_size=1000&query_sweep=false")
    assert "synthetic.generator=BayNet" in page.url  # the link kept the choice (an unknown value is dropped)
    # a select box shows its choice as its input's value (not in the page's text)
    _select_holds(page, "Data", "ACS-like surrogate")
    _select_holds(page, "Generator", "BayNet (Bayesian network, degree k)")
    # and the run itself names that generator and data set (the preview it replaces may be gone already: a
    # 2-game run can finish before the first look)
    _shows(page, "made by BayNet (Bayesian network, degree k)", timeout=240_000)
    _shows(page, "ACS-like", timeout=240_000)
    ctx.close()


def test_stop_ends_a_running_run(server, browser):
    # In a real browser: Stop clicked while a run is going (queued, preparing or playing games)
    # ends it and the page says so (the page's wait now sends a progress line at most once a second). A seed
    # no other run uses: no stored result can answer at once.
    seed = int(time.time()) % 1_000_000 + 1000
    ctx, page = _open(browser, f"{server}/Reconstruction_attack?n=300&trials=200&seed={seed}")
    page.get_by_text(re.compile(r"^Running ")).first.wait_for(timeout=60_000)
    page.get_by_role("button", name="Stop").click()
    page.get_by_text(re.compile(r"Stopped (after|before)")).first.wait_for(timeout=60_000)
    from playwright.sync_api import expect
    # the old status box stays on screen (stale) until the rerun that shows the stop has finished
    expect(page.get_by_text(re.compile(r"^Running "))).to_have_count(0, timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    ctx.close()


def test_who_is_exposed_panel_in_chromium(server, browser):
    # a small exact-answer run: the panel under the plots names its tiers, draws the score chart and offers the CSV
    ctx, page = _open(browser, f"{server}/Reconstruction_attack?n=14&query_ratio=0.5&trials=2&sweeps=false")
    try:
        _shows(page, "Who is exposed", timeout=120_000)
        _shows(page, "Certified people")
        _shows(page, "Record card")
        _shows(page, "Who is exposed (28 people)")
        assert page.locator(".js-plotly-plot").filter(has_text="score per record").count() >= 1
        assert not page.locator('[data-testid="stException"]').count()
    finally:
        ctx.close()
