"""Real server + Chromium: a class seat belongs to the browser that took it. A student joins (the join form is the
first thing on the page), reloads and keeps the seat; the same address opened in a fresh browser context cannot
commit for her — it gets the join form, and only her PIN brings the seat over. axe-core checks the join form."""
from __future__ import annotations

import pytest
from browser_helpers import SHOTS
from test_accessibility import axe_violations

from core import classroom
from core.studies.lessons import lesson_files as L

pytestmark = pytest.mark.browser
LESSON = "1-what-epsilon-promises"


def _open(ctx, url):
    page = ctx.new_page()
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector('[data-testid="stSidebar"]', timeout=60_000)
    return page


def test_a_students_address_in_a_fresh_browser_cannot_commit_for_her(server, browser):
    from playwright.sync_api import expect

    made = classroom.create_class(LESSON)  # the server reads the same records database (LAB_DATABASE)
    url = f"{server}/Lessons?lesson={LESSON}&step=1&class={made['code']}"
    alice = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = _open(alice, url)
    expect(page.get_by_role("heading", name=f"Join class {made['code']}")).to_be_visible(timeout=60_000)
    assert page.get_by_role("button", name="Commit my prediction").count() == 0
    assert not axe_violations(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "class-join-form.png"))
    page.get_by_role("textbox", name="Display name", exact=True).fill("Alice")
    page.get_by_role("textbox", name="PIN (4–8 digits)", exact=True).fill("4711")
    page.get_by_role("button", name="Join the class").click()
    expect(page.get_by_text(f"{made['code']} · you are Alice")).to_be_visible(timeout=60_000)
    page.reload(wait_until="domcontentloaded")  # the same browser keeps its seat
    expect(page.get_by_text(f"{made['code']} · you are Alice")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("button", name="Commit my prediction")).to_be_visible(timeout=60_000)
    address = page.url

    stranger = browser.new_context(viewport={"width": 1300, "height": 1000})
    other = _open(stranger, address)
    expect(other.get_by_role("heading", name=f"Join class {made['code']}")).to_be_visible(timeout=60_000)
    assert other.get_by_role("button", name="Commit my prediction").count() == 0
    assert other.get_by_text("you are Alice").count() == 0
    other.get_by_text("Already joined on another browser or device?").click()
    name_box = other.get_by_role("textbox", name="Your display name", exact=True)
    expect(name_box).to_be_visible(timeout=60_000)  # the expander has opened (a busy server takes its time)
    name_box.fill("Alice")
    other.get_by_role("textbox", name="Your PIN", exact=True).fill("0000")
    other.get_by_role("button", name="Bring my seat here").click()
    expect(other.get_by_text("that PIN does not open the seat of that name")).to_be_visible(timeout=90_000)
    assert other.locator('[data-testid="stException"]').count() == 0
    lesson = L.get_lesson(LESSON)
    s = classroom.summary(made["code"], made["teacher_key"], lesson)
    assert s["n_students"] == 1 and s["steps"][0]["answered"] == 0  # nobody committed in Alice's name

    page.get_by_role("button", name="Commit my prediction").click()  # Alice herself still can
    expect(page.get_by_text("Measured at the lesson's seed", exact=True)).to_be_visible(timeout=120_000)
    s = classroom.summary(made["code"], made["teacher_key"], lesson)
    assert s["steps"][0]["answered"] == 1 and s["students"][0]["name"] == "Alice"
    stranger.close()
    alice.close()
