"""Playing lesson steps: a step's full configuration, its run through the shared result store (single-flight, so a
class of thirty on one step costs one run), the measured value, and the check every lesson passes in CI
(``python -m core lessons --check``: every step played at small size, one JSON line each).
"""
from __future__ import annotations

import math
import threading
import time
from typing import Any

from ...errors import LabError, ParameterError
from ...runtime.store import default_store, lookup
from .lesson_grading import fill, reveal_numbers
from .lesson_files import Lesson, Step, runner


# -------------------------------------------------------------------------------------------------- running
def step_config(lesson: Lesson, step: Step, values: dict | None = None, small: bool = False) -> dict:
    """The step's full parameters (lesson's values, the open controls' ``values`` on top) with the lesson's seed.

    A value for a parameter that is not open, or outside what the lesson offers, raises ParameterError: the
    page never offers one, and a hand-made link cannot run anything the lesson does not."""
    sc = runner(step.runner)
    params = dict(step.params)
    if small:
        params.update(step.small)
    opened = {c.name: c for c in step.open}
    for name, value in (values or {}).items():
        control = opened.get(name)
        if control is None:
            raise ParameterError(name, f"not a control of step {step.number} of {lesson.id!r}")
        value = sc.param(name).validate(value)
        if control.choices is not None:
            if value not in control.choices:
                raise ParameterError(name, f"expected one of {', '.join(map(str, control.choices))}")
        elif not control.low <= value <= control.high:
            raise ParameterError(name, f"expected a value from {control.low:g} to {control.high:g}")
        params[name] = value
    config = sc.resolve(params)
    config["seed"] = lesson.seed
    return config


def measured(step: Step, metrics: dict) -> float:
    """The number the step's prediction is graded against."""
    value = metrics.get(step.metric)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParameterError("metric", f"the run reported no number for {step.metric!r}; "
                                       f"it reported {', '.join(sorted(metrics)) or 'nothing'}")
    return float(value)


_FLIGHTS: dict[str, threading.Lock] = {}
_FLIGHTS_LOCK = threading.Lock()
RUNS = {"engine": 0, "stored": 0}  # runs this process played / served from the store (read by the benchmark)


def play_step(lesson: Lesson, step: Step, values: dict | None = None, *, small: bool = False, store=None,
              **kwargs):
    """``(Result, from_store)`` of the step's configuration: through the shared result store, and *single-flight*
    — threads asking for the same configuration at once wait for one run instead of each starting their own."""
    # lazy: tests replace this name on its module
    from ...runtime.games import run
    # lazy: start-up time (161 modules only when used)
    from ...runtime.store import default_store, lookup, result_address

    sc = runner(step.runner)
    config = step_config(lesson, step, values, small=small)
    seed = config.pop("seed")
    store = store if store is not None else default_store()
    key, about = result_address(sc.name, config, seed)
    with _FLIGHTS_LOCK:
        gate = _FLIGHTS.setdefault(key, threading.Lock())
    with gate:
        _, hit = lookup(sc, config, seed, store)
        if hit is not None:
            RUNS["stored"] += 1
            return hit, True
        result = run(sc, config, seed, **kwargs)
        RUNS["engine"] += 1
        if store is not None and result.completed and not result.cancelled:
            store.put(key, result.to_dict(records=False), about)
        return result, False


# ------------------------------------------------------------------------------------------------ the check
def group_problems(problems: list[str]) -> dict[str, str]:
    """Loader problems as one line per broken lesson file (its problems joined by " · ")."""
    by_file: dict[str, list[str]] = {}
    for line in problems:
        file = line.split(":", 1)[0]
        by_file.setdefault(file, []).append(line if not by_file.get(file) else line.split(": ", 1)[1])
    return {file: " · ".join(lines) for file, lines in by_file.items()}


def check_step(lesson: Lesson, step: Step, small: bool = True) -> dict:
    """Play one step (small size by default) and check what a student would meet: the metric exists and is a
    number, a choice has exactly one right option, the reveal's numbers resolve, the plot draws."""

    # lazy: start-up time (pandas, plotly only when used)
    from .lesson_plots import step_figure

    start = time.perf_counter()
    line = {"lesson": lesson.id, "step": step.number}
    try:
        result, stored = play_step(lesson, step, small=small)
        truth = measured(step, result.metrics)
        if step.predict.kind == "choice" and step.predict.option_for(truth) is None:
            raise ParameterError("predict.options", f"no option's range holds the measured {truth:g}")
        fill(step.reveal, reveal_numbers(step, result.metrics, truth, step.predict.start()
                                         if step.predict.kind != "choice" else 0))
        fill(step.explore, reveal_numbers(step, result.metrics, truth))
        step_figure(step, result)
    except LabError as exc:
        line.update(seconds=round(time.perf_counter() - start, 3), error=str(exc))
        return line
    line.update(seconds=round(time.perf_counter() - start, 3), measured=truth, stored=stored)
    return line


def check_lesson(lesson: Lesson, small: bool = True):
    """One :func:`check_step` line per step."""
    for step in lesson.steps:
        yield check_step(lesson, step, small=small)


def reference_runs(lesson: Lesson, store=None) -> dict[int, Any]:
    """Every step's run at the lesson's own configuration and seed (through the store), for the handout."""
    return {step.number: play_step(lesson, step, store=store)[0] for step in lesson.steps}


def reference_measurements(lesson: Lesson, numbers, store=None) -> dict[int, tuple[float, dict]]:
    """``step → (measured value, metrics)`` of the lesson's own runs of ``numbers``, without starting a lab's run:
    a demo (a closed form or a small table) is computed, a lab's game is read from the shared result store.

    A resumed lesson (its address carries the committed answers; the session that ran the steps is gone) grades
    every answer against these, so its score is the one the session showed. A step whose run is no longer stored
    is left out: the page says so, and opening the step runs it again."""
    store = store if store is not None else default_store()
    out = {}
    for number in numbers:
        step = lesson.step(number)
        if step.demo:
            result = play_step(lesson, step, store=store)[0]
        else:
            config = step_config(lesson, step)
            seed = config.pop("seed")
            result = lookup(runner(step.runner), config, seed, store)[1]
            if result is None:
                continue
        metrics = result.metrics if hasattr(result, "metrics") else result["metrics"]
        out[number] = (measured(step, metrics), metrics)
    return out
