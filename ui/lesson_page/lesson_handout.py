"""The Lessons page's printable handouts: the students' handout (questions and empty prediction boxes, no answer)
and the teacher's answer key, a separate file (:mod:`core.studies.lessons.handout` builds both)."""
from __future__ import annotations

import streamlit as st

from core.studies.lessons import lesson_runs as R


def handout_button(lesson) -> None:
    """The lesson's printable offline handout for students (prompts and empty prediction boxes: no answer), and,
    except for a student of a class, the teacher's key as a separate file: closed-form steps are computed here; the
    labs' steps use the runs already in the shared store (a step nobody has run yet gets a note; the CLI makes
    every run)."""
    from core.studies.lessons.handout import handout_html, stored_runs, teacher_key_html

    st.sidebar.download_button("Printable handout (HTML)", data=handout_html(lesson),
                               file_name=f"{lesson.id}-handout.html", mime="text/html", icon=":material/print:",
                               key=f"lessons.handout.{lesson.id}",
                               help="Every step's context and question with an empty box for the prediction: no "
                                    "measurement, so it can go out before the lesson. Works offline, prints on paper")
    if "class" in st.query_params and "lessons.teacher" not in st.session_state:
        return  # a class's students get the questions only

    def key() -> str:
        runs = stored_runs(lesson)
        for step in lesson.steps:
            if step.demo and step.number not in runs:
                runs[step.number] = R.play_step(lesson, step)[0]
        return teacher_key_html(lesson, runs)

    st.sidebar.download_button("Teacher's answer key (HTML)", data=key, file_name=f"{lesson.id}-teacher-key.html",
                               mime="text/html", icon=":material/key:", key=f"lessons.key.{lesson.id}",
                               help="Every step's measurement at the lesson's seed, its reveal and the plot of its "
                                    "run: for the teacher, a separate file from the students' handout")
