"""Command line: ``python -m core list | run SCENARIO [--set KEY=VALUE ...] [--seed N] [--json PATH] | sweep | lessons |
epsilon E [--delta D] [--prior P]``.

``epsilon`` prints one JSON object: the attacker's best belief after a release at ε (``posterior_bound``, from
prior P, default 0.5), the same in words (``odds_text``) and the real deployments nearest in ε with their units.

``run`` prints one JSON object with keys ``scenario``, ``config`` (every
parameter used, defaults and seed included), ``metrics`` (flat name → number),
``series`` (plot data), ``seconds``, ``timings`` and ``exposure`` (who is exposed: the per-record risk table,
see :mod:`core.measure.records`; ``--records out.csv`` also writes it as CSV). Bad parameters exit with status 2 and
a one-line message naming the parameter and its allowed range.

Everything that can be checked is checked before the first game: the ``--json``
path is writable, every sweep grid point is valid, ``--jobs`` is capped at the
usable cores. A ``--set`` parameter that has no effect under the other choices
(``Param.active_when``) gets a one-line warning on stderr.

Every error is one line on stderr (usage mistakes included) and exit status 2 for bad input, 1 for a
failed run. SIGINT (Ctrl-C) and SIGTERM stop a ``run`` or ``sweep`` cleanly: the worker processes are
ended within a second or two, the games (``run``) or grid points (``sweep``) finished so far are printed
and written to ``--json`` marked ``"completed": false``, and the exit status is 130 (SIGINT) or 143
(SIGTERM), as a shell reports a process ended by that signal. A worker process that dies mid-run
(``kill -9``, the out-of-memory killer) ends the run with one line and the retry hint, exit 1.

One module: the parser and the handlers of its five commands share the same checks (file parameters, the memory
guard, progress, the signal handling), and a reader follows a command from its flag to its output in one file.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

from .basics.settings import settings
from .basics.words import count
from .cost import check_memory_guard
from .errors import Cancelled, Interrupted, LabError, ParameterError
from .runtime.games import Progress, run
from .scenario import all_scenarios, get
from .studies.file_defaults import fit_defaults, shorter_hint
from .studies.link_rules import check_file_params
from .runtime.store import run_stored
from .runtime.sweep import plan, sweep, sweep_cost, usable_cores
from .studies.lessons import lesson_runs as R
from .studies.lessons import lesson_files as L
from .measure.records import RecordTable, to_frame
from .studies.presets import resolve_saved_run

PROGRESS_AFTER = 3.0  # seconds: runs and sweeps longer than this report progress on stderr unasked
PROGRESS_EVERY = 2.0  # seconds between progress lines when stderr is not a terminal (a log file)
ANNOUNCE_SECONDS = 5.0  # estimated seconds above which the estimate is printed before the run starts


class UsageError(ParameterError):
    """A command line argparse could not parse (unknown option, ``--seed abc``): one line, exit 2."""

    def __str__(self) -> str:
        return self.message


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one ``error:`` line (the caller prints it) instead of the usage block."""

    def error(self, message: str):  # argparse calls this for every usage mistake
        raise UsageError("usage", f"{message} (see `{self.prog} --help`)")


def _store_flags(p: argparse.ArgumentParser, what: str) -> None:
    """The result-store options, the same on ``run`` and ``sweep`` (scripts can pass one set to both)."""
    p.add_argument("--no-store", action="store_true",
                   help=f"run afresh: neither read nor write the shared result store (lab_settings.toml){what}")


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="python -m core", description="Privacy-attack lab engine")
    sub = ap.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="list scenarios with their parameters")
    ls.add_argument("--json", action="store_true", help="print the list as JSON")
    r = sub.add_parser("run", help="run a scenario and print its result as JSON")
    r.add_argument("scenario", nargs="?", help="scenario name (optional with --config or --preset)")
    r.add_argument("--config", metavar="FILE", help="rerun a saved configuration (the JSON export of a run or "
                   "a report); --set and --seed given explicitly override it")
    r.add_argument("--preset", metavar="NAME", help="run a paper preset (see content/presets.toml)")
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="override a parameter (repeatable)")
    r.add_argument("--seed", type=int, default=None, help="random seed (default 0, or the saved one)")
    r.add_argument("--json", dest="json_path", metavar="PATH", help="also write the JSON to PATH")
    r.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; at most the usable cores)")
    r.add_argument("--records", nargs="?", const=True, default=None, metavar="CSV",
                   help="with a path: write the run's per-record risk table (who is exposed: id, known attributes, "
                        "secret, guess, score, correct, tier, reason, k) to that CSV file; without one: include "
                        "the per-game records in the JSON output")
    r.add_argument("--progress", action="store_true", help="print progress to stderr")
    _store_flags(r, "")
    sw = sub.add_parser("sweep", help="run a scenario over a grid of parameter values")
    sw.add_argument("scenario")
    sw.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...",
                    help="a parameter and the values to sweep it over (repeatable: Cartesian product)")
    sw.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="fix a parameter (repeatable)")
    sw.add_argument("--seed", type=int, default=0)
    sw.add_argument("--json", dest="json_path", metavar="PATH", help="also write the JSON to PATH")
    sw.add_argument("--jobs", type=int, default=None,
                    help="local worker processes (default 1; at most the usable cores); with --scheduler local: "
                         "the LocalCluster's workers (default: the usable cores)")
    sw.add_argument("--scheduler", metavar="local|ADDRESS",
                    help="run the grid's games on Dask: 'local' starts a LocalCluster, an address such as "
                         "tcp://HOST:8786 joins a running `dask scheduler`")
    sw.add_argument("--progress", action="store_true",
                    help="print progress to stderr from the start (it is printed anyway after a few seconds)")
    _store_flags(sw, "; sweeps are always computed afresh, so this only states it")
    le = sub.add_parser("lessons", help="list the lessons (content/lessons/*.toml) as JSON, check them, or "
                        "write a lesson's printable handout")
    le.add_argument("--check", action="store_true", help="validate every lesson file and play every step at small "
                    "size: one JSON line per step; exits 1 with one line per broken lesson")
    le.add_argument("--lesson", metavar="ID", help="only this lesson")
    le.add_argument("--full", action="store_true", help="with --check: play the steps at the lesson's own size")
    le.add_argument("--handout", metavar="ID", help="write the students' printable offline HTML handout of lesson "
                    "ID (prompts and empty prediction boxes, no answers)")
    le.add_argument("--teacher", action="store_true", help="with --handout: write the teacher's key instead (the "
                    "reference runs at the lesson's seed, through the result store: measurements, reveals, plots)")
    le.add_argument("--out", metavar="PATH", help="where --handout writes (default: ID-handout.html, or "
                    "ID-teacher-key.html with --teacher)")
    ep = sub.add_parser("epsilon", help="an ε in plain words, beside real deployments (JSON)")
    ep.add_argument("epsilon", type=float, help="the privacy budget ε (> 0)")
    ep.add_argument("--delta", type=float, default=0.0, help="δ (default 0: pure ε-DP)")
    ep.add_argument("--prior", type=float, default=0.5, help="the attacker's prior belief (default 0.5)")
    ep.add_argument("--deployments", type=int, default=5, help="how many nearest deployments (default 5)")
    return ap


def _lessons(args) -> int:
    if args.handout:
        # lazy: start-up time (pandas, plotly only when used)
        from .studies.lessons.handout import handout_html, teacher_key_html

        lesson = L.get_lesson(args.handout)
        path = args.out or f"{lesson.id}-{'teacher-key' if args.teacher else 'handout'}.html"
        _check_output_path(path)
        html = teacher_key_html(lesson, R.reference_runs(lesson)) if args.teacher else handout_html(lesson)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(html)
        print(json.dumps({"lesson": lesson.id, "handout": path, "bytes": len(html.encode())}))
        return 0
    lessons, problems = L.load_lessons()
    if args.lesson:
        if args.lesson not in lessons and not any(p.startswith(f"lessons/{args.lesson}.toml:") for p in problems):
            raise ParameterError("--lesson", f"unknown lesson {args.lesson!r}; known: {', '.join(lessons)}")
        lessons = {k: v for k, v in lessons.items() if k == args.lesson}
        problems = [p for p in problems if p.startswith(f"lessons/{args.lesson}.toml:")]
    if not args.check:
        print(json.dumps([lesson.describe() for lesson in lessons.values()], indent=2))
        return 0 if not problems else 1
    broken = R.group_problems(problems)
    for lesson in lessons.values():
        failed = []
        for line in R.check_lesson(lesson, small=not args.full):
            if "error" in line:
                failed.append(f"step {line['step']}: {line['error']}")
            print(json.dumps(line), flush=True)
        if failed:  # one line per broken lesson: its first failing step, and how many more failed
            more = f" (and {len(failed) - 1} more step{'s' if len(failed) > 2 else ''})" if len(failed) > 1 else ""
            broken[lesson.file] = f"{lesson.file}: {failed[0]}{more}"
    for file in sorted(broken):
        print(broken[file], file=sys.stderr)
    return 1 if broken else 0


def _list(as_json: bool) -> None:
    scenarios = all_scenarios()
    if as_json:
        print(json.dumps([s.describe() for s in scenarios.values()], indent=2))
        return
    for sc in scenarios.values():
        print(f"{sc.name}: {sc.title}")
        print(f"    {sc.summary}")
        for p in sc.params:
            print(f"    --set {p.name}=<{p.kind}>  {p.range_text()}; default {p.default!r}. {p.help}")
        print()


def _overrides(scenario, sets: list[str], warn: bool = True) -> dict:
    out, given = {}, {}
    for item in sets:
        if "=" not in item:
            raise ParameterError(item, "expected KEY=VALUE")
        key, value = item.split("=", 1)
        key = key.strip()
        if warn and key in given and given[key] != value:
            print(f"warning: --set {key} given twice ({key}={given[key]}, then {key}={value}); the last one, "
                  f"{key}={value}, is used", file=sys.stderr)
        given[key] = value
        try:
            param = scenario.param(key)
        except KeyError:
            known = ", ".join(p.name for p in scenario.params)
            raise ParameterError(key, f"unknown parameter for {scenario.name}; known: {known}") from None
        out[key] = param.parse(value)
    return out


def _check_output_path(path: str | None, option: str = "--json") -> None:
    """Fail before the run, not after it, if the result cannot be written to ``path``."""
    if not path:
        return
    if os.path.isdir(path):
        raise ParameterError(option, f"{path!r} is a directory; give a file path")
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise ParameterError(option, f"cannot write {path!r} ({exc.strerror or exc})") from None
    if not existed:
        os.remove(path)


def _write(path: str | None, text: str) -> None:
    if path:
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError as exc:  # checked before the run; the disk may still fill up
            raise ParameterError("--json", f"cannot write {path!r} ({exc.strerror or exc})") from None


def _write_records(path: str, result) -> None:
    """The per-record risk table as CSV (text cells neutralised against spreadsheet formulas)."""
    # lazy: start-up time (pandas only when used)
    from .output.safe_csv import to_csv

    table = RecordTable.from_dict(result.exposure)
    if table is None:
        raise ParameterError("--records", f"scenario {result.scenario!r} returned no per-record table")
    text = to_csv(to_frame(table))
    try:
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        raise ParameterError("--records", f"cannot write {path!r} ({exc.strerror or exc})") from None
    if table.truncated:
        print(f"note: {table.notes[-1]}", file=sys.stderr)


def _jobs(requested: int) -> int:
    if requested < 1:
        raise ParameterError("--jobs", f"expected int >= 1, got {requested}")
    cores = usable_cores()
    if requested > cores:
        print(f"note: --jobs {requested} capped at {cores}, the number of usable CPU cores", file=sys.stderr)
        return cores
    return requested


def _warn_inactive(scenario, config: dict, explicit, where: str = "") -> list[str]:
    """One stderr line per explicitly set parameter that has no effect under ``config``."""
    lines = []
    for name, reason in scenario.inactive(config).items():
        if name in explicit:
            lines.append(f"warning: {name}={config[name]!r} has no effect{where}: {reason}")
    for line in lines:
        print(line, file=sys.stderr)
    return lines


class _Stop:
    """SIGINT/SIGTERM during a run: remembered (the runner's stop check) and raised once as :class:`Interrupted`.

    Raising is what unblocks the main thread when it waits inside joblib for a batch of games: joblib then
    ends its worker processes (``abort_everything``), and the runner keeps what had come back. Later signals
    only confirm the stop, so a second Ctrl-C cannot interrupt the clean-up.
    """

    def __init__(self):
        self.signum: int | None = None
        self.raising = True  # off once the result is in hand: a late signal must not cut the output short

    def __call__(self) -> bool:
        return self.signum is not None

    def _handle(self, signum, _frame) -> None:
        first = self.signum is None
        self.signum = signum
        if first and self.raising:
            raise Interrupted(signum)

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum else ""

    @property
    def exit_code(self) -> int:
        return 128 + int(self.signum or signal.SIGINT)  # what a shell reports for a process ended by the signal

    @contextmanager
    def installed(self) -> Iterator["_Stop"]:
        if threading.current_thread() is not threading.main_thread():  # handlers live in the main thread only
            yield self
            return
        old = {s: signal.signal(s, self._handle) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            for s, h in old.items():
                signal.signal(s, h)


class _Ticker:
    """Progress on stderr: from the start with ``--progress``, otherwise once a run has lasted PROGRESS_AFTER s.

    On a terminal the line is rewritten in place; into a file (a log) a new line at most every PROGRESS_EVERY s.
    """

    def __init__(self, always: bool):
        self.always = always
        self.start = time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.last = -1e9
        self.open_line = False

    def __call__(self, text: str) -> None:
        now = time.perf_counter()
        if not self.always and now - self.start < PROGRESS_AFTER:
            return
        if self.tty:
            print(f"\r{text}", end="", file=sys.stderr, flush=True)
            self.open_line = True
        elif now - self.last >= PROGRESS_EVERY:
            print(text, file=sys.stderr, flush=True)
            self.last = now

    def end(self) -> None:
        if self.open_line:
            print(file=sys.stderr)
            self.open_line = False


def _announce(cost, what: str, hint: str = "") -> None:
    """The cost estimate before a long run starts, so a mistyped size is noticed at once, not hours later;
    ``hint``: how to make a long one shorter.

    The memory guard comes first (the runner applies it again): a refused run gets its one error line only.
    """
    check_memory_guard(cost, settings().memory_guard_fraction)
    if cost.seconds > ANNOUNCE_SECONDS:
        print(f"note: {what} is estimated at {cost.text()} (on one core){hint}; Ctrl-C or SIGTERM stops it and "
              "keeps what has finished", file=sys.stderr)


def _stopped_line(stop: _Stop, done: str, path: str | None) -> str:
    where = f"printed and written to {path}" if path else "printed"
    return f"stopped by {stop.name} after {done}; the finished part is {where} (marked \"completed\": false)"


def main(argv: list[str] | None = None) -> int:
    stop = _Stop()
    try:
        args = _parser().parse_args(argv)
        if args.command == "list":
            _list(args.json)
            return 0
        if args.command == "lessons":
            return _lessons(args)
        if args.command == "epsilon":
            # lazy: start-up time (scipy only when used)
            from .studies.choosing_epsilon.epsilon_context import epsilon_in_context
            print(json.dumps(epsilon_in_context(args.epsilon, args.delta, args.prior, args.deployments)))
            return 0
        with stop.installed():
            return _sweep(args, stop) if args.command == "sweep" else _run(args, stop)
    except Interrupted as exc:  # stopped before anything could be kept (while preparing, or while summarising)
        print(f"stopped by {exc.name} before any result was complete; nothing was written", file=sys.stderr)
        return 128 + exc.signum
    except ParameterError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except Cancelled as exc:  # a stop the engine turned into an error (e.g. while connecting to Dask)
        print(f"stopped: {exc}", file=sys.stderr)
        return stop.exit_code
    except LabError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 1


def _one_line(exc: BaseException) -> str:
    """The message on one line (a reader's or solver's text may carry line breaks): scripts read stderr by line."""
    return " ".join(str(exc).split())


def _sweep(args, stop: _Stop) -> int:
    scenario = get(args.scenario)
    overrides = _overrides(scenario, args.sets)
    check_file_params(scenario, overrides)
    if args.seed < 0:
        raise ParameterError("seed", f"expected int >= 0, got {args.seed}")
    _check_output_path(args.json_path)
    grid = {}
    for item in args.vary:
        key, sep, values = item.partition("=")
        key = key.strip()
        if not sep:
            raise ParameterError(item, "expected KEY=V1,V2,...")
        if key in grid:
            raise ParameterError(key, "is varied twice; give all its values in one --vary KEY=V1,V2,...")
        grid[key] = [_overrides(scenario, [f"{key}={v}"])[key] for v in values.split(",") if v.strip()]
    if args.scheduler is None:
        jobs = _jobs(1 if args.jobs is None else args.jobs)
    elif args.scheduler == "local":
        jobs = _jobs(usable_cores() if args.jobs is None else args.jobs)
    else:
        jobs = 1  # a remote cluster's size is its own
    # Validate every grid point (fixed values + the point's values) before any game runs.
    _, _, names, points, configs = plan(scenario, overrides, grid)
    warned = set()
    for point, config in zip(points, configs):
        for name, reason in scenario.inactive(config).items():
            if (name in overrides or name in point) and (name, reason) not in warned:
                warned.add((name, reason))
                controller = scenario.param(name).active_when[0]
                at = {k: v for k, v in point.items() if k in (name, controller)}
                where = f" at {', '.join(f'{k}={v}' for k, v in at.items())}" if at else ""
                print(f"warning: {name}={config[name]!r} has no effect{where}: {reason}", file=sys.stderr)
    cost = sweep_cost(scenario, configs, names)  # the same estimate the server checks; the memory guard is in sweep()
    _announce(cost, f"this sweep of {count(len(points), 'point')}")
    tick = _Ticker(args.progress)
    out = sweep(scenario, overrides, grid, seed=args.seed, n_jobs=jobs, scheduler=args.scheduler,
                progress=lambda i, n, _rows: tick(f"{scenario.name} sweep: {i}/{n} points, "
                                                  f"{time.perf_counter() - tick.start:.1f} s"),
                cancel=stop)
    stop.raising = False
    tick.end()
    if stop():
        out["stopped_by"] = stop.name
    text = json.dumps(out)
    print(text)
    _write(args.json_path, text)
    if stop():
        print(_stopped_line(stop, f"{len(out['rows'])} of {count(len(points), 'grid point')}", args.json_path),
              file=sys.stderr)
        return stop.exit_code
    return 0


def _run(args, stop: _Stop) -> int:

    try:
        saved = resolve_saved_run(args)  # --config / --preset: fills args.scenario and args.seed
    except LabError as exc:  # a file from elsewhere that cannot be rerun is bad input: one line, exit 2
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError("--config" if args.config else "--preset", str(exc)) from None
    scenario = get(args.scenario)
    overrides = {**saved, **_overrides(scenario, args.sets)}
    check_file_params(scenario, overrides)  # a missing file or a directory: one line, exit 2, before any estimate
    if args.seed < 0:
        raise ParameterError("seed", f"expected int >= 0, got {args.seed}")
    _check_output_path(args.json_path)
    records_csv = args.records if isinstance(args.records, str) else None  # --records CSV: the per-record table
    _check_output_path(records_csv, "--records")
    jobs = _jobs(args.jobs)
    explicit = overrides
    # a long run on a whole file at the paper-scale defaults plays the page's lighter ones, and says so
    overrides, lighter = fit_defaults(scenario, overrides)
    config = scenario.resolve(overrides)
    _warn_inactive(scenario, config, explicit)
    if lighter:
        print(f"note: {lighter}", file=sys.stderr)
    for note in scenario.fit_notes(config):  # what the file cannot support, said before the estimate and the run
        print(f"note: {note}", file=sys.stderr)
    cost = scenario.estimate_cost(config)
    _announce(cost, "this run", shorter_hint(cost))
    tick = _Ticker(args.progress)

    def report(p: Progress) -> None:
        tick(f"{scenario.name}: {p.done}/{p.total} {scenario.unit[1]}, {p.seconds:.1f} s")

    # Progress costs a partial summary per chunk: asked for, or for a run expected to last a few seconds.
    progress = report if args.progress or cost.seconds >= PROGRESS_AFTER else None
    if args.no_store:
        result = run(scenario, overrides, seed=args.seed, n_jobs=jobs, progress=progress, cancel=stop)
    else:  # a stored run with the same scenario, configuration, seed and engine code is returned at once
        result, _hit = run_stored(scenario, overrides, seed=args.seed, n_jobs=jobs, progress=progress,
                                  cancel=stop)
    stop.raising = False
    tick.end()
    # lazy: start-up time (scipy only when used)
    from .measure.audit import audit_result
    verdict = audit_result(result)
    if verdict.broken and result.completed:
        print(f"WARNING: {verdict.message}", file=sys.stderr)
    out = result.to_dict(records=args.records is True)
    payload = {k: out[k] for k in ("scenario", "config", "metrics", "series", "seconds", "timings")}
    payload["exposure"] = out.get("exposure")  # who is exposed: the per-record table (None: none for this run)
    ignored = {k: v for k, v in scenario.inactive(config).items() if k in explicit}
    if ignored:  # a --set parameter → why it had no effect under the other choices
        payload["inactive"] = ignored
    if not result.completed:  # stopped: the numbers cover only the games played
        payload.update(completed=False, games_done=result.games_done, games_total=result.games_total,
                       stopped_by=stop.name or "stop")
    if args.records is True:
        payload["records"] = out["records"]
    if records_csv:
        _write_records(records_csv, result)
    text = json.dumps(payload)
    print(text)
    _write(args.json_path, text)
    if stop():
        print(_stopped_line(stop, f"{result.games_done} of {count(result.games_total, *scenario.unit)}",
                            args.json_path), file=sys.stderr)
        return stop.exit_code
    return 0
