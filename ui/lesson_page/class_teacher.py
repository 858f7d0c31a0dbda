"""The teacher's class view on the Lessons page: live numbers per step and per student (refreshed every few
seconds), the roster (expected size, lock, remove, rename, re-admit), and the grades downloads — per-step detail,
Canvas gradebook import, Moodle grade import. It opens while the class is open and for ``retention_days`` after it
closed; then the class's records are deleted."""
from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from core import classroom as C
from core.errors import LabError
from core.plots.lessons import class_distribution
from core.studies.lessons import lesson_grading as G
from ui.lesson_page.class_identity import visitor
from ui.lesson_page.class_mode import TEACHER, _link, _when
from ui.widgets.page_widgets import chart, show_error
from ui.widgets.feedback import tick


def teacher_view(lesson) -> None:
    """The class's live numbers for ``lesson``, its roster and its grades."""
    code, key = st.session_state[TEACHER]

    @st.fragment(run_every=5)
    def live():
        try:
            s = C.summary(code, key, lesson, visitor=visitor())
        except LabError as exc:
            show_error(exc)
            return
        left, mid, right = st.columns(3)
        left.metric("Class", s["code"])
        mid.metric("Students", f"{s['n_students']} of {s['capacity']}")
        if s["closed"]:
            right.metric("Closed to students", "yes")
            st.warning(f"Class {s['code']} has closed to students. Its grades can be downloaded until "
                       f"{_when(s['purge_after'])}; then its records are deleted.", icon=":material/schedule:")
        else:
            right.metric("Closes (UTC)", time.strftime("%d %b %H:%M", time.gmtime(s["expires"])))
            st.markdown("**Link for students** (copy button at its right)")
            st.code(_link(lesson.id, s["code"]), language=None, wrap_lines=True)
        st.caption(f"Refreshed every 5 s · last at {time.strftime('%H:%M:%S', time.gmtime())} UTC · roster "
                   f"{'locked' if s['locked'] else 'open'}")
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
        ident = {"student_id": "student ID", "email": "e-mail"}.get(s["ask"])
        columns = ["student"] + ([ident] if ident else []) + ["steps reached", "predicted", "graded", "lesson score"]
        people = pd.DataFrame([{"student": p["name"], **({ident: p["ident"] or "—"} if ident else {}),
                                "steps reached": p["reached"], "predicted": p["answered"], "graded": p["graded"],
                                "lesson score": "—" if p["score"] is None else f"{round(100 * p['score'])}"}
                               for p in s["students"]], columns=columns)
        st.dataframe(people, hide_index=True, width="stretch")
        _downloads(s, code, key)

    live()
    _roster(code, key)
    if st.button("Close the teacher view", key="lessons.teacher.close"):
        st.session_state.pop(TEACHER, None)
        st.rerun()


def _all_lessons(s: dict, code: str, key: str) -> list[dict]:
    """The summaries of every lesson the class opened (this one first): the gradebook's columns. Built only when a
    gradebook download is clicked."""
    from core.studies.lessons.lesson_files import load_lessons

    lessons, _ = load_lessons()
    out = [s]
    for lesson_id in C.lessons_answered(code, key, visitor=visitor()):
        if lesson_id != s["lesson"] and lesson_id in lessons:
            out.append(C.summary(code, key, lessons[lesson_id], visitor=visitor()))
    return out


def _downloads(s: dict, code: str, key: str) -> None:
    name = s["code"]
    one, two, three = st.columns(3)
    one.download_button("Grades · per step (CSV)", data=C.grades_csv(s),
                        file_name=f"grades-{name}-{s['lesson']}.csv",
                        mime="text/csv", icon=":material/download:", key=f"classroom.detail.{tick()}",
                        help="One row per student and step; cells a spreadsheet would run as formulas are "
                             "prefixed with '")
    two.download_button("Canvas gradebook (CSV)", data=lambda: C.canvas_csv(_all_lessons(s, code, key)),
                        file_name=f"canvas-{name}.csv",
                        mime="text/csv", icon=":material/download:", key=f"classroom.canvas.{tick()}",
                        help="Canvas: Grades → Import. One column per lesson the class opened, points out of 100; "
                             "matched by SIS User ID (student ID) or SIS Login ID (e-mail)")
    three.download_button("Moodle grades (CSV)", data=lambda: C.moodle_csv(_all_lessons(s, code, key)),
                          file_name=f"moodle-{name}.csv",
                          mime="text/csv", icon=":material/download:", key=f"classroom.moodle.{tick()}",
                          help="Moodle: Grades → Import → CSV file; one column per lesson the class opened; map the "
                               "first column to ID number or Email address")


def _roster(code: str, key: str) -> None:
    """The teacher's hand on the roster (outside the live fragment, so a form is not refreshed under the mouse)."""
    with st.expander("Roster: size, lock, remove, rename, re-admit"):
        try:
            people = C.roster(code, key, visitor=visitor())
            meta = C.check_teacher(code, key, visitor=visitor())
        except LabError as exc:
            show_error(exc)
            return
        if time.time() >= meta["expires"]:
            st.caption("The class has closed: its roster no longer changes.")
            return
        with st.form("classroom.roster.size", border=False):
            from core.basics.settings import settings

            most = settings().class_max_students
            size = st.number_input("Expected class size", 1, most, min(int(meta["capacity"]), most), step=1)
            locked = st.toggle("Lock the roster (no one else can join)", value=bool(meta["locked"]))
            if st.form_submit_button("Save"):
                try:
                    C.set_roster(code, key, capacity=int(size), locked=locked, visitor=visitor())
                    st.rerun()
                except LabError as exc:
                    st.error(str(exc), icon=":material/warning:")
        if not people:
            st.caption("No student has joined yet.")
            return
        seats = {p["seat"]: p for p in people}
        seat = st.selectbox("Student", list(seats), key="classroom.roster.who",
                            format_func=lambda s: seats[s]["name"] + (" (too many wrong PINs)"
                                                                     if seats[s]["locked_out"] else ""))
        new = st.text_input("New display name", key="classroom.roster.name")
        sure = st.checkbox("Yes, remove the chosen student and their answers", key="classroom.roster.sure")
        a, b, c = st.columns(3)
        try:
            if a.button("Rename", key="classroom.roster.rename", disabled=not new.strip()):
                C.rename(code, key, seat, new, visitor=visitor())
                st.rerun()
            if b.button("Re-admit on a new browser", key="classroom.roster.readmit",
                        help="The seat leaves every browser and gets a new PIN for you to hand over"):
                st.session_state["classroom.readmitted"] = (seats[seat]["name"],
                                                            C.readmit(code, key, seat, visitor=visitor()))
            if c.button("Remove from the class", key="classroom.roster.remove", disabled=not sure,
                        help="Deletes the student's seat and answers (tick the box above first)"):
                C.remove(code, key, seat, visitor=visitor())
                st.rerun()
        except LabError as exc:
            st.error(str(exc), icon=":material/warning:")
        given = st.session_state.get("classroom.readmitted")
        if given:
            st.text(f"New PIN for {given[0]}: {given[1]} — they open the class link, choose \"Already joined\", "
                    "and type their display name and this PIN.")


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
