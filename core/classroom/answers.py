"""A student's steps: opened, prediction committed (once), run revealed — each acting only for the seat the
asking browser holds (:func:`core.classroom.roster.seat_of`), never for a seat id someone typed."""
from __future__ import annotations

import math

from ..errors import ParameterError
from ..basics.settings import settings
from . import limits as B
from .errors import ClassError
from .names import normalise_code
from .roster import _now
from .schema import class_db

ANSWER_BYTES = B.row_bytes("", "", "", 0, 0, 0, 0, 0)  # the fixed part of an answers row (text added per row)


def _seat(tx, code: str, browser: str, now: float) -> str:
    row = tx.one("SELECT s.seat FROM seats s JOIN classes c ON c.code = s.code WHERE s.code = ? AND s.browser = ? "
                 "AND c.expires > ?", (code, browser, now))
    if row is None:
        raise ClassError(f"this browser holds no seat in class {code} (it closed, or the seat moved to another "
                         "browser): join, or bring your seat back with your PIN")
    return row[0]


def _change(code, browser, lesson, step, now, db, fields: dict, only_if_empty: tuple[str, ...]) -> str:
    """Set ``fields`` on the student's row for the step, creating it; a field in ``only_if_empty`` that already
    holds a value keeps it (the first visit counts; a committed prediction never moves). The lock is the
    student's own (their browser's), so a class's students write side by side; the class's byte count is one
    atomic addition."""
    now, db = _now(now), class_db(db)
    code = normalise_code(code)
    if not browser:
        raise ClassError("this browser holds no seat in the class")
    with db.transaction(lock=f"answer/{code}/{browser}") as tx:
        seat = _seat(tx, code, browser, now)
        row = tx.one("SELECT opened, prediction, committed, revealed FROM answers WHERE code = ? AND seat = ? AND "
                     "lesson = ? AND step = ?", (code, seat, lesson, int(step)))
        if row is None:
            size = ANSWER_BYTES + B.row_bytes(code, seat, lesson)
            B.check_bytes(tx, code, size, settings().class_max_bytes_per_class, 0)
            tx.execute("INSERT INTO answers (code, seat, lesson, step) VALUES (?, ?, ?, ?)",
                       (code, seat, lesson, int(step)))
            tx.execute("UPDATE seats SET bytes = bytes + ? WHERE code = ? AND seat = ?", (size, code, seat))
            B.add_bytes(tx, code, size)
            row = (None, None, None, None)
        current = dict(zip(("opened", "prediction", "committed", "revealed"), row))
        changes = {k: v for k, v in fields.items() if not (k in only_if_empty and current[k] is not None)}
        if changes:
            sets = ", ".join(f"{k} = ?" for k in changes)
            tx.execute(f"UPDATE answers SET {sets} WHERE code = ? AND seat = ? AND lesson = ? AND step = ?",
                       (*changes.values(), code, seat, lesson, int(step)))
    return seat


def visit(code: str, browser: str, lesson: str, step: int, *, db=None, now: float | None = None) -> None:
    """The student opened the step (the first time counts)."""
    now = _now(now)
    _change(code, browser, lesson, step, now, db, {"opened": now}, ("opened",))


def submit(code: str, browser: str, lesson: str, step: int, prediction: float, *, db=None,
           now: float | None = None) -> None:
    """The student's committed prediction (a number, or an option's index) for a step; once only."""
    if isinstance(prediction, bool) or not isinstance(prediction, (int, float)) or not math.isfinite(prediction):
        raise ParameterError("prediction", f"expected a number, got {prediction!r}")
    now = _now(now)
    _change(code, browser, lesson, step, now, db, {"opened": now, "prediction": float(prediction), "committed": now},
            ("opened", "prediction", "committed"))


def reveal(code: str, browser: str, lesson: str, step: int, truth: float, *, db=None,
           now: float | None = None) -> None:
    """The student saw the measurement; the class keeps the step's measured value (identical for everyone)."""
    if isinstance(truth, bool) or not isinstance(truth, (int, float)) or not math.isfinite(truth):
        raise ParameterError("truth", f"expected a number, got {truth!r}")
    now, db = _now(now), class_db(db)
    _change(code, browser, lesson, step, now, db, {"revealed": now}, ("revealed",))
    code = normalise_code(code)
    with db.transaction(lock=f"truth/{code}/{lesson}/{int(step)}") as tx:
        if tx.one("SELECT 1 FROM truths WHERE code = ? AND lesson = ? AND step = ?", (code, lesson, int(step))):
            return
        size = B.row_bytes(code, lesson, 0, 0)
        tx.execute("INSERT INTO truths (code, lesson, step, value) VALUES (?, ?, ?, ?)",
                   (code, lesson, int(step), float(truth)))
        B.add_bytes(tx, code, size)


def my_answers(code: str, browser: str, lesson: str, *, db=None, now: float | None = None) -> dict[int, dict]:
    """The asking browser's own committed predictions for ``lesson``: step → {"prediction", …}."""
    now, db = _now(now), class_db(db)
    code = normalise_code(code)
    with db.read() as tx:
        seat = _seat(tx, code, browser, now)
        rows = tx.all("SELECT step, opened, prediction, committed, revealed FROM answers WHERE code = ? AND seat = ? "
                      "AND lesson = ?", (code, seat, lesson))
    return {int(r[0]): dict(zip(("opened", "prediction", "committed", "revealed"), r[1:])) for r in rows}
