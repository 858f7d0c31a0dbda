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
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from .errors import Cancelled, LabError, ParameterError
from .runtime.games import Progress, run
from .scenario import all_scenarios, get
from .runtime.store import run_stored
from .runtime.sweep import plan, sweep, usable_cores


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m core", description="Privacy-attack lab engine")
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
    r.add_argument("--no-store", action="store_true",
                   help="run afresh: neither read nor write the shared result store (lab_settings.toml)")
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
    le = sub.add_parser("lessons", help="list the lessons (content/lessons/*.toml) as JSON, check them, or "
                        "write a lesson's printable handout")
    le.add_argument("--check", action="store_true", help="validate every lesson file and play every step at small "
                    "size: one JSON line per step; exits 1 with one line per broken lesson")
    le.add_argument("--lesson", metavar="ID", help="only this lesson")
    le.add_argument("--full", action="store_true", help="with --check: play the steps at the lesson's own size")
    le.add_argument("--handout", metavar="ID", help="write the printable offline HTML handout of lesson ID (its "
                    "reference runs at the lesson's seed, through the result store)")
    le.add_argument("--out", metavar="PATH", help="where --handout writes (default: ID-handout.html)")
    ep = sub.add_parser("epsilon", help="an ε in plain words, beside real deployments (JSON)")
    ep.add_argument("epsilon", type=float, help="the privacy budget ε (> 0)")
    ep.add_argument("--delta", type=float, default=0.0, help="δ (default 0: pure ε-DP)")
    ep.add_argument("--prior", type=float, default=0.5, help="the attacker's prior belief (default 0.5)")
    ep.add_argument("--deployments", type=int, default=5, help="how many nearest deployments (default 5)")
    return ap


def _lessons(args) -> int:
    from .studies import lesson_runs as R
    from .studies import lessons as L

    if args.handout:
        from .studies.handout import handout_html

        lesson = L.get_lesson(args.handout)
        path = args.out or f"{lesson.id}-handout.html"
        _check_output_path(path)
        html = handout_html(lesson, R.reference_runs(lesson))
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


def _overrides(scenario, sets: list[str]) -> dict:
    out = {}
    for item in sets:
        if "=" not in item:
            raise ParameterError(item, "expected KEY=VALUE")
        key, value = item.split("=", 1)
        key = key.strip()
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
    from .measure.records import RecordTable, to_frame
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


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "list":
            _list(args.json)
            return 0
        if args.command == "lessons":
            return _lessons(args)
        if args.command == "epsilon":
            from .studies.epsilon_context import epsilon_in_context
            print(json.dumps(epsilon_in_context(args.epsilon, args.delta, args.prior, args.deployments)))
            return 0
        saved = {}
        if args.command == "run":
            from .output.report import resolve_saved_run
            saved = resolve_saved_run(args)  # --config / --preset: fills args.scenario and args.seed
        scenario = get(args.scenario)
        overrides = {**saved, **_overrides(scenario, args.sets)}
        if args.seed < 0:
            raise ParameterError("seed", f"expected int >= 0, got {args.seed}")
        _check_output_path(args.json_path)
        records_csv = getattr(args, "records", None)
        records_csv = records_csv if isinstance(records_csv, str) else None
        _check_output_path(records_csv, "--records")
        if args.command == "sweep":
            grid = {}
            for item in args.vary:
                key, sep, values = item.partition("=")
                key = key.strip()
                if not sep:
                    raise ParameterError(item, "expected KEY=V1,V2,...")
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
            text = json.dumps(sweep(scenario, overrides, grid, seed=args.seed, n_jobs=jobs,
                                    scheduler=args.scheduler))
            print(text)
            _write(args.json_path, text)
            return 0

        jobs = _jobs(args.jobs)
        config = scenario.resolve(overrides)
        _warn_inactive(scenario, config, overrides)

        def report(p: Progress) -> None:
            print(f"\r{scenario.name}: {p.done}/{p.total} {scenario.unit[1]}, {p.seconds:.1f} s", end="",
                  file=sys.stderr)

        if args.no_store:
            result = run(scenario, overrides, seed=args.seed, n_jobs=jobs,
                         progress=report if args.progress else None)
        else:  # a stored run with the same scenario, configuration, seed and engine code is returned at once
            result, _hit = run_stored(scenario, overrides, seed=args.seed, n_jobs=jobs,
                                      progress=report if args.progress else None)
        if args.progress:
            print(file=sys.stderr)
        from .measure.audit import audit_result
        verdict = audit_result(result)
        if verdict.broken:
            print(f"WARNING: {verdict.message}", file=sys.stderr)
        out = result.to_dict(records=args.records is True)
        payload = {k: out[k] for k in ("scenario", "config", "metrics", "series", "seconds", "timings")}
        payload["exposure"] = out.get("exposure")  # who is exposed: the per-record table (None: none for this run)
        ignored = {k: v for k, v in scenario.inactive(config).items() if k in overrides}
        if ignored:  # a --set parameter → why it had no effect under the other choices
            payload["inactive"] = ignored
        if args.records is True:
            payload["records"] = out["records"]
        if records_csv:
            _write_records(records_csv, result)
        text = json.dumps(payload)
        print(text)
        _write(args.json_path, text)
        return 0
    except ParameterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Cancelled as exc:  # Ctrl-C where the engine turns it into a stop (e.g. connecting to Dask)
        print(f"stopped: {exc}", file=sys.stderr)
        return 130
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
