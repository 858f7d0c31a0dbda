"""WCAG 2.1 AA in a real browser: axe-core finds no violation of the A/AA rules on any page, at its defaults and
after its default run; every chart has a text alternative a screen reader reaches; the keyboard alone changes a
lab's main control and starts and stops a run.

axe-core comes from the ``axe-playwright-python`` package (its bundled ``axe.min.js``): nothing downloads at run
time. axe cannot judge a chart drawn as SVG, so the chart test checks what the page offers instead of it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from test_browser import _pages, _slug, settle

pytestmark = pytest.mark.browser

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def _axe_source() -> str:
    axe = pytest.importorskip("axe_playwright_python")
    return (Path(axe.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def axe_violations(page) -> list[dict]:
    """axe-core's violations of the WCAG 2.1 A/AA rules on the page as it stands, one entry per rule."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=_axe_source())
    res = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: "
                        "['violations']})", TAGS)
    return [{"rule": v["id"], "impact": v["impact"], "count": len(v["nodes"]),
             "example": v["nodes"][0]["html"][:200] if v["nodes"] else "",
             "why": (v["nodes"][0].get("failureSummary") or "")[:300] if v["nodes"] else ""}
            for v in res["violations"]]


PAGES = [("home", "")] + [(p.stem, _slug(p)) for p in _pages()] + [
    # views that only appear after the user acts: a noisy aggregate run (its accuracy side and trade-off chart)
    # and the lecture's k-anonymity tab (its leaking class first)
    ("30_Aggregate_statistics-epsilon", "Aggregate_statistics?epsilon=1&targets=30"),
    ("11_Reidentification_lecture-kanon", "Reidentification_lecture?reid.tab=2+%C2%B7+k-anonymity"),
]
NO_PLOT = ("home", "03_Lessons", "60_Compare_runs", "70_Paper_presets", "90_Glossary")


@pytest.mark.parametrize("name,path", PAGES, ids=[n for n, _ in PAGES])
def test_no_axe_violations_at_defaults_and_after_the_default_run(server, browser, name, path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/{path}", wait_until="domcontentloaded")
    settle(page, need_plot=name not in NO_PLOT)
    found = axe_violations(page)
    page.close()
    assert not found, f"{name}: " + json.dumps(found, ensure_ascii=False, indent=1)


# ----------------------------------------------------------------- keyboard only
def _tab_to(page, test_js: str, limit: int = 150, back: bool = False) -> None:
    """Press Tab (or Shift+Tab) until the focused element satisfies ``test_js`` (a JS expression over ``el``);
    the test looks at the focus only to know when to stop, and acts by keys alone."""
    for _ in range(limit):
        if page.evaluate(f"() => {{ const el = document.activeElement; return !!el && ({test_js}); }}"):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reached an element with {test_js}")


def _button_named(label: str) -> str:
    return f"el.tagName === 'BUTTON' && el.innerText.trim().endsWith({json.dumps(label)})"


def test_keyboard_alone_changes_the_main_control_and_starts_and_stops_a_run(server, browser):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/Aggregate_statistics", wait_until="domcontentloaded")
    assert settle(page, need_plot=True), "the default run did not finish"
    # the control is there before any key is pressed: focus that passed it into the main area would not come back
    expect(page.locator('input[aria-label="ε per aggregate (0 = no noise)"]')).to_be_attached(timeout=60_000)
    page.locator("body").press("Tab")  # focus enters the page from the keyboard
    # 1. the lab's main control, ε per aggregate: reach it with Tab, type a new value, Enter
    _tab_to(page, "el.tagName === 'INPUT' && el.getAttribute('aria-label') === 'ε per aggregate (0 = no noise)'")
    page.keyboard.press("Control+A")
    page.keyboard.type("2")  # (the lab opens at ε = 1 per cell: 2 is a change)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"epsilon=2(\.0)?\b"), timeout=30_000)
    # 2. the change starts a run: its Stop button appears; reach it with Tab and press Enter
    expect(page.get_by_role("button", name="Stop")).to_be_visible(timeout=60_000)
    _tab_to(page, _button_named("Stop"))
    page.keyboard.press("Enter")
    expect(page.get_by_text(re.compile(r"^Stopped (after|before)"))).to_be_visible(timeout=60_000)
    # 3. start it again from its button, by the keyboard, and stop it again
    _tab_to(page, _button_named("Run again from the start"), back=True)
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Stop")).to_be_visible(timeout=60_000)
    _tab_to(page, _button_named("Stop"))
    page.keyboard.press("Enter")
    expect(page.get_by_text(re.compile(r"^Stopped (after|before)"))).to_be_visible(timeout=60_000)
    page.close()
