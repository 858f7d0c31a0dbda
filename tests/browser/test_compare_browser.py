"""Real browser: a shared Compare link opened in a fresh context shows and reruns the same configurations."""
from __future__ import annotations

import time

import pytest

from core.runtime.games import run
from ui.results.pins import decode_pins, encode_pins

pytestmark = pytest.mark.browser
SMALL = {"observations": 3, "games": 1000, "shadow_sweep_max": 0, "train_shadows": 200, "epsilon": 0.8}


def _wait_text(page, text: str, timeout: float = 240) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if text in page.evaluate("document.body.innerText"):
            return
        page.wait_for_timeout(500)
    raise AssertionError(f"{text!r} did not appear")


def test_shared_compare_link_restores_the_runs(server, browser):
    pinned = run("location", SMALL, seed=4).to_dict(records=False)
    token = encode_pins([pinned])
    context = browser.new_context(viewport={"width": 1400, "height": 1600})  # a fresh session: no pins
    page = context.new_page()
    page.goto(f"{server}/Compare_runs?pins={token}", wait_until="domcontentloaded")
    _wait_text(page, "This link holds 1 pinned run(s)")
    _wait_text(page, "epsilon=0.8")
    _wait_text(page, "Rerun the 1 linked")
    page.wait_for_timeout(1000)
    page.evaluate("""() => [...document.querySelectorAll('button')]
                     .filter(b => b.innerText.includes('Rerun the 1 linked'))[0].click()""")
    _wait_text(page, "Pinned runs (1 of 6)")
    _wait_text(page, "Hand it on")
    assert page.locator('[data-testid="stException"]').count() == 0
    restored = decode_pins(page.url.split("pins=", 1)[1].split("&", 1)[0])
    assert restored == decode_pins(token)  # the same configuration, seed included
    assert restored[0]["params"]["epsilon"] == 0.8 and restored[0]["seed"] == 4
    context.close()


def test_preset_link_puts_the_preset_first(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.goto(f"{server}/Paper_presets?preset=dinur-nissim-sqrt-n", wait_until="domcontentloaded")
    _wait_text(page, "Why ours may differ")
    first = page.locator("h4").first.inner_text()
    assert first.startswith("Dinur–Nissim: reconstruction breaks down")
    context.close()
