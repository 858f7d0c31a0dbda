"""Where a new tab's first plot spends the browser's main thread, page by page, from Chromium's own trace.

``bench_first_view.py`` says how long a new tab waits for a page's first plot against a one-chart page; this
says why. Every visit (a returning browser, a new tab, a warm server, as there) is traced with Chromium's
timeline categories, and taken apart on the page's clock (milliseconds from the navigation's start):

* ``ws→ask``: from the app's websocket opening to the browser asking for Plotly's chunk (Streamlit asks when
  React first renders the page's first chart: the server's script up to that chart, the messages before it,
  and React rendering the elements above it);
* ``busy``: how much of the time from the websocket's opening to the start of Plotly's evaluation the page's
  main thread was running tasks (rendering the page's elements, decoding messages, loading their code);
* ``eval``: Plotly's evaluation, one task of about a second that every page with a chart pays;
* ``draw``: from the end of that evaluation to the first chart's SVG in the page (Plotly drawing the chart,
  which runs its code for the first time, with the page's layout);
* ``ws→plot``: from the websocket's opening to the first plot, and ``plot`` the first plot itself (``ws``, the
  time to the socket's opening, is the same document and code on every page, and varies only with load).

Beside every page it visits two floors: the one-chart page of ``bench_first_view.py`` (a title and a
three-point line) and the same bare page drawing **that page's own first figure**, captured from the page as
the browser received it. A page's extra time over the first floor splits into what its figure costs (the
second floor minus the first) and what the rest of the page costs (the page minus the second floor).

Tracing slows the browser by a few percent; the numbers are for taking a page apart, not for the 1.2× goal.

    python benchmarks/bench_first_view_trace.py [--repeat 5] [--pages Aggregate_statistics Synthetic_data]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_first_view import FLOOR_APP, LONG_TASKS, settle  # noqa: E402
from labserver import launch_options, serve  # noqa: E402

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "blink.user_timing",
              "loading", "toplevel"]
LABS = ["Aggregate_statistics", "Synthetic_data", "Location_membership", "Decision_game", "Reconstruction_attack"]
WS_OPEN = """window.__wsOpen = null;
(() => { const W = window.WebSocket;
  window.WebSocket = class extends W { constructor(u, p) { super(u, p); window.WebSocket = W;
    this.addEventListener('open', () => { window.__wsOpen = performance.now(); }); } }; })();"""
# The figure as the browser drew it (Streamlit's theme merged in), to draw it alone on a bare page.
FIGURE = """() => { const gd = document.querySelector('.js-plotly-plot');
  return JSON.stringify({data: gd.data, layout: gd.layout}); }"""
OWN_CHART_APP = """import json
import plotly.graph_objects as go
import streamlit as st
st.title("One chart")
st.plotly_chart(go.Figure(json.loads(open({path!r}, encoding="utf-8").read()), skip_invalid=True), theme=None)
"""
PHASES = ("ws", "ws→ask", "busy", "eval", "draw", "ws→plot", "plot")


def phases(events: list[dict], ws_open: float, plot: float) -> dict[str, float]:
    """The visit's phases (module docstring) from its trace ``events``, in ms from the navigation's start."""
    nav = [e for e in events if e.get("name") == "navigationStart"
           and str(e.get("args", {}).get("data", {}).get("documentLoaderURL", "")).startswith("http")][-1]
    t0, main = nav["ts"], (nav["pid"], nav["tid"])

    def ms(ts: float) -> float:
        return (ts - t0) / 1000

    asked = min((ms(e["ts"]) for e in events if e.get("name") == "ResourceSendRequest"
                 and "PlotlyChart" in json.dumps(e.get("args", {}))), default=float("nan"))
    evaluation = max((e for e in events if (e["pid"], e["tid"]) == main and e.get("name") == "v8.evaluateModule"
                      and ms(e["ts"]) < plot), key=lambda e: e.get("dur", 0))
    start, end = ms(evaluation["ts"]), ms(evaluation["ts"] + evaluation["dur"])
    tasks = [(ms(e["ts"]), ms(e["ts"] + e["dur"])) for e in events if (e["pid"], e["tid"]) == main
             and e.get("name") == "ThreadControllerImpl::RunTask" and "dur" in e]
    busy = sum(max(0.0, min(b, start) - max(a, ws_open)) for a, b in tasks)
    return {"ws": ws_open, "ws→ask": asked - ws_open, "busy": busy, "eval": end - start, "draw": plot - end,
            "ws→plot": plot - ws_open, "plot": plot}


def traced_visit(browser, ctx, url: str) -> dict[str, float]:
    """One new tab at ``url``, traced: its phases."""
    page = ctx.new_page()
    browser.start_tracing(page=page, categories=CATEGORIES)
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
    page.wait_for_timeout(200)
    events = json.loads(browser.stop_tracing())["traceEvents"]
    plot, ws_open = page.evaluate("[window.__firstPlot, window.__wsOpen]")
    settle(page)
    page.close()
    return phases(events, ws_open, plot)


def warm(ctx, url: str) -> str:
    """Open ``url`` once, untimed (the server's caches filled); returns the page's first figure (JSON)."""
    page = ctx.new_page()
    page.goto(url)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=300_000)
    settle(page)
    figure = page.evaluate(FIGURE)
    page.close()
    return figure


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pages", nargs="+", default=LABS)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        browser = pw.chromium.launch(**launch_options())
        ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
        ctx.add_init_script(LONG_TASKS + WS_OPEN)
        floor_app = Path(tmp) / "floor.py"
        floor_app.write_text(FLOOR_APP, encoding="utf-8")
        floor = stack.enter_context(serve(app=floor_app)).url + "/"
        lab = stack.enter_context(serve()).url
        own = {}
        for slug in args.pages:  # warm the page, then serve its own first figure on a bare page
            figure = warm(ctx, f"{lab}/{slug}")
            (Path(tmp) / f"{slug}.json").write_text(figure, encoding="utf-8")
            app = Path(tmp) / f"own_{slug}.py"
            app.write_text(OWN_CHART_APP.format(path=str(Path(tmp) / f"{slug}.json")), encoding="utf-8")
            own[slug] = stack.enter_context(serve(app=app)).url + "/"
            warm(ctx, own[slug])
        warm(ctx, floor)
        visits = [("one-chart floor", floor)]
        for slug in args.pages:
            visits += [(slug, f"{lab}/{slug}"), (f"{slug} chart alone", own[slug])]
        runs: dict[str, list[dict]] = {name: [] for name, _ in visits}
        for _ in range(args.repeat):  # interleaved, so every page and floor meets the same load
            for name, url in visits:
                runs[name].append(traced_visit(browser, ctx, url))
        _report(runs, args.pages, args.repeat)


def _median(rows: list[dict], phase: str) -> float:
    return statistics.median(r[phase] for r in rows)


def _report(runs: dict[str, list[dict]], pages: list[str], repeat: int) -> None:
    print(f"medians of {repeat} traced visits, ms on the page's clock (tracing slows the browser a little)")
    print(f"{'':34s}" + "".join(f"{p:>9s}" for p in PHASES))
    floor = runs["one-chart floor"]
    order = ["one-chart floor"] + [k for s in pages for k in (s, f"{s} chart alone")]
    for name in order:
        print(f"{name:34s}" + "".join(f"{_median(runs[name], p):9.0f}" for p in PHASES))
    print("\na page's time from its socket's opening to its first plot, over the one-chart floor's: its figure "
          "(alone on a bare page) + the rest of the page")
    for slug in pages:
        page, alone = _median(runs[slug], "ws→plot"), _median(runs[f"{slug} chart alone"], "ws→plot")
        base = _median(floor, "ws→plot")
        print(f"{slug:34s} {page - base:+6.0f} ms = figure {alone - base:+6.0f} + rest of the page {page - alone:+6.0f}"
              f"   (draw {_median(runs[slug], 'draw') - _median(floor, 'draw'):+4.0f},"
              f" busy before Plotly {_median(runs[slug], 'busy') - _median(floor, 'busy'):+4.0f})")


if __name__ == "__main__":
    main()
