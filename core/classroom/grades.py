"""The teacher's numbers and downloads: the live summary of one lesson, and the grades as the per-step detail, a
Canvas gradebook import and a Moodle grade import — every CSV formula-safe (:mod:`core.output.safe_csv`).

Grades are computed when the teacher looks, from the stored predictions and measurements with
:func:`core.studies.lessons.lesson_grading.grade`, so no stored row can claim a score. A lesson's score is in points out of
100 (the mean step score over the graded steps, as the student's own lesson end shows it).
"""
from __future__ import annotations

import time

import pandas as pd

from ..output.safe_csv import to_csv
from ..studies.lessons.lesson_grading import grade, lesson_score
from . import limits as B
from .roster import _now, check_teacher
from .schema import class_db

POINTS = 100


def _load(db, code: str):
    with db.read() as tx:
        seats = tx.all("SELECT seat, name, ident FROM seats WHERE code = ? ORDER BY joined, seat", (code,))
        answers = tx.all("SELECT seat, lesson, step, opened, prediction, committed, revealed FROM answers "
                         "WHERE code = ?", (code,))
        truths = tx.all("SELECT lesson, step, value FROM truths WHERE code = ?", (code,))
        size = tx.scalar("SELECT bytes FROM classes WHERE code = ?", (code,), default=0)
    by_seat: dict[str, dict] = {s[0]: {} for s in seats}
    for seat, lesson, step, *rest in answers:
        by_seat.setdefault(seat, {})[(lesson, int(step))] = dict(zip(("opened", "prediction", "committed",
                                                                       "revealed"), rest))
    return seats, by_seat, {(t[0], int(t[1])): t[2] for t in truths}, size


def summary(code: str, key: str, lesson, *, visitor: B.Visitor = B.NOBODY, db=None, now: float | None = None) -> dict:
    """The teacher view's numbers for one lesson (needs the teacher key; works until the class's rows are deleted).

    ``steps``: per step, how many students reached it, their predictions, the measured value (once any student ran
    it), how many predictions lie within the tolerance and the share; ``students``: per student the display name,
    student ID / e-mail, steps reached, answered, graded and the lesson score; ``rows``: one row per student and
    step (the detail CSV)."""
    now, db = _now(now), class_db(db)
    meta = check_teacher(code, key, visitor=visitor, db=db, now=now)
    code = meta["code"]
    seats, answers, truths, size = _load(db, code)
    steps, students, rows = [], [], []
    graded: dict[str, dict] = {s[0]: {} for s in seats}
    for step in lesson.steps:
        truth = truths.get((lesson.id, step.number))
        reached, given, within = 0, [], 0
        for seat, *_ in seats:
            a = answers[seat].get((lesson.id, step.number))
            if not a:
                continue
            reached += 1
            if a["prediction"] is None:
                continue
            given.append(a["prediction"])
            g = grade(step, a["prediction"], truth) if truth is not None else None
            graded[seat][step.number] = g
            within += bool(g and g["within"])
        steps.append({"step": step.number, "title": step.title, "reached": reached, "answered": len(given),
                      "answers": given, "truth": truth, "within": within if truth is not None else None,
                      "share_within": (within / len(given)) if truth is not None and given else None})
    for seat, name, ident in seats:
        mine = answers[seat]
        grades = {n: g for n, g in graded[seat].items() if g is not None}
        students.append({"seat": seat, "name": name, "ident": ident,
                         "reached": sum(1 for s in lesson.steps if (lesson.id, s.number) in mine),
                         "answered": sum(1 for s in lesson.steps
                                         if (mine.get((lesson.id, s.number)) or {}).get("prediction") is not None),
                         "graded": len(grades), "score": lesson_score(grades)})
        for step in lesson.steps:
            a = mine.get((lesson.id, step.number))
            if not a:
                continue
            g = graded[seat].get(step.number)
            rows.append({"student": name, "student_id_or_email": ident, "lesson": lesson.id, "step": step.number,
                         "prediction": a["prediction"], "measured": truths.get((lesson.id, step.number)),
                         "within_tolerance": None if g is None else g["within"],
                         "score": None if g is None else g["score"], "opened_utc": _iso(a["opened"]),
                         "committed_utc": _iso(a["committed"]), "revealed_utc": _iso(a["revealed"])})
    return {"code": code, "expires": meta["expires"], "purge_after": meta["purge_after"],
            "closed": now >= meta["expires"], "ask": meta["ask"], "capacity": meta["capacity"],
            "locked": bool(meta["locked"]), "lesson": lesson.id, "lesson_title": lesson.title, "students": students,
            "steps": steps, "rows": rows, "n_students": len(seats), "bytes": size}


def lessons_answered(code: str, key: str, *, visitor: B.Visitor = B.NOBODY, db=None,
                     now: float | None = None) -> list[str]:
    """The lessons the class's students opened, in order of their first visit (the gradebook's assignments)."""
    now, db = _now(now), class_db(db)
    meta = check_teacher(code, key, visitor=visitor, db=db, now=now)
    with db.read() as tx:
        rows = tx.all("SELECT lesson, MIN(opened) FROM answers WHERE code = ? GROUP BY lesson", (meta["code"],))
    return [r[0] for r in sorted(rows, key=lambda r: (r[1] is None, r[1] or 0.0, r[0]))]


def _iso(t) -> str | None:
    return None if t is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(t)))


DETAIL_COLUMNS = ["student", "student_id_or_email", "lesson", "step", "prediction", "measured", "within_tolerance",
                  "score", "opened_utc", "committed_utc", "revealed_utc"]


def grades_csv(summary_: dict) -> str:
    """Per-step detail: one row per student and step (a display name like ``=HYPERLINK(…)`` stays text)."""
    return to_csv(pd.DataFrame(summary_["rows"], columns=DETAIL_COLUMNS))


def _points(score) -> float | None:
    return None if score is None else round(POINTS * float(score), 1)


def _assignment(summary_: dict) -> str:
    return f"{summary_['lesson_title']} ({summary_['lesson']})"


def canvas_csv(summaries: list[dict]) -> str:
    """A Canvas gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then one column per lesson
    (points out of 100) after a "Points Possible" row. The student ID goes to SIS User ID, an e-mail to SIS Login
    ID (the columns Canvas matches on when its own ID is blank); a class that asked neither has only names, which
    Canvas cannot match — docs/CLASS.md says to ask for one."""
    if not summaries:
        raise ValueError("no lesson to export")
    first = summaries[0]
    columns = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] + [_assignment(s) for s in summaries]
    rows = [["    Points Possible", "", "", "", ""] + [POINTS] * len(summaries)]
    for i, st in enumerate(first["students"]):
        ident = st["ident"] or ""
        rows.append([st["name"], "", ident if first["ask"] == "student_id" else "",
                     ident if first["ask"] == "email" else "", first["code"]]
                    + [_points(s["students"][i]["score"]) for s in summaries])
    return to_csv(pd.DataFrame(rows, columns=columns))


def moodle_csv(summaries: list[dict]) -> str:
    """A Moodle grade import: the identifying column (``ID number`` or ``Email address``, mapped to the user field
    of the same name in Moodle's import form), the display name, then one column per lesson (points out of 100)."""
    if not summaries:
        raise ValueError("no lesson to export")
    first = summaries[0]
    ident = {"student_id": "ID number", "email": "Email address"}.get(first["ask"], "ID number")
    columns = [ident, "Display name"] + [_assignment(s) for s in summaries]
    rows = [[st["ident"] or "", st["name"]] + [_points(s["students"][i]["score"]) for s in summaries]
            for i, st in enumerate(first["students"])]
    return to_csv(pd.DataFrame(rows, columns=columns))
