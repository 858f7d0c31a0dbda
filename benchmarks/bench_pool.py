"""Does engine work still slow the pages down? A closed-form page's script time, alone and beside heavy runs.

The page (``--page``, default the ε explorer: closed-form plots, no run) is executed through Streamlit's AppTest
— the same script thread a server session uses — ``--repeat`` times in three conditions:

1. **alone**;
2. **heavy runs in threads** of this process — how the lab's run pool worked before it used worker processes: the
   runs hold Python's interpreter lock and the page waits for it;
3. **heavy runs in the run pool's worker processes** (``core.runtime.workers.RunPool``, ``[server] slots`` workers at
   ``worker_nice``) — how it works now.

It prints the median seconds of each and the ratios to "alone". Goal: worker processes ≈ alone (ratio near 1,
or near the machine's share when other programs keep the cores busy); threads are shown for comparison. No
browser is involved, so this isolates the server. Noisy when others use the machine: the load average is printed.

    .venv/bin/python benchmarks/bench_pool.py [--repeat 5] [--page pages/05_Epsilon_explorer.py]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]
from labserver import load_text  # shared with the browser benchmarks

HEAVY = [("reconstruction", {"n": 600, "trials": 20}), ("location", {"games": 300000})]
_BUSY: list[int] = []  # heavy runs still going when a condition's measurements ended


def page_seconds(page: str, repeat: int) -> list[float]:
    from streamlit.testing.v1 import AppTest

    out = []
    for _ in range(repeat):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()
        at.switch_page(page)
        t0 = time.perf_counter()
        at.run()
        out.append(time.perf_counter() - t0)
        if at.exception:
            raise SystemExit(f"{page}: {at.exception}")
    return out


def with_threads(page: str, repeat: int, slots: int) -> list[float]:
    from core.runtime.games import run

    stop = threading.Event()
    threads = [threading.Thread(target=run, args=HEAVY[i % len(HEAVY)], kwargs={"seed": 7, "cancel": stop},
                                daemon=True) for i in range(slots)]
    for t in threads:
        t.start()
    time.sleep(3)  # past their imports and into the games
    try:
        out = page_seconds(page, repeat)
        _BUSY.append(sum(t.is_alive() for t in threads))
        return out
    finally:
        stop.set()
        for t in threads:
            t.join(120)


def with_workers(page: str, repeat: int, slots: int, nice: int) -> list[float]:
    from core.runtime.workers import Job, RunPool, run_job

    pool = RunPool(slots, nice=nice)
    jobs = [pool.submit(Job(run_job, {"scenario": name, "params": params, "seed": 7}))
            for name, params in (HEAVY[i % len(HEAVY)] for i in range(slots))]
    deadline = time.time() + 300
    while any(j.latest()[0] == 0 for j in jobs) and time.time() < deadline:  # both have started playing
        time.sleep(0.1)
    try:
        out = page_seconds(page, repeat)
        _BUSY.append(sum(not j.finished.is_set() for j in jobs))
        return out
    finally:
        for j in jobs:
            j.cancel.set()
        pool.close()


def main() -> None:
    from core.basics.settings import settings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--page", default="pages/05_Epsilon_explorer.py")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    s = settings()
    print(f"{args.page}: script seconds over {args.repeat} runs; {s.slots} heavy runs beside it "
          f"({', '.join(f'{n} {p}' for n, p in HEAVY)}); before: {load_text()}", flush=True)
    page_seconds(args.page, 1)  # imports and caches warm
    rows = [("alone", page_seconds(args.page, args.repeat))]
    rows.append(("heavy runs in threads (before)", with_threads(args.page, args.repeat, s.slots)))
    rows.append((f"heavy runs in worker processes, nice +{s.worker_nice} (now)",
                 with_workers(args.page, args.repeat, s.slots, s.worker_nice)))
    alone = statistics.median(rows[0][1])
    busy = [""] + [f"  ({b}/{s.slots} heavy runs still going at the end)" for b in _BUSY]
    for (name, values), note in zip(rows, busy):
        med = statistics.median(values)
        print(f"{name:52s} median {med:6.2f} s  max {max(values):6.2f} s  ratio to alone {med / alone:5.2f}{note}")
    print(f"after: {load_text()}")


if __name__ == "__main__":
    main()
