"""What one full garbage collection of the server's heap costs, before and after ui/server/heap.py freezes it.

Imports what the app and its pages import (as ``serve.py`` does before the server takes a session), then times
Python's full collection (``gc.collect()``, which holds the interpreter lock: every session waits for it) a few
times, freezes the heap as ``freeze_libraries`` does, and times it again. Prints the objects the collector walks
and the median milliseconds, before and after, and their ratio.

    python benchmarks/bench_heap.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def full_collection_ms(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        gc.collect()
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from ui.server import heap

    start = time.perf_counter()
    for name in heap.page_imports(heap.app_files()):
        __import__(name)
    imported = time.perf_counter() - start
    tracked = len(gc.get_objects())
    before = full_collection_ms(args.repeat)
    frozen = heap.freeze_libraries()
    after = full_collection_ms(args.repeat)
    print(f"imports the pages need: {imported:.1f} s, {len(sys.modules)} modules")
    print(f"{'':26s} {'objects walked':>14s} {'full collection (ms)':>21s}")
    print(f"{'before the freeze':26s} {tracked:14,d} {before:21.1f}")
    print(f"{'after (frozen: ' + format(frozen, ',d') + ')':26s} {len(gc.get_objects()):14,d} {after:21.1f}")
    print(f"a full collection after the freeze: {after / before:.3f}× the time before "
          f"(median of {args.repeat}; os.getloadavg() = {', '.join(f'{x:.1f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
