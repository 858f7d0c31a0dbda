"""Load test of one lab server (issue 12): many concurrent browser sessions through every page's default run.

Starts one Streamlit server (fresh result store unless ``--warm``), then drives ``--sessions`` headless
Chromium contexts (one browser process) concurrently: session i opens page i mod P with its default
configuration; ``--heavy`` of them ask for heavy runs instead (queued behind the pool). Prints per page
the p50/p95 time to the first plot and to "done" (the run's status says Done/Stored, or the page has no
run), the errors (exceptions, "Unexpected error", timeouts), refusals, and the server's peak memory.

Goal (issue 12): zero errors; light pages' p95 first plot ≤ 5 s while heavy runs queue; memory ≤ 4 GB.
Not part of CI (minutes of wall time):

    .venv/bin/python benchmarks/bench_load.py --sessions 30 --heavy 4
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
# Heavy but within the default per-run limits (they queue; a refused run would not load the server).
HEAVY = ["Reconstruction_attack?n=600&trials=20", "Location_membership?games=200000",
         "Reconstruction_attack?n=500&trials=25&seed=1", "Location_membership?games=300000&seed=2"]
PLOT = "[data-testid=stPlotlyChart], .js-plotly-plot"
DONE_TEXT = re.compile(r"Done:|Stored result|Cached result|Stopped after|needs about")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_tree(pid: int) -> int:
    """Resident memory of a process and its children (bytes)."""
    total = 0
    pids = [pid]
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
        pids += [int(x) for x in out.split()]
    except OSError:
        pass
    for p in pids:
        try:
            for line in open(f"/proc/{p}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


async def _session(browser, url: str, path: str, timeout: float) -> dict:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    out = {"page": path.split("?")[0], "heavy": "?" in path, "first_plot": None, "done": None, "error": None}
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1600})
    page = await ctx.new_page()
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
            if "Unexpected error" in body:
                out["error"] = "unexpected error"
                break
            if out["first_plot"] is None and await page.locator(PLOT).count():
                out["first_plot"] = time.perf_counter() - start
            running = "Running " in body or "Queued:" in body or "preparing" in body
            if DONE_TEXT.search(body) or (out["first_plot"] is not None and not running):
                out["done"] = time.perf_counter() - start
                out["refused"] = "needs about" in body
                break
            await asyncio.sleep(0.25)
        else:
            out["error"] = f"timeout after {timeout:.0f} s"
    except Exception as exc:  # a navigation failure counts as an error
        out["error"] = f"{type(exc).__name__}: {exc}"[:200]
    finally:
        await ctx.close()
    return out


async def _warm(browser, url: str, pages: list[str]) -> None:
    """Open every page once (another seed, so nothing measured is a store hit): a *warm* server has its
    modules imported, as for a class that opened the app before the lesson. The warm-up runs are abandoned
    (their tabs close) and so stop by themselves."""
    for name in pages:
        ctx = await browser.new_context(viewport={"width": 1400, "height": 1600})
        page = await ctx.new_page()
        try:
            await page.goto(f"{url}/{name}?seed=987654", timeout=180_000)
            await page.locator(PLOT).first.wait_for(timeout=180_000)
        except Exception:
            pass
        await ctx.close()
    await asyncio.sleep(8)  # abandoned warm-up runs are cancelled after the grace period


async def _drive(url: str, paths: list[str], timeout: float, warm: list[str]) -> list[dict]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        if warm:
            await _warm(browser, url, warm)
        results = await asyncio.gather(*(_session(browser, url, path, timeout) for path in paths))
        await browser.close()
    return list(results)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--heavy", type=int, default=4, help="sessions asking for heavy runs")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per session")
    ap.add_argument("--warm", action="store_true", help="keep the user's result store (default: a fresh one)")
    ap.add_argument("--cold", action="store_true", help="skip the warm-up visit of every page")
    args = ap.parse_args()
    if not os.path.exists(CHROMIUM):
        print("needs /usr/bin/chromium", file=sys.stderr)
        return 2
    pages = [re.sub(r"^\d+_", "", p.stem) for p in sorted((ROOT / "pages").glob("[0-9]*_*.py"))]
    light = [pages[i % len(pages)] for i in range(max(0, args.sessions - args.heavy))]
    heavy = [HEAVY[i % len(HEAVY)] for i in range(min(args.heavy, args.sessions))]
    paths = light + heavy
    port = _free_port()
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    if not args.warm:
        env["LAB_STORE"] = tempfile.mkdtemp(prefix="lab-load-store-")
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port",
                               str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                               "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    peak = {"rss": 0}
    stop = threading.Event()
    try:
        for _ in range(120):
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        base = _rss_tree(server.pid)

        def watch():
            while not stop.wait(0.5):
                peak["rss"] = max(peak["rss"], _rss_tree(server.pid))

        threading.Thread(target=watch, daemon=True).start()
        t0 = time.perf_counter()
        results = asyncio.run(_drive(url, paths, args.timeout, [] if args.cold else pages))
        wall = time.perf_counter() - t0
    finally:
        stop.set()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    print(f"{len(paths)} sessions ({len(heavy)} heavy) on one {'cold' if args.cold else 'warm'} server, "
          f"{os.cpu_count()} cores; wall {wall:.1f} s (warm-up included)")
    print(f"{'page':34s} {'n':>3s} {'first plot p50/p95 (s)':>24s} {'done p50/p95 (s)':>20s} errors")
    for name in sorted({r["page"] + (" [heavy]" if r["heavy"] else "") for r in results}):
        rows = [r for r in results if r["page"] + (" [heavy]" if r["heavy"] else "") == name]
        fp = [r["first_plot"] for r in rows if r["first_plot"] is not None]
        dn = [r["done"] for r in rows if r["done"] is not None]
        errs = [r["error"] for r in rows if r["error"]]
        print(f"{name:34s} {len(rows):3d} {_pct(fp, .5):11.1f} / {_pct(fp, .95):6.1f}   "
              f"{_pct(dn, .5):8.1f} / {_pct(dn, .95):6.1f}   {len(errs)} {'; '.join(set(errs))[:80]}")
    errors = sum(1 for r in results if r["error"])
    refused = sum(1 for r in results if r.get("refused"))
    light_fp = [r["first_plot"] for r in results if not r["heavy"] and r["first_plot"] is not None]
    print(f"errors: {errors}; refused by the cost limits: {refused}; light pages p95 first plot "
          f"{_pct(light_fp, .95):.1f} s (goal ≤ 5 s); server memory {base / 1e6:.0f} MB at start, "
          f"peak {peak['rss'] / 1e6:.0f} MB (goal ≤ 4000 MB)")
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
