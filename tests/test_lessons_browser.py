"""Real browser: a link to one step of a lesson opens that step with its prediction widget; committing runs the
step and reveals the measurement."""
from __future__ import annotations

import pytest
from browser_helpers import SHOTS

pytestmark = pytest.mark.browser


def test_step_link_opens_its_prediction_widget(server, browser):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = ctx.new_page()
    page.goto(f"{server}/Lessons?lesson=3-reconstruction&step=4", wait_until="domcontentloaded")
    page.wait_for_selector('[data-testid="stSidebar"]', timeout=60_000)
    slider = page.locator('[data-testid="stSlider"]').filter(
        has_text="What fraction of the secret bits does the attack recover once the noise reaches √n?")
    expect(slider).to_have_count(1, timeout=60_000)
    expect(page.get_by_text("Step 4 of 6")).to_be_visible()
    expect(page.get_by_role("heading", name="4. Noise at √n")).to_be_visible()
    page.get_by_role("button", name="Commit my prediction").click()
    expect(page.get_by_text("Measured at the lesson's seed", exact=True)).to_be_visible(timeout=180_000)
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "lessons-step-revealed.png"))
    ctx.close()
