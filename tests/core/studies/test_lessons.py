"""Lessons: every shipped lesson loads, validates and plays; a broken file gives one line naming file, step and
field; grading is deterministic (class mode: tests/core/classroom/test_classroom.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from lab_paths import ROOT

from core.runtime.store import ResultStore
from core.studies.lessons import lesson_grading as G
from core.studies.lessons import lesson_runs as R
from core.studies.lessons import lesson_files as L


GOOD_STEP = '''
[[step]]
title = "Step"
context = "Some context."
demo = "epsilon"
metric = "accuracy_bound_1"
plot = "accuracy_bound"
reveal = "Measured {measured:.1%}."
[step.params]
epsilon = 1.0
[step.predict]
kind = "slider"
prompt = "Guess?"
low = 0.5
high = 1.0
step = 0.01
tolerance = 0.05
percent = true
'''
HEAD = 'title = "T"\npaper = "A paper"\nsummary = "S"\nseed = 3\n'


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_lessons_load_and_validate():
    lessons, problems = L.load_lessons()
    assert problems == []
    assert len(lessons) == 7
    assert [lesson.order for lesson in lessons.values()] == list(range(1, 8))
    for lesson in lessons.values():
        assert L.MIN_STEPS <= len(lesson.steps) <= L.MAX_STEPS
        assert lesson.paper  # every lesson names the paper it comes from
        for step in lesson.steps:
            assert step.predict.kind in L.KINDS and len(step.open) <= 2


def test_broken_lesson_gives_one_line_naming_file_step_and_field(tmp_path):
    bad = GOOD_STEP.replace("tolerance = 0.05", "tolerance = -1")
    _write(tmp_path, "broken.toml", HEAD + GOOD_STEP * 2 + bad + GOOD_STEP * 2)
    _write(tmp_path, "fine.toml", HEAD + GOOD_STEP * 5)
    lessons, problems = L.load_lessons(tmp_path)
    assert list(lessons) == ["fine"]  # a broken file does not take the others down
    assert problems == ["lessons/broken.toml: step 3: predict.tolerance: expected a number > 0, got -1"]


@pytest.mark.parametrize("change, line", [
    (("demo = \"epsilon\"", "demo = \"nope\""), "step 1: demo: unknown scenario or demo 'nope'"),
    (("epsilon = 1.0", "epsilon = 99.0"), "step 1: params.epsilon: expected float in [0.05, 10]"),
    (("plot = \"accuracy_bound\"", "plot = \"roc\""), "step 1: plot: epsilon has no lesson plot 'roc'"),
    (("{measured:.1%}", "{measured:!r}"), "step 1: reveal: format {measured:!r} not allowed"),
    (("kind = \"slider\"", "kind = \"essay\""), "step 1: predict.kind: expected one of number, slider, choice"),
])
def test_each_problem_names_its_field(tmp_path, change, line):
    first = GOOD_STEP.replace(*change)
    with pytest.raises(L.LessonError) as err:
        L.load_lesson(_write(tmp_path, "x.toml", HEAD + first + GOOD_STEP * 4))
    assert err.value.problems[0].startswith(f"lessons/x.toml: {line}")


def test_overlapping_choices_and_too_few_steps_are_refused(tmp_path):
    choice = GOOD_STEP.replace('kind = "slider"', 'kind = "choice"\noptions = [{label = "a", high = 0.8}, '
                                                  '{label = "b", low = 0.7}]')
    with pytest.raises(L.LessonError) as err:
        L.load_lesson(_write(tmp_path, "c.toml", HEAD + choice + GOOD_STEP * 2))
    text = "\n".join(err.value.problems)
    assert "lessons/c.toml: step: a lesson has 5 to 10 steps, this one 3" in text
    assert "lessons/c.toml: step 1: predict.options: the ranges overlap" in text


def test_grading_known_answers():
    lesson = L.get_lesson("1-what-epsilon-promises")
    step = lesson.step(1)  # tolerance 0.04, a higher accuracy means more risk
    assert G.grade(step, 0.75, 0.73) == {"score": 1.0, "within": True, "error": pytest.approx(0.02),
                                         "direction": "right", "optimistic": None}
    half = G.grade(step, 0.61, 0.73)  # 0.12 off = tolerance + 2 × 0.04 → 0; 0.08 off → 0.5
    assert half["score"] == 0.0 and half["direction"] == "under" and half["optimistic"] is True
    assert G.grade(step, 0.81, 0.73)["score"] == pytest.approx(0.5)
    choice = lesson.step(3)  # options <2, 2–5, 5–20, >20; e² = 7.39 lies in option 2
    assert G.grade(choice, 2, 7.389)["within"] and G.grade(choice, 1, 7.389)["direction"] == "under"
    assert G.grade(choice, 3, 7.389)["optimistic"] is False


def test_grading_is_the_same_under_the_same_seed(tmp_path):
    lesson = L.get_lesson("3-reconstruction")
    step = lesson.step(4)
    first, _ = R.play_step(lesson, step, small=True, store=ResultStore(tmp_path / "a"))
    again, stored = R.play_step(lesson, step, small=True, store=ResultStore(tmp_path / "b"))
    assert not stored  # a fresh store: the engine ran again, and measured the same
    truth = R.measured(step, first.metrics)
    assert truth == R.measured(step, again.metrics)
    assert 0.5 < truth < 0.75  # noise at √n: well below the noiseless 100%, above guessing
    assert G.grade(step, 0.7, truth) == G.grade(step, 0.7, R.measured(step, again.metrics))


def test_thirty_threads_on_one_step_cost_one_run(tmp_path):
    lesson = L.get_lesson("1-what-epsilon-promises")
    store = ResultStore(tmp_path / "s")
    before = dict(R.RUNS)
    threads = [threading.Thread(target=R.play_step, args=(lesson, lesson.step(4)), kwargs={"store": store})
               for _ in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert R.RUNS["engine"] - before["engine"] == 1
    assert R.RUNS["stored"] - before["stored"] == 29


def test_step_config_opens_only_the_lessons_controls():
    lesson = L.get_lesson("3-reconstruction")
    step = lesson.step(3)
    assert R.step_config(lesson, step, {"defense_level": 5})["defense_level"] == 5
    with pytest.raises(L.ParameterError, match="not a control"):
        R.step_config(lesson, step, {"n": 2000})
    with pytest.raises(L.ParameterError, match="from 0 to 40"):
        R.step_config(lesson, step, {"defense_level": 500})


def test_calibration_sentence_counts_the_lean():
    lesson = L.get_lesson("3-reconstruction")
    grades = {n: G.grade(lesson.step(n), 0.5, 0.9) for n in (3, 4)}  # expected less reconstruction: optimistic
    grades[1] = G.grade(lesson.step(1), 1.0, 1.0)
    text = G.calibration(lesson, grades)
    assert text.startswith("1 of 3 predictions within tolerance")
    assert "too optimistic about privacy in 2 of 2 steps on noise (you expected less risk" in text


def test_fill_uses_only_the_runs_numbers():
    assert G.fill("{measured:.0%} vs {x:.2f}", {"measured": 0.5, "x": 1.234}) == "50% vs 1.23"
    with pytest.raises(L.ParameterError, match="not a number of this run"):
        G.fill("{secret}", {"measured": 0.5})


# ------------------------------------------------------------------------------------------------ class mode
# (the engine's tests: tests/core/classroom/test_classroom.py, against both records databases)
def test_class_expiry_is_a_setting(tmp_path):
    from core.basics.settings import parse

    assert parse({"classes": {"expiry_hours": 2}}).class_expiry_hours == 2.0
    with pytest.raises(L.ParameterError, match="classes.expiry_hours"):
        parse({"classes": {"expiry_hours": 0}})


# ------------------------------------------------------------------------------------------------- the CLI
def _cli(*args, store: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LAB_STORE": str(store), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "core", "lessons", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)


def test_cli_lists_lessons(tmp_path):
    out = _cli(store=tmp_path)
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)
    assert [x["id"] for x in listed][:2] == ["1-what-epsilon-promises", "2-anonymisation-is-not-enough"]
    assert all({"id", "title", "scenario", "steps"} <= set(x) for x in listed)
    assert listed[2]["scenario"] == ["reconstruction"] and len(listed[2]["steps"]) == 6


@pytest.mark.slow  # plays every step of every lesson
def test_cli_check_plays_every_step(tmp_path):
    """`python -m core lessons --check` is what CI runs: every step of every lesson plays at small size."""
    out = _cli("--check", store=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    lessons, _ = L.load_lessons()
    assert len(lines) == sum(len(lesson.steps) for lesson in lessons.values())
    assert all({"lesson", "step", "seconds", "measured"} <= set(x) for x in lines)


def test_cli_check_names_a_broken_lesson(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "lessons"
    folder.mkdir()
    _write(folder, "bad.toml", HEAD + GOOD_STEP.replace('metric = "accuracy_bound_1"', 'metric = "nope"') * 5)
    _write(folder, "worse.toml", HEAD + GOOD_STEP.replace("tolerance = 0.05", "") * 5)
    monkeypatch.setattr(L, "LESSON_DIR", folder)
    from core.cli import main

    assert main(["lessons", "--check"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2  # one line per broken lesson
    assert err[0].startswith("lessons/bad.toml: step 1: metric: the run reported no number for 'nope'")
    assert err[0].endswith("(and 4 more steps)")
    assert err[1].startswith("lessons/worse.toml: step 1: predict.tolerance: missing")


def test_handout_is_offline_and_escapes_the_lesson_text(tmp_path):
    from dataclasses import replace

    from core.studies.lessons.handout import handout_html, teacher_key_html

    lesson = L.get_lesson("1-what-epsilon-promises")
    store = ResultStore(tmp_path / "h")
    runs = R.reference_runs(lesson, store=store)
    page = handout_html(lesson)
    for step in lesson.steps:
        assert html_escape(step.predict.prompt) in page
    assert "<script" not in page and "Measured" not in page  # the students' handout: questions and empty boxes
    key = teacher_key_html(lesson, runs)
    assert key.count("<script type=\"text/javascript\">/**") <= 1  # plotly.js inlined once
    assert 'src="http' not in key and "<script src=" not in key  # plotly.js inlined, nothing fetched: offline
    assert "Measured:</strong> 73%" in key  # the teacher's key: e/(1+e) at ε = 1
    bad = replace(lesson, title="<script>alert(1)</script>")
    assert "<script>alert(1)" not in handout_html(bad) and "<script>alert(1)" not in teacher_key_html(bad, {})


def html_escape(text: str) -> str:
    import html

    return html.escape(text)


# ------------------------------------------------------------------------------------------------ fuzzing
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
                    st.text(max_size=12), st.lists(st.integers(), max_size=3),
                    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
_FIELDS = ["title", "context", "demo", "metric", "plot", "reveal", "topic", "risk", "glossary", "open", "params",
           "small", "predict", "predict.kind", "predict.low", "predict.high", "predict.step", "predict.tolerance",
           "predict.percent", "predict.options", "predict.default", "open_range"]


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 60)), deadline=None)
@given(field=st.sampled_from(_FIELDS), value=_VALUES)
def test_a_mistyped_field_is_a_lesson_error_never_a_crash(tmp_path_factory, field, value):
    """Whatever a teacher types into one field, the loader either accepts it or names the problem."""
    import tomllib

    doc = tomllib.loads(HEAD + GOOD_STEP * 5)
    target = doc["step"][0]
    if "." in field:
        outer, inner = field.split(".")
        target = target[outer]
        field = inner
    if value is None:
        target.pop(field, None)
    else:
        target[field] = value
    path = tmp_path_factory.mktemp("fuzz") / "f.toml"
    path.write_text(_toml(doc), encoding="utf-8")
    try:
        L.load_lesson(path)
    except L.LessonError as exc:
        assert all(p.startswith("lessons/f.toml: ") for p in exc.problems)


def _toml(doc: dict) -> str:
    """A small TOML writer for the fuzz test's documents (top-level values, [[step]] tables, nested tables)."""
    import json
    import math

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
        if isinstance(v, (int,)):
            return str(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        raise TypeError(v)

    lines = [f"{k} = {value(v)}" for k, v in doc.items() if k != "step"]
    for step in doc["step"]:
        lines.append("[[step]]")
        lines += [f"{json.dumps(k)} = {value(v)}" for k, v in step.items()]
    return "\n".join(lines) + "\n"


@settings(max_examples=200, deadline=None)
@given(answer=st.floats(0.5, 1.0), truth=st.floats(0.0, 1.0))
def test_grade_properties(answer, truth):
    step = L.get_lesson("1-what-epsilon-promises").step(1)
    g = G.grade(step, answer, truth)
    assert 0.0 <= g["score"] <= 1.0
    assert g["within"] == (abs(answer - truth) <= step.predict.tolerance * (1 + 1e-9))
    assert g == G.grade(step, answer, truth)  # deterministic
    if g["within"]:
        assert g["score"] == 1.0 and g["direction"] == "right"
    else:  # a miss leans one way, and its side decides whether it was optimistic about privacy
        assert g["direction"] == ("over" if answer > truth else "under")
        assert g["optimistic"] == (answer < truth)
