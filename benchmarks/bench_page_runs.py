"""How long each page's script runs on a warm server: a full run (what every widget change and every visit after
the first costs) and a new tab's first view (up to the first chart), without a browser.

Runs the app in Streamlit's AppTest, one page at a time: a first run warms the server's caches and the result
store (a lab plays its games once), then ``--repeat`` more runs are timed inside the script runner's thread (the
script alone, not AppTest's polling). Beside them it times the one-chart page of ``bench_first_view.py`` the same
way, and prints each page's median as milliseconds and as a multiple of that floor. ``--profile PAGE`` prints
where one full run of that page spends its time (cProfile, by cumulative time), to find what to make faster.

    python benchmarks/bench_page_runs.py [--repeat 5] [--pages Location_membership ML_models]
    python benchmarks/bench_page_runs.py --profile ML_models [--top 40]

The numbers are the server's part of a view. A browser adds its own (bench_first_view.py); in a class, the
server's part is what many students' views queue for.
"""
from __future__ import annotations

import argparse
import cProfile
import contextlib
import io
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from streamlit.runtime.scriptrunner import script_runner  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from bench_first_view import FLOOR_APP  # noqa: E402
from bench_load import LABS  # noqa: E402

_run_script = script_runner.ScriptRunner._run_script
_clock: dict = {"seconds": None, "profile": None}


def _timed_run_script(self, *args, **kwargs):
    """The script runner's own run, timed in its thread (and profiled, when asked)."""
    profile = _clock["profile"]
    start = time.perf_counter()
    try:
        if profile is None:
            return _run_script(self, *args, **kwargs)
        profile.enable()
        try:
            return _run_script(self, *args, **kwargs)
        finally:
            profile.disable()
    finally:
        _clock["seconds"] = time.perf_counter() - start


script_runner.ScriptRunner._run_script = _timed_run_script


def _labs() -> list[Path]:
    """The pages that draw a plot on a visit (bench_load.py's labs), less the lessons (a prediction comes first)."""
    return [p for p in sorted((ROOT / "pages").glob("[0-9]*_*.py"))
            if p.stem.split("_", 1)[1] in LABS and p.stem.split("_", 1)[1] != "Lessons"]


@contextlib.contextmanager
def _first_view():
    """A browser's first view: the run ends at the first chart (ui/charts/first_view.py), as for a new tab."""
    import ui.charts.first_view as first_view
    before = first_view._runs_javascript
    first_view._runs_javascript = lambda: True
    try:
        yield
    finally:
        first_view._runs_javascript = before


def page_seconds(page: Path | None, repeat: int, first_view: bool = False, app: Path = ROOT / "app.py",
                 profile: cProfile.Profile | None = None) -> list[float]:
    """Seconds of ``repeat`` runs of ``page`` (through app.py's navigation) after one warming run; ``page`` None
    runs ``app`` itself. Each run is a new session, as a new visitor's is. ``profile`` records the page's runs
    (not the home page's run each new session starts with)."""
    times = []
    with _first_view() if first_view else contextlib.nullcontext():
        for i in range(repeat + 1):
            at = AppTest.from_file(str(app), default_timeout=900)
            if page is not None:
                at.run()
                at.switch_page(str(page.relative_to(ROOT)))
            _clock["profile"] = profile if i else None
            try:
                at.run()
            finally:
                _clock["profile"] = None
            if at.exception:
                raise SystemExit(f"{page}: {at.exception[0].message}")
            if i:
                times.append(_clock["seconds"])
    return times


def profile(slug: str, top: int) -> None:
    page = next((p for p in _labs() if p.stem.split("_", 1)[1] == slug), None)
    if page is None:
        raise SystemExit(f"no lab page named {slug}")
    prof = cProfile.Profile()
    page_seconds(page, 1, profile=prof)  # a warming run, then the profiled one
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    print(out.getvalue())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pages", nargs="*", help="page slugs (default: every lab)")
    ap.add_argument("--profile", metavar="PAGE", help="profile one full run of this lab instead")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    if args.profile:
        return profile(args.profile, args.top)
    pages = [p for p in _labs() if not args.pages or p.stem.split("_", 1)[1] in args.pages]
    with tempfile.TemporaryDirectory() as tmp:
        floor_app = Path(tmp) / "floor.py"
        floor_app.write_text(FLOOR_APP, encoding="utf-8")
        floor = statistics.median(page_seconds(None, args.repeat, app=floor_app))
    print(f"script time on a warm server, median of {args.repeat} runs after a warming one (AppTest)")
    print(f"{'page':30s} {'full run':>9s} {'/ floor':>8s} {'first view':>11s} {'/ floor':>8s}")
    print(f"{'(floor: a title and one chart)':30s} {1000 * floor:7.0f}ms")
    for page in pages:
        full = statistics.median(page_seconds(page, args.repeat))
        first = statistics.median(page_seconds(page, args.repeat, first_view=True))
        print(f"{page.stem.split('_', 1)[1]:30s} {1000 * full:7.0f}ms {full / floor:8.1f} {1000 * first:9.0f}ms "
              f"{first / floor:8.1f}", flush=True)


if __name__ == "__main__":
    main()
