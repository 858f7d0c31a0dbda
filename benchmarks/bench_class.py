"""A class through one lesson on the code the Lessons page calls — 30 students by default, 300 on one server with
``--students 300``.

Each simulated student is a thread (the server's sessions are threads too), with its own browser: it joins the class
(display name, PIN), and for every step opens it, commits a prediction (the timed database write), runs the step
through the single-flight, store-backed step runner and records the reveal. The teacher's view then aggregates the
class once and builds the three downloads. Prints one JSON line:

* ``join_p95_seconds`` / ``submit_p95_seconds`` — one join, one prediction stored (goal ≤ 0.2 s), 95th percentile;
* ``teacher_view_seconds`` — the teacher view's aggregation plus the per-step, Canvas and Moodle CSVs (goal ≤ 1 s);
* ``database_bytes_per_student`` — growth of the database file(s) over the class, per student, beside the bytes
  the class's own bound counts (``class_bytes_per_student``);
* ``engine_runs`` against ``distinct_configs`` — runs the class caused (goal: one per step configuration).

Usage: ``python benchmarks/bench_class.py [--students 300] [--lesson 3-reconstruction]
[--database postgresql://…]`` (default: a temporary SQLite file and a temporary result store).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--lesson", default="3-reconstruction")
    ap.add_argument("--database", default=None, help="a postgresql:// address (default: a temporary SQLite file)")
    args = ap.parse_args()

    import numpy as np

    folder = Path(tempfile.mkdtemp(prefix="bench-class-"))
    # the class bounds sized for the run: one visitor per student, no daily creation limit in the way
    settings_file = folder / "lab_settings.toml"
    settings_file.write_text(f"[classes]\nmax_students = {max(args.students, 1)}\n")
    os.environ["LAB_SETTINGS"] = str(settings_file)

    from core import classroom
    from core.db import open_database
    from core.runtime.store import ResultStore, result_key
    from core.studies.lessons import lesson_runs as R
    from core.studies.lessons import lesson_files as L

    store = ResultStore(folder / "results")
    db = open_database(args.database or str(folder / "records" / "lab.sqlite3"))
    lesson = L.get_lesson(args.lesson)
    made = classroom.create_class(lesson.id, capacity=args.students, db=db)
    settle = getattr(db, "checkpoint", lambda: None)  # SQLite: the write-ahead log folded in, before measuring
    settle()
    size_before = db.size_bytes()
    joins: list[float] = []
    submits: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(args.students)

    def student(i: int) -> None:
        rng = np.random.default_rng(i)
        browser = f"bench-browser-{i}"
        try:
            t0 = time.perf_counter()
            classroom.join(made["code"], f"student {i + 1}", f"{1000 + i}", browser=browser,
                           visitor=classroom.Visitor(browser=browser), db=db)
            with lock:
                joins.append(time.perf_counter() - t0)
        except Exception as exc:
            with lock:
                errors.append(f"join: {type(exc).__name__}: {exc}")
            return
        finally:
            start.wait()  # everyone on the same step at the same moment: the worst case for the database
        try:
            for step in lesson.steps:
                classroom.visit(made["code"], browser, lesson.id, step.number, db=db)
                p = step.predict
                guess = (int(rng.integers(len(p.options))) if p.kind == "choice"
                         else float(np.clip(rng.normal((p.low + p.high) / 2, (p.high - p.low) / 4), p.low, p.high)))
                t0 = time.perf_counter()
                classroom.submit(made["code"], browser, lesson.id, step.number, guess, db=db)
                took = time.perf_counter() - t0
                result, _ = R.play_step(lesson, step, store=store)
                classroom.reveal(made["code"], browser, lesson.id, step.number, R.measured(step, result.metrics),
                                 db=db)
                with lock:
                    submits.append(took)
        except Exception as exc:  # reported, not hidden
            with lock:
                errors.append(f"{type(exc).__name__}: {exc}")

    before = dict(R.RUNS)
    t0 = time.perf_counter()
    threads = [threading.Thread(target=student, args=(i,)) for i in range(args.students)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    class_seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    summary = classroom.summary(made["code"], made["teacher_key"], lesson, db=db)
    classroom.grades_csv(summary)
    classroom.canvas_csv([summary])
    classroom.moodle_csv([summary])
    teacher = time.perf_counter() - t1
    configs = set()
    for step in lesson.steps:
        config = R.step_config(lesson, step)
        seed = config.pop("seed")
        configs.add(result_key(step.runner, config, seed))
    n = max(summary["n_students"], 1)
    settle()
    print(json.dumps({
        "students": args.students, "lesson": lesson.id, "steps": len(lesson.steps), "database": db.backend,
        "join_p95_seconds": round(float(np.percentile(joins, 95)), 4) if joins else None,
        "submit_p95_seconds": round(float(np.percentile(submits, 95)), 4) if submits else None,
        "submit_max_seconds": round(max(submits), 4) if submits else None,
        "teacher_view_seconds": round(teacher, 4),
        "database_bytes_per_student": round((db.size_bytes() - size_before) / n),
        "class_bytes_per_student": round(summary["bytes"] / n),
        "engine_runs": R.RUNS["engine"] - before["engine"], "distinct_configs": len(configs),
        "stored_hits": R.RUNS["stored"] - before["stored"],
        "answered": sum(s["answered"] for s in summary["steps"]), "class_seconds": round(class_seconds, 2),
        "errors": errors[:3],
    }))
    db.close()


if __name__ == "__main__":
    main()
