"""Lessons for a privacy course: predict a number, run the attack, see how far off you were — seven guided lessons, graded, with a live class view."""
import streamlit as st

from core.studies.lessons.lesson_files import load_lessons
from ui.widgets.page_widgets import page_header
from ui.lesson_page.class_teacher import teacher_view
from ui.lesson_page.class_mode import class_panel
from ui.lesson_page.lesson_handout import handout_button
from ui.lesson_page.lesson_steps import go_to, grade_committed, lesson_end, progress, restore_from_link, show_step

page_header("Lessons", "Each step asks you to **predict** what an attack will achieve, **runs** it at the lesson's "
            "fixed seed, then **reveals** the measurement beside your prediction. Commit your guess before you "
            "run: the point is to find out where your intuition about privacy is off.")


@st.cache_resource(max_entries=1, ttl=60, show_spinner=False)
def _lessons():
    return load_lessons()


lessons, problems = _lessons()
for line in problems:  # a teacher's broken lesson file: one line each, the other lessons still work
    st.warning(line, icon=":material/error:")
if not lessons:
    st.stop()

wanted = st.query_params.get("lesson")
if wanted is not None and wanted not in lessons:
    st.warning("The link names a lesson that does not exist; showing the first lesson.")
    wanted = None
ids = list(lessons)
chosen = st.sidebar.selectbox("Lesson", ids, index=ids.index(wanted) if wanted else 0,
                              format_func=lambda i: f"{lessons[i].order}. {lessons[i].title}", key="lessons.pick")
lesson = lessons[chosen]
if chosen != wanted:
    if wanted is not None:  # another lesson picked in the sidebar: start at its first step
        st.query_params["step"] = "1"
        st.query_params.pop("answers", None)
    st.query_params["lesson"] = chosen
try:
    number = int(st.query_params.get("step", "1"))
except ValueError:
    number = 1
number = min(max(number, 1), len(lesson.steps))
st.query_params["step"] = str(number)

if "class" not in st.query_params:
    restore_from_link(lesson)
grade_committed(lesson)  # a resumed lesson: its answers graded as in the session that committed them
done = progress(lesson.id)
st.sidebar.markdown("**Steps**")
for s in lesson.steps:
    mark = "✓ " if "truth" in done.get(s.number, {}) else ("● " if s.number == number else "")
    if st.sidebar.button(f"{mark}{s.number}. {s.title}", key=f"lessons.goto.{s.number}", type="tertiary",
                         disabled=s.number == number):
        go_to(lesson.id, s.number)
        st.rerun()
class_panel(lesson)
handout_button(lesson)

st.markdown(f"### {lesson.order}. {lesson.title}")
st.caption(f"Source: {lesson.paper}")  # (the paper's headline numbers are answers: shown at the lesson's end)
if "lessons.teacher" in st.session_state and st.toggle("Teacher view", value=True, key="lessons.teacher.on"):
    teacher_view(lesson)
    st.stop()
if number == 1:
    st.markdown(lesson.summary)
show_step(lesson, lesson.step(number))

left, _, right = st.columns([1, 3, 1])
if number > 1 and left.button("← Previous step", key="lessons.prev"):
    go_to(lesson.id, number - 1)
    st.rerun()
if number < len(lesson.steps) and right.button("Next step →", key="lessons.next", type="primary"):
    go_to(lesson.id, number + 1)
    st.rerun()
if number == len(lesson.steps) or len([d for d in done.values() if "grade" in d]) == len(lesson.steps):
    lesson_end(lesson)
if lesson.lab:
    st.markdown(f"Explore the whole game, with every control, in [its lab](/{lesson.lab}).")
