"""Command line: ``python -m core list | run SCENARIO [--set KEY=VALUE ...] [--seed N] [--json PATH] | sweep``.

``run`` prints one JSON object with keys ``scenario``, ``config`` (every
parameter used, defaults and seed included), ``metrics`` (flat name → number),
``series`` (plot data) and ``seconds``. Bad parameters exit with status 2 and
a one-line message naming the parameter and its allowed range.
"""
from __future__ import annotations

import argparse
import json
import sys

from .errors import LabError, ParameterError
from .games import Progress, run
from .scenario import all_scenarios, get
from .store import run_stored
from .sweep import sweep


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m core", description="Privacy-attack lab engine")
    sub = ap.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="list scenarios with their parameters")
    ls.add_argument("--json", action="store_true", help="print the list as JSON")
    r = sub.add_parser("run", help="run a scenario and print its result as JSON")
    r.add_argument("scenario")
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="override a parameter (repeatable)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--json", dest="json_path", metavar="PATH", help="also write the JSON to PATH")
    r.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    r.add_argument("--records", action="store_true", help="include per-game records in the output")
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
    sw.add_argument("--jobs", type=int, default=1)
    return ap


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


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "list":
            _list(args.json)
            return 0
        scenario = get(args.scenario)
        overrides = _overrides(scenario, args.sets)
        if args.seed < 0:
            raise ParameterError("seed", f"expected int >= 0, got {args.seed}")
        if args.command == "sweep":
            grid = {}
            for item in args.vary:
                key, sep, values = item.partition("=")
                key = key.strip()
                if not sep:
                    raise ParameterError(item, "expected KEY=V1,V2,...")
                grid[key] = [_overrides(scenario, [f"{key}={v}"])[key] for v in values.split(",") if v.strip()]
            text = json.dumps(sweep(scenario, overrides, grid, seed=args.seed, n_jobs=args.jobs))
            print(text)
            if args.json_path:
                with open(args.json_path, "w", encoding="utf-8") as fh:
                    fh.write(text + "\n")
            return 0

        def report(p: Progress) -> None:
            print(f"\r{scenario.name}: {p.done}/{p.total} games, {p.seconds:.1f} s", end="", file=sys.stderr)

        if args.no_store:
            result = run(scenario, overrides, seed=args.seed, n_jobs=args.jobs,
                         progress=report if args.progress else None)
        else:  # a stored run with the same scenario, configuration, seed and engine code is returned at once
            result, _hit = run_stored(scenario, overrides, seed=args.seed, n_jobs=args.jobs,
                                      progress=report if args.progress else None)
        if args.progress:
            print(file=sys.stderr)
        out = result.to_dict(records=args.records)
        payload = {k: out[k] for k in ("scenario", "config", "metrics", "series", "seconds", "timings")}
        if args.records:
            payload["records"] = out["records"]
        text = json.dumps(payload)
        print(text)
        if args.json_path:
            with open(args.json_path, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        return 0
    except ParameterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except LabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
