"""Class mode's engine (core/classroom) against both records databases: seats bound to a browser, the teacher's
roster, names that cannot pass for another, bounds per visitor and in bytes, expiry then retention on a fake clock,
and grades a gradebook imports."""
from __future__ import annotations

import io

import pandas as pd
import pytest

from core import classroom as C
from core.studies.lessons import lesson_files as L

LESSON = "1-what-epsilon-promises"
TRUTH = 0.7310585786300049  # step 1's measured value: e/(1+e) at ε = 1
T0 = 1_000_000.0


def _visitor(n: int, address: str = "addr-1") -> C.Visitor:
    return C.Visitor(browser=f"browser-{n}", address=address)


def _class(db, **kw):
    return C.create_class(LESSON, db=db, now=T0, visitor=_visitor(0, "teacher"), **kw)


def _join(db, made, n, name, pin="1234", ident=None, now=T0 + 10, address="addr-1"):
    return C.join(made["code"], name, pin, ident, browser=f"browser-{n}", visitor=_visitor(n, address), db=db,
                  now=now)


@pytest.fixture
def settings_file(tmp_path, monkeypatch):
    """Write a lab_settings.toml with some [classes] keys and point LAB_SETTINGS at it."""
    written = []

    def write(**classes):  # a new file each time: settings are cached by path
        written.append(1)
        path = tmp_path / f"lab_settings_{len(written)}.toml"
        path.write_text("[classes]\n" + "".join(f"{k} = {v}\n" for k, v in classes.items()))
        monkeypatch.setenv("LAB_SETTINGS", str(path))
    return write


def test_a_class_grades_its_students_and_exports_to_canvas_and_moodle(db):
    lesson = L.get_lesson(LESSON)
    made = _class(db, ask="student_id")
    for n, (name, guess, sid) in enumerate((("Ada", 0.72, "s001"), ("Bo", 0.9, "s002"),
                                            ('=HYPERLINK("http://x")', 0.74, "s003")), start=1):
        _join(db, made, n, name, ident=sid, address=f"addr-{n}", now=T0 + n)
        C.visit(made["code"], f"browser-{n}", LESSON, 1, db=db, now=T0 + 20)
        C.submit(made["code"], f"browser-{n}", LESSON, 1, guess, db=db, now=T0 + 30)
        C.submit(made["code"], f"browser-{n}", LESSON, 1, 0.1, db=db, now=T0 + 31)  # committed means committed
        C.reveal(made["code"], f"browser-{n}", LESSON, 1, TRUTH, db=db, now=T0 + 40)
    s = C.summary(made["code"].lower(), made["teacher_key"], lesson, db=db, now=T0 + 50)
    assert s["n_students"] == 3 and s["steps"][0]["answered"] == 3 and s["steps"][0]["within"] == 2
    assert [p["score"] for p in s["students"]] == [1.0, 0.0, 1.0]
    canvas = pd.read_csv(io.StringIO(C.canvas_csv([s])), dtype=str, keep_default_na=False)
    assert list(canvas.columns)[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert canvas.columns[5] == f"{lesson.title} ({LESSON})"
    assert canvas.iloc[0, 0].strip() == "Points Possible" and float(canvas.iloc[0, 5]) == 100
    assert list(canvas["SIS User ID"][1:]) == ["s001", "s002", "s003"]
    assert list(canvas.iloc[1:, 5].astype(float)) == [100.0, 0.0, 100.0]
    assert canvas["Student"][3] == "'=HYPERLINK(\"http://x\")"  # formula-safe: shown as text by a spreadsheet
    moodle = pd.read_csv(io.StringIO(C.moodle_csv([s])), dtype=str)
    assert list(moodle.columns)[:2] == ["ID number", "Display name"] and list(moodle["ID number"]) == [
        "s001", "s002", "s003"]
    detail = pd.read_csv(io.StringIO(C.grades_csv(s)))
    assert len(detail) == 3 and list(detail["prediction"]) == [0.72, 0.9, 0.74]
    with pytest.raises(C.ClassError, match="does not open class"):
        C.summary(made["code"], "wrong-key", lesson, db=db, now=T0 + 50)


def test_an_email_class_matches_moodle_by_email_and_canvas_by_login(db):
    made = _class(db, ask="email")
    with pytest.raises(C.ClassError, match="e-mail address"):
        _join(db, made, 1, "Ada", ident="not an address")
    _join(db, made, 1, "Ada", ident="Ada@Uni.EDU")
    with pytest.raises(C.ClassError, match="already has a seat"):
        _join(db, made, 2, "Someone", ident="ada@uni.edu", address="addr-2")
    s = C.summary(made["code"], made["teacher_key"], L.get_lesson(LESSON), db=db, now=T0 + 50)
    assert pd.read_csv(io.StringIO(C.moodle_csv([s])))["Email address"].tolist() == ["ada@uni.edu"]
    assert pd.read_csv(io.StringIO(C.canvas_csv([s])), dtype=str)["SIS Login ID"].tolist()[1:] == ["ada@uni.edu"]


def test_only_the_browser_holding_the_seat_acts_and_a_pin_brings_it_back(db, settings_file):
    settings_file(pin_tries_per_seat=3)
    made = _class(db)
    _join(db, made, 1, "Alice", pin="4711")
    with pytest.raises(C.ClassError, match="holds no seat"):  # a stranger's browser, even with Alice's address
        C.submit(made["code"], "browser-stranger", LESSON, 1, 0.5, db=db, now=T0 + 20)
    assert C.seat_of(made["code"], "browser-stranger", db=db, now=T0 + 20) is None
    assert C.seat_of(made["code"], "browser-1", db=db, now=T0 + 20)["name"] == "Alice"  # a reload keeps it
    with pytest.raises(C.ClassError, match="2 tries left") as refused:
        C.reclaim(made["code"], "alice", "0000", browser="browser-new", db=db, now=T0 + 30)
    assert "Alice" not in str(refused.value)  # a stored name is never echoed into a message
    C.reclaim(made["code"], " ALICE ", "4711", browser="browser-new", db=db, now=T0 + 31)
    C.submit(made["code"], "browser-new", LESSON, 1, 0.6, db=db, now=T0 + 32)
    assert C.my_answers(made["code"], "browser-new", LESSON, db=db, now=T0 + 33)[1]["prediction"] == 0.6
    with pytest.raises(C.ClassError, match="holds no seat"):  # the old browser lost the seat
        C.submit(made["code"], "browser-1", LESSON, 2, 0.6, db=db, now=T0 + 34)
    for _ in range(3):
        with pytest.raises(C.ClassError, match="PIN does not open|too many wrong PINs"):
            C.reclaim(made["code"], "Alice", "9999", browser="browser-thief", db=db, now=T0 + 40)
    with pytest.raises(C.ClassError, match="too many wrong PINs"):
        C.reclaim(made["code"], "Alice", "4711", browser="browser-thief", db=db, now=T0 + 41)
    seat = C.roster(made["code"], made["teacher_key"], db=db, now=T0 + 42)[0]
    assert seat["locked_out"]
    pin = C.readmit(made["code"], made["teacher_key"], seat["seat"], db=db, now=T0 + 43)
    C.reclaim(made["code"], "Alice", pin, browser="browser-phone", db=db, now=T0 + 44)
    assert C.my_answers(made["code"], "browser-phone", LESSON, db=db, now=T0 + 45)[1]["prediction"] == 0.6


def test_a_flood_from_one_client_stops_and_a_real_student_is_admitted(db, settings_file):
    settings_file(joins_per_visitor_per_hour=3, joins_per_address_per_hour=60)
    made = _class(db, capacity=100)
    flooded = 0
    with pytest.raises(C.SlowDown, match="too many joins"):
        for n in range(100):  # one browser, made-up names
            C.join(made["code"], f"fake {n}", "1234", browser=f"flood-seat-{n}",
                   visitor=C.Visitor(browser="flood", address="addr-flood"), db=db, now=T0 + n)
            flooded += 1
    assert flooded == 3
    with pytest.raises(C.SlowDown):
        for n in range(100):  # a script that drops its cookie: a new browser each time, one address
            C.join(made["code"], f"bot {n}", "1234", browser=f"bot-{n}",
                   visitor=C.Visitor(browser=f"bot-{n}", address="addr-flood"), db=db, now=T0 + 200 + n)
            flooded += 1
    assert flooded == 60 < 100  # the address's own limit, below the class size
    _join(db, made, 1, "Real Student", address="addr-campus", now=T0 + 399)
    names = [p["name"] for p in C.roster(made["code"], made["teacher_key"], db=db, now=T0 + 400)]
    assert names[-1] == "Real Student"
    for p in C.roster(made["code"], made["teacher_key"], db=db, now=T0 + 400)[:-1]:  # the teacher clears them
        C.remove(made["code"], made["teacher_key"], p["seat"], db=db, now=T0 + 401)
    assert len(C.roster(made["code"], made["teacher_key"], db=db, now=T0 + 402)) == 1


def test_the_teacher_sizes_locks_and_renames_the_roster(db):
    made = _class(db, capacity=2)
    _join(db, made, 1, "Ada", address="a1", now=T0 + 1)
    _join(db, made, 2, "Bo", address="a2", now=T0 + 2)
    with pytest.raises(C.ClassError, match="is full \\(2 of the 2"):
        _join(db, made, 3, "Cy", address="a3")
    C.set_roster(made["code"], made["teacher_key"], capacity=3, locked=True, db=db, now=T0 + 20)
    with pytest.raises(C.ClassError, match="locked"):
        _join(db, made, 3, "Cy", address="a3")
    C.set_roster(made["code"], made["teacher_key"], locked=False, db=db, now=T0 + 21)
    _join(db, made, 3, "Cy", address="a3")
    ada = C.roster(made["code"], made["teacher_key"], db=db, now=T0 + 22)[0]
    with pytest.raises(C.ClassError, match="looks the same|has that name"):
        C.rename(made["code"], made["teacher_key"], ada["seat"], "bo", db=db, now=T0 + 23)
    C.rename(made["code"], made["teacher_key"], ada["seat"], "Ada L.", db=db, now=T0 + 23)
    assert [p["name"] for p in C.roster(made["code"], made["teacher_key"], db=db, now=T0 + 24)] == [
        "Ada L.", "Bo", "Cy"]


@pytest.mark.parametrize("look_alike", ["\u0410lice", "alice", "A lice", "ALICE", "Ａｌｉｃｅ", "AIice"])
def test_a_look_alike_of_a_name_in_the_class_is_refused(db, look_alike):
    made = _class(db)
    _join(db, made, 1, "Alice", address="a1")
    with pytest.raises(C.ClassError, match="already in the class"):
        _join(db, made, 2, look_alike, address="a2")


def test_an_over_long_name_is_refused_not_cut(db):
    made = _class(db)
    with pytest.raises(C.ClassError, match="at most 40 characters \\(this one has 10000\\)"):
        _join(db, made, 1, "x" * 10_000)
    assert C.roster(made["code"], made["teacher_key"], db=db, now=T0 + 20) == []
    with pytest.raises(C.ClassError, match="display name"):
        _join(db, made, 1, "\u200b\n")
    with pytest.raises(C.ClassError, match="PIN is 4–8 digits"):
        _join(db, made, 1, "Ada", pin="12a4")


def test_class_creation_is_bounded_per_visitor_and_per_server(db, settings_file):
    settings_file(creations_per_visitor_per_day=2, creations_per_server_per_day=3)
    me = C.Visitor(browser="teacher-1", address="office")
    for i in range(2):
        C.create_class(LESSON, visitor=me, db=db, now=T0 + i)
    with pytest.raises(C.SlowDown, match="made 2 classes today"):
        C.create_class(LESSON, visitor=me, db=db, now=T0 + 5)
    C.create_class(LESSON, visitor=C.Visitor(browser="teacher-2", address="office-2"), db=db, now=T0 + 6)
    with pytest.raises(C.ClassError, match="server's limit of 3 a day"):
        C.create_class(LESSON, visitor=C.Visitor(browser="teacher-3", address="office-3"), db=db, now=T0 + 7)
    C.create_class(LESSON, visitor=me, db=db, now=T0 + 86_401)  # a day later


def test_code_guessing_is_slowed_per_visitor(db, settings_file):
    settings_file(code_tries_per_visitor_per_minute=5)
    made = _class(db)
    guesser = C.Visitor(browser="guesser", address="addr-g")
    for i in range(5):
        with pytest.raises(C.ClassError, match="there is no class"):
            C.open_class("ABCDEF" if made["code"] != "ABCDEF" else "ABCDEG", visitor=guesser, db=db, now=T0 + i)
    with pytest.raises(C.SlowDown, match="wait"):  # even the right code waits now
        C.open_class(made["code"], visitor=guesser, db=db, now=T0 + 6)
    assert C.open_class(made["code"], visitor=guesser, db=db, now=T0 + 61)["code"] == made["code"]
    assert C.open_class(made["code"], visitor=_visitor(9, "elsewhere"), db=db, now=T0 + 6)  # others are not slowed


def test_stored_bytes_are_counted_exactly_and_bounded(db, settings_file):
    made = _class(db)
    _join(db, made, 1, "Ada", address="a1")
    C.submit(made["code"], "browser-1", LESSON, 1, 0.7, db=db, now=T0 + 20)
    C.reveal(made["code"], "browser-1", LESSON, 1, TRUTH, db=db, now=T0 + 21)
    from core.classroom.schema import class_db

    with class_db(db).read() as tx:
        held = tx.scalar("SELECT bytes FROM classes WHERE code = ?", (made["code"],))
        seats = tx.scalar("SELECT SUM(bytes) FROM seats WHERE code = ?", (made["code"],))
        klass = tx.one("SELECT code, created, expires, purge_after, salt, key_hash, lesson, ask, capacity, locked, "
                       "creator FROM classes WHERE code = ?", (made["code"],))
    from core.classroom.limits import row_bytes

    # the class row (its 12 values, the bytes counter itself an 8-byte number) + the seat rows (which include
    # their answers) + one truth row
    assert held == row_bytes(*klass, 0) + seats + row_bytes(made["code"], LESSON, 0, 0)
    settings_file(max_bytes_per_class=held + 10)
    with pytest.raises(C.ClassError, match="cannot store more"):
        _join(db, made, 2, "Bo", address="a2")
    settings_file(max_bytes_total=held + 10)
    with pytest.raises(C.ClassError, match="class records are full"):
        _join(db, made, 2, "Bo", address="a2")


def test_a_closed_class_stays_with_its_teacher_for_the_retention_then_is_deleted(db, settings_file):
    settings_file(expiry_hours=2, retention_days=30)
    lesson = L.get_lesson(LESSON)
    made = _class(db)
    _join(db, made, 1, "Ada")
    C.submit(made["code"], "browser-1", LESSON, 1, 0.72, db=db, now=T0 + 60)
    C.reveal(made["code"], "browser-1", LESSON, 1, TRUTH, db=db, now=T0 + 61)
    closed = T0 + 2 * 3600
    with pytest.raises(C.ClassError, match="has closed"):
        C.open_class(made["code"], db=db, now=closed)
    with pytest.raises(C.ClassError, match="has closed"):
        _join(db, made, 2, "Late", now=closed, address="a2")
    with pytest.raises(C.ClassError, match="holds no seat"):
        C.submit(made["code"], "browser-1", LESSON, 2, 0.5, db=db, now=closed)
    s = C.summary(made["code"], made["teacher_key"], lesson, db=db, now=closed + 29 * 86_400)
    assert s["closed"] and s["students"][0]["score"] == 1.0 and "Ada" in C.canvas_csv([s])
    assert C.purge(db=db, now=closed + 29 * 86_400) == 0
    gone = closed + 30 * 86_400
    with pytest.raises(C.ClassError, match="no class"):  # the teacher's visit itself deletes the class's rows
        C.check_teacher(made["code"], made["teacher_key"], db=db, now=gone)
    from core.classroom.schema import class_db

    with class_db(db).read() as tx:
        for table in ("classes", "seats", "answers", "truths"):
            assert tx.scalar(f"SELECT COUNT(*) FROM {table}") == 0, table
    with pytest.raises(C.ClassError, match="no class"):
        C.summary(made["code"], made["teacher_key"], lesson, db=db, now=gone)


def test_the_gradebook_has_one_column_per_lesson_the_class_opened(db):
    first, second = L.get_lesson(LESSON), L.get_lesson("3-reconstruction")
    made = _class(db, ask="student_id")
    _join(db, made, 1, "Ada", ident="s1")
    C.visit(made["code"], "browser-1", LESSON, 1, db=db, now=T0 + 20)
    C.visit(made["code"], "browser-1", second.id, 4, db=db, now=T0 + 30)
    assert C.lessons_answered(made["code"], made["teacher_key"], db=db, now=T0 + 40) == [LESSON, second.id]
    both = [C.summary(made["code"], made["teacher_key"], x, db=db, now=T0 + 40) for x in (first, second)]
    canvas = pd.read_csv(io.StringIO(C.canvas_csv(both)))
    assert list(canvas.columns)[5:] == [f"{first.title} ({LESSON})", f"{second.title} ({second.id})"]
