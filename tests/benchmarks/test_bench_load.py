"""The load benchmark's plan (benchmarks/bench_load.py): who arrives when."""
from __future__ import annotations

import sys

from lab_paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_load import abuser_links, arrivals  # noqa: E402


def test_visitors_arrive_spread_over_the_window_and_the_same_without_the_heavy_ones():
    """A class arrives over --arrival seconds, each visitor at their own moment (not all in one instant), heavy
    links within its first tenth; the light visitors' times do not depend on how many heavy links there are."""
    times = arrivals(25, 12, 60.0, 0)
    light, heavy = times[:25], times[25:]
    assert len(set(light)) == 25 and len(set(heavy)) == 12
    assert all(0 <= t <= 60 for t in light) and all(0 <= t <= 6 for t in heavy)
    assert max(light) - min(light) > 30  # spread over the window
    assert light == sorted(light) and arrivals(25, 0, 60.0, 0) == light


def test_abusers_open_the_ends_of_the_range_in_turn():
    assert abuser_links(5, "2-3") == [2, 3, 2, 3, 2]
    assert abuser_links(3, "2") == [2, 2, 2]
    assert abuser_links(4, "1-4") == [1, 4, 2, 3]
