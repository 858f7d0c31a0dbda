"""Paper presets (``content/presets.toml``): one configuration per headline figure of each source paper.

Each preset names a scenario, its parameters and seed, the metric to read, the paper's value for it, the source,
and one sentence on the remaining difference. Presets whose id starts with ``known-bug-`` form the gallery of
broken releases: a re-creation of a documented DP implementation bug and its ``-fixed`` twin, with ``expect``
saying whether the empirical-ε audit must flag the run. Presets of scenarios that this build does not register are reported
as unavailable instead of failing (they plug in when the scenario lands).
"""
from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

from ..errors import DataError, ParameterError
from ..measure.compare import interval_text
from ..output.saved_config import load_config
from ..scenario import all_scenarios, get

PATH = Path(__file__).resolve().parents[2] / "content" / "presets.toml"
REQUIRED = ("title", "scenario", "params", "metric", "paper_value", "source", "explanation")


def load_presets(path: str | Path = PATH) -> dict[str, dict]:
    """All presets by name, each with ``available`` (scenario registered and parameters valid) and ``problem``."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataError(f"cannot read presets from {path}: {exc}") from None
    scenarios = all_scenarios()
    out = {}
    for name, p in data.items():
        missing = [k for k in REQUIRED if k not in p]
        if missing:
            raise DataError(f"preset {name!r} lacks {', '.join(missing)}")
        preset = {"name": name, "seed": 0, "page": "", "figure": "", "paper": "", "metric_label": p["metric"],
                  "paper_value_note": "", **p}
        quick = p.get("quick_games")
        if quick is not None and not (isinstance(quick, int) and 1 <= quick < int(p["params"].get("games", 0))):
            raise DataError(f"preset {name!r}: quick_games must be a whole number of games below its games")
        sc = scenarios.get(p["scenario"])
        if sc is None:
            preset.update(available=False, problem=f"scenario {p['scenario']!r} is not part of this build yet")
        else:
            try:
                sc.resolve(p["params"])
                for point in sweep_points(preset):  # a comparison preset: every point of its grid must resolve
                    sc.resolve(point)
                preset.update(available=True, problem="")
            except ParameterError as exc:
                preset.update(available=False, problem=f"out of date: {exc}")
        out[name] = preset
    return out


def sweep_points(preset: dict) -> list[dict]:
    """A comparison preset's grid: its ``sweep`` table (parameter → values, Cartesian product, as
    ``python -m core sweep --vary``) over its ``params``; ``[params]`` for a single-run preset. ``params`` is the
    grid's first point; the presets page plays every point (a sweep, :func:`sweep_table`)."""
    grid = preset.get("sweep") or {}
    if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
        raise DataError(f"preset {preset.get('name')!r}: sweep must map parameters to lists of values")
    keys = list(grid)
    return [{**preset["params"], **dict(zip(keys, values))} for values in itertools.product(*grid.values())]


def sweep_base(preset: dict, params: dict | None = None) -> dict:
    """The fixed settings of a comparison preset's sweep: ``params`` (default: the preset's own; a quick look
    passes fewer games) without the parameters its grid varies — ``params`` holds the grid's first point, and a
    sweep refuses a parameter both fixed and varied."""
    params = preset["params"] if params is None else params
    return {k: v for k, v in params.items() if k not in (preset.get("sweep") or {})}


def sweep_table(preset: dict, out: dict) -> list[dict]:
    """One row per point of a comparison preset's finished sweep (:func:`core.runtime.sweep.sweep`'s ``rows``):
    the grid's values, then the preset's metric and the columns it lists in ``sweep_columns`` (metric → label;
    default: the preset's metric alone), each printed with its 95% interval when the run reports one
    (``<metric>_ci_low/high``) and the games it rests on. Points the sweep did not finish (stopped) are left out."""
    keys = list(preset.get("sweep") or {})
    columns = preset.get("sweep_columns") or {preset["metric"]: preset["metric"]}
    table = []
    for row in out.get("rows", []):
        line = {k: row.get(k) for k in keys}
        games = row.get("games_done")
        for name, label in columns.items():
            value = row.get(name)
            lo, hi = row.get(f"{name}_ci_low"), row.get(f"{name}_ci_high")
            ci = (float(lo), float(hi)) if lo is not None and hi is not None else None
            line[label] = interval_text(None if value is None else float(value), ci,
                                        int(games) if ci is not None and games else None)
        table.append(line)
    return table


def get_preset(name: str) -> dict:
    presets = load_presets()
    if name not in presets:
        raise ParameterError("preset", f"unknown preset {name!r}; known: {', '.join(presets)}")
    preset = presets[name]
    if not preset["available"]:
        raise ParameterError("preset", f"{name}: {preset['problem']}")
    return preset


def compare_with_paper(preset: dict, metrics: dict) -> dict:
    """Ours vs the paper's value for the preset's metric: ``{"ours", "paper", "difference", "ci", "games",
    "paper_inside", "text"}``.

    ``ci`` is our value's 95% interval when the run reports one for that metric (``<metric>_ci_low/high``), and
    ``paper_inside`` says whether the paper's number falls in it — with few games a difference of 0.1 can be
    one seed's luck, and the interval is what tells the two apart. ``text`` is our value as it is printed."""

    name = preset["metric"]
    ours = metrics.get(name)
    ours = None if ours is None else float(ours)
    paper = float(preset["paper_value"])
    lo, hi = metrics.get(f"{name}_ci_low"), metrics.get(f"{name}_ci_high")
    ci = (float(lo), float(hi)) if lo is not None and hi is not None else None
    games = metrics.get("games_done")
    games = int(games) if games is not None else None
    out = {"ours": ours, "paper": paper, "difference": None if ours is None else ours - paper, "ci": ci,
           "games": games, "paper_inside": None if ci is None else ci[0] <= paper <= ci[1],
           "text": interval_text(ours, ci, games), "sd": None, "seeds": None, "paper_z": None}
    # a mean over several seeds (``<name>_mean``) comes with its s.d. over them: where does the paper's number,
    # often one seed, fall in that spread?
    if name.endswith("_mean"):
        sd = metrics.get(name[: -len("_mean")] + "_sd")
        seeds = metrics.get("model_seeds_done")
        if sd is not None and sd == sd and sd > 0 and ours is not None:
            out.update(sd=float(sd), seeds=None if seeds is None else int(seeds),
                       paper_z=(paper - ours) / float(sd),
                       text=f"{ours:.3f} ± {float(sd):.3f} (s.d. over {int(seeds) if seeds else '?'} seeds)")
    return out


def link_params(preset: dict) -> dict[str, str]:
    """The query parameters of a shareable link that opens ``preset`` in its lab.

    A lab opened from a link starts where its page starts — the parameters' defaults overridden by
    ``Scenario.page_defaults`` (e.g. the aggregates page's block of 200 people, not the paper's 454) — and
    takes the link's values on top. So the link carries every value of the preset's resolved configuration
    that differs from the page's start, including values equal to a parameter's default, plus the seed."""
    sc = get(preset["scenario"])
    start = {**sc.defaults(), **sc.page_defaults}
    params: dict = {k: v for k, v in sc.resolve(preset["params"]).items() if v != start[k]}
    if preset.get("seed"):
        params["seed"] = preset["seed"]
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in params.items()}


# ------------------------------------------------------------------ the gallery of broken releases
KNOWN_BUG_PREFIX = "known-bug-"


def is_known_bug(name: str) -> bool:
    """Presets whose id starts with ``known-bug-`` re-create a documented DP bug (or are its ``-fixed`` twin)."""
    return str(name).startswith(KNOWN_BUG_PREFIX)


def known_bug_pairs(presets: dict[str, dict] | None = None) -> list[tuple[str, str]]:
    """``(bug, fixed twin)`` preset ids of the gallery, in file order."""
    presets = load_presets() if presets is None else presets
    return [(name, p["twin"]) for name, p in presets.items()
            if is_known_bug(name) and p.get("expect") == "flag" and p.get("twin") in presets]


def known_bug_verdict(preset: dict, result) -> dict:
    """Did the audit do what the gallery expects? ``{"expected", "flagged", "ok", "message"}`` for a run of a
    known-bug preset (``expect = "flag"``) or its twin (``"no-flag"``)."""
    # lazy: start-up time (scipy only when used)
    from ..measure.audit import audit_result

    v = audit_result(result)
    expected = preset.get("expect") == "flag"
    return {"expected": expected, "flagged": v.broken, "ok": v.broken == expected, "message": v.message}


def quick_look(preset: dict) -> dict | None:
    """A shorter run of a preset too costly for a shared server: its ``quick_games`` (fewer games, same
    everything else), or None when the preset has none. ``params`` to run, and for the page the games and the
    95% interval (Clopper–Pearson half-width at the accuracy the paper reports, 0.5 when its value is not an
    accuracy) of the quick and of the full run, so the card says plainly how much less the quick look can tell."""
    quick = preset.get("quick_games")
    if quick is None:
        return None
    # lazy: start-up time (scipy, sklearn, pandas only when used)
    from ..measure.metrics import clopper_pearson

    value = float(preset["paper_value"])
    # the paper's number is an accuracy only when the preset reads one (a 3-way TVD of 0.335 is not)
    accuracy = value if 0 < value < 1 and "accuracy" in str(preset["metric"]) else 0.5

    def half(games: int) -> float:
        lo, hi = clopper_pearson(int(round(accuracy * games)), games)
        return (hi - lo) / 2

    full = int(preset["params"]["games"])
    return {"params": {**preset["params"], "games": int(quick)}, "games": int(quick), "accuracy": accuracy,
            "half_width": half(quick), "full_games": full, "full_half_width": half(full)}


def resolve_saved_run(args) -> dict:
    """CLI helper: apply ``--config FILE`` / ``--preset NAME`` to parsed ``run`` arguments.

    Fills ``args.scenario`` and ``args.seed`` (an explicit ``--seed`` wins) and returns the saved parameters
    (explicit ``--set`` values override them in the caller).
    """
    saved: dict = {}
    seed = None
    if args.config and args.preset:
        raise ParameterError("config", "give --config or --preset, not both")
    if args.config:
        name, saved, seed = load_config(args.config)
    elif args.preset:
        preset = get_preset(args.preset)
        name, saved, seed = preset["scenario"], dict(preset["params"]), preset.get("seed", 0)
    else:
        name = None
    if name is not None:
        if args.scenario and args.scenario != name:
            raise ParameterError("scenario", f"the saved run is {name!r}, not {args.scenario!r}")
        args.scenario = name
    if not args.scenario:
        raise ParameterError("scenario", "name a scenario, or give --config FILE or --preset NAME")
    if args.seed is None:
        args.seed = int(seed or 0)
    return saved
