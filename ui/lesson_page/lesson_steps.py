"""The Lessons page's pieces: one step (predict → run → reveal → explore) and the lesson's end. The engine behind
them is :mod:`core.studies.lessons.lesson_files`; class mode (join, create, the teacher view) is :mod:`ui.lesson_page.class_mode`, told of
each visit, commit and reveal through its three hooks. Scenario runs go through :func:`ui.runs.page_runs.run_scenario` (the
server's pool, its limits, the shared store), so a class of thirty on one step costs one run.
"""
from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from core.errors import LabError
from core.output.plain_language import term
from core.plots.lessons import reveal_figure
from core.studies.lessons import lesson_grading as G
from core.studies.lessons import lesson_runs as R
from core.studies.lessons import lesson_files as L
from core.studies.lessons.lesson_plots import step_figure
from ui.lesson_page import class_mode
from ui.widgets.page_widgets import chart, show_error
from ui.widgets.feedback import tick

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
        from ui.widgets.focus import focus_once

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
    class_mode.visited(lesson, step)
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
                stored = class_mode.committed(lesson, step, answer)  # a class's predictions live in its records
                if stored is None:  # refused (the error is on the page): not committed, the button stays
                    return
                done = progress(lesson.id).setdefault(step.number, {})
                done["answer"] = answer
                st.session_state[FOCUS] = (lesson.id, step.number)
                if not stored:
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
    told = class_mode.seat()  # the class is told once per seat, also for a step graded from a resumed lesson
    if told is not None and done.get("told") != told:
        done["told"] = told
        class_mode.revealed(lesson, step, done["truth"])


def _run(lesson, step, explored: dict, done: dict) -> None:
    from ui.runs.page_runs import run_scenario

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
