"""Grading a lesson step: a prediction against the measurement at the lesson's seed, the lesson's score and one
calibration sentence, and the reveal text filled with the numbers the run produced.

* :func:`grade` — 1 within the tolerance, falling linearly to 0 at three tolerances (a choice is right or wrong),
  and the direction of a miss; deterministic: the same prediction and measurement always get the same grade.
* :func:`calibration` — "too optimistic about privacy in 3 of 4 steps on noise".
* :func:`fill` — ``{measured:.0%}``, ``{dp_bound_accuracy:.2f}``: prose never carries a number the engine did not
  measure (an unknown name is an error, which ``--check`` reports).
"""
from __future__ import annotations

import re
from typing import Any

from ...errors import ParameterError

# {name} or {name:spec}: a metric of the step's run, or measured / prediction / difference / tolerance.
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w.@-]*)(?::([^{}]*))?\}")
_SPEC = re.compile(r"^[+ ]?,?(\.\d{1,2})?[fge%]?$")


# -------------------------------------------------------------------------------------------------- grading
def grade(step, answer: float, truth: float) -> dict:
    """Score one prediction against the measurement (deterministic: the same inputs give the same grade).

    * number / slider: ``score`` = 1 when ``|answer − truth| ≤ tolerance``, then falls linearly to 0 at three
      tolerances; ``error`` = answer − truth.
    * choice: ``answer`` is the option's index; ``score`` is 1 for the option whose range holds the truth.
    ``direction`` is "over", "under" or "right"; ``optimistic`` says whether a miss was too optimistic about
    privacy (it expected less risk than measured), given the step's ``risk`` direction.
    """
    p = step.predict
    if p.kind == "choice":
        right = p.option_for(truth)
        index = int(answer)
        if not 0 <= index < len(p.options):
            raise ParameterError("answer", f"choose one of the {len(p.options)} options")
        within = index == right
        score = 1.0 if within else 0.0
        if within or right is None:
            direction = "right" if within else "over"
        else:
            direction = "over" if _option_mid(p.options[index]) > _option_mid(p.options[right]) else "under"
        error = None
    else:
        answer = float(answer)
        error = answer - truth
        within = abs(error) <= p.tolerance * (1 + 1e-9)
        score = 1.0 if within else max(0.0, 1.0 - (abs(error) - p.tolerance) / (2 * p.tolerance))
        direction = "right" if within else ("over" if error > 0 else "under")
    optimistic = None if direction == "right" else (direction == "under") == (step.risk == "higher")
    return {"score": round(score, 4), "within": bool(within), "error": error, "direction": direction,
            "optimistic": optimistic}


def _option_mid(o) -> float:
    lo = o.low if o.low is not None else (o.high - 1 if o.high is not None else 0.0)
    hi = o.high if o.high is not None else lo + 1
    return (lo + hi) / 2


def lesson_score(grades: dict) -> float | None:
    """Mean step score over the graded steps (None before the first)."""
    scores = [g["score"] for g in grades.values() if g is not None]
    return sum(scores) / len(scores) if scores else None


def calibration(lesson, grades: dict[int, dict]) -> str:
    """One sentence about how a student's predictions leaned over a lesson (``grades``: step number → grade)."""
    graded = {n: g for n, g in grades.items() if g is not None}
    if not graded:
        return "No step graded yet: commit a prediction and run the step to see how your expectations compare."
    n = len(graded)
    right = sum(g["within"] for g in graded.values())
    optimistic = [k for k, g in graded.items() if g["optimistic"] is True]
    pessimistic = [k for k, g in graded.items() if g["optimistic"] is False]
    head = f"{right} of {n} prediction{'s' if n != 1 else ''} within tolerance"
    if not optimistic and not pessimistic:
        return f"{head}: your expectations matched what the attacks achieved."
    lean, steps, words = (("too optimistic about privacy", optimistic, "you expected less risk than the runs "
                           "measured") if len(optimistic) >= len(pessimistic) else
                          ("too pessimistic about privacy", pessimistic, "you expected more risk than the runs "
                           "measured"))
    topics: dict[str, int] = {}
    for k in steps:
        topics[lesson.step(k).topic] = topics.get(lesson.step(k).topic, 0) + 1
    topic, hits = max(topics.items(), key=lambda kv: kv[1])
    of_topic = sum(1 for k in graded if lesson.step(k).topic == topic)
    on = f" on {topic}" if topic != "privacy" else ""
    return (f"{head}. Your predictions were {lean} in {hits} of {of_topic} "
            f"step{'s' if of_topic != 1 else ''}{on} ({words}).")


# ---------------------------------------------------------------------------------------------- reveal text
def fill(text: str, numbers: dict[str, Any]) -> str:
    """``text`` with ``{name}`` / ``{name:spec}`` replaced by the run's numbers (unknown names raise
    ParameterError: ``--check`` catches a reveal that cites a number the engine does not produce)."""
    def one(match: re.Match) -> str:
        name, spec = match.group(1), match.group(2)
        if name not in numbers:
            raise ParameterError("reveal", f"{{{name}}} is not a number of this run; it has: "
                                           f"{', '.join(sorted(numbers))}")
        value = numbers[name]
        if value is None:
            return "—"
        if spec is None or not _SPEC.match(spec):
            return f"{value:g}" if isinstance(value, float) else str(value)
        return format(value, spec)

    return _PLACEHOLDER.sub(one, text)


def reveal_numbers(step, metrics: dict, truth: float, answer=None) -> dict:
    """The names a reveal may cite: the run's metrics plus measured, prediction, difference and tolerance."""
    out = {k: v for k, v in metrics.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    out.update(measured=truth, tolerance=step.predict.tolerance)
    if answer is not None and step.predict.kind != "choice":
        out.update(prediction=float(answer), difference=abs(float(answer) - truth))
    else:
        out.update(prediction=None, difference=None)
    return out


def answer_text(step, answer) -> str:
    """A committed answer in words (an option's label, or the number in the prediction's units)."""
    if answer is None:
        return "—"
    if step.predict.kind == "choice":
        return step.predict.options[int(answer)].label
    return step.predict.shown(float(answer))


def truth_text(step, truth: float) -> str:
    p = step.predict
    if p.kind == "choice":
        i = p.option_for(truth)
        value = f"{100 * truth:.1f}%" if p.percent else f"{truth:,.3g}"
        return f"{value} ({p.options[i].label})" if i is not None else value
    return p.shown(truth)
