"""The load test's Streamlit protocol client (benchmarks/stclient.py) against a real lab server: it opens a page
as a browser tab does, sees its plot and its end, and tells a missing page and an exception apart from success.
No timings are asserted (speed goals live in benchmarks/bench_load.py)."""
from __future__ import annotations

import asyncio
import sys

import pytest
from lab_paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from labserver import serve
from stclient import open_page, rerun_request

pytestmark = pytest.mark.browser  # end-to-end: starts the app's Streamlit server (no Chromium needed)


@pytest.fixture(scope="module")
def lab_url():
    with serve() as server:  # this test session's LAB_STORE (conftest.py) reaches the server through os.environ
        yield server.url


def _open(url: str, path: str, **kw):
    return asyncio.run(open_page(url, path, timeout=240, **kw))


def test_rerun_request_has_the_shape_chromium_sends():
    msg = rerun_request("http://127.0.0.1:8501", "Reconstruction_attack?n=600&trials=20")
    state = msg.rerun_script
    assert msg.WhichOneof("type") == "rerun_script"
    assert (state.page_name, state.query_string, state.page_script_hash) == ("Reconstruction_attack",
                                                                            "n=600&trials=20", "")
    assert state.HasField("widget_states") and not state.widget_states.widgets
    assert state.context_info.url == "http://127.0.0.1:8501/Reconstruction_attack"
    assert not state.cached_message_hashes  # a fresh tab: so the server never sends references
    home = rerun_request("http://127.0.0.1:8501", "").rerun_script
    assert (home.page_name, home.query_string) == ("", "")


def test_closed_form_page_draws_a_plot_and_finishes(lab_url):
    report = _open(lab_url, "Epsilon_explorer", needs_plot=True, load=True)
    assert report.error is None and report.exceptions == []
    assert report.outcome == "done"
    assert report.plots >= 1 and report.first_plot is not None
    assert report.done is not None and report.first_plot <= report.done
    assert report.finished[-1] == 0  # FINISHED_SUCCESSFULLY (an st.rerun before it ends a run early: 2)
    assert not report.has_run  # closed-form plots: no engine run, nothing queued
    assert report.load_bytes > 0  # the page's HTML was fetched


def test_missing_page_is_page_not_found(lab_url):
    report = _open(lab_url, "No_such_lab_page")
    assert report.outcome == "page not found"
    assert "No_such_lab_page" in report.error
    assert report.first_plot is None and report.done is None


APP = '''
import streamlit as st
st.title("tiny")
if st.query_params.get("boom"):
    raise ValueError("kaboom from the test app")
st.write("no plot here")
'''


@pytest.fixture(scope="module")
def tiny_url(tmp_path_factory):
    app = tmp_path_factory.mktemp("tinyapp") / "tiny_app.py"
    app.write_text(APP, encoding="utf-8")
    with serve(app=app) as server:
        yield server.url


def test_exception_on_the_page_is_an_error(tiny_url):
    report = _open(tiny_url, "?boom=1")
    assert report.outcome == "error" and report.done is None
    # the browser gets the type and a generic message (client.showErrorDetails = "type"); the message itself
    # stays in the server's log
    assert "exception" in report.error and "ValueError" in report.error
    assert "kaboom from the test app" not in report.error
    assert report.exceptions and "ValueError" in report.exceptions[0]


def test_a_lab_that_finishes_without_its_plot_is_an_error(tiny_url):
    assert _open(tiny_url, "").outcome == "done"  # the same page is fine when no plot is owed
    report = _open(tiny_url, "", needs_plot=True)
    assert report.outcome == "error" and report.error == "script finished without a plot"
