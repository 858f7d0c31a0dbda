"""The trace breakdown of benchmarks/bench_first_view_trace.py on a hand-made Chromium trace: the phases of a
new tab's first plot are read from the right thread and events, with known answers."""
from __future__ import annotations

import math
import sys

import pytest
from lab_paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_first_view_trace import phases  # noqa: E402

T0 = 1_000_000  # the navigation's start, in the trace's microseconds
MAIN, OTHER = (7, 1), (9, 1)


def _event(name, at_ms, dur_ms=None, where=MAIN, **args):
    e = {"name": name, "pid": where[0], "tid": where[1], "ts": T0 + at_ms * 1000, "args": args}
    if dur_ms is not None:
        e["dur"] = dur_ms * 1000
    return e


def _trace():
    return [
        _event("navigationStart", -5000, where=OTHER, data={"documentLoaderURL": "http://x/old"}),
        _event("navigationStart", 0, data={"documentLoaderURL": "http://x/Page"}),
        _event("navigationStart", 1, data={"documentLoaderURL": ""}),  # an about:blank start, not the page's
        _event("ResourceSendRequest", 900, data={"url": "http://x/static/js/PlotlyChart.abc.js"}),
        _event("ResourceSendRequest", 50, data={"url": "http://x/static/js/index.js"}),
        _event("v8.evaluateModule", 300, 150),  # Streamlit's own bundle: shorter, not Plotly's
        _event("v8.evaluateModule", 1200, 1000),  # Plotly
        _event("v8.evaluateModule", 1250, 3000, where=OTHER),  # another page's thread
        _event("ThreadControllerImpl::RunTask", 600, 100),  # before the socket: only 20 ms count (680-700)
        _event("ThreadControllerImpl::RunTask", 800, 200),
        _event("ThreadControllerImpl::RunTask", 1150, 100),  # runs into the evaluation: 50 ms count
        _event("ThreadControllerImpl::RunTask", 900, 500, where=OTHER),
    ]


def test_phases_from_a_known_trace():
    got = phases(_trace(), ws_open=680.0, plot=2500.0)
    assert got == pytest.approx({"ws": 680, "ws→ask": 220, "busy": 20 + 200 + 50, "eval": 1000, "draw": 300,
                                 "ws→plot": 1820, "plot": 2500})


def test_a_chunk_never_asked_for_reads_as_missing_not_zero():
    trace = [e for e in _trace() if "PlotlyChart" not in str(e["args"])]
    got = phases(trace, ws_open=680.0, plot=2500.0)
    assert math.isnan(got["ws→ask"]) and got["eval"] == 1000
