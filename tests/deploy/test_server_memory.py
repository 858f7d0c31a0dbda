"""The lab server stays small: its own resident memory (``VmRSS``) after many distinct lecture links and after a
large upload, once their sessions have ended (benchmarks/bench_memory.py runs the same with the full 105 links and
prints the figures; docs/BENCHMARKS.md, "Server memory").

Real servers (``serve.py`` as ``run.sh app`` starts it), each with a short ``server.disconnectedSessionTTL`` and
``[memory] idle_release_seconds`` so that "the session has ended and the server is idle" takes seconds here.
"""
from __future__ import annotations

import os
import sys
import tempfile

import pytest

from lab_paths import ROOT
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_memory import IDLE_MARGIN_MB, LINK_BOUND_MB, UPLOAD_BOUND_MB, run_links, run_upload  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.browser]

# The goal is set for 105 links: within 300 MB of the start. The test opens fewer (LAB_MEMORY_LINKS to change) and
# holds them to the same bound scaled by n/105. Memory that grows with the links (a cache without a byte bound,
# sessions kept after their end) grows linearly from a start-up cost that is never negative, so a server that
# stays under 300·n/105 MB after n links stays under 300 MB after 105 unless the growth speeds up; the benchmark
# runs the full 105.
LINKS = int(os.environ.get("LAB_MEMORY_LINKS", "30"))
# Session TTL and idle spell of the test's servers (seconds), and how long the memory may take to fall back after
# them: the closed tab's script finishes its step first, and the machine may be busy.
TTL, IDLE, AFTER = 5, 5, 120


def test_many_distinct_lecture_links_leave_the_server_small_and_it_falls_back_when_idle():
    r = run_links(LINKS, TTL, IDLE, AFTER)
    assert not r["errors"], r["errors"][:3]
    bound = LINK_BOUND_MB * LINKS / 105
    assert r["peak"] - r["start"] < bound, (r, bound)
    assert r["idle"] - r["start"] < IDLE_MARGIN_MB, r
    assert r["idle"] <= r["peak"], r


def test_a_large_upload_leaves_less_than_100_mb_once_its_session_has_ended():
    pytest.importorskip("playwright.sync_api")
    if not os.path.exists("/usr/bin/chromium"):
        pytest.skip("no /usr/bin/chromium")
    r = run_upload(TTL, IDLE, AFTER)
    assert r["file_mb"] > 17, r  # 20 MB as the issue counts (10^6 bytes)
    assert r["idle"] - r["before"] < UPLOAD_BOUND_MB, r
