"""AppTest: the Lessons page walks a lesson predict → run → reveal, and its teacher view counts a class of three
simulated students and refuses a wrong teacher key."""
from __future__ import annotations

import json

from apptest_helpers import open_page

from core.studies import classroom
from core.studies import lesson_runs as R
from core.studies import lessons as L

PAGE = "pages/03_Lessons.py"


def _titles(at):
    return [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]


def test_lesson_walk_predict_run_reveal():
    at = open_page(PAGE, lesson="1-what-epsilon-promises", step="1")
    assert not at.exception
    assert not at.get("plotly_chart")  # nothing is run (or shown) before the prediction is committed
    slider = at.slider[0]
    assert slider.label.startswith("What is the highest accuracy any attacker")
    slider.set_value(90.0).run()
    at.button(key="lessons.answer.1-what-epsilon-promises.1.commit").click().run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Your prediction"] == "90%"
    assert metrics["Measured at the lesson's seed"] == "73%"  # e/(1+e) = 0.731 at ε = 1
    assert any("Best possible membership-inference accuracy" in t for t in _titles(at))
    text = " ".join(m.value for m in at.markdown)
    assert "**73.1%**" in text and "(/Glossary#dp-bound)" in text
    assert any("score 0%" in h.value for h in at.subheader)  # 0.90 is 0.17 off: beyond three tolerances (0.04)
    # the committed prediction is locked; the open control (ε) appears only now, for exploring
    assert at.slider(key="lessons.answer.1-what-epsilon-promises.1.shown").disabled
    assert at.slider(key="lessons.explore.epsilon.epsilon")
    at.button(key="lessons.next").click().run()
    assert at.query_params["step"] == "2" and not at.exception
    assert at.slider[0].label.startswith("After the release, what is the highest belief")


def test_scenario_step_runs_through_the_run_machinery():
    at = open_page(PAGE, lesson="3-reconstruction", step="4")
    assert not at.exception
    assert at.slider[0].label.startswith("What fraction of the secret bits")
    at.slider[0].set_value(60.0).run()
    at.button(key="lessons.answer.3-reconstruction.4.commit").click().run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    lesson = L.get_lesson("3-reconstruction")
    truth, _ = R.play_step(lesson, lesson.step(4))
    assert metrics["Measured at the lesson's seed"] == lesson.step(4).predict.shown(truth.metrics["accuracy"])
    assert any("noise" in t.lower() for t in _titles(at))


def test_teacher_view_counts_three_students_and_refuses_a_wrong_key():
    lesson = L.get_lesson("1-what-epsilon-promises")
    made = classroom.create_class(lesson.id)
    truth = 0.7310585786300049
    for name, guess in (("Ada", 0.72), ("Bo", 0.9), ("Cy", 0.74)):
        sid = classroom.join(made["code"], name)
        classroom.submit(made["code"], sid, lesson.id, 1, guess)
        classroom.reveal(made["code"], sid, lesson.id, 1, truth)
    at = open_page(PAGE, lesson=lesson.id)
    at.text_input[0].input(made["code"])
    at.text_input[1].input("not-the-key")
    at.button[[b.label for b in at.button].index("Open the teacher view")].click().run()
    assert any("does not open class" in e.value for e in at.error)
    assert "lessons.teacher" not in at.session_state
    at.text_input[1].input(made["teacher_key"])
    at.button[[b.label for b in at.button].index("Open the teacher view")].click().run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Students"] == "3"
    steps = at.dataframe[0].value
    first = steps.iloc[0]
    assert (first["reached"], first["predicted"]) == (3, 3)
    assert first["within tolerance"] == "2 of 3 (67%)"
    people = at.dataframe[1].value
    assert list(people["student"]) == ["Ada", "Bo", "Cy"]
    assert list(people["lesson score"]) == ["100%", "0%", "100%"]


def test_student_joins_from_the_link_and_sees_only_their_name():
    lesson = L.get_lesson("1-what-epsilon-promises")
    made = classroom.create_class(lesson.id)
    other = classroom.join(made["code"], "Someone Else")
    classroom.submit(made["code"], other, lesson.id, 1, 0.6)
    at = open_page(PAGE, lesson=lesson.id, step="1", **{"class": made["code"]})
    at.text_input[0].input("**Me**")
    at.button[[b.label for b in at.button].index("Join the class")].click().run()
    assert not at.exception
    shown = " ".join(t.value for t in at.text)
    assert f"{made['code']} · you are **Me**" in shown  # plain text, not Markdown
    page = " ".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [shown])
    assert "Someone Else" not in page
    at.button(key=f"lessons.answer.{lesson.id}.1.commit").click().run()
    s = classroom.summary(made["code"], made["teacher_key"], lesson)
    assert s["steps"][0]["answered"] == 2 and s["steps"][0]["truth"] is not None


def test_a_student_who_reloads_keeps_their_seat_and_predictions():
    lesson = L.get_lesson("1-what-epsilon-promises")
    made = classroom.create_class(lesson.id)
    seat = classroom.join(made["code"], "Returning")
    classroom.submit(made["code"], seat, lesson.id, 1, 0.75)
    at = open_page(PAGE, lesson=lesson.id, step="1", me=seat, **{"class": made["code"]})
    assert not at.exception
    assert f"{made['code']} · you are Returning" in " ".join(t.value for t in at.text)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Your prediction"] == "75%"  # locked in, and revealed from the stored run
    assert "Join the class" not in [b.label for b in at.button]


def test_teacher_creates_a_class_and_sees_the_key_once():
    at = open_page(PAGE, lesson="3-reconstruction")
    at.button(key="lessons.create").click().run()
    assert not at.exception
    code, key, link = (c.value for c in at.code[:3])
    assert len(code) == 6 and link == f"/Lessons?lesson=3-reconstruction&class={code}"
    meta = classroom.check_teacher(code, key)  # the key shown opens the class; only its hash is stored
    assert key not in json.dumps(meta)
    assert at.toggle(key="lessons.teacher.on").value  # the creator's session opens the teacher view
    at.button(key="lessons.created.hide").click().run()
    assert key not in [c.value for c in at.code]


def test_a_bookmarked_lesson_resumes_with_its_committed_predictions():
    at = open_page(PAGE, lesson="1-what-epsilon-promises", step="1")
    at.slider[0].set_value(80.0).run()
    at.button(key="lessons.answer.1-what-epsilon-promises.1.commit").click().run()
    assert at.query_params["answers"] == "1:0.8"
    # a new session (the bookmark opened tomorrow): the prediction is still committed; junk is ignored
    again = open_page(PAGE, lesson="1-what-epsilon-promises", step="1", answers="1:0.8,2:7,x:y,3:9")
    assert not again.exception
    assert {m.label: m.value for m in again.metric}["Your prediction"] == "80%"
    from ui.lessons import PROGRESS

    assert set(again.session_state[PROGRESS]["1-what-epsilon-promises"]) == {1}  # 2:7 and 3:9 are out of range


def test_a_whole_lesson_ends_with_a_score_and_a_calibration_sentence():
    lesson = L.get_lesson("1-what-epsilon-promises")
    at = open_page(PAGE, lesson=lesson.id, step="1")
    for step in lesson.steps:
        if step.predict.kind == "choice":
            at.radio(key=f"lessons.answer.{lesson.id}.{step.number}").set_value(0).run()
        else:  # everything at the bottom of its range: too optimistic about privacy every time
            at.slider(key=f"lessons.answer.{lesson.id}.{step.number}").set_value(100 * step.predict.low).run()
        at.button(key=f"lessons.answer.{lesson.id}.{step.number}.commit").click().run()
        assert not at.exception
        if step.number < len(lesson.steps):
            at.button(key="lessons.next").click().run()
    assert {m.label: m.value for m in at.metric}["Lesson score"] == "0%"
    sentence = " ".join(i.value for i in at.info)
    assert "0 of 5 predictions within tolerance" in sentence and "too optimistic about privacy in" in sentence


def test_exploring_after_the_reveal_runs_the_students_setting_and_keeps_the_grade():
    at = open_page(PAGE, lesson="3-reconstruction", step="3")
    at.button(key="lessons.answer.3-reconstruction.3.commit").click().run()
    reference = {m.label: m.value for m in at.metric}["Measured at the lesson's seed"]
    at.slider(key="lessons.explore.reconstruction.defense_level").set_value(10).run()
    assert not at.exception, at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "(your setting)" in captions and "measured 61%" in captions  # σ = 10 = √n, as in step 4
    assert {m.label: m.value for m in at.metric}["Measured at the lesson's seed"] == reference  # graded as before
