"""AppTest: each lab that runs games draws something true before its run (issues 8, 12) — while the run waits
in the server's queue, when the server refuses it, and when it fails — and the run's results then take over.

Queued: every slot of the server's pool (regular and express lane) is held by a blocker job, so the page's run
waits in the queue; the page script is stopped at its second queue poll, i.e. after the browser was sent the
first "Queued: …" status. What the tree holds then is what a visitor sees while waiting."""
import json
import time

import pool_jobs
import pytest
import streamlit as st
from apptest_helpers import chart_titles, open_page

import ui.runs.page_runs
from core.runtime.workers import Job

WAIT = 120

RECON = "pages/10_Reconstruction_attack.py"
AGG = "pages/30_Aggregate_statistics.py"
SYN = "pages/40_Synthetic_data.py"

# small runs (a unique seed each, so no stored result answers at once) and each page's preview titles
PAGES = {
    RECON: ({"defense": "gaussian", "defense_level": 10.0, "seed": 91001},
            ("Bits recovered vs queries per person", "Bits recovered vs noise (fails near √n)")),
    # ε = 0.25 per cell: a per-person claim of ε = 1.5, so the ROC frame shows the DP region
    AGG: ({"block_size": 100, "shadows": 200, "attack": "desia", "query_ratio": 0.5, "epsilon": 0.25, "seed": 91002},
          ("Before any attack: who can be attacked (synthetic data)<br><sup>targets by the released cells that "
           "move with their Hispanic", "ROC, attribute (Hispanic) inference (synthetic data)")),
    SYN: ({"games": 2, "synth_size": 100, "n": 300, "seed": 91003},
          ("Before any game: who can be a target<br><sup>records unique on the quasi-identifiers",)),
}
# far beyond the server's per-run limits (600 s): refused before anything is queued
REFUSED = {
    RECON: {"n": 2000, "query_ratio": 8.0, "trials": 1000, "defense": "gaussian", "defense_level": 10.0},
    AGG: {"block_size": 454, "blocks": 50, "shadows": 100000, "query_ratio": 0.25, "attack": "desia",
          "epsilon": 1.0},
    SYN: {"games": 1000, "synth_size": 1000000, "n": 5000},
}
RESULT_METRICS = {RECON: "Bits recovered", AGG: "AUC", SYN: "Target accuracy [95% CI]"}


def _specs(at) -> dict:
    return {json.loads(c.proto.spec)["layout"].get("title", {}).get("text", ""): json.loads(c.proto.spec)
            for c in at.get("plotly_chart")}


def _assert_preview(at, page):
    titles = chart_titles(at)
    for title in PAGES[page][1]:
        assert any(t.startswith(title) for t in titles), (title, titles)
    assert RESULT_METRICS[page] not in {m.label for m in at.metric}  # no result yet
    if page == RECON:  # the theory frame, not measured points
        for spec in (_specs(at)[t] for t in PAGES[RECON][1]):
            names = {tr.get("name") for tr in spec["data"]}
            assert "least-squares theory Φ(√(m−n−1)/4σ)" in names and "attack" not in names
    text = " ".join(c.value for c in at.caption)
    assert "Before any" in text  # the plain-language reading of the preview


@pytest.fixture
def full_pool(tmp_path):
    """Every slot of the server's pool busy with a blocker until the test ends."""
    p = ui.runs.page_runs.pool()
    gate = tmp_path / "gate"
    jobs = []
    for i in range(p.slots + p.express_slots):
        job = Job(pool_jobs.blocker, {"gate": str(gate), "name": f"hold-{i}"})
        job.estimate = 1.0  # short: the express lane takes one too
        jobs.append(p.submit(job))
    deadline = time.monotonic() + WAIT
    while not all(j.started_at is not None and j.latest()[0] for j in jobs):
        assert time.monotonic() < deadline, "blockers did not start"
        time.sleep(0.02)
    yield p
    gate.touch()
    for job in jobs:
        assert job.finished.wait(WAIT)


@pytest.fixture
def stop_at_second_queue_poll(monkeypatch):
    real = ui.runs.page_runs._queue_text
    seen = []

    def queue_text(position, elapsed):
        if seen:
            st.stop()  # the first "Queued" status has been shown: look at the page as it is now
        seen.append(real(position, elapsed))
        return seen[-1]

    monkeypatch.setattr(ui.runs.page_runs, "_queue_text", queue_text)
    return seen


@pytest.mark.parametrize("page", list(PAGES))
def test_a_queued_run_shows_the_preview(page, full_pool, stop_at_second_queue_poll):
    at = open_page(page, **PAGES[page][0])
    assert not at.exception, at.exception
    assert stop_at_second_queue_poll and stop_at_second_queue_poll[0].startswith("Queued:"), \
        stop_at_second_queue_poll
    _assert_preview(at, page)
    assert full_pool.load()[1] == 0  # the stopped page left the queue: its run was withdrawn


@pytest.mark.parametrize("page", list(PAGES))
def test_a_refused_run_keeps_the_preview(page, tmp_path, monkeypatch):
    # A server so strict that no value of any control fits: the controls that follow the cost estimate have
    # nothing to lower to, so the run itself is refused (with laxer limits they correct a link's value instead)
    limits = tmp_path / "lab_settings.toml"
    limits.write_text("[server]\nmax_run_seconds = 0.01\n")
    monkeypatch.setenv("LAB_SETTINGS", str(limits))
    params = {**PAGES[page][0], **REFUSED[page]}
    at = open_page(page, **params)
    assert not at.exception, at.exception
    errors = " ".join(e.value for e in at.error)
    assert "the server allows" in errors or "limit" in errors, errors
    titles = chart_titles(at)
    assert any(t.startswith(PAGES[page][1][0]) for t in titles), titles
    assert RESULT_METRICS[page] not in {m.label for m in at.metric}


@pytest.mark.parametrize("page", list(PAGES))
def test_a_failed_run_keeps_the_preview(page, monkeypatch):
    monkeypatch.setattr(ui.runs.page_runs, "run_job", pool_jobs.broken_run)  # the worker runs this instead of the engine
    at = open_page(page, **PAGES[page][0])
    assert not at.exception, at.exception
    assert any("failed on purpose" in e.value for e in at.error), [e.value for e in at.error]
    _assert_preview(at, page)


def test_reconstruction_results_fill_the_theory_frame_and_respect_the_dp_bound():
    at = open_page(RECON, **PAGES[RECON][0])
    assert not at.exception, at.exception
    specs = _specs(at)
    level = specs["Bits recovered vs noise (fails near √n)"]
    names = {tr.get("name") for tr in level["data"]}
    assert {"attack", "least-squares theory Φ(√(m−n−1)/4σ)", "DP bound (best possible attacker)"} <= names
    bound = next(tr for tr in level["data"] if tr.get("name") == "DP bound (best possible attacker)")
    measured = next(tr for tr in level["data"] if tr.get("name") == "attack")
    # the measured sweep stays under the cap any attacker has (10 trials × 100 bits a point: ± ~0.05)
    import numpy as np

    cap = np.interp(measured["x"], bound["x"], bound["y"])
    assert np.all(np.array(measured["y"]) <= cap + 0.06), (measured["y"], cap)
    acc = float({m.label: m.value for m in at.metric}["Bits recovered"])
    text = " ".join(c.value for c in at.caption)
    assert acc < 0.8 and "ε ≈" in text


def test_aggregates_preview_counts_the_targets_the_run_attacks():
    at = open_page(AGG, **PAGES[AGG][0])
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert "AUC" in metrics
    assert any(t.startswith(PAGES[AGG][1][0]) for t in chart_titles(at))  # kept, in its expander, under the results
    before = next(c.value for c in at.caption if c.value.startswith("Before any attack"))
    # the preview (prepared in the server process) and the run (in a worker) attack the same people
    assert before.startswith(f"Before any attack: {int(metrics['Targets']):,} targets"), (before, metrics["Targets"])
    roc = _specs(at)[PAGES[AGG][1][1]]
    assert any(tr.get("name", "").startswith("DP bound, ε =") for tr in roc["data"])


def test_synthetic_preview_uniqueness_matches_the_first_game():
    import re

    at = open_page(SYN, **PAGES[SYN][0])
    assert not at.exception, at.exception
    bars = next(v for k, v in _specs(at).items() if k.startswith(PAGES[SYN][1][0]))["data"][0]
    intro = next(m.value for m in at.markdown if m.value.startswith("Game 1:"))
    unique = int(re.search(r"([\d,]+) have a unique combination", intro).group(1).replace(",", ""))
    assert round(bars["y"][-1] * 300) == unique  # the preview's last bar: game 1's possible targets
