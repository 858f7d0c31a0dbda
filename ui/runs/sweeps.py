"""A page's parameter sweeps behind a button: the grid's summed cost checked against the server's limits, one
worker job with its queue place and progress, the finished rows kept in the shared store like a run's.

It shares the run machinery of :mod:`ui.runs.page_runs` (the worker pool, the queue line, the abandoned-tab watch), which
it reaches through that module so that a test replacing ``ui.runs.page_runs._limits`` or ``ui.runs.page_runs._in_worker`` replaces
them for sweeps too.
"""
from __future__ import annotations

import itertools
import json

import streamlit as st

from core.cost import CostLimitError, check_server_limits
from core.errors import Cancelled, LabError
from core.runtime.store import address_key, engine_version
from core.runtime.sweep import sweep_cost
from core.runtime.workers import Job, sweep_job
from core.scenario import Scenario
from ui.runs import page_runs as runs
from ui.widgets.feedback import show_error
from ui.runs.stored import keep, store_note, stored


def sweep_address(name: str, base_json: str, grid_json: str, seed: int) -> tuple[str, dict]:
    """``(key, address)`` of a page's sweep: scenario, base settings, grid, seed, engine version."""
    doc = {"sweep": name, "base": json.loads(base_json), "grid": json.loads(grid_json), "seed": int(seed),
           "engine": engine_version()}
    return address_key(doc, "sweep-"), doc


def sweep_estimate(scenario: Scenario, base: dict, grid: dict[str, list]):
    """Summed cost of the grid's points (seconds add up; memory is the largest point's)."""
    names = list(grid)
    configs = [scenario.resolve({**base, **dict(zip(names, values))})
               for values in itertools.product(*(grid[n] for n in names))]
    return sweep_cost(scenario, configs, names)


def sweep_refusal(scenario: Scenario, base: dict, grid: dict[str, list], seed: int) -> str | None:
    """Why this server would refuse the sweep (its summed estimate above the per-run limits), or None when it
    would take it or has it stored: a page offers no button that can only fail."""
    args = (scenario.name, json.dumps(base, sort_keys=True), json.dumps(grid, sort_keys=True), int(seed))
    if stored(sweep_address(*args)[0]) is not None:
        return None
    try:
        check_server_limits(sweep_estimate(scenario, base, grid), **runs._limits())
    except CostLimitError as exc:
        return str(exc)
    return None


def run_sweep(scenario: Scenario, base: dict, grid: dict[str, list], seed: int, *, label: str,
              key: str) -> dict | None:
    """A parameter sweep behind a button, with queue place and progress; stored like runs."""
    args = (scenario.name, json.dumps(base, sort_keys=True), json.dumps(grid, sort_keys=True), int(seed))
    skey, about = sweep_address(*args)
    data = stored(skey)
    if data is not None:
        return data
    state = st.session_state.setdefault(f"_sweep.{key}", {})
    if state.get("args") != args:
        if not st.button(label, key=f"_sweep.{key}.go"):
            return None
        state["args"] = args
    try:
        cost = sweep_estimate(scenario, base, grid)
        check_server_limits(cost, **runs._limits())
    except CostLimitError as exc:
        state.pop("args", None)
        st.error(f"{exc.message}.", icon=":material/block:")
        return None
    except LabError as exc:
        state.pop("args", None)
        show_error(exc)
        return None
    status = st.status(f"Sweeping {' × '.join(grid)}…", expanded=True)
    bar = status.progress(0.0, text="starting…")
    job = Job(sweep_job, {"scenario": args[0], "base": json.loads(args[1]), "grid": json.loads(args[2]),
                          "seed": args[3]}, label="settings")
    job.estimate = float(cost.seconds)
    box = runs._in_worker(job, lambda upd: (upd[0], upd[1]), bar, "settings", key=skey)
    if "error" in box:
        status.update(label="Sweep stopped" if isinstance(box["error"], Cancelled) else "Sweep failed",
                      state="error")
        state.pop("args", None)
        show_error(box["error"])
        return None
    keep(skey, box["value"], about, "sweep-")
    status.update(label=f"Sweep done in {box['value']['seconds']:.1f} s", state="complete", expanded=False)
    store_note()
    return box["value"]
