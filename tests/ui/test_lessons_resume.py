"""A lesson resumed from its own address grades every committed prediction, as the session that made them did:
the score of a bookmarked lesson equals the in-session score (AppTest, lessons 2 and 3 end to end)."""
from __future__ import annotations

import pytest
from apptest_helpers import open_page

from core.studies.lessons import lesson_grading as G
from core.studies.lessons import lesson_runs as R
from core.studies.lessons import lesson_files as L

PAGE = "pages/03_Lessons.py"


def _play(lesson, answers: dict[int, float]):
    """Walk ``lesson`` in one session, committing ``answers`` (step → value in the metric's units or option)."""
    at = open_page(PAGE, lesson=lesson.id, step="1")
    for step in lesson.steps:
        key = f"lessons.answer.{lesson.id}.{step.number}"
        if step.predict.kind == "choice":
            at.radio(key=key).set_value(int(answers[step.number])).run()
        else:
            scale = 100 if step.predict.percent else 1
            at.slider(key=key).set_value(round(scale * answers[step.number], 6)).run()
        at.button(key=f"{key}.commit").click().run()
        assert not at.exception, at.exception
        if step.number < len(lesson.steps):
            at.button(key="lessons.next").click().run()
    return at


def _score(at) -> tuple[str, str]:
    return {m.label: m.value for m in at.metric}["Lesson score"], " ".join(i.value for i in at.info)


def _answers(lesson) -> dict[int, float]:
    """Half the steps right, half well off: a score neither 0 nor 100%."""
    out = {}
    for step in lesson.steps:
        truth = R.measured(step, R.play_step(lesson, step)[0].metrics)
        p = step.predict
        if p.kind == "choice":
            right = p.option_for(truth)
            out[step.number] = right if step.number % 2 else (right + 1) % len(p.options)
        else:
            near = round(round(truth / p.step) * p.step, 6)
            far = p.low if truth - p.low > p.high - truth else p.high
            out[step.number] = near if step.number % 2 else far
    return out


@pytest.mark.parametrize("lesson_id", ["2-anonymisation-is-not-enough", "3-reconstruction"])
def test_a_resumed_lesson_scores_as_the_session_did(lesson_id):
    lesson = L.get_lesson(lesson_id)
    answers = _answers(lesson)
    played = _play(lesson, answers)
    in_session, sentence = _score(played)
    link = played.query_params["answers"]
    assert link == ",".join(f"{n}:{a:g}" for n, a in sorted(answers.items()))
    grades = {s.number: G.grade(s, answers[s.number], R.measured(s, R.play_step(lesson, s)[0].metrics))
              for s in lesson.steps}
    assert in_session == f"{G.lesson_score(grades):.0%}"
    assert f"of {len(lesson.steps)} predictions within tolerance" in sentence

    # tomorrow: the bookmark (the lesson's last step with every answer) opens in a new session
    again = open_page(PAGE, lesson=lesson.id, step=str(len(lesson.steps)), answers=link)
    assert not again.exception, again.exception
    assert _score(again) == (in_session, sentence)
    rows = again.dataframe[-1].value
    assert "—" not in set(rows["measured"]) and "—" not in set(rows["score"])  # every step graded again


def test_reference_measurements_compute_demos_and_read_only_stored_runs(tmp_path):
    from core.runtime.store import ResultStore

    store = ResultStore(tmp_path / "empty")
    demo = L.get_lesson("2-anonymisation-is-not-enough")  # closed forms and small tables: computed at once
    found = R.reference_measurements(demo, [2, 5], store=store)
    assert found[2][0] == pytest.approx(0.4502, abs=1e-4) and found[5][0] == pytest.approx(4 / 6)
    lesson = L.get_lesson("3-reconstruction")  # lab runs: read from the store, never started from the page
    assert R.reference_measurements(lesson, [1], store=store) == {}
    R.play_step(lesson, lesson.step(1), store=store)
    assert R.reference_measurements(lesson, [1], store=store)[1][0] == 1.0  # no noise: every bit comes back
