"""Load test of one lab server: a class of concurrent sessions through every page's default run.

Starts one Streamlit server (fresh result store unless ``--warm``); ``--sessions`` sessions arrive over
``--arrival`` seconds (a class opening the app at the start of a lesson, not all in the same millisecond):
session i opens page i mod P with its default configuration; ``--heavy`` of them ask for heavy runs instead
and arrive first, so the heavy runs occupy the worker processes and queue while the others load. A session is
one of two kinds (column ``kind``):

* **browser** — a headless Chromium context (one browser, a context per session), which also catches errors
  that only show on screen;
* **proto** — a Streamlit protocol client (``stclient.py``): the page load a fresh tab does (the page's HTML and
  the static files Chromium fetched for that page in the warm-up, unless ``--no-page-load``), then the
  websocket with the same rerun request Chromium sends, reading the server's messages as a tab that stays
  open. It costs the test machine milliseconds of CPU where a browser costs seconds.

``--browsers K`` makes K sessions browsers (spread over the light pages) and the rest protocol clients; without
it every session is a browser, as before. On this 2-core test machine 30 browsers take most of the CPU (load
average ~15), so browser timings mostly measure starved browsers; the protocol sessions measure the server as a
class meets it (their browsers on the students' laptops).

For each page and kind it prints the p50/p95 time to the first plot and to "done" (the run's status says
Done/Stored, or the page has no run and its script has finished with its content drawn), measured two ways:

* **first plot / done** — for a browser, from opening the address to a plot drawn on the screen (what a
  student sees); for a protocol session, from the start of its page load to the first message carrying a plot;
* **(server)** — from the session's first websocket message (the request to run the page; a browser sends it
  once the app's JavaScript has loaded) to the first websocket message that carries a plot (and the one that
  says Done). For a browser this excludes loading and running the JavaScript and drawing, but its websocket
  events are still read by a starved browser; for a protocol session it is the server's answer time.

Summary rows split the light sessions into pages without an engine run (closed-form plots, never queued) and
pages whose default run goes through the pool (their first plot can wait for a free worker while the heavy runs
hold both; a stored result is drawn at once), and give the light pages' p95 first plot for each kind. Also
printed: errors (exceptions, "Unexpected error", timeouts, disconnects), refusals by the cost limits, the
server's memory (the server process *and* its worker processes: RSS sum, an upper bound, and PSS) and the load
average before and after. Goal: zero errors; light pages' p95 first plot ≤ 5 s while heavy runs
queue; memory ≤ 4 GB. Not part of CI (minutes of wall time), and only meaningful on a quiet machine:

    .venv/bin/python benchmarks/bench_load.py --sessions 30 --heavy 4 --arrival 60 --browsers 4
    .venv/bin/python benchmarks/bench_load.py --sessions 30 --heavy 4 --arrival 60 [--browser-nice 15]

**Abusive visitors** (``--abusers N --links K`` or ``--links 2-3``): of the ``--sessions`` visitors, N are
abusive and each opens K heavy links (with a range, abuser i opens 2, 3, 2, … links), every one from a fresh
browser (protocol clients: a new cookie each), arriving first; the other visitors each open one page, as above.
Each session sends the ``X-Forwarded-For`` header the lab's proxy would (the server trusts it on a connection
from this machine): an abuser's links share one address, every other visitor has their own. The abusers leave
(their tabs close, so their runs stop) once every other visitor's page is done, unless ``--abusers-stay``: the
figure is the light runs', and a heavy run's own time is not a goal. Goal: every light default run done at
p95 ≤ 30 s with 0 errors, on a quiet machine; the load average (1-minute, sampled every second over the
measured sessions: mean and peak) is printed beside the figure. ``--links 0`` is the same class without the
abusers' links (the same visitors at the same arrival times): the baseline to run beside it on a shared machine:

    .venv/bin/python benchmarks/bench_load.py --sessions 30 --abusers 5 --links 2-3 --arrival 60 --browsers 0
    .venv/bin/python benchmarks/bench_load.py --sessions 30 --abusers 5 --links 0 --arrival 60 --browsers 0

Before the measured sessions every page is opened once in Chromium (another seed, so nothing measured is a
store hit): a *warm* server, as for a class that opened the app before the lesson; ``--cold`` skips it (and so
the recorded static files). ``--browser-nice`` runs the test browsers at a lower CPU priority than the server
and its workers, so their server column comes closer to what a class would meet.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from labserver import (  # shared with bench_first_view.py
    ROOT,
    launch_options,
    load_text,
    cpu_seconds,
    memory,
    serve,
)
from stclient import (  # one definition of the page states
    DONE_TEXT,
    ERROR_TEXT,
    RUNNING_TEXT,
    open_page,
)

# Heavy but within the default per-run limits: each estimated above the express lane's 60 s (2026-11-23
# calibration: 2 min, 87 s, 80 s, 74 s), so they hold the regular slots and queue; a refused run would not
# load the server. (The Location runs used before are now known to take 15-30 s: no longer heavy.)
HEAVY = ["Reconstruction_attack?n=600&trials=20", "Aggregate_statistics?block_size=454&shadows=5000&seed=3",
         "Reconstruction_attack?n=500&trials=25&seed=1", "Synthetic_data?games=60&seed=4"]
PLOT = "[data-testid=stPlotlyChart], .js-plotly-plot"
# Pages that draw a plot (the labs, numbered below 60); the others are done once their script has run. The Lessons
# page draws its step's plot only after a prediction is committed, which an untouched tab never does.
LABS = {re.sub(r"^\d+_", "", p.stem) for p in (ROOT / "pages").glob("[0-9]*_*.py")
        if int(p.stem.split("_")[0]) < 60} - {"Lessons"}
DONE_BYTES = re.compile(DONE_TEXT.pattern.encode())  # the same texts inside a websocket frame
PLOT_BYTES = (b'"layout":', b'"data":')  # a plotly figure's JSON inside a ForwardMsg


class _Frames:
    """Server-side timings from the page's websocket: the first message the browser sends (the run request)
    and the first messages that carry a plot / a finished run."""

    def __init__(self):
        self.request = self.plot = self.done = None

    def attach(self, ws) -> None:
        ws.on("framesent", self._sent)
        ws.on("framereceived", self._received)

    def _sent(self, payload) -> None:
        if self.request is None:
            self.request = time.perf_counter()

    def _received(self, payload) -> None:
        if self.request is None or not isinstance(payload, (bytes, bytearray)):
            return
        now = time.perf_counter()
        if self.plot is None and all(marker in payload for marker in PLOT_BYTES):
            self.plot = now
        if self.done is None and DONE_BYTES.search(payload):
            self.done = now

    def seconds(self, what: str) -> float | None:
        at = getattr(self, what)
        return None if at is None or self.request is None else at - self.request


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


async def _session(browser, url: str, path: str, delay: float, timeout: float) -> dict:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    await asyncio.sleep(delay)
    out = {"page": path.split("?")[0], "heavy": "?" in path, "arrival": delay, "first_plot": None, "done": None,
           "error": None, "kind": "browser"}
    frames = _Frames()
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1600})
    page = await ctx.new_page()
    page.on("websocket", frames.attach)
    start = time.perf_counter()
    try:
        await page.goto(f"{url}/{path}", timeout=timeout * 1000)
        deadline = start + timeout
        while time.perf_counter() < deadline:
            if await page.locator("[data-testid=stException]").count():
                out["error"] = "exception on the page"
                break
            try:  # on an overloaded machine the page itself can be slow to answer: that is not an app error
                body = await page.locator("body").inner_text(timeout=120_000)
            except PlaywrightTimeout:
                continue
            if ERROR_TEXT.search(body):
                out["error"] = "unexpected error" if "Unexpected error" in body else "worker crashed"
                break
            if out["first_plot"] is None and await page.locator(PLOT).count():
                out["first_plot"] = time.perf_counter() - start
            running = bool(RUNNING_TEXT.search(body))
            out["has_run"] = out.get("has_run") or running or bool(DONE_TEXT.search(body))
            plotless = out["page"] not in LABS and await page.locator("h1").count()  # nothing to draw
            if DONE_TEXT.search(body) or ((out["first_plot"] is not None or plotless) and not running):
                out["done"] = time.perf_counter() - start
                out["refused"] = "needs about" in body
                break
            await asyncio.sleep(0.25)
        else:
            out["error"] = f"timeout after {timeout:.0f} s"
    except Exception as exc:  # a navigation failure counts as an error
        out["error"] = f"{type(exc).__name__}: {exc}"[:200]
    finally:
        out["server_first_plot"] = frames.seconds("plot")
        out["server_done"] = frames.seconds("done") or (out["server_first_plot"] if out["done"] else None)
        await ctx.close()
    return out


async def _proto_session(url: str, path: str, delay: float, timeout: float, assets: list[str] | None,
                         page_load: bool, address: str | None = None) -> dict:
    """A protocol session (stclient.py) with the same report keys as a browser session; ``address`` is sent as
    the proxy's ``X-Forwarded-For``."""
    await asyncio.sleep(delay)
    name = path.split("?")[0]
    rep = await open_page(url, path, timeout=timeout, needs_plot=name in LABS, load=page_load,
                          assets=assets if page_load else None,
                          headers={"X-Forwarded-For": address} if address else None)
    load = rep.request_at or 0.0  # page load and websocket handshake
    return {"page": name, "heavy": "?" in path, "arrival": delay, "kind": "proto", "error": rep.error,
            "first_plot": None if rep.first_plot is None else load + rep.first_plot,
            "done": None if rep.done is None else load + rep.done,
            "server_first_plot": rep.first_plot, "server_done": rep.done, "has_run": rep.has_run,
            "started": rep.started, "refused": rep.refused, "load_bytes": rep.load_bytes, "load_failed": rep.load_failed}


async def _warm(browser, url: str, pages: list[str]) -> dict[str, list[str]]:
    """Open every page once (another seed, so nothing measured is a store hit): a *warm* server has its
    modules imported, as for a class that opened the app before the lesson. The warm-up runs are abandoned
    (their tabs close) and so stop by themselves. Returns, per page, the paths of the static files and
    endpoints Chromium fetched from the server for it (a fresh context: an empty browser cache), which the
    protocol sessions fetch too."""
    assets: dict[str, list[str]] = {}
    for name in pages:
        ctx = await browser.new_context(viewport={"width": 1400, "height": 1600})
        page = await ctx.new_page()
        seen = assets.setdefault(name, [])
        page.on("request", lambda r, seen=seen: seen.append(r.url[len(url):]) if (
            r.url.startswith(url + "/") and r.method == "GET" and r.resource_type not in ("document", "websocket"))
            else None)
        try:
            await page.goto(f"{url}/{name}?seed=987654", timeout=180_000)
            await page.locator("h1").first.wait_for(timeout=180_000)
            if name in LABS:  # the labs draw a plot; Compare runs, presets and the glossary do not
                await page.locator(PLOT).first.wait_for(timeout=180_000)
        except Exception:
            pass
        await ctx.close()
    await asyncio.sleep(8)  # abandoned warm-up runs are cancelled after the grace period
    return {name: list(dict.fromkeys(paths)) for name, paths in assets.items()}


async def _drive(url: str, plan: list[tuple[str, float, str]], timeout: float, warm: list[str],
                 browser_nice: int = 0, page_load: bool = True, addresses: list[str | None] | None = None,
                 heavy_leave: bool = False, marks: dict | None = None) -> list[dict]:
    """Run the ``plan`` (path, arrival, kind) after the warm-up; Chromium only if the warm-up or a browser
    session needs it. ``heavy_leave``: the heavy sessions are closed once every light one is done (their rows
    say ``left``). ``marks`` receives the clock at the start of the measured sessions and when the light ones
    were done."""
    from playwright.async_api import async_playwright

    assets: dict[str, list[str]] = {}
    marks = {} if marks is None else marks
    async with async_playwright() as p:
        browser = None
        if warm or any(kind == "browser" for *_, kind in plan):
            browser = await p.chromium.launch(**launch_options(nice=browser_nice))
        if warm:
            assets = await _warm(browser, url, warm)
        addresses = addresses or [None] * len(plan)
        marks["start"] = time.perf_counter()
        tasks = [asyncio.ensure_future(
            _session(browser, url, path, delay, timeout) if kind == "browser" else
            _proto_session(url, path, delay, timeout, assets.get(path.split("?")[0]), page_load, address))
            for (path, delay, kind), address in zip(plan, addresses)]
        await asyncio.gather(*(t for t, (path, *_) in zip(tasks, plan) if "?" not in path))
        marks["light_done"] = time.perf_counter()
        if heavy_leave:
            for t in tasks:
                t.cancel()
        results = []
        for t, (path, delay, kind) in zip(tasks, plan):
            try:
                results.append(await t)
            except asyncio.CancelledError:  # an abuser who left: its run stops with its closed tab
                results.append({"page": path.split("?")[0], "heavy": True, "arrival": delay, "kind": kind,
                                "error": None, "first_plot": None, "done": None, "server_first_plot": None,
                                "server_done": None, "has_run": True, "refused": False, "load_bytes": 0,
                                "load_failed": [], "left": True})
        if browser is not None:
            await browser.close()
    return results


def arrivals(n_light: int, n_heavy: int, window: float, seed: int) -> list[float]:
    """Arrival offsets: heavy sessions in the first tenth of the window, the others uniformly over it. The light
    sessions' times depend only on their number and the seed (their own generator), so a run without the heavy
    sessions has the same visitors at the same times."""
    # one generator per kind, drawn from n times (a generator made afresh per draw gave every visitor the same
    # instant: the class arrived in one millisecond, not over the window)
    light_rng, heavy_rng = random.Random(seed), random.Random(seed + 1)
    light = sorted(light_rng.uniform(0, window) for _ in range(n_light))
    heavy = sorted(heavy_rng.uniform(0, window / 10) for _ in range(n_heavy))
    return light + heavy


def abuser_links(abusers: int, links: str) -> list[int]:
    """Heavy links per abusive visitor: ``"3"`` → 3 each; ``"2-3"`` → 2, 3, 2, … (the range's ends in turn, then
    what lies between)."""
    low, _, high = links.partition("-")
    low_n, high_n = int(low), int(high or low)
    if low_n < 0 or high_n < low_n:
        raise SystemExit(f"--links: expected K or A-B with 0 <= A <= B, got {links!r}")
    span = list(range(low_n, high_n + 1))
    order = [span[0], span[-1]] + span[1:-1] if len(span) > 1 else span
    return [order[i % len(order)] for i in range(abusers)]


def kinds(n_light: int, n_heavy: int, browsers: int | None) -> list[str]:
    """Which sessions are browsers: all (``browsers`` None), else ``browsers`` of them spread evenly over the
    light sessions (so they see different pages), then over the heavy ones if there are more browsers than
    light sessions; the rest are protocol clients."""
    n = n_light + n_heavy
    k = n if browsers is None else max(0, min(browsers, n))
    light_k = min(k, n_light)
    chosen = {int(i * n_light / light_k) for i in range(light_k)} if light_k else set()
    chosen |= {n_light + i for i in range(k - light_k)}
    return ["browser" if i in chosen else "proto" for i in range(n)]


def _row(name: str, rows: list[dict], kind: str = "") -> str:
    def pair(key):
        values = [r[key] for r in rows if r.get(key) is not None]
        return f"{_pct(values, .5):6.1f} /{_pct(values, .95):6.1f}"

    errs = [r["error"] for r in rows if r["error"]]
    return (f"{name:34s} {kind:7s} {len(rows):3d}  {pair('first_plot')}  {pair('server_first_plot')}  "
            f"{pair('done')}  {pair('server_done')}  {len(errs)} {'; '.join(sorted(set(errs)))[:60]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--heavy", type=int, default=4, help="sessions asking for heavy runs (they arrive first)")
    ap.add_argument("--arrival", type=float, default=60.0,
                    help="seconds over which the sessions arrive (0: all at once)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the arrival times")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per session")
    ap.add_argument("--warm", action="store_true", help="keep the user's result store (default: a fresh one)")
    ap.add_argument("--cold", action="store_true", help="skip the warm-up visit of every page")
    ap.add_argument("--browsers", type=int, default=None, metavar="K",
                    help="K sessions in Chromium, the others protocol clients (default: every session a browser)")
    ap.add_argument("--no-page-load", action="store_true",
                    help="protocol sessions skip the page load (HTML and static files) and only open the websocket")
    ap.add_argument("--browser-nice", type=int, default=0,
                    help="run the test browsers at this lower CPU priority (e.g. 15), so the server is measured "
                         "as if the browsers were on the students' own machines")
    ap.add_argument("--abusers", type=int, default=0,
                    help="visitors who each open --links heavy links from fresh browsers (replaces --heavy)")
    ap.add_argument("--links", default="3",
                    help="heavy links per abusive visitor: K, or a range A-B (abusers open A, B, A, … links)")
    ap.add_argument("--abusers-stay", action="store_true",
                    help="abusers keep their tabs open until their heavy runs end (default: they leave when every "
                         "other visitor's page is done)")
    args = ap.parse_args()
    pages = [re.sub(r"^\d+_", "", p.stem) for p in sorted((ROOT / "pages").glob("[0-9]*_*.py"))]
    per_abuser: list[int] = []
    if args.abusers:
        per_abuser = abuser_links(args.abusers, args.links)
        args.heavy = sum(per_abuser)
        if args.browsers is None:
            args.browsers = 0  # addresses travel in a protocol client's headers
        n_light = args.sessions - args.abusers  # the abusers are among the visitors
        n_heavy = args.heavy
    else:
        n_heavy = min(args.heavy, args.sessions)
        n_light = args.sessions - n_heavy
    light = [pages[i % len(pages)] for i in range(n_light)]
    heavy = [HEAVY[i % len(HEAVY)] for i in range(n_heavy)]
    plan = list(zip(light + heavy, arrivals(len(light), n_heavy, args.arrival, args.seed),
                    kinds(len(light), n_heavy, args.browsers)))
    env = {} if args.warm else {"LAB_STORE": tempfile.mkdtemp(prefix="lab-load-store-")}
    addresses = None
    if args.abusers:
        # each light visitor its own address, each abuser one address for all their links (TEST-NET-2 range)
        light_addresses = [f"198.51.100.{1 + i % 250}" for i in range(len(light))]
        heavy_addresses = [f"203.0.113.{1 + a}" for a, k in enumerate(per_abuser) for _ in range(k)]
        addresses = light_addresses + heavy_addresses
    load_before = load_text()
    peak = {"rss": 0, "pss": 0}
    loads: list[tuple[float, float]] = []  # (clock, 1-minute load average), every half second
    marks: dict = {}
    stop = threading.Event()
    with serve(env=env) as server:
        base_rss = memory(server.proc.pid)[0]

        def watch():
            while not stop.wait(0.5):
                rss, pss = memory(server.proc.pid)
                peak["rss"], peak["pss"] = max(peak["rss"], rss), max(peak["pss"], pss)
                loads.append((time.perf_counter(), os.getloadavg()[0]))

        threading.Thread(target=watch, daemon=True).start()
        t0, cpu0 = time.perf_counter(), time.process_time()
        server_cpu0 = cpu_seconds(server.proc.pid)
        try:
            results = asyncio.run(_drive(server.url, plan, args.timeout, [] if args.cold else pages,
                                         args.browser_nice, page_load=not args.no_page_load,
                                         addresses=addresses, heavy_leave=bool(args.abusers)
                                         and not args.abusers_stay, marks=marks))
        finally:
            stop.set()
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        server_cpu = [b - a for a, b in zip(server_cpu0, cpu_seconds(server.proc.pid))]
    n_browsers = sum(1 for *_, kind in plan if kind == "browser")
    proto = f"{len(plan) - n_browsers} protocol clients" + (" without page load" if args.no_page_load else "")
    print(f"{len(plan)} sessions ({n_heavy} heavy, arriving first; {n_browsers} in Chromium, {proto}) over "
          f"{args.arrival:.0f} s on one {'cold' if args.cold else 'warm'} server; wall {wall:.1f} s (warm-up "
          f"included); browsers at nice {args.browser_nice}")
    print(f"before: {load_before}; after: {load_text()}; this test process used {cpu:.0f} s of CPU (protocol "
          f"clients, playwright's Python side; Chromium not included)")
    print(f"CPU over the sessions: server process {server_cpu[0]:.0f} s (page scripts, websockets), its worker "
          f"processes {server_cpu[1]:.0f} s (the engine)")
    print(f"{'seconds, p50 / p95':34s} {'kind':7s} {'n':>3s}  {'first plot':^13s}  {'(server)':^13s}  "
          f"{'done':^13s}  {'(server)':^13s}  errors")

    def label(r):
        return r["page"] + (" [heavy]" if r["heavy"] else "")

    for name, kind in sorted({(label(r), r["kind"]) for r in results}):
        print(_row(name, [r for r in results if label(r) == name and r["kind"] == kind], kind))
    light_rows = [r for r in results if not r["heavy"]]
    present = sorted({r["kind"] for r in results})
    for kind in present + (["all"] if len(present) > 1 else []):
        rows = [r for r in light_rows if kind in ("all", r["kind"])]
        print(_row("light: pages without a run", [r for r in rows if not r.get("has_run")], kind))
        print(_row("light: default runs (may queue)", [r for r in rows if r.get("has_run")], kind))
        print(_row("all light pages", rows, kind))
    errors = sum(1 for r in results if r["error"])
    refused = sum(1 for r in results if r.get("refused"))
    print(f"errors: {errors}; refused by the cost limits: {refused}")
    protos = [r for r in results if r["kind"] == "proto"]
    if protos and not args.no_page_load:
        print(f"protocol page loads: {sum(r['load_bytes'] for r in protos) / 1e6:.0f} MB of HTML and static files "
              f"for {len(protos)} sessions ({'recorded in the warm-up' if not args.cold else 'HTML only: --cold'})")
    for kind in present:
        rows = [r for r in light_rows if r["kind"] == kind]
        fp = [r["first_plot"] for r in rows if r["first_plot"] is not None]
        sfp = [r["server_first_plot"] for r in rows if r["server_first_plot"] is not None]
        where = ("in the browser" if kind == "browser" else "with the page load")
        print(f"light pages p95 first plot, {kind} sessions (n={len(rows)}, {len(sfp)} with a plot): "
              f"{_pct(sfp, .95):.1f} s from the run request (server), {_pct(fp, .95):.1f} s {where} (goal ≤ 5 s)")
    runs = [r["done"] for r in light_rows if r.get("has_run") and r["done"] is not None]
    if args.abusers:
        window = [x for at, x in loads if marks.get("start", 0) <= at <= marks.get("light_done", float("inf"))]
        load = (f"1-minute load average over the measured sessions: mean {sum(window) / len(window):.1f}, peak "
                f"{max(window):.1f} ({os.cpu_count()} cores)" if window else load_text())
        left = sum(1 for r in results if r.get("left"))
        print(f"fair turns: {len(light)} visitors and {args.abusers} abusive visitors with "
              f"{'/'.join(map(str, per_abuser))} heavy links from fresh browsers ({left} left open when the others "
              f"were done); light default runs done p50 {_pct(runs, .5):.1f} s / p95 {_pct(runs, .95):.1f} s "
              f"(n={len(runs)}; goal <= 30 s, 0 errors; errors {errors}) at {load}")
        for r in sorted((r for r in light_rows if r.get("has_run") and r.get("server_done") is not None),
                        key=lambda r: r["arrival"]):
            wait = r["started"] if r.get("started") is not None else float("nan")
            print(f"  {r['page']:28s} arrived {r['arrival']:5.1f} s: waited for a worker {wait:5.1f} s, done "
                  f"{r['server_done']:5.1f} s after its request (a shared or stored run shows no wait)")
    print(f"server + worker processes: {base_rss / 1e6:.0f} MB RSS at start, peak {peak['rss'] / 1e6:.0f} MB RSS "
          f"/ {peak['pss'] / 1e6:.0f} MB PSS (goal ≤ 4000 MB)")
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
