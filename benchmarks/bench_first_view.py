"""Seconds from opening a page to its first plot, in headless Chromium, on a warm server.

Starts ``streamlit run app.py``, opens every page once to warm the server (imports, caches), then opens each
page again in a fresh browser context and prints the time until the first ``.js-plotly-plot`` is drawn (a
shared link opened in a new tab). Then, in one tab opened at the home page, it chooses every lab in the sidebar
and prints the time from the click to the lab's first plot (how a class moves through the app). The goal for
a classroom demo is ≤ 2 s per page. Timings depend on the machine's load: run it on a quiet machine.

    python benchmarks/bench_first_view.py [--port 8604] [--repeat 2] [--shots /tmp/shots]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from labserver import ROOT, launch_options, serve  # shared with bench_load.py

GOAL = 2.0


def _pages() -> list[str]:
    return [re.sub(r"^\d+_", "", p.stem) for p in sorted((ROOT / "pages").glob("[0-9]*_*.py"))
            if int(p.stem.split("_")[0]) < 60]  # the labs; Compare runs, presets and the glossary have no plot


def first_plot_seconds(browser, url: str, shot: Path | None = None, timeout_s: float = 120, ctx=None,
                       titles: dict | None = None, slug: str = "") -> float:
    """Seconds to the first drawn plot. A fresh context (default) has an empty HTTP cache, like a first-time
    visitor; pass ``ctx`` to reuse one (a returning visitor: Streamlit's and Plotly's JavaScript cached)."""
    own = ctx is None
    ctx = ctx or browser.new_context(viewport={"width": 1400, "height": 1600})
    page = ctx.new_page()
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=timeout_s * 1000)
    seconds = time.perf_counter() - start
    if titles is not None:
        titles[slug] = page.locator("h1").first.text_content().strip()[:20]
    if shot is not None:
        page.wait_for_timeout(1500)
        page.screenshot(path=str(shot))
    # let the page's own run finish before the next visit (a warm server, not a busy one)
    deadline = time.time() + 180
    while time.time() < deadline and page.get_by_text(re.compile(r"^Running ")).count():
        page.wait_for_timeout(300)
    page.close()
    if own:
        ctx.close()
    return seconds


def in_app_seconds(page, label: str, title: str, timeout_s: float = 120) -> float:
    """Seconds from clicking ``label`` in the sidebar of an open app to the new page's first drawn plot.

    This is how a class uses the lab: one tab, pages switched in the sidebar. The document (Streamlit's and
    Plotly's JavaScript, already run) stays; only the page's script runs again."""
    link = page.locator("[data-testid=stSidebarNav] a", has_text=label).first
    start = time.perf_counter()
    link.click()
    page.wait_for_function(
        """title => {
            const live = el => !el.closest('[data-stale="true"]');
            const h1 = [...document.querySelectorAll('h1')].filter(live);
            if (!h1.some(h => h.textContent.trim().startsWith(title))) return false;
            return [...document.querySelectorAll('.js-plotly-plot .main-svg')].some(live);
        }""", arg=title, timeout=timeout_s * 1000, polling=50)
    seconds = time.perf_counter() - start
    deadline = time.time() + 180
    while time.time() < deadline and page.get_by_text(re.compile(r"^Running ")).count():
        page.wait_for_timeout(300)
    return seconds


FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st
st.title("One chart")
st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 1, 0])))
"""


def floor_seconds(browser, repeat: int = 3) -> float:
    """The same measure for a page that holds nothing but a title and one Plotly chart: what Streamlit and
    Plotly's JavaScript cost on this machine before any page of ours adds to it (median of ``repeat``)."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "floor.py"
        app.write_text(FLOOR_APP, encoding="utf-8")
        with serve(app=app) as server:
            ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
            first_plot_seconds(browser, f"{server.url}/", ctx=ctx)  # warm the server
            times = [first_plot_seconds(browser, f"{server.url}/", ctx=ctx) for _ in range(repeat)]
            ctx.close()
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2, help="warm visits per page (the median is printed)")
    ap.add_argument("--shots", type=Path, default=None, help="directory for a screenshot of each warm visit")
    ap.add_argument("--pages", nargs="*", default=None, help="page slugs (default: every page with a plot)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with serve(args.port) as server, sync_playwright() as p:
        base = server.url
        browser = p.chromium.launch(**launch_options())
        rows = []
        print("seconds to the first plot; 'warm' = second visit to a warm server; 'new browser' = empty HTTP "
              "cache, 'returning' = the browser has the app's JavaScript cached", flush=True)
        print(f"{'page':32s} {'first visit':>12s} {'warm, new browser':>18s} {'warm, returning':>16s} "
              f"{'returning / goal':>17s}", flush=True)
        returning = browser.new_context(viewport={"width": 1400, "height": 1600})
        titles: dict[str, str] = {}
        for slug in args.pages or _pages():
            cold = first_plot_seconds(browser, f"{base}/{slug}", ctx=returning, titles=titles, slug=slug)
            fresh, back = [], []
            for i in range(args.repeat):
                shot = args.shots / f"first-view-{slug}.png" if args.shots and i == 0 else None
                if shot:
                    args.shots.mkdir(parents=True, exist_ok=True)
                fresh.append(first_plot_seconds(browser, f"{base}/{slug}", shot))
                back.append(first_plot_seconds(browser, f"{base}/{slug}", ctx=returning))
            rows.append((slug, cold, statistics.median(fresh), statistics.median(back)))
            print(f"{slug:32s} {cold:12.2f} {rows[-1][2]:18.2f} {rows[-1][3]:16.2f} "
                  f"{rows[-1][3] / GOAL:17.2f}", flush=True)
        print(f"{'(floor: a title and one chart)':32s} {'':12s} {'':18s} {floor_seconds(browser):16.2f}",
              flush=True)
        # In-app navigation: one tab opened at the home page (whose chart loads Plotly's JavaScript once),
        # then every lab chosen in the sidebar, as a class uses the app.
        print(f"\n{'page (in-app navigation)':32s} {'first pass':>12s} {'second pass':>12s} {'/ goal':>8s}",
              flush=True)
        tab = returning.new_page()
        tab.goto(base, wait_until="commit")
        tab.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
        passes: dict[str, list[float]] = {}
        for _ in range(2):
            for slug, title in titles.items():
                passes.setdefault(slug, []).append(in_app_seconds(tab, slug.replace("_", " "), title))
        for slug, (one, two) in passes.items():
            print(f"{slug:32s} {one:12.2f} {two:12.2f} {max(one, two) / GOAL:8.2f}", flush=True)
        tab.close()
        returning.close()
        browser.close()
    print(f"(goal: ≤ {GOAL:.0f} s to the first plot on a warm server; "
          f"os.getloadavg() = {', '.join(f'{x:.1f}' for x in os.getloadavg())} — timings are noisy under load)")


if __name__ == "__main__":
    main()
