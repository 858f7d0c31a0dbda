"""Class mode: a teacher's class on the shared server, its students' predictions, and the teacher's live view.

A teacher creates a class and gets two secrets, shown once: a short *class code* students type or follow in a
link (``/Lessons?class=CODE``) and a separate *teacher key* that opens the class view. Students pick a display name
(no account, no e-mail). What is stored, under the class in the lab's result store — its folder ``classes/``, a
:class:`ClassStore` with the result store's text-only disk (:func:`core.runtime.store.json_only_disk`: JSON text,
never a pickle; the result store itself serves only run records checked against their address) — is exactly:

* the class: its code, creation and expiry times, and a salted SHA-256 of the teacher key (never the key);
* per student: the display name, and per lesson step the committed prediction and the times the step was opened,
  the prediction committed and the run revealed;
* per lesson step: the measured value at the lesson's seed (the same for every student).

Grades are computed when the teacher looks (:func:`summary`), from those predictions and measurements with
:func:`core.studies.lessons.grade`, so a student's stored row can never claim a score. A class expires
``[classes] expiry_hours`` after it was created (``lab_settings.toml``); after that every read refuses it.

Writes that read-modify-write one document (the roster, a student's answers) hold a lock of this process: the
lab's server is one process whose sessions are threads, so two students joining at once never lose each other.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import sqlite3
import threading
import time
import unicodedata
from pathlib import Path

from ..errors import LabError, ParameterError

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed from a projector
CODE_LENGTH = 6
MAX_NAME = 40
MAX_STUDENTS = 500
_CODE = re.compile(rf"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")
_STUDENT = re.compile(r"^[A-Za-z0-9_-]{16,32}$")
_LOCK = threading.RLock()


class ClassError(LabError, ValueError):
    """A class cannot be used as asked: unknown or expired code, wrong teacher key, bad display name."""


class ClassStore:
    """The classes' JSON documents in their own size-bounded :class:`diskcache.Cache` (folder ``classes/`` of the
    result store), written and read through the result store's text-only disk. A row that is not a JSON object
    (planted, damaged) reads as absent; a fault of the disk or the database is a :class:`ClassError`."""

    def __init__(self, directory, size_limit: int = 100_000_000):
        import diskcache

        from ..runtime.store import json_only_disk

        self.directory = Path(directory).expanduser()
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.directory, 0o700)
        self.cache = diskcache.Cache(str(self.directory), size_limit=int(size_limit), timeout=5,
                                     eviction_policy="least-recently-stored", disk=json_only_disk())

    def get(self, key: str) -> dict | None:
        from ..runtime.store import UnsafeRow

        try:
            text = self.cache.get(key)
        except UnsafeRow:
            return None
        except (OSError, sqlite3.Error) as exc:
            raise ClassError(f"the class store cannot be read ({type(exc).__name__}); try again") from None
        try:
            doc = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None

    def put(self, key: str, doc: dict) -> None:
        try:
            self.cache.set(key, json.dumps(doc))
        except (OSError, sqlite3.Error) as exc:
            raise ClassError(f"the class store cannot be written ({type(exc).__name__}); try again") from None


@functools.lru_cache(maxsize=4)
def _open(directory: str) -> ClassStore:
    return ClassStore(directory)


def _store(store=None) -> ClassStore:
    if store is not None:
        return store
    from ..basics.settings import settings

    folder = settings().store_dir
    if folder is None:
        raise ClassError("class mode needs the lab's result store, which is turned off on this server "
                         "([store] path in lab_settings.toml)")
    try:
        return _open(str(folder / "classes"))
    except (OSError, sqlite3.Error) as exc:
        raise ClassError(f"the class store at {folder / 'classes'} cannot be opened ({type(exc).__name__})") from None


def _meta_key(code: str) -> str:
    return f"class/{code}"


def _student_key(code: str, student: str) -> str:
    return f"class/{code}/student/{student}"


def _truth_key(code: str) -> str:
    return f"class/{code}/truth"


def _hash(salt: str, key: str) -> str:
    return hashlib.sha256(f"{salt}:{key}".encode()).hexdigest()


def normalise_code(text: str) -> str:
    """A class code as typed (any case, spaces) → its canonical form; ClassError when it cannot be one."""
    code = re.sub(r"[\s-]", "", str(text or "")).upper()
    if not _CODE.match(code):
        raise ClassError(f"a class code is {CODE_LENGTH} letters and digits, as the teacher shows it")
    return code


def clean_name(text: str) -> str:
    """A display name: printable, trimmed, 1–40 characters (it is shown as plain text, never as Markdown)."""
    name = unicodedata.normalize("NFKC", str(text or ""))
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip()
    name = re.sub(r"\s+", " ", name)
    if not name:
        raise ClassError("choose a display name (it need not be your real name)")
    if len(name) > MAX_NAME:
        raise ClassError(f"a display name has at most {MAX_NAME} characters")
    return name


def expiry_seconds() -> float:
    from ..basics.settings import settings

    return float(settings().class_expiry_hours) * 3600.0


# ------------------------------------------------------------------------------------------------- the class
def create_class(lesson: str | None = None, *, store=None, now: float | None = None) -> dict:
    """A new class: ``{"code", "teacher_key", "expires"}``. The key is returned once and stored only hashed."""
    store = _store(store)
    now = time.time() if now is None else now
    with _LOCK:
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if store.get(_meta_key(code)) is None:
                break
        else:  # pragma: no cover - 887 million codes
            raise ClassError("could not find a free class code; try again")
        key = secrets.token_urlsafe(12)
        salt = secrets.token_hex(8)
        meta = {"code": code, "created": now, "expires": now + expiry_seconds(), "salt": salt,
                "key_hash": _hash(salt, key), "lesson": lesson, "students": []}
        store.put(_meta_key(code), meta)
        store.put(_truth_key(code), {})
    return {"code": code, "teacher_key": key, "expires": meta["expires"], "lesson": lesson}


def open_class(code: str, *, store=None, now: float | None = None) -> dict:
    """The class's stored description; ClassError when the code is unknown or the class has expired."""
    code = normalise_code(code)
    meta = _store(store).get(_meta_key(code))
    if (not isinstance(meta, dict) or meta.get("code") != code or not isinstance(meta.get("students"), list)
            or not isinstance(meta.get("expires"), (int, float)) or not isinstance(meta.get("salt"), str)):
        raise ClassError(f"there is no class {code} on this server (check the code with your teacher)")
    now = time.time() if now is None else now
    if now >= float(meta.get("expires", 0)):
        raise ClassError(f"class {code} has expired; ask your teacher for a new class")
    return meta


def check_teacher(code: str, key: str, *, store=None, now: float | None = None) -> dict:
    """The class when ``key`` is its teacher key; ClassError ("that teacher key does not open class …") otherwise."""
    meta = open_class(code, store=store, now=now)
    given = str(key or "").strip()
    if not given or not hmac.compare_digest(_hash(meta["salt"], given), meta["key_hash"]):
        raise ClassError(f"that teacher key does not open class {meta['code']}; check it and try again")
    return meta


def join(code: str, name: str, *, store=None, now: float | None = None) -> str:
    """Add a student with display ``name`` to the class; returns their private student id (kept by their browser
    session). A name already taken in the class gets a number ("Sam (2)")."""
    store = _store(store)
    name = clean_name(name)
    now = time.time() if now is None else now
    with _LOCK:
        meta = open_class(code, store=store, now=now)
        code = meta["code"]
        if len(meta["students"]) >= MAX_STUDENTS:
            raise ClassError(f"class {code} is full ({MAX_STUDENTS} students)")
        taken = {(store.get(_student_key(code, s)) or {}).get("name") for s in meta["students"]}
        shown, n = name, 1
        while shown in taken:
            n += 1
            shown = f"{name} ({n})"
        student = secrets.token_urlsafe(16)
        store.put(_student_key(code, student), {"name": shown, "joined": now, "answers": {}})
        meta["students"].append(student)
        store.put(_meta_key(code), meta)
    return student


def student(code: str, student_id: str, *, store=None, now: float | None = None) -> dict:
    """A student's own record (their name and answers): only ever shown to that student's session."""
    meta = open_class(code, store=store, now=now)
    if not _STUDENT.match(str(student_id or "")) or student_id not in meta["students"]:
        raise ClassError(f"this browser is not a student of class {meta['code']}; join with a display name")
    return _store(store).get(_student_key(meta["code"], student_id)) or {"name": "", "answers": {}}


def _slot(lesson: str, step: int) -> str:
    return f"{lesson}/{int(step)}"


def _update(code: str, student_id: str, lesson: str, step: int, store, now, change) -> dict:
    store = _store(store)
    now = time.time() if now is None else now
    with _LOCK:
        record = student(code, student_id, store=store, now=now)
        slot = record["answers"].setdefault(_slot(lesson, step), {})
        change(slot, now)
        store.put(_student_key(normalise_code(code), student_id), record)
    return slot


def visit(code: str, student_id: str, lesson: str, step: int, *, store=None, now: float | None = None) -> None:
    """The student opened the step (the first time counts)."""
    _update(code, student_id, lesson, step, store, now, lambda slot, t: slot.setdefault("opened", t))


def submit(code: str, student_id: str, lesson: str, step: int, prediction: float, *, store=None,
           now: float | None = None) -> None:
    """Store the student's committed prediction (a number, or an option's index) for a step; once only."""
    if isinstance(prediction, bool) or not isinstance(prediction, (int, float)) or math.isnan(prediction):
        raise ParameterError("prediction", f"expected a number, got {prediction!r}")

    def change(slot, t):
        slot.setdefault("opened", t)
        if "prediction" not in slot:  # committed means committed: a second submit does not move it
            slot["prediction"] = float(prediction)
            slot["committed"] = t

    _update(code, student_id, lesson, step, store, now, change)


def reveal(code: str, student_id: str, lesson: str, step: int, truth: float, *, store=None,
           now: float | None = None) -> None:
    """The student saw the measurement; the class keeps the step's measured value (identical for everyone)."""
    store = _store(store)
    _update(code, student_id, lesson, step, store, now, lambda slot, t: slot.setdefault("revealed", t))
    with _LOCK:
        key = _truth_key(normalise_code(code))
        truths = store.get(key) or {}
        if truths.get(_slot(lesson, step)) != float(truth):
            truths[_slot(lesson, step)] = float(truth)
            store.put(key, truths)


# ------------------------------------------------------------------------------------------ the teacher's view
def summary(code: str, key: str, lesson, *, store=None, now: float | None = None) -> dict:
    """The teacher view's numbers for one lesson (needs the teacher key).

    ``steps``: per step, how many students reached it, their predictions, the measured value (once any student
    has run the step), how many predictions lie within the tolerance and the share; ``students``: per student
    (display name) the steps answered, graded and the lesson score; ``rows``: one row per student and step
    (the CSV of grades)."""
    from .lesson_grading import grade, lesson_score

    store = _store(store)
    meta = check_teacher(code, key, store=store, now=now)
    code = meta["code"]
    truths = store.get(_truth_key(code)) or {}
    records = [(sid, store.get(_student_key(code, sid)) or {"name": "?", "answers": {}}) for sid in meta["students"]]
    steps, students, rows = [], [], []
    grades_by_student: dict[str, dict] = {sid: {} for sid, _ in records}
    for step in lesson.steps:
        slot = _slot(lesson.id, step.number)
        truth = truths.get(slot)
        reached, answers, within = 0, [], 0
        for sid, record in records:
            a = record.get("answers", {}).get(slot)
            if not a:
                continue
            reached += 1
            if "prediction" not in a:
                continue
            answers.append(a["prediction"])
            g = grade(step, a["prediction"], truth) if truth is not None else None
            grades_by_student[sid][step.number] = g
            within += bool(g and g["within"])
        steps.append({"step": step.number, "title": step.title, "reached": reached, "answered": len(answers),
                      "answers": answers, "truth": truth, "within": within if truth is not None else None,
                      "share_within": (within / len(answers)) if truth is not None and answers else None})
    for sid, record in records:
        answers = record.get("answers", {})
        grades = grades_by_student[sid]
        score = lesson_score(grades)
        students.append({"name": record.get("name", ""), "reached": sum(1 for s in lesson.steps
                                                                        if _slot(lesson.id, s.number) in answers),
                         "answered": sum(1 for s in lesson.steps
                                         if "prediction" in answers.get(_slot(lesson.id, s.number), {})),
                         "graded": len([g for g in grades.values() if g is not None]),
                         "score": score})
        for step in lesson.steps:
            a = answers.get(_slot(lesson.id, step.number))
            if not a:
                continue
            g = grades.get(step.number)
            rows.append({"student": record.get("name", ""), "lesson": lesson.id, "step": step.number,
                         "prediction": a.get("prediction"), "measured": truths.get(_slot(lesson.id, step.number)),
                         "within_tolerance": None if g is None else g["within"],
                         "score": None if g is None else g["score"],
                         "opened_utc": _iso(a.get("opened")), "committed_utc": _iso(a.get("committed")),
                         "revealed_utc": _iso(a.get("revealed"))})
    return {"code": code, "expires": meta["expires"], "students": students, "steps": steps, "rows": rows,
            "n_students": len(records)}


def _iso(t) -> str | None:
    if t is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(t)))


def grades_csv(summary_: dict) -> str:
    """The grades as CSV text safe to open in a spreadsheet (a display name like ``=HYPERLINK(…)`` stays text)."""
    import pandas as pd

    from ..output.safe_csv import to_csv

    columns = ["student", "lesson", "step", "prediction", "measured", "within_tolerance", "score", "opened_utc",
               "committed_utc", "revealed_utc"]
    return to_csv(pd.DataFrame(summary_["rows"], columns=columns))
