"""Nothing on a Lessons page gives away a step's answer before the student commits a prediction for it: walking
each lesson as a student would, no text, source line, chart or text alternative shown before step k's commit
(including the earlier steps' reveals and charts) prints step k's measured value."""
from __future__ import annotations

import pytest
from apptest_helpers import open_page
from lesson_text import answer_forms, page_text, shows

from core.studies import lesson_grading as G
from core.studies import lesson_runs as R
from core.studies import lessons as L

PAGE = "pages/03_Lessons.py"
LESSONS, _ = L.load_lessons()
# A number that shows before its step only by coincidence, in a chart of another quantity (lesson, step, form: why).
COINCIDENCES = {
    ("1-what-epsilon-promises", 4, "0.9348"): "step 3's posterior curve at ε = 2 passes 0.9348 at a prior of 0.66; "
                                               "step 4 asks for the composition bound of ten releases at ε = 1",
}


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_no_answer_shows_before_its_prediction_is_committed(lesson_id):
    lesson = LESSONS[lesson_id]
    forms = {}
    for step in lesson.steps:
        truth = R.measured(step, R.play_step(lesson, step)[0].metrics)
        forms[step.number] = answer_forms(step, truth)
    at = open_page(PAGE, lesson=lesson.id, step="1")
    seen: list[tuple[str, list[str]]] = []  # (where, texts) shown so far
    problems = []
    for step in lesson.steps:
        key = f"lessons.answer.{lesson.id}.{step.number}"
        seen.append((f"step {step.number} before its commit", page_text(at)))
        for where, texts in seen:
            for form in forms[step.number]:
                hit = shows(texts, form)
                if hit and (lesson.id, step.number, form) not in COINCIDENCES:
                    problems.append(f"step {step.number}'s answer {form} shows at {where}: {hit[:160]!r}")
        if step.predict.kind == "choice":
            at.radio(key=key).set_value(0).run()
        at.button(key=f"{key}.commit").click().run()
        assert not at.exception, at.exception
        seen.append((f"step {step.number}'s reveal", page_text(at)))
        if step.number < len(lesson.steps):
            at.button(key="lessons.next").click().run()
    if lesson.section:  # the paper's headline numbers ("87% unique …") answer the steps: only after the last one
        for where, texts in seen[:-1]:
            if any(lesson.section in t for t in texts):
                problems.append(f"the source's numbers ({lesson.section[:40]}…) show at {where}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_the_students_handout_prints_empty_boxes_and_no_answer(lesson_id):
    """The students' handout holds every prompt and an empty box per step, and none of the measurements, the
    reveals, the plots or the teacher's key; the key is a separate file that holds them all."""
    from core.studies.handout import handout_html, teacher_key_html

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
