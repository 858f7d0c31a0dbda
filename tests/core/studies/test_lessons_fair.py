"""Every lesson grades fairly at its own seed: each choice step's measured value lies clearly inside one option (not
within a tolerance of a boundary), and the number the reveal prints falls in the same option as the measurement,
so the option a student would name from the reveal's words is the one graded right."""
from __future__ import annotations

import math
import re

import pytest

from core.studies.lessons import lesson_grading as G
from core.studies.lessons import lesson_runs as R
from core.studies.lessons import lesson_files as L

LESSONS, _ = L.load_lessons()
CHOICES = [(lesson.id, step.number) for lesson in LESSONS.values() for step in lesson.steps
           if step.predict.kind == "choice"]


def margin(step, boundary: float) -> float:
    """How close to a boundary a measurement may come: one percentage point for a share, 2% of the boundary for
    any other quantity (an odds factor, an ε)."""
    return 0.01 if step.predict.percent else 0.02 * abs(boundary)


def shown_numbers(step, truth: float, metrics: dict) -> list[tuple[str, float]]:
    """Every way the page prints the measurement, read back as a number: the reveal's ``{measured:…}`` (or the
    metric's own name) at its format, and the reveal card's "measured" value."""
    out = []
    for match in G._PLACEHOLDER.finditer(step.reveal):
        name, spec = match.group(1), match.group(2)
        if name in ("measured", step.metric):
            out.append((format(truth, spec) if spec else f"{truth:g}",))
    out.append((G.truth_text(step, truth).split(" (")[0],))
    values = []
    for (text,) in out:
        number = float(re.sub(r"[^\d.eE+-]", "", text))
        values.append((text, number / 100 if text.strip().endswith("%") else number))
    return values


@pytest.fixture(scope="module")
def measured():
    """Each choice step's measurement and metrics at the lesson's own configuration and seed (full size)."""
    out = {}
    for lesson_id, number in CHOICES:
        lesson = LESSONS[lesson_id]
        result, _ = R.play_step(lesson, lesson.step(number))
        out[lesson_id, number] = (R.measured(lesson.step(number), result.metrics), result.metrics)
    return out


@pytest.mark.parametrize("lesson_id, number", CHOICES)
def test_the_measurement_lies_clear_of_every_boundary(measured, lesson_id, number):
    step = LESSONS[lesson_id].step(number)
    truth, _ = measured[lesson_id, number]
    right = step.predict.option_for(truth)
    assert right is not None, f"no option holds the measured {truth:g}"
    for option in step.predict.options:
        for boundary in (option.low, option.high):
            if boundary is not None:
                assert abs(truth - boundary) >= margin(step, boundary) - 1e-12, (
                    f"{lesson_id} step {number}: measured {truth:.4g} is within {margin(step, boundary):g} of the "
                    f"boundary {boundary:g} of {option.label!r}")


@pytest.mark.parametrize("lesson_id, number", CHOICES)
def test_the_option_the_reveal_names_is_graded_right(measured, lesson_id, number):
    step = LESSONS[lesson_id].step(number)
    truth, metrics = measured[lesson_id, number]
    right = step.predict.option_for(truth)
    for text, value in shown_numbers(step, truth, metrics):
        named = step.predict.option_for(value)
        assert named == right, (f"{lesson_id} step {number}: the page prints {text}, which reads as "
                                f"{step.predict.options[named].label!r}, but {step.predict.options[right].label!r} "
                                "is graded right")
        assert G.grade(step, named, truth)["score"] == 1.0


def test_downcoding_four_of_six_is_two_thirds_and_graded_so():
    """The case that was graded unfairly: 4 of 6 records narrowed down, printed as 67%, and "two thirds or more"
    scored 0% because the boundary sat at 0.67."""
    lesson = LESSONS["2-anonymisation-is-not-enough"]
    step = lesson.step(5)
    truth = R.measured(step, R.play_step(lesson, step)[0].metrics)
    assert truth == pytest.approx(4 / 6)
    label = step.predict.options[step.predict.option_for(truth)].label
    assert "two thirds" in label and "four" in label
    assert not math.isclose(truth, 0.67)
