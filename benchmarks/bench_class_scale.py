"""A course on several parts, on this machine: two lab servers, a Dask scheduler with two workers, a throwaway
PostgreSQL (and, with ``--caddy``, the shipped Caddyfile in front), and a class of simulated students working
through a lesson while one lab server is killed.

What happens, in order (docs/SERVING.md starts the same parts on several machines):

1. PostgreSQL, the Dask scheduler and its workers, then lab servers A and B (``serve.py``, as ``run.sh app``),
   both with ``LAB_DATABASE`` and ``LAB_SCHEDULER``, each with its own local result store; optionally Caddy.
2. A teacher creates the class on server A through the Lessons page's "Teach this lesson" form.
3. ``--students`` students (protocol clients, benchmarks/stclient.py ``Tab``: a browser's websocket, its cookies
   and the widget values it sends) arrive over ``--arrival`` seconds, half on each server (through Caddy: where
   its sticky cookie sends them); each joins with the join form (display name, PIN), then for each of the
   lesson's first ``--steps`` steps sets a prediction, commits it, waits for the step's run and its reveal, and
   goes to the next step, pausing ``--think`` seconds (on average) between actions. ``--heavy`` of them also open
   a heavy lab link in a second tab of the same browser, which stays open while they work.
4. Once ``--kill-at`` of all the commits are made, server B is killed (SIGKILL). Its students' next action fails;
   they reload: directly on server A (or through Caddy, which sends them to A), with the same browser cookie,
   so the class gives them their seat and their committed predictions back from the database, and they go on.
5. At the end the database is read: every prediction a student saw committed must be there, with its value.

Printed: p50/p95 of join (the join button to the page's rerun after the seat was stored), submit (the commit
button to the rerun after the prediction was stored), first plot (commit to the step's first chart), light run
done (commit to the run's "Done:"/"Stored result"), reconnect (reload to the page drawn again); errors; predictions
lost; peak RSS of each part (its process tree); and beside every time figure the 1-minute load average over the
class (mean and peak), since on a shared machine the load, not the lab, may set the times. Goal, on a quiet
2-core machine: 0 errors, 0 predictions lost, light runs done p95 ≤ 30 s.

    .venv/bin/python benchmarks/bench_class_scale.py --students 300 --heavy 3
    .venv/bin/python benchmarks/bench_class_scale.py --students 6 --heavy 1 --steps 2 --think 0.5 --caddy

Not part of CI (minutes of wall time); tests/benchmarks/test_bench_class_scale.py runs it with tiny numbers.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from labcluster import PartMissing, caddy, dask_cluster, postgres  # noqa: E402
from labserver import memory, start  # noqa: E402
from sttab import Tab  # noqa: E402

HEAVY = ["Reconstruction_attack?n=600&trials=20", "Aggregate_statistics?block_size=454&shadows=5000&seed=3",
         "Reconstruction_attack?n=500&trials=25&seed=1", "Synthetic_data?games=60&seed=4"]  # as bench_load.py


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


@dataclass
class Student:
    number: int
    name: str
    pin: str
    server: str  # the address the student first opens (a lab server, or the proxy)
    committed: dict[int, float] = field(default_factory=dict)  # step -> prediction as stored (engine units)
    joins: list[float] = field(default_factory=list)
    submits: list[float] = field(default_factory=list)
    first_plots: list[float] = field(default_factory=list)
    runs_done: list[float] = field(default_factory=list)
    reconnects: list[float] = field(default_factory=list)
    retries: list[str] = field(default_factory=list)  # websocket upgrades refused and tried again
    errors: list[str] = field(default_factory=list)
    finished: bool = False
    heavy: str | None = None


class Course:
    """The shared state of one benchmark run: the students' counters and the moment to kill server B."""

    def __init__(self, total_commits: int, kill_at: float):
        self.total = total_commits
        self.commits = 0
        self.kill_after = max(1, round(kill_at * total_commits)) if kill_at > 0 else None
        self.killed = asyncio.Event()
        self.killed_after = 0
        self.kill_requested = asyncio.Event()

    def committed(self) -> None:
        self.commits += 1
        if self.kill_after is not None and self.commits >= self.kill_after:
            self.kill_requested.set()


def _alerts(tab: Tab) -> str:
    """The page's error and warning boxes (what a student would read when something is refused)."""
    found = [e.alert.body for e in tab.elements if e.WhichOneof("type") == "alert"]
    return f" [page says: {' | '.join(found)[:200]}]" if found else ""


def _prediction(tab: Tab, step, rng: random.Random) -> tuple[str, object, float]:
    """The step's prediction widget, a value for it, and that value in the engine's units (as stored)."""
    p = step.predict
    for element in tab.elements:
        kind = element.WhichOneof("type")
        if kind in ("slider", "radio", "number_input"):
            w = getattr(element, kind)
            if w.label.startswith(p.prompt) and not w.disabled:
                if kind == "radio":
                    index = rng.randrange(len(w.options))
                    return w.label, index, float(index)
                low, high, unit = float(w.min), float(w.max), float(w.step) or 1.0
                value = low + unit * rng.randint(0, int(round((high - low) / unit)))
                value = round(min(value, high), 6)
                return w.label, value, value / (100.0 if p.percent else 1.0)
    raise LookupError(f"no prediction widget for step {step.number}")


async def _act(student: Student, tab: Tab, course: Course, fallback: str | None, action):
    """Run ``action(tab)``; when the server is gone, reload (on ``fallback``, or the same address behind the proxy)
    and return None so the caller looks at the page again."""
    try:
        return await action(tab)
    except ConnectionError as exc:
        if course.kill_after is None:  # no server is killed in this run: a lost connection is an error
            raise
        try:  # only server B dies, on purpose: wait until it has (a student may notice first)
            await asyncio.wait_for(course.killed.wait(), 60)
        except TimeoutError:
            raise exc from None
        t0 = time.perf_counter()
        report = await _open(tab, student, fallback, reload=True)
        if report.error:
            student.errors.append(f"after reconnecting: {report.error}")
        student.reconnects.append(time.perf_counter() - t0)
        return None


async def _heavy_tab(student: Student, base: str, cookies: dict, headers: dict, timeout: float) -> None:
    tab = Tab(base, student.heavy, headers=headers, timeout=timeout)
    tab.cookies = dict(cookies)  # the same browser: its seat's cookie (and the proxy's sticky one)
    try:
        await tab.open()
    except ConnectionError:
        pass  # its server was killed: a heavy tab is not a student's work
    finally:
        await tab.close()


OPEN_TRIES = 5  # a browser whose websocket is refused (the proxy found no server ready) tries again, backing off


async def _open(tab: Tab, student: Student, reload_on: str | None = None, reload: bool = False):
    """Open the page as a browser does: a refused websocket upgrade (a 502/503 from the proxy while every server
    is marked busy) is tried again after 1, 2, 4, 8 s — each retry counted — before it is the student's error."""
    from websockets.exceptions import InvalidStatus

    for attempt in range(OPEN_TRIES):
        try:
            return await (tab.reopen(reload_on) if reload or attempt else tab.open())
        except InvalidStatus as exc:
            student.retries.append(str(exc)[:120])
            if attempt == OPEN_TRIES - 1:
                raise ConnectionError(f"websocket refused {OPEN_TRIES} times: {exc}") from None
            await asyncio.sleep(2 ** attempt)


async def _student(student: Student, lesson, steps: list, code: str, course: Course, delay: float, think: float,
                   fallback: str | None, headers: dict, timeout: float) -> None:
    rng = random.Random(student.number)
    await asyncio.sleep(delay)
    tab = Tab(student.server, f"Lessons?lesson={lesson.id}&step=1&class={code}", headers=headers, timeout=timeout)
    heavy = None

    async def pause():
        if think > 0:
            await asyncio.sleep(rng.uniform(0, 2 * think))

    try:
        report = await _open(tab, student)
        if report.error:
            student.errors.append(f"open: {report.error}")
            return
        # join (the form is the page's first content until the browser holds a seat)
        seated = f"{code} · you are {student.name}"
        while seated not in tab.texts():
            await pause()
            if not tab.has("Display name"):
                student.errors.append(f"no join form{_alerts(tab)}")
                return

            async def join(t):
                t.fill("Display name", student.name)
                t.fill("PIN (4–8 digits)", student.pin)
                return await t.click("Join the class")

            report = await _act(student, tab, course, fallback, join)
            if report is None:
                continue
            if report.error or seated not in tab.texts():
                student.errors.append(f"join: {report.error or 'no seat'}{_alerts(tab)}")
                return
            # the rerun after the seat was stored (st.rerun); the page drawn, if the server coalesced the two
            student.joins.append(report.starts[1] if len(report.starts) > 1 else report.finished)
        if student.heavy:
            heavy = asyncio.ensure_future(_heavy_tab(student, tab.base_url, tab.cookies, headers, timeout))
        for step in steps:
            tries = 0
            while step.number not in student.committed or not tab.has_text("Measured at the lesson's seed"):
                tries += 1
                if tries > 4:
                    student.errors.append(f"step {step.number}: no reveal after {tries - 1} tries")
                    return
                if not tab.query.count(f"step={step.number}"):
                    student.errors.append(f"step {step.number}: the page is at {tab.query}")
                    return
                if tab.has("Commit my prediction", ("button",)):
                    await pause()
                    label, value, stored = _prediction(tab, step, rng)

                    async def commit(t, label=label, value=value):
                        t.fill(label, value)
                        if t.widget("Commit my prediction", ("button",)).disabled:  # a choice: pick it first
                            await t.run()
                        return await t.click("Commit my prediction")

                    report = await _act(student, tab, course, fallback, commit)
                    if report is None:  # reloaded: was it stored before the server went?
                        if not tab.has("Commit my prediction", ("button",)):
                            student.committed[step.number] = stored
                            course.committed()
                        continue
                    if report.error:
                        student.errors.append(f"step {step.number}: {report.error}{_alerts(tab)}")
                        return
                    if tab.has("Commit my prediction", ("button",)):
                        student.errors.append(f"step {step.number}: the commit was not taken{_alerts(tab)}")
                        return
                    student.committed[step.number] = stored
                    course.committed()
                    student.submits.append(report.starts[1] if len(report.starts) > 1 else report.finished)
                    if report.first_plot is not None:
                        student.first_plots.append(report.first_plot)
                    if report.done is not None:
                        student.runs_done.append(report.done)
                elif step.number not in student.committed:  # restored from the database after a reload
                    student.errors.append(f"step {step.number}: shown as committed, but not by this student")
                    return
                elif not tab.has_text("Measured at the lesson's seed"):  # a reload while its run went on
                    report = await _act(student, tab, course, fallback, lambda t: t.run())
                    if report is not None and report.error:
                        student.errors.append(f"step {step.number}: {report.error}")
                        return
            if step is not steps[-1]:
                await pause()
                for _ in range(4):
                    report = await _act(student, tab, course, fallback, lambda t: t.click("Next step →"))
                    if report is not None and report.error:
                        student.errors.append(f"next step: {report.error}")
                        return
                    if f"step={step.number + 1}" in tab.query:
                        break
                else:
                    student.errors.append(f"step {step.number}: the next step did not open")
                    return
        student.finished = True
    except (ConnectionError, LookupError, OSError) as exc:
        student.errors.append(f"{type(exc).__name__}: {exc}"[:300])
    finally:
        if heavy is not None:
            heavy.cancel()
        await tab.close()


async def _create_class(url: str, lesson_id: str, size: int, timeout: float) -> dict:
    """The teacher's form on the Lessons page (server A): expected size, Create a class; the code and key are read
    from the page, as the teacher copies them."""
    async with Tab(url, f"Lessons?lesson={lesson_id}", timeout=timeout) as tab:
        tab.fill("Expected class size", size)
        report = await tab.click("Create a class")
        if report.error:
            raise RuntimeError(f"class creation: {report.error}")
        codes = [e.code.code_text for e in tab.elements if e.WhichOneof("type") == "code"]
        if len(codes) < 2:
            raise RuntimeError(f"class creation: no code on the page ({' | '.join(tab.texts())[-300:]})")
        return {"code": codes[0], "teacher_key": codes[1]}


class Watch:
    """Peak RSS of each part's process tree and the 1-minute load average, sampled every second."""

    def __init__(self, parts: dict[str, int]):
        self.parts = dict(parts)
        self.peak = {name: 0 for name in parts}
        self.loads: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            for name, pid in list(self.parts.items()):
                self.peak[name] = max(self.peak[name], memory(pid)[0])
            self.loads.append((time.perf_counter(), os.getloadavg()[0]))

    def __enter__(self) -> "Watch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def load(self, start: float, end: float) -> str:
        window = [x for at, x in self.loads if start <= at <= end]
        if not window:
            return "load " + ", ".join(f"{x:.1f}" for x in os.getloadavg())
        return f"load {statistics.fmean(window):.1f} mean / {max(window):.1f} peak"


def _verify(database: str, code: str, lesson_id: str, students: list[Student]) -> tuple[int, int, int]:
    """(predictions lost, seats in the database, predictions in the database): a prediction a student saw committed
    and the database does not hold with the same value is lost."""
    import psycopg

    with psycopg.connect(database) as conn:
        seats = conn.execute("SELECT name FROM seats WHERE code = %s", (code,)).fetchall()
        rows = conn.execute("SELECT s.name, a.step, a.prediction FROM answers a JOIN seats s ON s.code = a.code AND "
                            "s.seat = a.seat WHERE a.code = %s AND a.lesson = %s AND a.prediction IS NOT NULL",
                            (code, lesson_id)).fetchall()
    stored = {(name, int(step)): float(value) for name, step, value in rows}
    lost = 0
    for s in students:
        for number, value in s.committed.items():
            got = stored.get((s.name, number))
            if got is None or abs(got - value) > 1e-9 * max(1.0, abs(value)):
                lost += 1
    return lost, len(seats), len(stored)


def main(argv: list[str] | None = None) -> int:
    try:
        out = measure(argv)
    except PartMissing as exc:
        print(f"cannot run: {exc}")
        return 2
    return 0 if out["errors"] == 0 and out["lost"] == 0 and out["finished"] == out["students"] else 1


def measure(argv: list[str] | None = None) -> dict:
    """Start the parts, run the class, print the figures and return them (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=300)
    ap.add_argument("--heavy", type=int, default=3, help="students who also open a heavy lab link in another tab")
    ap.add_argument("--lesson", default="3-reconstruction")
    ap.add_argument("--steps", type=int, default=0, help="the lesson's first N steps (default: all)")
    ap.add_argument("--arrival", type=float, default=120.0, help="seconds over which the students arrive")
    ap.add_argument("--think", type=float, default=5.0, help="mean seconds a student pauses before each action")
    ap.add_argument("--kill-at", type=float, default=0.5,
                    help="kill server B once this share of all the commits is made (0: never)")
    ap.add_argument("--workers", type=int, default=2, help="Dask worker processes")
    ap.add_argument("--caddy", action="store_true", help="the students reach the servers through deploy/Caddyfile")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds one action may take")
    ap.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    args = ap.parse_args(argv)

    from core.studies.lessons import lesson_files as L

    lesson = L.get_lesson(args.lesson)
    steps = lesson.steps[:args.steps] if args.steps else list(lesson.steps)
    folder = Path(tempfile.mkdtemp(prefix="bench-class-scale-"))
    # Class bounds sized for the run. Through the proxy every student arrives from one address (this machine's,
    # as a class behind a campus NAT does), so the per-address join limit must admit the whole class.
    settings_file = folder / "lab_settings.toml"
    settings_file.write_text(f"[classes]\nmax_students = {max(args.students, 40)}\n"
                             f"joins_per_address_per_hour = {max(args.students + 10, 60)}\n")
    t_start = time.perf_counter()
    with postgres() as pg, dask_cluster(args.workers, logs=folder) as dask:
        database = pg.create_database("lab")
        env = {"LAB_DATABASE": database, "LAB_SCHEDULER": dask.address, "LAB_SETTINGS": str(settings_file)}
        logs = {name: open(folder / f"server-{name}.log", "w") for name in "AB"}
        a = start(env={**env, "LAB_STORE": str(folder / "store-a")}, log=logs["A"])
        try:
            b = start(env={**env, "LAB_STORE": str(folder / "store-b")}, log=logs["B"])
        except BaseException:
            a.stop()
            raise
        parts = {"server A": a.proc.pid, "server B": b.proc.pid, "scheduler": dask.scheduler.pid,
                 **{f"worker {i + 1}": w.pid for i, w in enumerate(dask.workers)},
                 **{"postgres": pid for pid in pg.pids()}}
        try:
            with Watch(parts) as watch:
                if args.caddy:
                    with caddy([f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"], folder / "caddy") as proxy:
                        watch.parts["caddy"] = proxy.proc.pid
                        watch.peak["caddy"] = 0
                        out = asyncio.run(_course(args, lesson, steps, a, b, proxy.url, database, watch))
                else:
                    out = asyncio.run(_course(args, lesson, steps, a, b, None, database, watch))
        finally:
            for server in (a, b):
                if server.proc.poll() is None:
                    server.stop()
            for log in logs.values():
                log.close()
    out["wall_seconds"] = round(time.perf_counter() - t_start, 1)
    print(f"wall {out['wall_seconds']:.0f} s (parts started and stopped included); logs in {folder}")
    if args.json:
        print(json.dumps(out))
    return out


async def _course(args, lesson, steps, a, b, proxy: str | None, database: str, watch: Watch) -> dict:
    made = await _create_class(a.url, lesson.id, args.students, args.timeout)
    students = []
    heavy_at = {round(i * args.students / args.heavy) for i in range(args.heavy)} if args.heavy else set()
    for i in range(args.students):
        first = proxy or (a.url if i % 2 == 0 else b.url)
        s = Student(i + 1, f"Student {i + 1}", f"{1000 + i}", first)
        if i in heavy_at:
            s.heavy = HEAVY[len([j for j in heavy_at if j < i]) % len(HEAVY)]
        students.append(s)
    course = Course(len(students) * len(steps), args.kill_at)
    rng = random.Random(0)  # one generator drawn from per student (a fresh one per draw gave all the same instant)
    arrivals = sorted(rng.uniform(0, args.arrival) for _ in students)

    def headers(s: Student) -> dict:
        # direct: each student from their own address, as the proxy would say (the servers trust it from here)
        return {} if proxy else {"X-Forwarded-For": f"10.{s.number // 250}.{s.number % 250}.7"}

    async def killer():
        await course.kill_requested.wait()
        course.killed_after = course.commits
        b.proc.send_signal(signal.SIGKILL)
        b.proc.wait()
        watch.parts.pop("server B", None)
        course.killed.set()

    kill_task = asyncio.ensure_future(killer())
    t0 = time.perf_counter()
    await asyncio.gather(*(
        _student(s, lesson, steps, made["code"], course, delay, args.think, None if proxy else a.url, headers(s),
                 args.timeout) for s, delay in zip(students, arrivals)))
    t1 = time.perf_counter()
    kill_task.cancel()
    lost, seats, stored = _verify(database, made["code"], lesson.id, students)
    load = watch.load(t0, t1)

    def figure(name: str, values: list[float]) -> str:
        return (f"{name:34s} n={len(values):5d}  p50 {_pct(values, .5):7.2f} s  p95 {_pct(values, .95):7.2f} s  "
                f"max {max(values) if values else float('nan'):7.2f} s   ({load})")

    allof = lambda key: [x for s in students for x in getattr(s, key)]  # noqa: E731
    errors = [e for s in students for e in s.errors]
    finished = sum(s.finished for s in students)
    moved = sum(1 for s in students if s.reconnects)
    print(f"{args.students} students, lesson {lesson.id} ({len(steps)} of {len(lesson.steps)} steps), "
          f"{args.heavy} heavy links, arrival over {args.arrival:.0f} s, think {args.think:g} s; two lab servers"
          f"{' behind Caddy' if proxy else ''}, {args.workers} Dask workers, PostgreSQL; {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    kill_text = (f"server B killed (SIGKILL) after {course.killed_after} of {course.total} commits"
                 if course.killed.is_set() else "no server killed")
    print(f"class {t1 - t0:.0f} s; {kill_text}; {moved} students reloaded onto the other server "
          f"({sum(len(s.reconnects) for s in students)} reloads)")
    print(figure("join (button → seat stored)", allof("joins")))
    print(figure("submit (commit → prediction stored)", allof("submits")))
    print(figure("first plot (commit → chart)", allof("first_plots")))
    print(figure("light run done (commit → Done)", allof("runs_done")))
    print(figure("reconnect (reload → page drawn)", allof("reconnects")))
    print(f"errors: {len(errors)}" + (f" — {'; '.join(sorted(set(errors)))[:400]}" if errors else "")
          + f"; websocket upgrades refused and tried again: {len(allof('retries'))}")
    print(f"students finished: {finished} of {len(students)}; seats in the database: {seats}; predictions "
          f"committed (seen by the students): {sum(len(s.committed) for s in students)}, in the database: {stored}; "
          f"predictions lost: {lost}")
    print("peak RSS per part (process tree): " + ", ".join(f"{name} {rss / 1e6:.0f} MB"
                                                          for name, rss in watch.peak.items()))
    return {"students": args.students, "finished": finished, "errors": len(errors), "lost": lost,
            "join_p95": _pct(allof("joins"), .95), "submit_p95": _pct(allof("submits"), .95),
            "first_plot_p95": _pct(allof("first_plots"), .95), "run_done_p95": _pct(allof("runs_done"), .95),
            "reconnects": sum(len(s.reconnects) for s in students), "killed": course.killed.is_set(),
            "load": load, "peak_rss_mb": {k: round(v / 1e6) for k, v in watch.peak.items()},
            "class_seconds": round(t1 - t0, 1), "error_samples": sorted(set(errors))[:5]}


if __name__ == "__main__":
    sys.exit(main())
