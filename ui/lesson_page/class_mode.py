"""Class mode on the Lessons page: a student's join (first thing on the page) and seat, the teacher's class creation
and live view with the roster, and the three hooks the lesson flow calls (:func:`visited`, :func:`committed`,
:func:`revealed`). The engine is :mod:`core.classroom`; who is asking is :mod:`ui.lesson_page.class_identity`.

Everything a stranger can write — a display name, an e-mail, a class code in a link — is shown as plain text
(``st.text``, tables, ``st.code``), never as Markdown.
"""
from __future__ import annotations

import time

import streamlit as st

from core import classroom as C
from core.errors import LabError
from ui.lesson_page.class_identity import browser, lab_address, visitor
from ui.widgets.page_widgets import show_error

SEAT = "classroom.seat"  # (code, name) of the seat this browser holds, once found this session
TEACHER = "lessons.teacher"  # (code, key) of the class whose view this session opened
_PROGRESS = "lessons.progress"  # ui.lesson_page.lesson_steps' per-lesson answers (restored from the class's records)


def _link(lesson_id: str, code: str) -> str:
    return lab_address(f"/Lessons?lesson={lesson_id}&class={code}")


def _when(t: float) -> str:
    return time.strftime("%d %b %Y %H:%M UTC", time.gmtime(t))


# --------------------------------------------------------------------------------------------- the lesson hooks
def _joined():
    """(code, browser) when this session is a student seated in the class its address names."""
    seat = st.session_state.get(SEAT)
    code = st.query_params.get("class")
    if not seat or not code or seat[0] != code.upper():
        return None
    return seat[0], browser()


def seat() -> tuple[str, str] | None:
    """``(class code, browser)`` of this session's seat in the class its address names, or None."""
    return _joined()


def visited(lesson, step) -> None:
    """The student opened ``step`` (told once per session and step)."""
    joined = _joined()
    seen = st.session_state.setdefault("classroom.visited", set())
    if joined and (joined[0], lesson.id, step.number) not in seen:
        try:
            C.visit(joined[0], joined[1], lesson.id, step.number)
            seen.add((joined[0], lesson.id, step.number))
        except LabError:
            pass


def committed(lesson, step, answer) -> bool | None:
    """Store a class student's committed prediction: True once the class's records hold it; False outside a class
    (the lesson keeps it in the address); None when the records refused it (a busy or unreachable database, a
    closed class) — the error is shown and nothing counts as committed, so the student commits again instead of
    seeing a locked prediction that the teacher never gets (and a reload would not bring back)."""
    joined = _joined()
    if not joined:
        return False
    try:
        C.submit(joined[0], joined[1], lesson.id, step.number, answer)
    except LabError as exc:
        show_error(exc)
        return None
    return True


def revealed(lesson, step, truth: float) -> None:
    joined = _joined()
    if joined:
        try:
            C.reveal(joined[0], joined[1], lesson.id, step.number, truth)
        except LabError as exc:
            show_error(exc)


def _restore(lesson, code: str) -> None:
    """A returning student's committed predictions, from the class's records: each stays locked, and opening its
    step shows the (stored) run and the reveal again."""
    mine = C.my_answers(code, browser(), lesson.id)
    done = st.session_state.setdefault(_PROGRESS, {}).setdefault(lesson.id, {})
    for step in lesson.steps:
        value = (mine.get(step.number) or {}).get("prediction")
        if value is not None:
            answer = int(value) if step.predict.kind == "choice" else value
            done.setdefault(step.number, {}).setdefault("answer", answer)


# ------------------------------------------------------------------------------------------------- the panel
def class_panel(lesson) -> None:
    """A class link (``?class=CODE``): the seat this browser holds, or the join form as the page's first content
    (the page stops below it until the student joins). Without one: the sidebar's "Teach this lesson" box."""
    code_text = st.query_params.get("class")
    if code_text:
        _student_panel(lesson, code_text)
    else:
        _teacher_panel(lesson)


def _student_panel(lesson, code_text: str) -> None:
    try:
        meta = C.open_class(code_text, visitor=visitor())
    except LabError as exc:
        st.error(f"{exc} — the lesson below is yours alone; nothing is sent to a class.", icon=":material/group_off:")
        return
    code = meta["code"]
    seat = C.seat_of(code, browser())
    if seat:
        if st.session_state.get(SEAT) != (code, seat["name"]):
            st.session_state[SEAT] = (code, seat["name"])
            _restore(lesson, code)
        box = st.sidebar.container(border=True)
        box.caption("Class")
        box.text(f"{code} · you are {seat['name']}")
        box.caption("Your teacher sees your predictions and scores under this name; other students don't. This "
                    "browser holds your seat; in another browser, bring it back with your name and PIN.")
        return
    st.session_state.pop(SEAT, None)
    _join_forms(meta)
    st.stop()


def _join_forms(meta: dict) -> None:
    code, ask = meta["code"], meta["ask"]
    st.markdown(f"#### Join class {code}")
    st.caption("Your teacher sees your predictions under your display name. Your PIN (4–8 digits, your choice) "
               "brings your seat back if you open the lesson in another browser or device — keep it.")
    with st.form("classroom.join"):
        name = st.text_input("Display name", help="Any name your teacher will recognise; no account is needed.")
        ident = None
        if ask == "student_id":
            ident = st.text_input("Student ID", help="As your course site shows it: your grade goes there.")
        elif ask == "email":
            ident = st.text_input("E-mail address", help="The one your course site knows: your grade goes there.")
        pin = st.text_input("PIN (4–8 digits)", type="password", max_chars=C.PIN_DIGITS[1])
        if st.form_submit_button("Join the class", type="primary"):
            try:
                C.join(code, name, pin, ident, browser=browser(), visitor=visitor())
                st.rerun()
            except LabError as exc:
                st.error(str(exc), icon=":material/warning:")
    with st.expander("Already joined on another browser or device?"):
        with st.form("classroom.reclaim", border=False):
            name = st.text_input("Your display name", key="classroom.reclaim.name")
            pin = st.text_input("Your PIN", type="password", key="classroom.reclaim.pin", max_chars=C.PIN_DIGITS[1])
            if st.form_submit_button("Bring my seat here"):
                try:
                    C.reclaim(code, name, pin, browser=browser(), visitor=visitor())
                    st.rerun()
                except LabError as exc:
                    st.error(str(exc), icon=":material/lock:")


def _teacher_panel(lesson) -> None:
    from core.basics.settings import settings

    with st.sidebar.container(border=True).expander("Teach this lesson to a class"):
        st.caption("Create a class: students open its link, join with a display name and a PIN, and you see the "
                   "class's predictions live. The teacher key is shown once.")
        with st.form("classroom.create", border=False):
            ask = st.radio("Students also give", list(C.ASKS),
                           format_func=lambda a: C.ASKS[a][0].upper() + C.ASKS[a][1:],
                           help="A student ID or e-mail lets Canvas or Moodle match the grades to the students")
            size = st.number_input("Expected class size", 1, settings().class_max_students, 40, step=1,
                                   help="Joins beyond it are refused until you raise it in the class view")
            if st.form_submit_button("Create a class"):
                try:
                    made = C.create_class(lesson.id, ask=ask, capacity=int(size), visitor=visitor())
                    st.session_state[TEACHER] = (made["code"], made["teacher_key"])
                    st.session_state["lessons.created"] = made
                except LabError as exc:
                    show_error(exc)
        made = st.session_state.get("lessons.created")
        if made:
            st.markdown("**Class code**")
            st.code(made["code"], language=None)
            st.markdown("**Teacher key** (write it down: it is not shown again)")
            st.code(made["teacher_key"], language=None)
            st.markdown("**Link for students** (copy button at its right)")
            st.code(_link(lesson.id, made["code"]), language=None, wrap_lines=True)
            if st.button("I have noted the key: hide it", key="lessons.created.hide"):
                st.session_state.pop("lessons.created", None)
                st.rerun()
        st.divider()
        with st.form("lessons.teach", border=False):
            code = st.text_input("Class code", max_chars=12)
            key = st.text_input("Teacher key", type="password")
            if st.form_submit_button("Open the teacher view"):
                try:
                    meta = C.check_teacher(code, key, visitor=visitor())
                    st.session_state[TEACHER] = (meta["code"], key)
                except LabError as exc:
                    st.error(str(exc), icon=":material/lock:")
