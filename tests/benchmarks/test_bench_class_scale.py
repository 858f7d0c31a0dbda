"""The course-scale benchmark (benchmarks/bench_class_scale.py) with tiny numbers, so it cannot rot: two real lab
servers on a throwaway PostgreSQL and a real Dask scheduler with two workers, six students joining a class made on
server A and committing two predictions each (one with a heavy lab link open beside), server B killed (SIGKILL) after
a quarter of the commits. B's students must reload onto A, get their seats back and finish, and every prediction a
student saw committed must be in the database with its value. No timing is asserted (the figures are the
benchmark's to print)."""
from __future__ import annotations

import sys

import pytest

from lab_paths import ROOT
sys.path.insert(0, str(ROOT / "benchmarks"))

pytestmark = [pytest.mark.slow, pytest.mark.browser]  # real servers and a cluster (no Chromium needed)


def test_a_killed_server_loses_no_committed_prediction():
    from bench_class_scale import measure
    from labcluster import PartMissing

    try:
        # a quarter of 12 commits: 3 are made before the kill, so server B's three students (one on each odd
        # number) cannot all be done, and at least one of them has to move to server A
        out = measure(["--students", "6", "--heavy", "1", "--steps", "2", "--think", "0.2", "--arrival", "2",
                       "--kill-at", "0.25", "--timeout", "900"])
    except PartMissing as exc:
        pytest.skip(str(exc))
    assert out["killed"]
    assert out["reconnects"] >= 1
    assert out["error_samples"] == [] and out["errors"] == 0
    assert out["finished"] == 6
    assert out["lost"] == 0
