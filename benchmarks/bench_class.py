"""A class of 30 students through lesson 3 (reconstruction), on the code the Lessons page calls.

Each simulated student is a thread (the server's sessions are threads too): it joins the class, and for every step
opens it, commits a prediction (the timed store write), runs the step through the single-flight, store-backed step
runner and records the reveal. The teacher's view then aggregates the class once. Prints one JSON line:

* ``submit_p95_seconds`` — one prediction stored (goal ≤ 0.2 s), 95th percentile over every submit;
* ``aggregate_seconds`` — the teacher view's aggregation for the class, grades CSV included (goal ≤ 1 s);
* ``engine_runs`` against ``distinct_configs`` — runs the 30 students caused (goal: one per step configuration).

Usage: ``python benchmarks/bench_class.py [--students 30] [--lesson 3-reconstruction]`` (a temporary store).
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
    args = ap.parse_args()

    import numpy as np

    from core.runtime.store import ResultStore, result_key
    from core.studies import classroom
    from core.studies import lesson_runs as R
    from core.studies import lessons as L

    folder = Path(tempfile.mkdtemp(prefix="bench-class-"))
    store = ResultStore(folder)  # the runs
    classes = classroom.ClassStore(folder / "classes")  # the class's documents, where the app keeps them
    lesson = L.get_lesson(args.lesson)
    made = classroom.create_class(lesson.id, store=classes)
    submits: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(args.students)

    def student(i: int) -> None:
        rng = np.random.default_rng(i)
        try:
            sid = classroom.join(made["code"], f"student {i + 1}", store=classes)
            start.wait()  # everyone on the same step at the same moment: the worst case for the store
            for step in lesson.steps:
                classroom.visit(made["code"], sid, lesson.id, step.number, store=classes)
                p = step.predict
                guess = (int(rng.integers(len(p.options))) if p.kind == "choice"
                         else float(np.clip(rng.normal((p.low + p.high) / 2, (p.high - p.low) / 4), p.low, p.high)))
                t0 = time.perf_counter()
                classroom.submit(made["code"], sid, lesson.id, step.number, guess, store=classes)
                took = time.perf_counter() - t0
                result, _ = R.play_step(lesson, step, store=store)
                classroom.reveal(made["code"], sid, lesson.id, step.number, R.measured(step, result.metrics),
                                 store=classes)
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
    summary = classroom.summary(made["code"], made["teacher_key"], lesson, store=classes)
    classroom.grades_csv(summary)
    aggregate = time.perf_counter() - t1
    configs = set()
    for step in lesson.steps:
        config = R.step_config(lesson, step)
        seed = config.pop("seed")
        configs.add(result_key(step.runner, config, seed))
    print(json.dumps({
        "students": args.students, "lesson": lesson.id, "steps": len(lesson.steps),
        "submit_p95_seconds": round(float(np.percentile(submits, 95)), 4) if submits else None,
        "submit_max_seconds": round(max(submits), 4) if submits else None,
        "aggregate_seconds": round(aggregate, 4),
        "engine_runs": R.RUNS["engine"] - before["engine"], "distinct_configs": len(configs),
        "stored_hits": R.RUNS["stored"] - before["stored"],
        "answered": sum(s["answered"] for s in summary["steps"]), "class_seconds": round(class_seconds, 2),
        "errors": errors[:3],
    }))


if __name__ == "__main__":
    main()
