"""Nothing on a Lessons page gives away a step's answer before the student commits a prediction for it: walking
each lesson as a student would, no text, source line, chart or text alternative shown before step k's commit
(including the earlier steps' reveals and charts) prints step k's measured value."""
from __future__ import annotations

import functools

import pytest
from apptest_helpers import open_page
from lesson_text import answer_forms, page_text, raw_labels, shows

from core.studies.lessons import lesson_grading as G
from core.studies.lessons import lesson_runs as R
from core.studies.lessons import lesson_files as L

PAGE = "pages/03_Lessons.py"
LESSONS, _ = L.load_lessons()
# A number that shows before its step only by coincidence, in a chart of another quantity (lesson, step, form: why).
COINCIDENCES = {
    ("1-what-epsilon-promises", 4, "0.9348"): "step 3's posterior curve at ε = 2 passes 0.9348 at a prior of 0.66; "
                                               "step 4 asks for the composition bound of ten releases at ε = 1",
}


@functools.lru_cache(maxsize=None)
def walk(lesson_id: str) -> tuple[list[tuple[str, list[str]]], dict[int, set[str]]]:
    """Play ``lesson_id`` as a student would (the first option or the slider's start, commit, next step):
    ``(seen, forms)`` — the page's text at each point, in order, and each step's answer as the page prints it."""
    lesson = LESSONS[lesson_id]
    forms = {}
    for step in lesson.steps:
        truth = R.measured(step, R.play_step(lesson, step)[0].metrics)
        forms[step.number] = answer_forms(step, truth)
    at = open_page(PAGE, lesson=lesson.id, step="1")
    seen: list[tuple[str, list[str]]] = []
    for step in lesson.steps:
        key = f"lessons.answer.{lesson.id}.{step.number}"
        seen.append((f"step {step.number} before its commit", page_text(at)))
        if step.predict.kind == "choice":
            at.radio(key=key).set_value(0).run()
        at.button(key=f"{key}.commit").click().run()
        assert not at.exception, at.exception
        seen.append((f"step {step.number}'s reveal", page_text(at)))
        if step.number < len(lesson.steps):
            at.button(key="lessons.next").click().run()
    return seen, forms


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_no_answer_shows_before_its_prediction_is_committed(lesson_id):
    lesson = LESSONS[lesson_id]
    seen, forms = walk(lesson_id)
    problems = []
    for step in lesson.steps:
        before = seen[:seen.index(next(s for s in seen if s[0] == f"step {step.number} before its commit")) + 1]
        for where, texts in before:
            for form in forms[step.number]:
                hit = shows(texts, form)
                if hit and (lesson.id, step.number, form) not in COINCIDENCES:
                    problems.append(f"step {step.number}'s answer {form} shows at {where}: {hit[:160]!r}")
    if lesson.section:  # the paper's headline numbers ("87% unique …") answer the steps: only after the last one
        for where, texts in seen[:-1]:
            if any(lesson.section in t for t in texts):
                problems.append(f"the source's numbers ({lesson.section[:40]}…) show at {where}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_every_label_on_a_lesson_page_is_a_human_one(lesson_id):
    """No engine name (``release_epsilon``, ``share_records_refined``), raw code (``slide``) or ``None`` on screen,
    from the first step to the lesson's end."""
    seen, _ = walk(lesson_id)
    problems = {f"{where}: {hit}" for where, texts in seen for hit in raw_labels(texts)}
    assert not problems, "\n".join(sorted(problems))


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_the_students_handout_prints_empty_boxes_and_no_answer(lesson_id):
    """The students' handout holds every prompt and an empty box per step, and none of the measurements, the
    reveals, the plots or the teacher's key; the key is a separate file that holds them all."""
    from core.studies.lessons.handout import handout_html, teacher_key_html

    lesson = LESSONS[lesson_id]
    runs = R.reference_runs(lesson)
    page, key = handout_html(lesson), teacher_key_html(lesson, runs)
    assert page.count('class="answer"') + page.count('class="options"') == len(lesson.steps)
    for word in ("Measured", "teacher's key", "<script", "plotly", lesson.section or "Measured"):
        assert word not in page
    texts = [page]
    for step in lesson.steps:
        truth = R.measured(step, runs[step.number].metrics)
        for form in answer_forms(step, truth):
            assert not shows(texts, form), f"step {step.number}'s answer {form} is in the students' handout"
        assert f"<strong>Measured:</strong> {G.truth_text(step, truth)}" in key
    assert key.count('class="plot"') == len(lesson.steps)


def test_the_teacher_table_shows_no_engine_name_and_no_none():
    """A class where one student has answered and run step 1, one has only answered, one has done nothing yet:
    the teacher view's tables show a dash, not None, where nothing is measured."""
    from core import classroom

    lesson = LESSONS["2-anonymisation-is-not-enough"]
    made = classroom.create_class(lesson.id)
    done, waiting, nothing = (f"apptest-browser-{name}" for name in ("Ada", "Bo", "Cy"))
    for name, browser in (("Ada", done), ("Bo", waiting), ("Cy", nothing)):
        classroom.join(made["code"], name, "1234", browser=browser,
                       visitor=classroom.Visitor(browser, f"addr-{name}"))
    for seat in (done, waiting):
        classroom.submit(made["code"], seat, lesson.id, 1, 0.9)
    classroom.reveal(made["code"], done, lesson.id, 1, 0.9011)
    at = open_page(PAGE, lesson=lesson.id)
    at.text_input[0].input(made["code"])
    at.text_input[1].input(made["teacher_key"])
    at.button[[b.label for b in at.button].index("Open the teacher view")].click().run()
    assert not at.exception
    texts = page_text(at)
    assert "—" in " ".join(texts) and not raw_labels(texts), raw_labels(texts)


def test_a_class_student_is_offered_the_handout_but_not_the_teachers_key():
    from core import classroom

    lesson = LESSONS["1-what-epsilon-promises"]
    made = classroom.create_class(lesson.id)
    student = open_page(PAGE, lesson=lesson.id, step="1", **{"class": made["code"]})
    student.text_input[0].input("Ada")  # the join form comes first; the lesson (and its handout) once seated
    student.text_input[1].input("2468")
    student.button[[b.label for b in student.button].index("Join the class")].click().run()
    assert not student.exception
    alone = open_page(PAGE, lesson=lesson.id, step="1")
    labels = lambda at: [b.proto.label for b in at.get("download_button")]  # noqa: E731
    assert labels(student) == ["Printable handout (HTML)"]
    assert labels(alone) == ["Printable handout (HTML)", "Teacher's answer key (HTML)"]


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_a_step_opened_ahead_shows_no_uncommitted_steps_answer(lesson_id):
    """A student may jump to any step before committing the earlier ones: a step's page, opened fresh, prints
    the answer of no step at all (its context and prompt must not state an earlier step's result)."""
    lesson = LESSONS[lesson_id]
    _, forms = walk(lesson_id)
    problems = []
    for step in lesson.steps[1:]:
        texts = page_text(open_page(PAGE, lesson=lesson.id, step=str(step.number)))
        for other in lesson.steps:
            for form in forms[other.number]:
                hit = shows(texts, form)
                if hit and (lesson.id, other.number, form) not in COINCIDENCES:
                    problems.append(f"step {other.number}'s answer {form} shows on step {step.number}'s page "
                                    f"before any commit: {hit[:160]!r}")
    assert not problems, "\n".join(problems)
