"""What Plotly itself costs a new tab, by bundle: the seconds from a bare page's start to plotly.js loaded and
evaluated, and to its first chart drawn, in headless Chromium, for a returning browser (files in its HTTP cache).

Bundles: the full one that the ``plotly`` package ships (the plotly.js inside Streamlit's chart element) and the
partial ones the lab's chart view draws with (``ui/charts/static``, ui/charts/plotly_view.py). Each page holds one script tag and
one ``Plotly.newPlot`` of a three-point line, served from a local directory by Python's own HTTP server; the pages
are visited in turn, ``--repeat`` times each, and the first round (the cold cache) is left out of the medians.

    python benchmarks/bench_plotly_bundles.py [--repeat 8]

On the class machine (2026-11-28, two runs): to load and evaluate, the full bundle 1.45-1.77 s, the cartesian one
0.46-0.54x that, the basic one 0.18-0.24x; each first draw 80-180 ms (benchmarks/FIRST_VIEW.md).
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from labserver import launch_options  # noqa: E402

PAGE = """<!doctype html><html><head><meta charset="utf-8"><script>window.t0 = performance.now();</script>
<script src="{file}"></script><script>window.t1 = performance.now();</script></head>
<body><div id="chart" style="width: 800px; height: 450px"></div><script>
Plotly.newPlot('chart', [{{x: [0, 1, 2], y: [0, 1, 0]}}]).then(() => {{ window.t2 = performance.now(); }});
</script></body></html>"""


def bundles() -> dict[str, Path]:
    import plotly

    from ui.charts import plotly_view

    found = {"full (the plotly package's)": Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"}
    found.update({name: plotly_view.STATIC / file for name, (file, _) in plotly_view.BUNDLES.items()})
    return found


@contextlib.contextmanager
def served(folder: Path):
    """``folder`` on a free local port (Python's HTTP server, in a thread); yields its address."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:  # no line per request on the terminal
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=8, help="visits of each page (the first is left out)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    found = bundles()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in found}
    with tempfile.TemporaryDirectory() as tmp, served(Path(tmp)) as base, sync_playwright() as p:
        for i, (name, path) in enumerate(found.items()):
            shutil.copy(path, Path(tmp) / path.name)
            (Path(tmp) / f"page{i}.html").write_text(PAGE.format(file=path.name), encoding="utf-8")
        browser = p.chromium.launch(**launch_options())
        ctx = browser.new_context()
        for _ in range(max(args.repeat, 2)):
            for i, name in enumerate(found):
                page = ctx.new_page()
                page.goto(f"{base}/page{i}.html")
                page.wait_for_function("window.t2", timeout=60_000)
                times[name].append(page.evaluate("[(t1 - t0) / 1000, (t2 - t1) / 1000]"))
                page.close()
        browser.close()
    full = statistics.median(t[0] for t in times[next(iter(found))][1:])
    print(f"{'bundle':28s} {'MB':>5s} {'load + evaluate':>16s} {'/ full':>7s} {'first draw':>11s}")
    for name, path in found.items():
        load = statistics.median(t[0] for t in times[name][1:])
        draw = statistics.median(t[1] for t in times[name][1:])
        print(f"{name:28s} {path.stat().st_size / 1e6:5.1f} {load:15.2f}s {load / full:7.2f} {draw * 1000:9.0f}ms")
    print(f"(median of visits 2–{max(args.repeat, 2)} of each page by a returning browser)")


if __name__ == "__main__":
    main()
