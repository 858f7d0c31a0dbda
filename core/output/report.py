"""Hand a run on: a rerunnable JSON configuration and a self-contained HTML report.

* :func:`run_config` — ``{"format": "privacy-attack-lab/run", "scenario", "params", "seed"}``; ``python -m core run
  --config FILE`` accepts it (and also a full result JSON, or an HTML report written here, which embeds it).
* :func:`command_line` — the exact ``python -m core run SCENARIO --set … --seed …`` that reruns a run.
* :func:`html_report` — one HTML file that works offline: plotly.js is inlined once (no CDN), every figure is
  interactive, and the page lists the full configuration, seed, package versions, the claims-vs-measurements
  table and the rerun command of every run.
"""
from __future__ import annotations

import datetime as _dt
import html
import json
import math
import platform
import re
import shlex
from importlib import metadata
from pathlib import Path
from typing import Any

from ..measure.audit import audit_result, claim_of
from ..measure.compare import comparison_table, config_diff, headline, run_label
from ..errors import DataError, ParameterError

FORMAT = "privacy-attack-lab/run"
PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "plotly", "streamlit", "highspy", "sdv", "fairlearn",
            "joblib")
_EMBED_RE = re.compile(r'<script type="application/json" id="lab-runs">(.*?)</script>', re.S)


def _parts(result: Any) -> tuple[str, dict, dict]:
    if isinstance(result, dict):
        return result["scenario"], dict(result.get("config") or {}), result.get("metrics") or {}
    return result.scenario, dict(result.config or {}), result.metrics or {}


# ------------------------------------------------------------------ configs
def run_config(result: Any) -> dict:
    """The rerunnable configuration of a run (parameters without the seed, and the seed)."""
    name, config, _ = _parts(result)
    seed = int(config.pop("seed", 0) or 0)
    return {"format": FORMAT, "scenario": name, "params": config, "seed": seed}


def non_default_params(name: str, params: dict) -> dict:
    """The parameters of a run that differ from the scenario's defaults."""
    from ..scenario import get

    sc = get(name)
    known = {p.name: p for p in sc.params}
    return {k: v for k, v in params.items() if k in known and v != known[k].default}


def _cli_value(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return repr(v)
    return str(v)


def command_line(result: Any) -> str:
    """``python -m core run SCENARIO --set KEY=VALUE … --seed N`` (parameters that differ from the defaults)."""
    cfg = run_config(result)
    parts = ["python", "-m", "core", "run", cfg["scenario"]]
    for k, v in non_default_params(cfg["scenario"], cfg["params"]).items():
        parts += ["--set", f"{k}={_cli_value(v)}"]
    parts += ["--seed", str(cfg["seed"])]
    return " ".join(shlex.quote(p) for p in parts)


def load_config(path: str | Path) -> tuple[str, dict, int]:
    """``(scenario, params, seed)`` from a run-config JSON, a full result JSON or an HTML report of one run."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from None
    if p.suffix.lower() in (".html", ".htm") or text.lstrip().startswith("<"):
        m = _EMBED_RE.search(text)
        if not m:
            raise DataError(f"{path}: no embedded run configuration (not a report written by this lab)")
        runs = json.loads(html.unescape(m.group(1)))
        if len(runs) != 1:
            raise DataError(f"{path} is a comparison of {len(runs)} runs; export one run's JSON to rerun it")
        data = runs[0]
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if isinstance(data, list):
        if len(data) != 1:
            raise DataError(f"{path} holds {len(data)} runs; rerun them one at a time")
        data = data[0]
    if not isinstance(data, dict) or "scenario" not in data:
        raise DataError(f"{path}: expected a run configuration with a 'scenario' key")
    if "params" in data:
        params, seed = dict(data["params"] or {}), data.get("seed", 0)
    elif "config" in data:  # a full result (ui download or CLI --json)
        params = dict(data["config"] or {})
        seed = params.pop("seed", 0)
    else:
        raise DataError(f"{path}: expected 'params' (run configuration) or 'config' (result)")
    return str(data["scenario"]), params, int(seed or 0)


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
        from ..studies.presets import get_preset

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


# ---------------------------------------------------------------- versions
def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def claims_table(result: Any) -> list[dict]:
    """Claims vs measurements of one run: the (ε, δ) claimed, the measured lower bound, the verdict, and the
    attack's accuracy against the accuracy DP allows."""
    _, _, metrics = _parts(result)
    eps, delta = claim_of(result)
    verdict = audit_result(result)
    rows = [{"quantity": "ε claimed by the release", "claim": _fmt(eps) if eps is not None else "none (no DP)",
             "measured": _fmt(metrics.get("empirical_epsilon_low")),
             "note": verdict.message}]
    if delta:
        rows[0]["claim"] += f" (δ = {delta:.3g})"
    if "dp_bound_accuracy" in metrics:
        rows.append({"quantity": "attack accuracy", "claim": f"≤ {_fmt(metrics['dp_bound_accuracy'])} (DP bound)",
                     "measured": _fmt(metrics.get("accuracy")),
                     "note": "95% CI [{}, {}]".format(_fmt(metrics.get("accuracy_ci_low")),
                                                       _fmt(metrics.get("accuracy_ci_high")))})
    elif eps is not None and metrics.get("accuracy") is not None:
        from ..theory.fdp import accuracy_bound

        rows.append({"quantity": "attack accuracy", "claim": f"≤ {accuracy_bound(eps, min(delta, 1)):.4g} "
                     "(one (ε, δ) test)", "measured": _fmt(metrics.get("accuracy")), "note": ""})
    return rows


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        if math.isnan(v):
            return "—"
        if math.isinf(v):
            return "∞"
        return f"{v:.4g}"
    return str(v)


# -------------------------------------------------------------------- html
def _table_html(rows: list[dict]) -> str:
    if not rows:
        return "<p><em>none</em></p>"
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(c)))}</td>" for c in cols) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


REPORT_TOP_K = 20


def _exposure_html(result: Any) -> str:
    """Who is exposed, for the report: tier counts, the certification and calibration sentences, and the top-k
    table (every cell escaped: ids and attributes can come from an uploaded file)."""
    from ..measure.records import TIERS, RecordTable, plural, to_frame, top_frame

    data = result.get("exposure") if isinstance(result, dict) else getattr(result, "exposure", None)
    table = RecordTable.from_dict(data)
    if table is None or not len(table):
        return ""
    counts = ", ".join(f"{table.tier_counts.get(t, 0):,} {t}" for t in TIERS)
    top = top_frame(to_frame(table), REPORT_TOP_K)
    lines = [table.certification.get("why", ""), table.calibration.get("sentence", ""), *table.notes]
    return (f"<h3>Who is exposed</h3><p>{table.total:,} {html.escape(plural(table.unit))}: {html.escape(counts)}."
            "</p>" + "".join(f"<p class='small'>{html.escape(line)}</p>" for line in lines if line)
            + f"<p>The {len(top)} most exposed:</p>" + _table_html(top.to_dict("records")))


CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:14px}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f3f3f3}
pre,code{background:#f6f8fa;padding:2px 4px;border-radius:3px}pre{padding:8px;overflow-x:auto}
.flag{background:#fde8e8;border:2px solid #c0392b;color:#8e1b10;padding:10px;font-weight:600;border-radius:4px}
.ok{background:#eaf6ea;border:1px solid #3c8d40;padding:8px;border-radius:4px}.small{color:#666;font-size:13px}"""


def html_report(results: list[Any], figures: list | None = None, title: str | None = None,
                labels: list[str] | None = None) -> str:
    """A self-contained HTML report of one run or a comparison of several (plotly.js inlined, no network)."""
    import plotly.graph_objects as go
    from plotly.offline import get_plotlyjs

    from ..plots import fdp as fdp_plots

    if not results:
        raise DataError("nothing to report: no runs")
    labels = labels or [run_label(r, i + 1) if len(results) > 1 else run_label(r) for i, r in enumerate(results)]
    title = title or (f"Privacy-attack lab report: {labels[0]}" if len(results) == 1 else
                      f"Privacy-attack lab: comparison of {len(results)} runs")
    figs: list[go.Figure] = list(figures or [])
    if not figures:
        if len(results) > 1:
            figs.append(fdp_plots.roc_overlay(results))
            figs.append(fdp_plots.privacy_utility_scatter(results))
        for r, label in zip(results, labels):
            f = fdp_plots.tradeoff_figure(r)
            if f is not None:
                f.update_layout(title_text=f"{label}: its guarantee as a trade-off curve (f-DP) and the measured ROC")
                figs.append(f)
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style><script type='text/javascript'>{get_plotlyjs()}</script></head><body>",
             f"<h1>{html.escape(title)}</h1><p class='small'>Written {now}. Everything on this page works offline; "
             "each command below reruns its run with the same seed and gives the same numbers.</p>"]
    for r, label in zip(results, labels):
        v = audit_result(r)
        if v.broken:
            parts.append(f"<p class='flag'>⚠ {html.escape(label)}: {html.escape(v.message)}</p>")
    if len(results) > 1:
        parts.append("<h2>Headline metrics</h2>" + _table_html(comparison_table(results, labels)))
        diff = config_diff([_parts(r)[1] for r in results])
        parts.append("<h2>Configuration differences</h2>" + _table_html(
            [{"parameter": d["param"], **{lab: v for lab, v in zip(labels, d["values"])}}
             for d in diff if d["differs"]] or [{"parameter": "(identical configurations)"}]))
    for i, fig in enumerate(figs):
        parts.append(fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"fig{i}",
                                 config={"displaylogo": False}))
    for r, label in zip(results, labels):
        name, config, metrics = _parts(r)
        h = headline(r)
        parts.append(f"<h2>{html.escape(label)}</h2>")
        parts.append("<h3>Claims vs measurements</h3>" + _table_html(claims_table(r)))
        parts.append(_exposure_html(r))
        parts.append(f"<p>Headline: {html.escape(h.attack_label)} = {_fmt(h.attack)}; "
                     f"{html.escape(h.utility_label)} = {_fmt(h.utility_error)}.</p>")
        parts.append(f"<h3>Rerun</h3><pre>{html.escape(command_line(r))}</pre>")
        parts.append("<h3>Configuration</h3>" + _table_html(
            [{"parameter": k, "value": v} for k, v in config.items()]))
        parts.append("<h3>Metrics</h3>" + _table_html([{"metric": k, "value": v} for k, v in metrics.items()]))
    parts.append("<h2>Software</h2>" + _table_html([{"package": k, "version": v}
                                                     for k, v in package_versions().items()]))
    embedded = html.escape(json.dumps([run_config(r) for r in results]), quote=False)
    parts.append(f'<script type="application/json" id="lab-runs">{embedded}</script></body></html>')
    return "".join(parts)
