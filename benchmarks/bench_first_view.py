"""Seconds from opening a page to its first plot, in headless Chromium, on a warm server, beside two floors.

Starts the lab as ``run.sh app`` serves it (``streamlit run serve.py``) and opens every page once, waiting until its script has ended: that warms the
server (imports, caches, stored runs) and tells which pages draw a plot on first view; the others (a lesson
before its first step is run, Compare runs without pins, …) are listed as skipped, with the reason. Then it
opens each page with a plot again in a new tab and prints the time until the first ``.js-plotly-plot`` is drawn
(a shared link opened in a new tab), for an empty HTTP cache and for a returning browser that has the app's
JavaScript cached, and takes the returning visit apart: when the websocket delivered the first chart's figure
(the server's part), the bytes before it, the browser's long tasks before the draw, the page's charts and WebGL
charts. Then, in one tab opened at the home page, it chooses every page in the sidebar, ``--passes`` times,
and prints the time from the click to the page's first plot (how a class moves through the app).

Beside the pages it measures two floors that no page of ours can go below:

* a page holding nothing but a title and one Plotly chart (Streamlit's and Plotly's own start), and the
  longest single browser task before its chart is drawn (evaluating Plotly's JavaScript);
* the same page with Plotly's JavaScript fetched as soon as the document has loaded (injected into the
  browser; Streamlit itself fetches it only when the first chart arrives): the bound for any Streamlit page
  with a Plotly chart on this machine.

Goals: a new tab's first plot within 1.2× the one-chart floor measured in the same run (the ratio cancels most
of the machine's load), and ≤ 2 s for in-app navigation. Each page is set against the floor visits made between
its own ('/ floor beside it', the verdict): a shared machine's load drifts over the run's minutes (the floor's
Plotly task went from 0.9 to 1.3 s within one run), and a page measured in a slow stretch against the run's
median floor looked up to 40% slower than it was.

    python benchmarks/bench_first_view.py [--port 8604] [--repeat 2] [--passes 3] [--shots /tmp/shots]
        [--pages Location_membership ML_models] [--returning-only]
    python benchmarks/bench_first_view.py --element-costs [--repeat 5]
    python benchmarks/bench_first_view.py --against ../other-checkout [--repeat 8] [--pages Decision_game]

``--element-costs`` measures only what a page's elements above its first chart cost that chart (the floor page
with 12 metrics, 10 paragraphs, 10 captions or 4 controls before its chart, each against the floor beside it).

``--against TREE`` compares this checkout with another one (the commit before a change, say) in one run: both
are served side by side and every page is opened in both, in alternating order, each visit against a floor
visit made just before it. Two separate runs of the whole benchmark differ by ±0.1 in a page's ratio on a
shared machine, as much as a change to a page is worth; visits interleaved in one run tell changes of 0.05
apart.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floor_pages import ELEMENT_VARIANTS, FLOOR_APP, _CHART, _HEAD, frame_tree  # the pages set against a lab
from labserver import ROOT, launch_options, serve  # shared with bench_load.py

GOAL = 2.0


def _pages() -> list[str]:
    """Every page's slug. Which of them draw a plot on first view is found by opening them (:func:`first_visit`),
    so a page added later is measured or skipped with its reason, never waited on until a timeout."""
    return [re.sub(r"^\d+_", "", p.stem) for p in sorted((ROOT / "pages").glob("[0-9]*_*.py"))]


def settle(page, timeout_s: float = 300, quiet_s: float = 1.5) -> None:
    """Wait until the page's script run has ended (Streamlit's run state on the app's root element; a lab's
    games run inside the script, so this includes them) and stayed ended for ``quiet_s`` — a new tab's first
    view runs twice, up to its first chart and then in full (ui/charts/first_view.py): the next visit then meets a
    warm server, with every cache the page fills filled, not a busy one. A page closed at its first plot would
    stop its script and leave the caches of its later parts (other tabs, tables) cold."""
    page.wait_for_function(
        """quiet => { const app = document.querySelector('[data-testid=stApp]');
                   const idle = app && app.getAttribute('data-test-script-state') === 'notRunning';
                   if (!idle) { window.__idleSince = null; return false; }
                   window.__idleSince = window.__idleSince || performance.now();
                   return performance.now() - window.__idleSince >= quiet; }""",
        arg=quiet_s * 1000, timeout=timeout_s * 1000, polling=200)


LIVE_CHARTS = """() => {
    const live = [...document.querySelectorAll('.js-plotly-plot')]  // Streamlit's chart element or the lab's own
        .filter(el => !el.closest('[data-stale="true"]'));
    const gl = live.filter(el => el.querySelector('.gl-container canvas, canvas.gl-canvas')).length;
    return [live.length, gl];
}"""


def first_visit(ctx, url: str, timeout_s: float = 300) -> tuple[float | None, int, int]:
    """Open ``url`` (warming the server: its script runs to the end) and say whether the page draws a plot on
    first view. Returns (seconds to the first drawn plot or None, charts on the page, WebGL charts). The
    page's script has ended when its title is shown and Streamlit's run state says so; a page with no chart
    by then (a lesson before its first step is run) has no plot on first view."""
    page = ctx.new_page()
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    try:
        page.wait_for_selector("h1", timeout=timeout_s * 1000)
    except Exception as exc:  # say which page, and what it showed instead, rather than a bare driver timeout
        shot = Path(os.environ.get("TMPDIR", "/tmp")) / "bench_first_view_stuck.png"
        page.screenshot(path=str(shot))
        raise SystemExit(f"{url}: no page title after {timeout_s:.0f} s (screenshot: {shot}): {exc}") from exc
    seconds = None
    for _ in range(2):  # a first page view may rerun once (ui.widgets.page_widgets._use_app_navigation)
        settle(page, timeout_s)
        if page.evaluate(LIVE_CHARTS)[0]:
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
            seconds = time.perf_counter() - start
            break
        page.wait_for_timeout(1000)
    charts, webgl = page.evaluate(LIVE_CHARTS)
    page.close()
    return seconds, charts, webgl


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


def _holds_figure(message: bytes) -> bool:
    """Whether a websocket message carries a chart's figure: Streamlit's element holds it as JSON, the lab's own
    chart view (ui/charts/plotly_view.py) as a JSON string inside its data."""
    return b'"layout"' in message or b'\\"layout\\"' in message


def where_time_goes(ctx, url: str, timeout_s: float = 120) -> dict:
    """One new-tab visit by a returning browser, taken apart: when the websocket delivered the message holding
    the first chart's figure (the server's script time to its first ``st.plotly_chart`` plus the connection),
    how many bytes came before it, when that chart was drawn, the browser's long tasks before the draw (Plotly's
    JavaScript evaluated, elements rendered) and, once the script has ended, how many charts and WebGL charts
    the page holds and the bytes of the whole view. ``ctx`` must have ``LONG_TASKS`` as an init script."""
    page = ctx.new_page()
    frames: list[tuple[float, int, bool]] = []
    start = time.perf_counter()

    def on_ws(ws):
        ws.on("framereceived", lambda data: frames.append(
            (time.perf_counter() - start, len(data), isinstance(data, bytes) and _holds_figure(data))))

    page.on("websocket", on_ws)
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=timeout_s * 1000)
    now = page.evaluate("window.__firstPlot")
    drawn = now / 1000
    tasks = [(t, d) for t, d in page.evaluate("window.__longTasks") if t < now]
    settle(page)
    charts, webgl = page.evaluate(LIVE_CHARTS)
    page.close()
    first = next((i for i, f in enumerate(frames) if f[2]), None)
    return {"drawn": drawn, "chart_message": frames[first][0] if first is not None else float("nan"),
            "bytes_before": sum(f[1] for f in frames[:first]) if first is not None else 0,
            "bytes_total": sum(f[1] for f in frames), "longest_task": max((d for _, d in tasks), default=0) / 1000,
            "tasks_total": sum(d for _, d in tasks) / 1000, "charts": charts, "webgl": webgl}


def in_app_seconds(page, label: str, title: str, timeout_s: float = 120) -> float:
    """Seconds from clicking ``label`` in the sidebar of an open app to the new page's first drawn plot.

    This is how a class uses the lab: one tab, pages switched in the sidebar. The document (Streamlit's and
    Plotly's JavaScript, already run) stays; only the page's script runs again."""
    link = page.locator("[data-testid=stSidebarNav] a", has_text=label).first
    more = page.locator("[data-testid=stSidebarNav]").get_by_text(re.compile(r"^View \d+ more$"))
    if not link.is_visible() and more.count():  # the sidebar lists the first ten pages until asked for more
        more.first.click()
        link.wait_for(state="visible", timeout=10_000)
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


LONG_TASKS = """window.__longTasks = [];
new PerformanceObserver(list => list.getEntries().forEach(e => window.__longTasks.push([e.startTime, e.duration])))
    .observe({type: 'longtask', buffered: true});
window.__firstPlot = null;
new MutationObserver((_, seen) => {
    if (document.querySelector('.js-plotly-plot .main-svg')) { window.__firstPlot = performance.now(); seen.disconnect(); }
}).observe(document, {childList: true, subtree: true});"""
# ``__firstPlot``: when the first chart's SVG entered the page, on the page's own clock (from the navigation's
# start), read after the fact. Unlike the time at which Playwright reports the selector, it does not include the
# driver's own delays, which grow with the machine's load.


PRELOAD = """document.addEventListener('DOMContentLoaded', () => import(%r));"""


def plotly_chunk() -> str:
    """The URL path of Streamlit's lazily loaded chunk that holds Plotly's JavaScript."""
    import streamlit
    found = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
    if not found:
        raise SystemExit("Streamlit's PlotlyChart chunk not found: has its frontend changed?")
    return f"/static/js/{found[0].name}"


@contextlib.contextmanager
def floor_page(browser, preload: bool = False, source: str = FLOOR_APP):
    """A page that holds nothing but a title and one Plotly chart, on its own server: what Streamlit and Plotly's
    JavaScript cost on this machine before any page of ours adds to it. Yields ``visit()``, one new tab by a
    returning browser: (seconds to the chart, the longest browser task before it — Plotly's JavaScript being
    evaluated). ``preload``: Plotly's chunk is fetched and evaluated as soon as Streamlit's document has loaded,
    in parallel with the connection and the script run (injected into the browser), the lower bound for any
    page with a Plotly chart. The floors are visited between the pages' visits, so all meet the same load."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "floor.py"
        app.write_text(source, encoding="utf-8")
        with serve(app=app) as server:
            ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
            ctx.add_init_script(LONG_TASKS + (PRELOAD % plotly_chunk() if preload else ""))

            def visit() -> tuple[float, float]:
                page = ctx.new_page()
                page.goto(f"{server.url}/", wait_until="commit")
                page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
                drawn = page.evaluate("window.__firstPlot")
                task = max((d for t, d in page.evaluate("window.__longTasks") if t < drawn), default=0.0)
                settle(page)
                page.close()
                return drawn / 1000, task / 1000

            visit()  # warm the server and the cache
            try:
                yield visit
            finally:
                ctx.close()


RATIO_GOAL = 1.2  # a page's first plot in a new tab within this factor of the one-chart floor, in the same run


def median_interval(values: list[float], confidence: float = 0.9) -> tuple[float, float, float]:
    """The median of ``values`` and a distribution-free ``confidence`` interval for the median they are drawn from
    (order statistics, ``scipy.stats.quantile_test``): how far a page's ratio to the floor can be trusted when
    single visits move by ±0.15 on a shared 2-core machine. The bounds are NaN below 5 values (at 90%)."""
    from scipy.stats import quantile_test

    ci = quantile_test(values, q=statistics.median(values), p=0.5).confidence_interval(confidence)
    return statistics.median(values), float(ci.low), float(ci.high)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2, help="warm visits per page (the median is printed)")
    ap.add_argument("--passes", type=int, default=3, help="rounds of in-app navigation through every lab (0: none)")
    ap.add_argument("--shots", type=Path, default=None, help="directory for a screenshot of each warm visit")
    ap.add_argument("--pages", nargs="*", default=None, help="page slugs (default: every page with a plot)")
    ap.add_argument("--returning-only", action="store_true",
                    help="only the returning browser's new tab (skip the empty-cache visits)")
    ap.add_argument("--against", type=Path, default=None, metavar="TREE",
                    help="only a comparison of this checkout with another one (TREE holds its serve.py): every "
                         "page in both, visits interleaved, each against the floor visit before it")
    ap.add_argument("--frame", action="store_true",
                    help="serve a copy of this checkout with the floor's title and chart added as a page of the "
                         "lab ('Lab_frame': its config, theme, page head, navigation and first-view machinery, "
                         "nothing of a lab's own) and measure it first, a control beside --pages (default: every "
                         "page); '--pages Lab_frame' for the frame alone")
    ap.add_argument("--element-costs", action="store_true",
                    help="only what elements above the first chart cost it: the floor page with metrics, "
                         "paragraphs, captions or controls before its chart, each against the floor beside it")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    if args.element_costs:
        with sync_playwright() as p:
            element_costs(p.chromium.launch(**launch_options()), args.repeat)
        return
    if args.against:
        with sync_playwright() as p:
            against(p.chromium.launch(**launch_options()), args.against, args.pages, args.repeat)
        return
    with contextlib.ExitStack() as stack:
        tree = stack.enter_context(frame_tree()) if args.frame else ROOT
        pages = args.pages
        if args.frame:  # the control first, then the pages asked for
            pages = ["Lab_frame"] + [slug for slug in args.pages or _pages() if slug != "Lab_frame"]
        server = stack.enter_context(serve(args.port, app=tree / "serve.py", tree=tree))
        p = stack.enter_context(sync_playwright())
        _visit_all(args, server, p, pages)


def _visit_all(args, server, p, pages) -> None:
    """Every page in ``pages`` (default: every page with a plot) against the floors, as ``main`` describes."""
    base = server.url
    browser = p.chromium.launch(**launch_options())
    returning = browser.new_context(viewport={"width": 1400, "height": 1600})
    returning.add_init_script(LONG_TASKS)  # the floors' visits carry the same observer
    slugs, skipped, titles = [], [], {}
    for slug in pages or _pages():  # the first visit warms the server and says which pages have a plot
        seconds, charts, _ = first_visit(returning, f"{base}/{slug}")
        if seconds is None:
            skipped.append(slug)
        else:
            slugs.append(slug)
    if skipped:
        print(f"skipped, no plot on first view (none drawn by the time the page's script ended): "
              f"{', '.join(skipped)}", flush=True)
    print("seconds to the first plot on a warm server, a new tab; 'new browser' = empty HTTP cache, "
          "'returning' = the browser has the app's JavaScript cached. Where a returning visit's time goes: "
          "'chart msg' = the websocket message with the first chart's figure arrives (connection + the "
          "page's script up to its first chart), 'KB before' = websocket bytes before it, 'longest' / "
          "'tasks' = the longest and all browser tasks over 50 ms before the draw, 'charts' / 'WebGL' on "
          "the whole first view", flush=True)
    head = (f"{'page':28s} {'new browser':>11s} {'returning':>9s} {'chart msg':>9s} {'KB before':>9s} "
            f"{'KB view':>8s} {'longest':>7s} {'tasks':>6s} {'charts':>6s} {'WebGL':>5s}")
    print(head, flush=True)
    rows, paired, visit_ratios = {}, {}, {}
    floors: dict[str, list[float]] = {"plain": [], "preload": [], "task": []}
    with floor_page(browser) as floor_visit, floor_page(browser, preload=True) as bound_visit:
        for slug in slugs:
            fresh, details, beside = [], [], []
            for i in range(args.repeat):
                shot = args.shots / f"first-view-{slug}.png" if args.shots and i == 0 else None
                if shot:
                    args.shots.mkdir(parents=True, exist_ok=True)
                if not args.returning_only:
                    fresh.append(first_plot_seconds(browser, f"{base}/{slug}", shot))
                details.append(where_time_goes(returning, f"{base}/{slug}"))
                seconds, task = floor_visit()
                beside.append(seconds)
                floors["plain"].append(seconds)
                floors["task"].append(task)
                floors["preload"].append(bound_visit()[0])
            d = {k: statistics.median(x[k] for x in details) for k in details[0]}
            rows[slug] = d["drawn"]
            paired[slug] = statistics.median(beside)  # the floor under the same load as this page's visits
            visit_ratios[slug] = [x["drawn"] / f for x, f in zip(details, beside)]
            titles[slug] = slug
            print(f"{slug:28s} {statistics.median(fresh) if fresh else float('nan'):11.2f} {d['drawn']:9.2f} "
                  f"{d['chart_message']:9.2f} {d['bytes_before'] / 1e3:9.0f} {d['bytes_total'] / 1e3:8.0f} "
                  f"{d['longest_task']:7.2f} {d['tasks_total']:6.2f} {d['charts']:6.0f} {d['webgl']:5.0f}",
                  flush=True)
    floor, bound, task = (statistics.median(floors[k]) for k in ("plain", "preload", "task"))
    print(f"{'(floor: a title and one chart)':28s} {'':11s} {floor:9.2f}   "
          f"(median of {len(floors['plain'])} visits, one after each page visit)\n"
          f"{'(floor, Plotly fetched at load)':28s} {'':11s} {bound:9.2f}\n"
          f"  the floor's longest browser task before its chart (evaluating Plotly's JavaScript): "
          f"{task:.2f} s", flush=True)
    print(f"\n{'page (returning, new tab)':28s} {'seconds':>8s} {'/ floor':>8s} {'/ prefetch floor':>17s} "
          f"{'/ floor beside it':>18s}  {'each visit / the floor visit after it: median [90% CI]':>56s}")
    for slug, seconds in rows.items():
        mid, low, high = median_interval(visit_ratios[slug])
        interval = f"[{low:.2f}, {high:.2f}]" if low == low else "[needs 5 or more visits]"
        print(f"{slug:28s} {seconds:8.2f} {seconds / floor:8.2f} {seconds / bound:17.2f} "
              f"{seconds / paired[slug]:18.2f}  {mid:>31.2f} {interval:>24s}")
    clearly = [slug for slug in rows if median_interval(visit_ratios[slug])[1] > RATIO_GOAL]
    print(f"pages whose whole interval lies above {RATIO_GOAL}× (slower than the goal beyond this run's noise): "
          f"{', '.join(clearly) or 'none'}")
    if rows:
        # each page against the floor visits made between its own (same load), the run's median floor beside
        worst = max(rows[slug] / paired[slug] for slug in rows)
        print(f"(against the run's median floor: {max(rows.values()) / floor:.2f}×)")
        print(f"a new tab: every page's first plot within {worst:.2f}× the one-chart floor "
              f"({'meets' if worst <= RATIO_GOAL else 'misses'} the goal of {RATIO_GOAL}×)", flush=True)
    if args.passes:
        in_app(returning, base, titles, args.passes)
    returning.close()
    browser.close()
    print(f"(os.getloadavg() = {', '.join(f'{x:.1f}' for x in os.getloadavg())} — timings are noisy under load; "
          "the ratios to the floors, measured in the same run, cancel most of it)")


def element_costs(browser, repeat: int) -> None:
    """The floor page, and the floor page with each of ``ELEMENT_VARIANTS`` above its chart, visited in turn
    ``repeat`` times (at least 3) by a returning browser in a new tab: the median seconds to the chart, the
    median of each visit against the floor visit just before it, and what one element adds."""
    repeat = max(repeat, 3)
    with contextlib.ExitStack() as stack:
        floor_visit = stack.enter_context(floor_page(browser))
        visits = {name: stack.enter_context(floor_page(browser, source=_HEAD + code + _CHART))
                  for name, (_, code) in ELEMENT_VARIANTS.items()}
        floors: list[float] = []
        seconds: dict[str, list[float]] = {name: [] for name in visits}
        ratios: dict[str, list[float]] = {name: [] for name in visits}
        for _ in range(repeat):
            for name, visit in visits.items():
                floor = floor_visit()[0]
                floors.append(floor)
                seconds[name].append(visit()[0])
                ratios[name].append(seconds[name][-1] / floor)
    floor = statistics.median(floors)
    # Two estimates of one element's cost: from the medians of the seconds, and from the median ratio to the
    # floor visit just before; where they disagree in sign, the cost is below this run's noise.
    print(f"{'above the first chart':22s} {'seconds':>8s} {'/ floor beside it':>18s} "
          f"{'ms per element (medians; ratios)':>33s}")
    print(f"{'(nothing: the floor)':22s} {floor:8.2f}")
    for name, (count, _) in ELEMENT_VARIANTS.items():
        ratio, median = statistics.median(ratios[name]), statistics.median(seconds[name])
        print(f"{name:22s} {median:8.2f} {ratio:18.2f} {1000 * (median - floor) / count:22.0f}; "
              f"{1000 * (ratio - 1) * floor / count:.0f}", flush=True)
    print(f"(median of {repeat} visits each; os.getloadavg() = "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")


def _with_interval(values: list[float], form: str) -> str:
    """``values``' median and its 90% interval, each written in ``form``."""
    mid, low, high = median_interval(values)
    return f"{form.format(mid)} [{form.format(low)}, {form.format(high)}]"


def against(browser, other: Path, pages: list[str] | None, repeat: int) -> None:
    """This checkout and ``other`` served side by side: each page (``pages``, default every page with a plot on
    first view) opened ``repeat`` times (at least 5) in a new tab by a returning browser in each, the two in
    alternating order, each visit divided by a floor visit made just before it. Prints, per page, the median ratio
    of each checkout with its 90% interval, and the median of the paired differences (this − other, same round):
    below zero, this checkout draws its first plot sooner."""
    other = other.resolve()
    if not (other / "serve.py").is_file() or not (other / "app.py").is_file():
        raise SystemExit(f"{other}: no serve.py and app.py there; --against needs another checkout of the lab")
    repeat = max(repeat, 5)
    names = ("this", "other")
    with contextlib.ExitStack() as stack:
        bases = {"this": stack.enter_context(serve()).url,
                 "other": stack.enter_context(serve(app=other / "serve.py", tree=other)).url}
        floor_visit = stack.enter_context(floor_page(browser))
        ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
        ctx.add_init_script(LONG_TASKS)
        stack.callback(ctx.close)
        slugs = []
        for slug in pages or _pages():  # warm both servers; a page without a plot on first view is left out
            drawn = [first_visit(ctx, f"{bases[name]}/{slug}")[0] for name in names]
            if all(seconds is not None for seconds in drawn):
                slugs.append(slug)
        ratios = {(slug, name): [] for slug in slugs for name in names}
        floors = []
        for round_ in range(repeat):
            for slug in slugs:
                for name in names if round_ % 2 == 0 else names[::-1]:
                    floor = floor_visit()[0]
                    floors.append(floor)
                    ratios[slug, name].append(where_time_goes(ctx, f"{bases[name]}/{slug}")["drawn"] / floor)
    print(f"this = {ROOT}, other = {other}; median floor {statistics.median(floors):.2f} s over {len(floors)} "
          f"visits; each visit / the floor visit before it, median [90% CI] of {repeat} visits")
    print(f"{'page':28s} {'this':>20s} {'other':>20s} {'this − other (paired)':>28s}")
    for slug in slugs:
        this, that = ratios[slug, "this"], ratios[slug, "other"]
        cells = [_with_interval(this, "{:.2f}"), _with_interval(that, "{:.2f}"),
                 _with_interval([a - b for a, b in zip(this, that)], "{:+.2f}")]
        print(f"{slug:28s} {cells[0]:>20s} {cells[1]:>20s} {cells[2]:>28s}", flush=True)
    print(f"(os.getloadavg() = {', '.join(f'{x:.1f}' for x in os.getloadavg())})")


def in_app(ctx, base: str, titles: dict, passes: int) -> None:
    """In-app navigation: one tab opened at the home page (whose chart loads Plotly's JavaScript once), then
    every page chosen in the sidebar, as a class uses the app."""
    tab = ctx.new_page()
    tab.goto(base, wait_until="commit")
    tab.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
    settle(tab)
    for slug in titles:  # the title each page shows, to know the new page has replaced the old
        tab.goto(f"{base}/{slug}", wait_until="commit")
        tab.wait_for_selector("h1", timeout=120_000)
        titles[slug] = tab.locator("h1").first.text_content().strip()[:20]
        settle(tab)
    tab.goto(base, wait_until="commit")
    tab.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
    settle(tab)
    times: dict[str, list[float]] = {}
    for _ in range(passes):
        for slug, title in titles.items():
            times.setdefault(slug, []).append(in_app_seconds(tab, slug.replace("_", " "), title))
    print(f"\n{'page (in-app navigation)':28s} {'passes':>{6 * passes}s} {'worst':>7s} {'/ goal':>7s}", flush=True)
    for slug, t in times.items():
        print(f"{slug:28s} {''.join(f'{x:6.2f}' for x in t)} {max(t):7.2f} {max(t) / GOAL:7.2f}", flush=True)
    worst = max(max(t) for t in times.values())
    print(f"in-app navigation: every page's first plot within {worst:.2f} s "
          f"({'meets' if worst <= GOAL else 'misses'} the goal of {GOAL:.0f} s)", flush=True)
    tab.close()


if __name__ == "__main__":
    main()
