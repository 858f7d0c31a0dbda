"""Class mode: a teacher's class on the lab's server, its roster, its students' predictions, grades and exports.

A teacher creates a class (:func:`create_class`) and gets two secrets, shown once: a short *class code* students type
or follow in a link and a separate *teacher key* that opens the class view. Students join with a display name, a PIN
of their choosing and — if the teacher asked — a student ID or e-mail (:func:`join`). Their seat is bound to their
browser; an address alone never acts for them. Everything lives in the lab's records database (:mod:`core.db`,
SQLite by default, PostgreSQL when configured), in the tables :mod:`core.classroom.schema` lists; docs/CLASS.md
says what is stored, where and for how long.
"""
from __future__ import annotations

from .answers import my_answers, reveal, submit, visit
from .errors import ClassError, SlowDown
from .grades import canvas_csv, grades_csv, lessons_answered, moodle_csv, summary
from .limits import Visitor
from .names import ASKS, MAX_NAME, PIN_DIGITS, clean_name, name_key, normalise_code
from .roster import check_teacher, create_class, join, open_class, purge, reclaim, seat_of
from .teacher import readmit, remove, rename, roster, set_roster

__all__ = ["ASKS", "MAX_NAME", "PIN_DIGITS", "ClassError", "SlowDown", "Visitor", "canvas_csv", "check_teacher",
           "clean_name", "create_class", "grades_csv", "join", "lessons_answered", "moodle_csv", "my_answers", "name_key",
           "normalise_code", "open_class", "purge", "readmit", "reclaim", "remove", "rename", "reveal", "roster",
           "seat_of", "set_roster", "submit", "summary", "visit"]
