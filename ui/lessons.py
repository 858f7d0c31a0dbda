"""The Lessons page's pieces: one step (predict → run → reveal → explore), the lesson's end, class mode (join,
create, teacher view). The engine behind them is :mod:`core.studies.lessons` and :mod:`core.studies.classroom`;
scenario runs go through :func:`ui.runs.run_scenario` (the server's pool, its limits, the shared store), so a class
of thirty on one step costs one run.

Everything a stranger can write — a display name, a class code in a link — is shown as plain text (``st.text``,
tables), never as Markdown.
"""
from __future__ import annotations

import re
import time

import pandas as pd
import streamlit as st

from core.errors import LabError
from core.output.plain_language import term
from core.plots.lessons import class_distribution, reveal_figure
from core.studies import classroom
from core.studies import lesson_grading as G
from core.studies import lesson_runs as R
from core.studies import lessons as L
from core.studies.lesson_plots import step_figure
from ui.common import chart, show_error
from ui.feedback import tick

PROGRESS = "lessons.progress"
REVEAL_KEY = "lessons-reveal"  # the reveal's container: the keyboard focus moves to it after a commit
FOCUS = "lessons.focus"  # (lesson, step) whose reveal takes the focus when it is drawn


def progress(lesson_id: str) -> dict:
    """This session's answers for a lesson: step number → {"answer", "truth", "grade", "metrics"}."""
    return st.session_state.setdefault(PROGRESS, {}).setdefault(lesson_id, {})


def restore_from_link(lesson) -> None:
    """Committed predictions carried by the address (``answers=1:0.75,3:2``), so a bookmarked lesson resumes
    with them after the session is gone; values the lesson's answers cannot take are ignored."""
    for item in (st.query_params.get("answers") or "").split(",")[:len(lesson.steps)]:
        number, _, text = item.partition(":")
        try:
            step, value = lesson.step(int(number)), float(text)
        except (ValueError, LabError):
            continue
        p = step.predict
        if p.kind == "choice":
            ok = value.is_integer() and 0 <= value < len(p.options)
            value = int(value)
        else:
            ok = p.low <= value <= p.high
        if ok:
            progress(lesson.id).setdefault(step.number, {}).setdefault("answer", value)


def grade_committed(lesson) -> list[int]:
    """Grade every committed prediction this session has not graded yet (a resumed lesson: the answers came from
    the address or the class store) against the lesson's stored runs, as the session that ran them did; returns
    the steps whose run is not stored any more (opening one runs it)."""
    done = progress(lesson.id)
    waiting = [n for n, d in sorted(done.items()) if "answer" in d and "truth" not in d]
    if not waiting:
        return []
    try:
        found = R.reference_measurements(lesson, waiting)
    except LabError as exc:
        show_error(exc)
        return waiting
    for number, (truth, metrics) in found.items():
        done[number].update(truth=truth, grade=G.grade(lesson.step(number), done[number]["answer"], truth),
                            metrics={k: v for k, v in metrics.items() if isinstance(v, (int, float))})
    return [n for n in waiting if n not in found]


def _link_answers(lesson) -> None:
    done = progress(lesson.id)
    st.query_params["answers"] = ",".join(f"{n}:{d['answer']:g}" for n, d in sorted(done.items()) if "answer" in d)


def go_to(lesson_id: str, number: int) -> None:
    st.query_params["lesson"] = lesson_id
    st.query_params["step"] = str(number)
    st.session_state["lessons.at"] = (lesson_id, number)


# --------------------------------------------------------------------------------------------------- class mode
def class_student() -> tuple[str, str] | None:
    """``(code, student id)`` when this session is a student of the class the link names."""
    return st.session_state.get("lessons.student")


def class_panel(lesson) -> None:
    """Sidebar: join the class named in the link, or create a class / open its teacher view."""
    code_text = st.query_params.get("class")
    box = st.sidebar.container(border=True)
    if code_text:
        try:
            meta = classroom.open_class(code_text)
        except LabError as exc:
            box.error(str(exc), icon=":material/group_off:")
            return
        code = meta["code"]
        joined = class_student()
        seat = st.query_params.get("me")
        if seat and not (joined and joined[0] == code):  # a reload: the link holds this browser's seat
            try:
                classroom.student(code, seat)
                st.session_state["lessons.student"] = joined = (code, seat)
                _restore(lesson, code, seat)
            except LabError:
                del st.query_params["me"]
        if joined and joined[0] == code:
            try:
                me = classroom.student(code, joined[1])
                box.caption("Class")
                box.text(f"{code} · you are {me['name']}")
                box.caption("Your teacher sees your predictions and scores under this name; other students don't. "
                            "The address now holds your seat: reload to come back, but share the class link, "
                            "not this one.")
                return
            except LabError:
                st.session_state.pop("lessons.student", None)
        box.markdown(f"**Join class {code}**")
        with box.form("lessons.join", border=False):
            name = st.text_input("Display name", max_chars=classroom.MAX_NAME,
                                 help="Any name your teacher will recognise; no account or e-mail is needed.")
            if st.form_submit_button("Join the class", type="primary"):
                try:
                    st.session_state["lessons.student"] = (code, classroom.join(code, name))
                    st.query_params["me"] = st.session_state["lessons.student"][1]
                    st.rerun()
                except LabError as exc:
                    st.error(str(exc), icon=":material/warning:")
        return
    with box.expander("Teach this lesson to a class"):
        st.caption("Create a class: students open the link and pick a display name; you see the class's "
                   "predictions live. The teacher key is shown once.")
        if st.button("Create a class", key="lessons.create"):
            try:
                made = classroom.create_class(lesson.id)
                st.session_state["lessons.teacher"] = (made["code"], made["teacher_key"])
                st.session_state["lessons.created"] = made
            except LabError as exc:
                show_error(exc)
        made = st.session_state.get("lessons.created")
        if made:
            st.markdown("**Class code**")
            st.code(made["code"], language=None)
            st.markdown("**Teacher key** (write it down: it is not shown again)")
            st.code(made["teacher_key"], language=None)
            st.markdown("**Link for students**")
            st.code(f"/Lessons?lesson={lesson.id}&class={made['code']}", language=None)
            if st.button("I have noted the key: hide it", key="lessons.created.hide"):
                st.session_state.pop("lessons.created", None)
                st.rerun()
        st.divider()
        with st.form("lessons.teach", border=False):
            code = st.text_input("Class code", max_chars=12)
            key = st.text_input("Teacher key", type="password")
            if st.form_submit_button("Open the teacher view"):
                try:
                    meta = classroom.check_teacher(code, key)
                    st.session_state["lessons.teacher"] = (meta["code"], key)
                except LabError as exc:
                    st.error(str(exc), icon=":material/lock:")


def _restore(lesson, code: str, seat: str) -> None:
    """A returning student's committed predictions, from the class store (a new session after a reload): each
    stays locked, and opening its step shows the (stored) run and the reveal again."""
    record = classroom.student(code, seat)
    for step in lesson.steps:
        slot = record["answers"].get(f"{lesson.id}/{step.number}", {})
        if "prediction" not in slot:
            continue
        done = progress(lesson.id).setdefault(step.number, {})
        answer = int(slot["prediction"]) if step.predict.kind == "choice" else slot["prediction"]
        done.setdefault("answer", answer)


def teacher_view(lesson) -> None:
    """The class's live numbers for ``lesson`` (refreshed every few seconds)."""
    code, key = st.session_state["lessons.teacher"]

    @st.fragment(run_every=5)
    def live():
        try:
            s = classroom.summary(code, key, lesson)
        except LabError as exc:
            show_error(exc)
            return
        left, mid, right = st.columns(3)
        left.metric("Class", s["code"])
        mid.metric("Students", s["n_students"])
        right.metric("Expires (UTC)", time.strftime("%d %b %H:%M", time.gmtime(s["expires"])))
        st.caption(f"Students join at /Lessons?lesson={lesson.id}&class={s['code']} · refreshed every 5 s · "
                   f"last at {time.strftime('%H:%M:%S', time.gmtime())} UTC")
        table = pd.DataFrame([{"step": x["step"], "title": x["title"], "reached": x["reached"],
                               "predicted": x["answered"],
                               "measured": "—" if x["truth"] is None else
                               G.truth_text(lesson.step(x["step"]), x["truth"]),
                               "within tolerance": "—" if x["share_within"] is None else
                               f"{x['within']} of {x['answered']} ({x['share_within']:.0%})"}
                              for x in s["steps"]])
        st.markdown("**Per step**")
        st.dataframe(table, hide_index=True, width="stretch")
        for x in s["steps"]:
            if not x["answers"]:
                continue
            step = lesson.step(x["step"])
            with st.expander(f"Step {x['step']}: {step.title} — {x['answered']} "
                             f"prediction{'s' if x['answered'] != 1 else ''}"):
                chart(class_distribution(step, x["answers"], x["truth"]), f"class-dist-{x['step']}")
                st.caption(_distribution_text(step, x))
        st.markdown("**Per student** (lesson score: mean step score over graded steps)")
        people = pd.DataFrame([{"student": p["name"], "steps reached": p["reached"], "predicted": p["answered"],
                                "graded": p["graded"],
                                "lesson score": "—" if p["score"] is None else f"{p['score']:.0%}"}
                               for p in s["students"]], columns=["student", "steps reached", "predicted", "graded",
                                                                 "lesson score"])
        st.dataframe(people, hide_index=True, width="stretch")
        st.download_button("Grades · table (CSV)", data=classroom.grades_csv(s),
                           file_name=f"grades-{s['code']}-{lesson.id}.csv", mime="text/csv",
                           icon=":material/download:", key=f"lessons.grades.{tick()}",
                           help="One row per student and step; cells a spreadsheet would run as formulas are "
                                "prefixed with '")

    live()
    if st.button("Close the teacher view", key="lessons.teacher.close"):
        st.session_state.pop("lessons.teacher", None)
        st.rerun()


def _distribution_text(step, x: dict) -> str:
    """The chart's text alternative: the spread of the predictions and where the measurement lies."""
    answers = x["answers"]
    if step.predict.kind == "choice":
        counts = ", ".join(f"{o.label}: {sum(1 for a in answers if int(a) == i)}"
                           for i, o in enumerate(step.predict.options))
        text = f"Answers per option — {counts}."
    else:
        shown = sorted(answers)
        text = (f"{len(shown)} predictions from {step.predict.shown(shown[0])} to {step.predict.shown(shown[-1])}, "
                f"median {step.predict.shown(shown[len(shown) // 2])}.")
    if x["truth"] is not None:
        text += (f" Measured: {G.truth_text(step, x['truth'])}; {x['within']} of {x['answered']} within the "
                 "tolerance.")
    else:
        text += " Not measured yet: no student has run this step."
    return text


# ------------------------------------------------------------------------------------------------------ a step
def _prediction_widget(step, key: str, disabled: bool, value=None):
    p = step.predict
    scale = 100.0 if p.percent else 1.0
    label = p.prompt + ("" if p.kind == "choice" else " (%)" if p.percent else f" ({p.unit})" if p.unit else "")
    if p.kind == "choice":
        options = list(range(len(p.options)))
        index = None if value is None else int(value)
        if disabled:
            return st.radio(label, options, index=index, format_func=lambda i: p.options[i].label, disabled=True,
                            key=f"{key}.shown")
        return st.radio(label, options, index=None, format_func=lambda i: p.options[i].label, key=key)
    start = p.start() if value is None else float(value)
    fmt = "%.0f" if scale * p.step >= 1 else None
    if p.kind == "slider":
        got = st.slider(label, scale * p.low, scale * p.high, round(scale * start, 6), step=scale * p.step,
                        key=key if not disabled else f"{key}.shown", disabled=disabled, format=fmt)
    else:
        got = st.number_input(label, scale * p.low, scale * p.high, round(scale * start, 6), step=scale * p.step,
                              key=key if not disabled else f"{key}.shown", disabled=disabled)
    return None if got is None else float(got) / scale


def _setting_text(step) -> str:
    sc = L.runner(step.runner)
    shown = []
    for name, value in step.params.items():
        p = sc.param(name)
        if p.ui:
            shown.append(f"{p.title}: {p.choice_labels.get(value, value)}")
    return " · ".join(shown)


def _explore_controls(step, box) -> dict:
    """The step's open controls (after the reveal): values that differ from the lesson's."""
    sc = L.runner(step.runner)
    values = {}
    for control in step.open:
        p = sc.param(control.name)
        key = f"lessons.explore.{step.runner}.{control.name}"
        base = step.params.get(control.name, p.default)
        if control.choices is not None:
            value = box.selectbox(p.title, list(control.choices), index=list(control.choices).index(base), key=key,
                                  format_func=lambda c, p=p: str(p.choice_labels.get(c, c)), help=p.help)
        elif p.kind == "int" and p.choice_labels:  # levels with names (birth date: year, decade…)
            value = box.select_slider(p.title, list(range(int(control.low), int(control.high) + 1,
                                                          int(control.step))), value=int(base), key=key,
                                      format_func=lambda c, p=p: str(p.choice_labels.get(c, c)), help=p.help)
        elif p.kind == "int":
            value = box.slider(p.title, int(control.low), int(control.high), int(base), step=int(control.step),
                               key=key, help=p.help)
        else:
            value = box.slider(p.title, float(control.low), float(control.high), float(base),
                               step=float(control.step), key=key, help=p.help)
        if value != base:
            values[control.name] = value
    return values


def _reveal(lesson, step, done: dict) -> None:
    truth, answer, g = done["truth"], done["answer"], done["grade"]
    verdict = ("Within tolerance" if g["within"] else
               f"Off by more than the tolerance ({'too high' if g['direction'] == 'over' else 'too low'})")
    box = st.container(border=True, key=REVEAL_KEY)
    box.subheader(f"Reveal · score {g['score']:.0%}", anchor=False)  # (no link icon: one Tab stop fewer)
    if st.session_state.get(FOCUS) == (lesson.id, step.number):  # just committed: the keyboard lands here
        from ui.focus import focus_once

        st.session_state.pop(FOCUS)
        focus_once(REVEAL_KEY, f"{lesson.id}/{step.number}")
    c1, c2 = box.columns(2)
    c1.metric("Your prediction", G.answer_text(step, answer))
    c2.metric("Measured at the lesson's seed", G.truth_text(step, truth))
    with box:
        # two points on one line: no zoom or pan to offer, and no ten mode-bar buttons between the reveal's heading
        # and the step's next control for a keyboard user
        chart(reveal_figure(step, answer, truth), f"lesson-reveal-{lesson.id}-{step.number}",
              config={"displayModeBar": False})
    box.caption(f"Chart: your prediction ({G.answer_text(step, answer)}) against the measurement "
                f"({G.truth_text(step, truth)}). {verdict}.")
    try:
        box.markdown(G.fill(step.reveal, G.reveal_numbers(step, done["metrics"], truth, answer)))
    except LabError as exc:
        show_error(exc)
    if step.glossary:
        box.markdown("Glossary: " + " · ".join(term(a) for a in step.glossary))


def show_step(lesson, step) -> None:
    """One step: context, prediction (committed before the run), the run and its plot, the reveal, explore."""
    done = progress(lesson.id).get(step.number, {})
    joined = class_student()
    seen = st.session_state.setdefault("lessons.visited", set())
    if joined and (joined, lesson.id, step.number) not in seen:  # once per step, not on every rerun
        try:
            classroom.visit(joined[0], joined[1], lesson.id, step.number)
            seen.add((joined, lesson.id, step.number))
        except LabError:
            pass
    st.progress(step.number / len(lesson.steps), text=f"Step {step.number} of {len(lesson.steps)}")
    st.subheader(f"{step.number}. {step.title}")
    st.markdown(step.context)
    st.caption(f"Fixed by the lesson — {_setting_text(step)} · seed {lesson.seed}")
    predict_box, run_box, reveal_box, explore_box = st.container(), st.container(), st.container(), st.container()
    key = f"lessons.answer.{lesson.id}.{step.number}"
    committed = "answer" in done
    with predict_box:
        answer = _prediction_widget(step, key, committed, done.get("answer"))
        if not committed:
            ok = answer is not None
            if st.button("Commit my prediction", type="primary", disabled=not ok, key=f"{key}.commit",
                         help="Your prediction is locked before the run, so the reveal compares it honestly"):
                done = progress(lesson.id).setdefault(step.number, {})
                done["answer"] = answer
                st.session_state[FOCUS] = (lesson.id, step.number)
                if joined:  # a class's predictions live in the class store (the seat is in the address)
                    try:
                        classroom.submit(joined[0], joined[1], lesson.id, step.number, answer)
                    except LabError as exc:
                        show_error(exc)
                else:
                    _link_answers(lesson)
                st.rerun()
            if not ok:
                st.caption("Choose an answer to commit it.")
            return
    explored, drawn = {}, "truth" in done and bool(step.open)
    if drawn:  # drawn before the run (in its own box below the reveal): the run uses the explored values
        explored = _explore(step, done, explore_box)
    with run_box:
        _run(lesson, step, explored, done)
    done = progress(lesson.id).get(step.number, {})
    if "truth" in done:
        with reveal_box:
            _reveal(lesson, step, done)
        if step.open and not drawn:  # the first reveal: the controls open now
            _explore(step, done, explore_box)


def _explore(step, done: dict, box) -> dict:
    with box:
        st.markdown("**Explore** — " + (step.explore and _safe_fill(step.explore, step, done) or
                                        "change the open control and run again."))
        return _explore_controls(step, st.container())


def _safe_fill(text: str, step, done: dict) -> str:
    try:
        return G.fill(text, G.reveal_numbers(step, done["metrics"], done["truth"]))
    except LabError:
        return text


def _record(lesson, step, result) -> None:
    """The reference run finished: keep the measurement, grade the committed answer, tell the class."""
    done = progress(lesson.id).setdefault(step.number, {})
    if "truth" not in done:  # (graded already when the answer came back with a resumed lesson)
        truth = R.measured(step, result.metrics)
        done.update(truth=truth, grade=G.grade(step, done["answer"], truth),
                    metrics={k: v for k, v in result.metrics.items() if isinstance(v, (int, float))})
    truth = done["truth"]
    joined = class_student()
    if joined and done.get("told") != joined:
        done["told"] = joined
        try:
            classroom.reveal(joined[0], joined[1], lesson.id, step.number, truth)
        except LabError as exc:
            show_error(exc)


def _run(lesson, step, explored: dict, done: dict) -> None:
    from ui.runs import run_scenario

    try:
        config = R.step_config(lesson, step, explored)
    except LabError as exc:
        show_error(exc)
        return
    reference = not explored

    def draw(result, final):
        if final and reference:
            _record(lesson, step, result)
        fig = step_figure(step, result)
        chart(fig, f"lesson-{lesson.id}-{step.number}")
        try:
            value = G.truth_text(step, R.measured(step, result.metrics))
            title = re.sub(r"<[^>]+>", "", (fig.layout.title.text or "").split("<br>")[0]) or step.title
            st.caption(f"Chart: {title} — measured {value}"
                       + (" (your setting)" if explored else " at the lesson's setting") + ".")
        except LabError:
            pass

    if step.demo:  # closed forms and small tables: computed here, through the store, no queue
        try:
            result, _ = R.play_step(lesson, step, explored)
        except LabError as exc:
            show_error(exc)
            return
        tick()
        draw(result, True)
        return
    sc = L.runner(step.runner)
    run_scenario(sc, config, draw, auto=True)


def lesson_end(lesson) -> None:
    """The lesson's score, the calibration sentence and the steps' grades."""
    missing = grade_committed(lesson)
    done = progress(lesson.id)
    grades = {n: d.get("grade") for n, d in done.items() if d.get("grade")}
    st.subheader("How did you do?")
    if missing:
        st.warning(f"Step{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}: your prediction is "
                   "kept, but the lesson's run of that step is no longer stored on this server, so it is not in "
                   "the score yet. Open the step to run it again.", icon=":material/pending:")
    score = G.lesson_score(grades)
    st.metric("Lesson score", "—" if score is None else f"{score:.0%}",
              help="Mean over the graded steps: 100% within the tolerance, falling to 0 at three tolerances")
    st.info(G.calibration(lesson, grades), icon=":material/insights:")
    rows = [{"step": s.number, "title": s.title, "your prediction": G.answer_text(s, done.get(s.number, {})
                                                                                 .get("answer")),
             "measured": G.truth_text(s, done[s.number]["truth"]) if "truth" in done.get(s.number, {}) else "—",
             "score": f"{grades[s.number]['score']:.0%}" if s.number in grades else "—"} for s in lesson.steps]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    if lesson.section:  # the paper's own numbers answer the steps: shown only once the last step is revealed
        last = lesson.steps[-1].number
        if "truth" in done.get(last, {}):
            st.caption(f"Where the numbers come from: {lesson.section}")
