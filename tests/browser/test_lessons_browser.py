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


def test_after_a_keyboard_commit_the_focus_is_on_the_reveal(server, browser):
    """A student who commits with the keyboard lands on the reveal (its heading, read out by a screen reader),
    a few Tab presses from the step's next control, not back at the top of the page."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.goto(f"{server}/Lessons?lesson=1-what-epsilon-promises&step=2", wait_until="domcontentloaded")
    commit = page.get_by_role("button", name="Commit my prediction")
    expect(commit).to_be_visible(timeout=60_000)
    page.get_by_role("slider").first.focus()
    page.keyboard.press("ArrowRight")
    for _ in range(10):  # Tab from the slider to the button, as a keyboard user does
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.innerText || ''").strip() == "Commit my prediction":
            break
    else:
        raise AssertionError("Tab never reached the commit button")
    page.keyboard.press("Enter")
    expect(page.get_by_text("Measured at the lesson's seed", exact=True)).to_be_visible(timeout=120_000)
    page.wait_for_function("document.activeElement && document.activeElement.closest('.st-key-lessons-reveal')",
                           timeout=30_000)
    focused = page.evaluate("document.activeElement.innerText")
    assert focused.startswith("Reveal · score"), focused
    presses = 0
    for presses in range(1, 30):  # the reveal's chart, its text alternative, then the step's controls
        page.keyboard.press("Tab")
        label = page.evaluate("(document.activeElement.getAttribute('aria-label') || "
                              "document.activeElement.innerText || '').trim()")
        if label.startswith("ε") or "Next step" in label:
            break
    assert presses <= 8, f"{presses} Tab presses from the reveal to the step's next control"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "lessons-focus-on-reveal.png"))
    ctx.close()
