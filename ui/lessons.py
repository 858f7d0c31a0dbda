"""The Lessons page's pieces: one step (predict → run → reveal → explore) and the lesson's end. The engine behind
them is :mod:`core.studies.lessons`; class mode (join, create, the teacher view) is :mod:`ui.classroom`, told of
each visit, commit and reveal through its three hooks. Scenario runs go through :func:`ui.runs.run_scenario` (the
server's pool, its limits, the shared store), so a class of thirty on one step costs one run.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import LabError
from core.output.plain_language import term
from core.plots.lessons import reveal_figure
from core.studies import lesson_grading as G
from core.studies import lesson_runs as R
from core.studies import lessons as L
from core.studies.lesson_plots import step_figure
from ui import classroom as class_mode
from ui.common import chart, show_error
from ui.feedback import tick

PROGRESS = "lessons.progress"


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


def _link_answers(lesson) -> None:
    done = progress(lesson.id)
    st.query_params["answers"] = ",".join(f"{n}:{d['answer']:g}" for n, d in sorted(done.items()) if "answer" in d)


def go_to(lesson_id: str, number: int) -> None:
    st.query_params["lesson"] = lesson_id
    st.query_params["step"] = str(number)
    st.session_state["lessons.at"] = (lesson_id, number)


# ------------------------------------------------------------------------------------------------------ handout
def handout_button(lesson) -> None:
    """The lesson's printable offline handout: closed-form steps are computed here; the labs' steps use the runs
    already in the shared store (a step nobody has run yet gets a note; the CLI makes every run)."""
    from core.studies.handout import handout_html, stored_runs

    def build() -> str:
        runs = stored_runs(lesson)
        for step in lesson.steps:
            if step.demo and step.number not in runs:
                runs[step.number] = R.play_step(lesson, step)[0]
        return handout_html(lesson, runs)

    st.sidebar.download_button("Printable handout (HTML)", data=build, file_name=f"{lesson.id}-handout.html",
                               mime="text/html", icon=":material/print:", key=f"lessons.handout.{lesson.id}",
                               help="The steps, prompts and reference plots at the lesson's seed, with the "
                                    "measurements on the last pages: works offline, prints on paper")


# ------------------------------------------------------------------------------------------------------ a step
def _prediction_widget(step, key: str, disabled: bool, value=None):
    p = step.predict
    scale = 100.0 if p.percent else 1.0
    label = p.prompt + (" (%)" if p.percent else f" ({p.unit})" if p.unit else "")
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
    box = st.container(border=True)
    box.markdown(f"#### Reveal · score {g['score']:.0%}")
    c1, c2 = box.columns(2)
    c1.metric("Your prediction", G.answer_text(step, answer))
    c2.metric("Measured at the lesson's seed", G.truth_text(step, truth))
    with box:
        chart(reveal_figure(step, answer, truth), f"lesson-reveal-{lesson.id}-{step.number}")
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
                done = progress(lesson.id).setdefault(step.number, {})
                done["answer"] = answer
                if not class_mode.committed(lesson, step, answer):  # a class's predictions live in its records
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
    if "truth" in done:
        return
    truth = R.measured(step, result.metrics)
    done.update(truth=truth, grade=G.grade(step, done["answer"], truth),
                metrics={k: v for k, v in result.metrics.items() if isinstance(v, (int, float))})
    class_mode.revealed(lesson, step, truth)


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
            st.caption(f"Chart: {fig.layout.title.text.split('<br>')[0] if fig.layout.title.text else step.plot}"
                       f" — {step.metric} = {value}" + (" (your setting)" if explored else " at the lesson's setting")
                       + ".")
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
    done = progress(lesson.id)
    grades = {n: d.get("grade") for n, d in done.items() if d.get("grade")}
    st.subheader("How did you do?")
    score = G.lesson_score(grades)
    st.metric("Lesson score", "—" if score is None else f"{score:.0%}",
              help="Mean over the graded steps: 100% within the tolerance, falling to 0 at three tolerances")
    st.info(G.calibration(lesson, grades), icon=":material/insights:")
    rows = [{"step": s.number, "title": s.title, "your prediction": G.answer_text(s, done.get(s.number, {})
                                                                                 .get("answer")),
             "measured": G.truth_text(s, done[s.number]["truth"]) if "truth" in done.get(s.number, {}) else "—",
             "score": f"{grades[s.number]['score']:.0%}" if s.number in grades else "—"} for s in lesson.steps]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
