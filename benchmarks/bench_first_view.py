"""Seconds from opening a page to its first plot, in headless Chromium, on a warm server.

Starts ``streamlit run app.py``, opens every page once to warm the server (imports, caches: each visit waits
until the page's script has ended), then opens each page again in a new tab and prints the time until the
first ``.js-plotly-plot`` is drawn (a shared link opened in a new tab), for an empty HTTP cache and for a
browser that has the app's JavaScript cached. Then, in one tab opened at the home page, it chooses every lab
in the sidebar, ``--passes`` times, and prints the time from the click to the lab's first plot (how a class
moves through the app).

Beside the labs it measures two floors that no page of ours can go below:

* a page holding nothing but a title and one Plotly chart (Streamlit's and Plotly's own start), and the
  longest single browser task before its chart is drawn (evaluating Plotly's JavaScript);
* the same page with Plotly's JavaScript fetched as soon as the document has loaded (injected into the
  browser; Streamlit itself fetches it only when the first chart arrives): the bound for any Streamlit page
  with a Plotly chart on this machine.

The goal for a classroom demo is ≤ 2 s per page. Timings depend on the machine's load: run it on a quiet
machine.

    python benchmarks/bench_first_view.py [--port 8604] [--repeat 2] [--passes 3] [--shots /tmp/shots]
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


def settle(page, timeout_s: float = 300) -> None:
    """Wait until the page's script run has ended (Streamlit's run state on the app's root element; a lab's
    games run inside the script, so this includes them): the next visit then meets a warm server, with every
    cache the page fills filled, not a busy one. A page closed at its first plot would stop its script and
    leave the caches of its later parts (other tabs, tables) cold."""
    page.wait_for_function(
        """() => { const app = document.querySelector('[data-testid=stApp]');
                   return app && app.getAttribute('data-test-script-state') === 'notRunning'; }""",
        timeout=timeout_s * 1000, polling=200)


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
    settle(page)
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
    settle(page)
    return seconds


FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st
st.title("One chart")
st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 1, 0])))
"""


LONG_TASKS = """window.__longTasks = [];
new PerformanceObserver(list => list.getEntries().forEach(e => window.__longTasks.push([e.startTime, e.duration])))
    .observe({type: 'longtask', buffered: true});"""

PRELOAD = """document.addEventListener('DOMContentLoaded', () => import(%r));"""


def plotly_chunk() -> str:
    """The URL path of Streamlit's lazily loaded chunk that holds Plotly's JavaScript."""
    import streamlit
    found = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    if not found:
        raise SystemExit("Streamlit's PlotlyChart chunk not found: has its frontend changed?")
    return f"/static/js/{found[0].name}"


def floor_seconds(browser, repeat: int = 3, preload: bool = False) -> tuple[float, float]:
    """The same measure for a page that holds nothing but a title and one Plotly chart: what Streamlit and
    Plotly's JavaScript cost on this machine before any page of ours adds to it. Returns the median seconds
    of ``repeat`` visits by a returning browser, and the median of the longest browser task before the chart
    is drawn (Plotly's JavaScript being evaluated). ``preload``: Plotly's chunk is fetched and evaluated as
    soon as Streamlit's document has loaded, in parallel with the connection and the script run (injected
    into the browser; Streamlit does not do it), the lower bound for any page with a Plotly chart."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "floor.py"
        app.write_text(FLOOR_APP, encoding="utf-8")
        with serve(app=app) as server:
            ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
            ctx.add_init_script(LONG_TASKS + (PRELOAD % plotly_chunk() if preload else ""))
            first_plot_seconds(browser, f"{server.url}/", ctx=ctx)  # warm the server and the cache
            times, tasks = [], []
            for _ in range(repeat):
                page = ctx.new_page()
                start = time.perf_counter()
                page.goto(f"{server.url}/", wait_until="commit")
                page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
                times.append(time.perf_counter() - start)
                drawn = page.evaluate("performance.now()")
                tasks.append(max((d for t, d in page.evaluate("window.__longTasks") if t < drawn), default=0.0))
                settle(page)
                page.close()
            ctx.close()
    return statistics.median(times), statistics.median(tasks) / 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2, help="warm visits per page (the median is printed)")
    ap.add_argument("--passes", type=int, default=3, help="rounds of in-app navigation through every lab")
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
        floor, task = floor_seconds(browser)
        bound, _ = floor_seconds(browser, preload=True)
        print(f"{'(floor: a title and one chart)':32s} {'':12s} {'':18s} {floor:16.2f} {floor / GOAL:17.2f}"
              f"\n{'(floor, Plotly fetched at load)':32s} {'':12s} {'':18s} {bound:16.2f} {bound / GOAL:17.2f}"
              f"\n  the floor's longest browser task before its chart (evaluating Plotly's JavaScript): "
              f"{task:.2f} s", flush=True)
        # In-app navigation: one tab opened at the home page (whose chart loads Plotly's JavaScript once),
        # then every lab chosen in the sidebar, as a class uses the app.
        tab = returning.new_page()
        tab.goto(base, wait_until="commit")
        tab.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
        settle(tab)
        passes: dict[str, list[float]] = {}
        for _ in range(args.passes):
            for slug, title in titles.items():
                passes.setdefault(slug, []).append(in_app_seconds(tab, slug.replace("_", " "), title))
        print(f"\n{'page (in-app navigation)':32s} {'passes':>{6 * args.passes}s} {'worst':>7s} {'/ goal':>7s}",
              flush=True)
        for slug, times in passes.items():
            print(f"{slug:32s} {''.join(f'{t:6.2f}' for t in times)} {max(times):7.2f} {max(times) / GOAL:7.2f}",
                  flush=True)
        worst = max(max(t) for t in passes.values())
        print(f"in-app navigation: every lab's first plot within {worst:.2f} s "
              f"({'meets' if worst <= GOAL else 'misses'} the goal); a new tab: "
              f"{min(r[3] for r in rows):.2f}–{max(r[3] for r in rows):.2f} s for a returning browser, "
              f"against {floor:.2f} s for one chart alone and {bound:.2f} s with Plotly fetched at load")
        tab.close()
        returning.close()
        browser.close()
    print(f"(goal: ≤ {GOAL:.0f} s to the first plot on a warm server; "
          f"os.getloadavg() = {', '.join(f'{x:.1f}' for x in os.getloadavg())} — timings are noisy under load)")


if __name__ == "__main__":
    main()
