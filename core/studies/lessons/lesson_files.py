"""Lessons: predict → run → reveal, read from one TOML file per lesson under ``content/lessons/``.

A lesson is data a teacher writes without Python. Each of its 5–10 steps names a run of the lab (a registered
scenario, or one of the closed-form and re-identification demos of :mod:`core.studies.lessons.lesson_demos`), the
parameters the lesson fixes, the one or two controls a student may open after the reveal, the metric the student
predicts, the answer type (a number with a tolerance, a point on a slider, or a multiple choice whose options are
ranges of the metric) and the reveal text. The step's seed is the lesson's, so the measurement a prediction is
graded against is a pure function of the lesson file and the engine: the same for every student.

* :func:`load_lesson` / :func:`load_lessons` validate a file and report every problem as one line naming the
  file, the step and the field (``lessons/x.toml: step 2: predict.tolerance: expected a number > 0``).
* :mod:`core.studies.lessons.lesson_runs` plays a step's configuration through the shared result store, once per
  configuration even when many threads ask at the same time (a class of 30 costs one run per step), and checks
  every step of every lesson (``python -m core lessons --check``).
* :mod:`core.studies.lessons.lesson_grading` grades a prediction against the measurement, sums a lesson up in one
  calibration sentence, and fills the reveal text with numbers the run produced.
"""
from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import LabError, ParameterError
from ...scenario import Scenario, all_scenarios
from .lesson_grading import _PLACEHOLDER, _SPEC
from .lesson_demos import DEMOS
from ...output.plain_language import glossary

ROOT = Path(__file__).resolve().parents[3]
LESSON_DIR = ROOT / "content" / "lessons"
KINDS = ("number", "slider", "choice")
RISK = ("higher", "lower")
MIN_STEPS, MAX_STEPS = 5, 10
MAX_OPEN = 2
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,40}$")


class LessonError(LabError, ValueError):
    """A lesson file cannot be used: ``problems`` holds one line per problem (file, step, field, what is wrong)."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__(self.problems[0] + (f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1
                                             else ""))


# ------------------------------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class Option:
    """One answer of a multiple choice: right when the measurement lies in ``[low, high)`` (open ends: None)."""

    label: str
    low: float | None = None
    high: float | None = None

    def holds(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value < self.high)


@dataclass(frozen=True)
class Predict:
    kind: str
    prompt: str
    tolerance: float = 0.0
    low: float = 0.0
    high: float = 1.0
    step: float = 0.01
    percent: bool = False  # shown ×100 with a % sign; stored and graded in the metric's own units
    unit: str = ""
    options: tuple[Option, ...] = ()
    default: float | None = None  # where a slider or number field starts (the middle when absent)

    def shown(self, value: float | None) -> str:
        """A value in this prediction's display units (``0.93`` → ``93%`` when ``percent``)."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "—"
        if self.percent:
            return f"{100 * value:.{_decimals(100 * self.step)}f}%"
        text = f"{value:,.{_decimals(self.step)}f}"
        return f"{text} {self.unit}".strip()

    def start(self) -> float:
        if self.default is not None:
            return self.default
        middle = (self.low + self.high) / 2
        return round(self.low + round((middle - self.low) / self.step) * self.step, 10)

    def option_for(self, value: float) -> int | None:
        for i, option in enumerate(self.options):
            if option.holds(value):
                return i
        return None


@dataclass(frozen=True)
class OpenControl:
    """A parameter the student may change after the reveal, within ``[low, high]`` (or among ``choices``)."""

    name: str
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple | None = None


@dataclass(frozen=True)
class Step:
    number: int  # 1-based, as the page and the URL count
    title: str
    context: str
    runner: str  # a registered scenario's name or a demo's name
    params: dict
    metric: str
    plot: str
    predict: Predict
    reveal: str
    topic: str = "privacy"
    risk: str = "higher"  # "higher": a larger measured value means more risk for the people in the data
    glossary: tuple[str, ...] = ()
    open: tuple[OpenControl, ...] = ()
    small: dict = field(default_factory=dict)  # overrides when the check plays the step at small size
    explore: str = ""  # what to try with the open controls

    @property
    def demo(self) -> bool:

        return self.runner in DEMOS


@dataclass(frozen=True)
class Lesson:
    id: str
    file: str
    title: str
    paper: str
    summary: str
    seed: int
    order: int
    lab: str  # the lab page (URL path) where the whole game can be explored
    steps: tuple[Step, ...]
    section: str = ""  # where in the paper the headline comes from

    def step(self, number: int) -> Step:
        if not 1 <= int(number) <= len(self.steps):
            raise ParameterError("step", f"lesson {self.id!r} has steps 1 to {len(self.steps)}, not {number!r}")
        return self.steps[int(number) - 1]

    def describe(self) -> dict:
        """The lesson as the command line lists it."""
        return {"id": self.id, "title": self.title, "paper": self.paper, "file": self.file,
                "scenario": sorted({s.runner for s in self.steps}),
                "steps": [{"step": s.number, "title": s.title, "runner": s.runner, "metric": s.metric,
                           "answer": s.predict.kind, "open": [c.name for c in s.open]} for s in self.steps]}


def _decimals(step: float) -> int:
    if step <= 0 or step >= 1:
        return 0
    return min(4, max(0, -math.floor(math.log10(step) + 1e-9)))


# ------------------------------------------------------------------------------------------------- the loader
def runner(name: str) -> Scenario:
    """The scenario or demo a step runs."""

    if name in DEMOS:
        return DEMOS[name]
    scenarios = all_scenarios()
    if name in scenarios:
        return scenarios[name]
    raise ParameterError("scenario", f"unknown scenario or demo {name!r}; known: "
                                     f"{', '.join(sorted([*scenarios, *DEMOS]))}")


class _Problems:
    def __init__(self, file: str):
        self.file, self.lines = file, []

    def add(self, where: str, message: str) -> None:
        self.lines.append(f"{self.file}: {where}: {message}")


def _text(doc: dict, key: str, problems: _Problems, where: str, required: bool = True, limit: int = 4000) -> str:
    value = doc.get(key, "")
    if not isinstance(value, str):
        problems.add(f"{where}{key}", f"expected text, got {type(value).__name__}")
        return ""
    if required and not value.strip():
        problems.add(f"{where}{key}", "missing (required)")
    if len(value) > limit:
        problems.add(f"{where}{key}", f"longer than {limit} characters")
    return value.strip()


def _number(doc: dict, key: str, problems: _Problems, where: str, default=None, positive: bool = False):
    value = doc.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        problems.add(f"{where}{key}", f"expected a number, got {value!r}")
        return default
    if positive and value <= 0:
        problems.add(f"{where}{key}", f"expected a number > 0, got {value!r}")
        return default
    return float(value)


def _predict(doc: Any, problems: _Problems, where: str) -> Predict | None:
    """The step's ``[step.predict]`` table: kind (number, slider or choice), prompt, range and tolerance, or the
    choice's non-overlapping options; every problem is added to ``problems`` by field."""
    if not isinstance(doc, dict):
        problems.add(f"{where}predict", "missing: a [step.predict] table (kind, prompt, …)")
        return None
    w = f"{where}predict."
    known = {"kind", "prompt", "tolerance", "low", "high", "step", "percent", "unit", "options", "default"}
    for key in doc:
        if key not in known:
            problems.add(f"{w}{key}", f"unknown field; known: {', '.join(sorted(known))}")
    kind = doc.get("kind")
    if kind not in KINDS:
        problems.add(f"{w}kind", f"expected one of {', '.join(KINDS)}, got {kind!r}")
        return None
    prompt = _text(doc, "prompt", problems, w)
    percent = doc.get("percent", False)
    if not isinstance(percent, bool):
        problems.add(f"{w}percent", f"expected true or false, got {percent!r}")
        percent = False
    unit = _text(doc, "unit", problems, w, required=False, limit=20)
    if kind == "choice":
        raw = doc.get("options")
        if not isinstance(raw, list) or not 2 <= len(raw) <= 6:
            problems.add(f"{w}options", "expected a list of 2 to 6 options, each {label, low, high}")
            return None
        options = []
        for i, item in enumerate(raw, start=1):
            ow = f"{w}options[{i}]."
            if not isinstance(item, dict) or not isinstance(item.get("label"), str) or not item["label"].strip():
                problems.add(f"{w}options[{i}]", "expected {label = \"…\", low = …, high = …}")
                continue
            for key in item:
                if key not in ("label", "low", "high"):
                    problems.add(f"{ow}{key}", "unknown field; known: label, low, high")
            low, high = _number(item, "low", problems, ow), _number(item, "high", problems, ow)
            if low is not None and high is not None and low >= high:
                problems.add(f"{ow}high", f"must be above low ({low:g})")
            options.append(Option(item["label"].strip(), low, high))
        # the ranges must not overlap: exactly one option is right for any measurement
        spans = sorted((o.low if o.low is not None else -math.inf, o.high if o.high is not None else math.inf)
                       for o in options)
        for (_, a_hi), (b_lo, _) in zip(spans, spans[1:], strict=False):
            if b_lo < a_hi:
                problems.add(f"{w}options", "the ranges overlap, so two answers could be right at once")
                break
        return Predict(kind, prompt, percent=percent, unit=unit, options=tuple(options))
    low = _number(doc, "low", problems, w, default=0.0)
    high = _number(doc, "high", problems, w, default=1.0)
    step = _number(doc, "step", problems, w, default=0.01, positive=True)
    tolerance = _number(doc, "tolerance", problems, w, positive=True)
    if tolerance is None and "tolerance" not in doc:
        problems.add(f"{w}tolerance", "missing: how far from the measurement a prediction still counts as right")
    tolerance = tolerance or 0.0
    if low is not None and high is not None and low >= high:
        problems.add(f"{w}high", f"must be above low ({low:g})")
    default = _number(doc, "default", problems, w)
    if default is not None and not (low <= default <= high):
        problems.add(f"{w}default", f"must lie between low and high ({low:g} to {high:g})")
    if kind == "slider" and step and (high - low) / step > 1000:
        problems.add(f"{w}step", "a slider with more than 1,000 positions; use a larger step or kind = \"number\"")
    return Predict(kind, prompt, tolerance=tolerance, low=low, high=high, step=step, percent=percent, unit=unit,
                   default=default)


def _open_controls(doc: dict, sc: Scenario, problems: _Problems, where: str) -> tuple[OpenControl, ...]:
    names = doc.get("open", [])
    ranges = doc.get("open_range", {})
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        problems.add(f"{where}open", "expected a list of parameter names")
        return ()
    if len(names) > MAX_OPEN:
        problems.add(f"{where}open", f"at most {MAX_OPEN} open controls (a step is about one or two things), "
                                     f"got {len(names)}")
    if not isinstance(ranges, dict):
        problems.add(f"{where}open_range", "expected a table per open control: {low, high, step} or {choices}")
        ranges = {}
    for name in ranges:
        if name not in names:
            problems.add(f"{where}open_range.{name}", "not listed in open")
    out = []
    for name in names:
        try:
            param = sc.param(name)
        except KeyError:
            problems.add(f"{where}open", f"{sc.name} has no parameter {name!r}; "
                                         f"known: {', '.join(p.name for p in sc.params)}")
            continue
        if not param.ui or param.kind == "str" and param.choices is None:
            problems.add(f"{where}open", f"{name!r} cannot be a control (free text or engine-only)")
            continue
        r = ranges.get(name, {})
        w = f"{where}open_range.{name}."
        if not isinstance(r, dict):
            problems.add(f"{where}open_range.{name}", "expected {low, high, step} or {choices}")
            r = {}
        if param.choices is not None or param.kind == "bool":
            allowed = param.choices if param.choices is not None else (False, True)
            choices = tuple(r.get("choices", allowed))
            for c in choices:
                if c not in allowed:
                    problems.add(f"{w}choices", f"{c!r} is not one of {', '.join(map(str, allowed))}")
            out.append(OpenControl(name, choices=choices))
            continue
        low = _number(r, "low", problems, w, default=param.low)
        high = _number(r, "high", problems, w, default=param.high)
        step = _number(r, "step", problems, w, default=param.step, positive=True)
        if low is None or high is None:
            problems.add(f"{where}open_range.{name}", "give low and high (the parameter has an open range)")
            continue
        for key, value in (("low", low), ("high", high)):
            try:
                param.validate(int(value) if param.kind == "int" else value)
            except ParameterError as exc:
                problems.add(f"{w}{key}", f"the engine refuses {value:g}: {exc.message}")
        if step is None:
            step = 1.0 if param.kind == "int" else (high - low) / 100
        if param.kind == "int" and (low != int(low) or high != int(high) or step != int(step)):
            problems.add(f"{where}open_range.{name}", "an integer parameter needs whole low, high and step")
        if (high - low) / step > 1000:
            problems.add(f"{w}step", "more than 1,000 positions; use a larger step")
        out.append(OpenControl(name, low, high, step))
    return tuple(out)


def _placeholders(text: str, problems: _Problems, where: str) -> None:
    for match in _PLACEHOLDER.finditer(text):
        spec = match.group(2)
        if spec is not None and not _SPEC.match(spec):
            problems.add(where, f"format {{{match.group(1)}:{spec}}} not allowed; use e.g. :.2f, :.0% or :,.0f")


def _step(doc: Any, number: int, problems: _Problems, glossary: set[str]) -> Step | None:
    """One ``[[step]]`` table: its texts, scenario or demo with parameters the engine accepts (also at small
    size), metric, plot, glossary anchors, prediction and open controls; None when it cannot be built, with
    every problem added to ``problems`` by step and field."""
    where = f"step {number}: "
    if not isinstance(doc, dict):
        problems.add(f"step {number}", "expected a [[step]] table")
        return None
    known = {"title", "context", "scenario", "demo", "params", "metric", "plot", "predict", "reveal", "topic",
             "risk", "glossary", "open", "open_range", "small", "explore"}
    for key in doc:
        if key not in known:
            problems.add(f"{where}{key}", f"unknown field; known: {', '.join(sorted(known))}")
    title = _text(doc, "title", problems, where, limit=120)
    context = _text(doc, "context", problems, where)
    reveal = _text(doc, "reveal", problems, where)
    explore = _text(doc, "explore", problems, where, required=False)
    _placeholders(reveal, problems, f"{where}reveal")
    name = doc.get("scenario") or doc.get("demo")
    if ("scenario" in doc) == ("demo" in doc):
        problems.add(f"{where}scenario", "give exactly one of scenario = \"…\" (a lab's game) or demo = \"…\"")
        return None
    try:
        sc = runner(str(name))
    except ParameterError as exc:
        problems.add(f"{where}{'scenario' if 'scenario' in doc else 'demo'}", exc.message)
        return None
    params = doc.get("params", {})
    small = doc.get("small", {})
    for key, table in (("params", params), ("small", small)):
        if not isinstance(table, dict):
            problems.add(f"{where}{key}", "expected a table of parameter = value")
    if isinstance(params, dict):
        try:
            sc.resolve(params)
        except ParameterError as exc:
            problems.add(f"{where}params.{exc.param}", exc.message)
        if isinstance(small, dict):
            try:
                sc.resolve({**params, **small})
            except ParameterError as exc:
                problems.add(f"{where}small.{exc.param}", exc.message)
    metric = _text(doc, "metric", problems, where, limit=80)
    # lazy: start-up time (pandas, plotly only when used)
    from .lesson_plots import PLOTS

    plot = _text(doc, "plot", problems, where, limit=80)
    if plot and plot not in PLOTS.get(sc.name, {}):
        problems.add(f"{where}plot", f"{sc.name} has no lesson plot {plot!r}; known: "
                                     f"{', '.join(PLOTS.get(sc.name, {})) or 'none'}")
    topic = _text(doc, "topic", problems, where, required=False, limit=40) or "privacy"
    risk = doc.get("risk", "higher")
    if risk not in RISK:
        problems.add(f"{where}risk", f"expected \"higher\" (a larger value means more risk) or \"lower\", got {risk!r}")
        risk = "higher"
    terms = doc.get("glossary", [])
    if not isinstance(terms, list):
        problems.add(f"{where}glossary", "expected a list of glossary anchors")
        terms = []
    for term in terms:
        if term not in glossary:
            problems.add(f"{where}glossary", f"no glossary entry #{term} in content/glossary.md")
    predict = _predict(doc.get("predict"), problems, where)
    opened = _open_controls(doc, sc, problems, where)
    if isinstance(params, dict):
        for control in opened:  # the lesson's own value must be one the control offers
            value = params.get(control.name, sc.param(control.name).default)
            if control.choices is not None:
                if value not in control.choices:
                    problems.add(f"{where}open_range.{control.name}", f"the step's value {value!r} is not offered")
            elif not control.low <= value <= control.high:
                problems.add(f"{where}open_range.{control.name}",
                             f"the step's value {value!r} lies outside {control.low:g} to {control.high:g}")
    if predict is None:
        return None
    return Step(number, title, context, sc.name, dict(params) if isinstance(params, dict) else {}, metric, plot,
                predict, reveal, topic, risk, tuple(terms), opened, dict(small) if isinstance(small, dict) else {},
                explore)


def load_lesson(path: str | Path) -> Lesson:
    """Read and validate one lesson file; :class:`LessonError` lists every problem, one line each."""

    path = Path(path)
    file = f"lessons/{path.name}"
    problems = _Problems(file)
    lesson_id = path.stem
    if not _ID.match(lesson_id):
        problems.add("file name", "use lower-case letters, digits and dashes (it becomes ?lesson=…)")
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise LessonError([f"{file}: not valid TOML: {exc}"]) from None
    except OSError as exc:
        raise LessonError([f"{file}: cannot read: {exc.strerror or exc}"]) from None
    known = {"title", "paper", "section", "summary", "seed", "order", "lab", "step"}
    for key in doc:
        if key not in known:
            problems.add(key, f"unknown field; known: {', '.join(sorted(known))}")
    title = _text(doc, "title", problems, "", limit=120)
    paper = _text(doc, "paper", problems, "", limit=300)
    section = _text(doc, "section", problems, "", required=False, limit=200)
    summary = _text(doc, "summary", problems, "")
    lab = _text(doc, "lab", problems, "", required=False, limit=80)
    seed = doc.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        problems.add("seed", f"expected a whole number from 0 to 2^31 - 1, got {seed!r}")
        seed = 0
    order = doc.get("order", 99)
    if isinstance(order, bool) or not isinstance(order, int):
        problems.add("order", f"expected a whole number, got {order!r}")
        order = 99
    raw_steps = doc.get("step")
    steps = []
    if not isinstance(raw_steps, list):
        problems.add("step", "no steps: add [[step]] tables")
        raw_steps = []
    elif not MIN_STEPS <= len(raw_steps) <= MAX_STEPS:
        problems.add("step", f"a lesson has {MIN_STEPS} to {MAX_STEPS} steps, this one {len(raw_steps)}")
    anchors = {anchor for _, anchor, _ in glossary()}
    for number, raw in enumerate(raw_steps, start=1):
        step = _step(raw, number, problems, anchors)
        if step is not None:
            steps.append(step)
    if problems.lines:
        raise LessonError(problems.lines)
    return Lesson(lesson_id, file, title, paper, summary, int(seed), int(order), lab, tuple(steps), section)


def load_lessons(directory: str | Path | None = None) -> tuple[dict[str, Lesson], list[str]]:
    """Every lesson in ``directory`` (default ``content/lessons``), in teaching order, and the problems of the
    files that failed (one line per problem)."""
    directory = Path(directory) if directory is not None else LESSON_DIR
    lessons, problems = {}, []
    for path in sorted(directory.glob("*.toml")):
        try:
            lesson = load_lesson(path)
        except LessonError as exc:
            problems.extend(exc.problems)
            continue
        lessons[lesson.id] = lesson
    ordered = dict(sorted(lessons.items(), key=lambda kv: (kv[1].order, kv[0])))
    return ordered, problems


def get_lesson(lesson_id: str, directory: str | Path | None = None) -> Lesson:
    lessons, _ = load_lessons(directory)
    if lesson_id not in lessons:
        raise ParameterError("lesson", f"unknown lesson {lesson_id!r}; known: {', '.join(lessons) or 'none'}")
    return lessons[lesson_id]
