"""The lab server's own memory under many distinct links and one large upload, and after the sessions end.

Goals (issue "Beyond one machine", item 3), both read from the server process's resident set (``VmRSS`` of
``/proc/<pid>/status``; its worker processes are not counted — they hold runs, not pages):

* ``links``: N Reidentification-lecture links with distinct seeds (``?reid.seed=…``), one tab after another
  through the protocol client (benchmarks/stclient.py), each closed when its page is drawn. Peak within
  300 MB of the server's start; after the sessions' end and an idle spell, back within a margin of the start.
* ``upload``: a 20 MB, 499-column CSV uploaded through the lecture page's uploader in headless Chromium, its
  import step (format, first rows, column types) drawn, the tab closed. Once the session is over, less than
  100 MB above the resident memory before the upload.

Disconnected sessions are kept for ``server.disconnectedSessionTTL`` seconds (120 by default) and the server
empties its caches after ``[memory] idle_release_seconds`` without a session (ui/server/housekeeping.py); both are
shortened here (``--ttl``, ``--idle``) so a run takes minutes, not hours of waiting.

    .venv/bin/python benchmarks/bench_memory.py                 # both, 105 links
    .venv/bin/python benchmarks/bench_memory.py links --links 30
    .venv/bin/python benchmarks/bench_memory.py upload
    .venv/bin/python benchmarks/bench_memory.py upload --against ../before   # another checkout (git worktree/archive)
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from labserver import CHROMIUM_ARGS, CHROMIUM, load_text, serve  # noqa: E402
from stclient import open_page  # noqa: E402

from core.runtime.memory import rss_bytes  # noqa: E402

MB = 2**20
LINK_BOUND_MB = 300  # peak above the start after 105 links
UPLOAD_BOUND_MB = 100  # left behind by a 20 MB upload once its session has ended
# What an idle server may keep above its start once every session has ended and its caches were emptied: the first
# visitor's one-time costs (lazily built plotly validators, Arrow, the compiled pages: 23-26 MB measured after two
# links) and what glibc keeps of its heaps (about 20 MB more after 105 links).
IDLE_MARGIN_MB = 60
LECTURE = "Reidentification_lecture"


@dataclass
class Trace:
    """Resident memory of the server (MB) at named moments, and the peak seen between them."""
    pid: int
    marks: dict[str, float] = field(default_factory=dict)
    peak: float = 0.0

    def sample(self) -> float:
        value = (rss_bytes(self.pid) or 0) / MB
        self.peak = max(self.peak, value)
        return value

    def mark(self, name: str) -> float:
        self.marks[name] = self.sample()
        return self.marks[name]


def server_env(tmp: Path, ttl: int, idle: float | None) -> dict:
    """The server's environment: its own store, a short session TTL and idle spell (``idle`` None: a checkout from
    before the idle release, whose settings have no [memory] section)."""
    env = {"LAB_STORE": str(tmp / "store"), "STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(ttl)}
    if idle is not None:
        settings = tmp / "lab_settings.toml"
        settings.write_text(f"[memory]\nidle_release_seconds = {idle}\n", encoding="utf-8")
        env["LAB_SETTINGS"] = str(settings)
    return env


def settle(trace: Trace, seconds: float, every: float = 2.0) -> float:
    """Wait ``seconds`` (sampling the peak), then the resident memory."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(min(every, max(0.0, end - time.monotonic())))
        trace.sample()
    return trace.sample()


def settle_below(trace: Trace, target: float, seconds: float, every: float = 2.0) -> float:
    """Wait until the resident memory is under ``target`` MB or ``seconds`` have passed; the last reading. (The
    release comes once the closed tab's script has finished and the server has been idle for its idle spell: on a
    busy machine that takes longer than the settings alone say.)"""
    end = time.monotonic() + seconds
    value = trace.sample()
    while value >= target and time.monotonic() < end:
        time.sleep(every)
        value = trace.sample()
    return value


def open_links(url: str, trace: Trace, n: int, first_seed: int = 1000) -> list[str]:
    """Open ``n`` lecture links with distinct seeds one after another; the errors seen."""
    errors = []
    for i in range(n):
        report = asyncio.run(open_page(url, f"{LECTURE}?reid.seed={first_seed + i}", timeout=180, needs_plot=True,
                                       linger=10))
        if report.error:
            errors.append(f"seed {first_seed + i}: {report.error}")
        trace.sample()
    return errors


def write_wide_csv(path: Path, megabytes: float = 20.0, columns: int = 499, seed: int = 0) -> Path:
    """A CSV of about ``megabytes`` MB with ``columns`` columns: small integers and a few categorical columns
    (under the upload caps of lab_settings.toml: 500 columns, 10 million cells)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = int(megabytes * 1e6 / (columns * 2.8))
    data = {f"c{j:03d}": (rng.integers(0, 100, rows) if j % 10 else rng.choice(list("abcde"), rows))
            for j in range(columns)}
    pd.DataFrame(data).to_csv(path, index=False)
    return path


def upload_in_browser(url: str, csv: Path, timeout_ms: float = 240_000) -> None:
    """Upload ``csv`` through the lecture page's uploader in headless Chromium, wait for its import step's first
    rows, then close the tab (the session's websocket with it)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(f"{url}/{LECTURE}", timeout=timeout_ms)
            page.get_by_text("Upload a CSV").click(timeout=timeout_ms)
            page.locator("input[type=file]").set_input_files(str(csv), timeout=timeout_ms)
            page.get_by_text("First rows").wait_for(timeout=timeout_ms)
            page.wait_for_timeout(1000)
            page.close()
        finally:
            browser.close()


def _serve(tmp: Path, ttl: int, idle: float, tree: Path | None):
    """The lab's server from this checkout, or from ``tree`` (another checkout, to compare before and after)."""
    if tree is None:
        return serve(env=server_env(tmp, ttl, idle))
    has_idle = "[memory]" in (tree / "lab_settings.toml").read_text(encoding="utf-8")
    return serve(env=server_env(tmp, ttl, idle if has_idle else None), tree=tree, app=tree / "serve.py")


def run_links(n: int, ttl: int, idle: float, after: float, tree: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp, _serve(Path(tmp), ttl, idle, tree) as server:
        trace = Trace(server.proc.pid)
        start = settle(trace, 2)
        t0 = time.monotonic()
        errors = open_links(server.url, trace, n)
        end = trace.mark("end")
        seconds = time.monotonic() - t0
        idle_rss = settle_below(trace, start + IDLE_MARGIN_MB, ttl + idle + after)
        return {"links": n, "start": start, "end": end, "peak": trace.peak, "idle": idle_rss, "errors": errors,
                "seconds": seconds}


def run_upload(ttl: int, idle: float, after: float, megabytes: float = 20.0, tree: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp, _serve(Path(tmp), ttl, idle, tree) as server:
        csv = write_wide_csv(Path(tmp) / "wide.csv", megabytes)
        trace = Trace(server.proc.pid)
        # the page's first visit without an upload: what every visitor costs, not the upload
        asyncio.run(open_page(server.url, LECTURE, timeout=180, needs_plot=True))
        before = settle(trace, ttl + idle + 15)
        trace.peak = before
        upload_in_browser(server.url, csv)
        shown = trace.mark("shown")
        idle_rss = settle_below(trace, before + UPLOAD_BOUND_MB / 2, ttl + idle + after)
        return {"file_mb": csv.stat().st_size / MB, "before": before, "shown": shown, "peak": trace.peak,
                "idle": idle_rss}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", nargs="?", choices=["links", "upload", "both"], default="both")
    ap.add_argument("--links", type=int, default=105)
    ap.add_argument("--ttl", type=int, default=5, help="server.disconnectedSessionTTL (s)")
    ap.add_argument("--idle", type=float, default=5, help="[memory] idle_release_seconds")
    ap.add_argument("--after", type=float, default=90,
                    help="at most this many seconds more for the memory to fall back before the idle reading")
    ap.add_argument("--against", type=Path, help="another checkout of the lab to measure instead (before/after)")
    args = ap.parse_args()
    print(load_text())
    if args.what in ("links", "both"):
        r = run_links(args.links, args.ttl, args.idle, args.after, args.against)
        print(f"{r['links']} distinct-seed lecture links in {r['seconds']:.0f} s, {len(r['errors'])} errors "
              f"{r['errors'][:3]}")
        print(f"  RSS start {r['start']:.0f} MB, end {r['end']:.0f}, peak {r['peak']:.0f} "
              f"(+{r['peak'] - r['start']:.0f} MB: {(r['peak'] - r['start']) / LINK_BOUND_MB:.2f}x the "
              f"{LINK_BOUND_MB} MB bound), after idle {r['idle']:.0f} (+{r['idle'] - r['start']:.0f} MB)")
    if args.what in ("upload", "both"):
        r = run_upload(args.ttl, args.idle, args.after, tree=args.against)
        left = r["idle"] - r["before"]
        print(f"upload of a {r['file_mb']:.1f} MB, 499-column CSV: RSS before {r['before']:.0f} MB, "
              f"previewed {r['shown']:.0f}, peak {r['peak']:.0f} (+{r['peak'] - r['before']:.0f}), "
              f"after its session {r['idle']:.0f} (+{left:.0f} MB: {left / UPLOAD_BOUND_MB:.2f}x the "
              f"{UPLOAD_BOUND_MB} MB bound)")


if __name__ == "__main__":
    main()
