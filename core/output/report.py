"""Hand a run on: a rerunnable JSON configuration and a self-contained HTML report.

* :func:`run_config` — ``{"format": "privacy-attack-lab/run", "scenario", "params", "seed"}``; ``python -m core run
  --config FILE`` accepts it (and also a full result JSON, or an HTML report written here, which embeds it).
* :func:`command_line` — the exact ``python -m core run SCENARIO --set … --seed …`` that reruns a run.
* :func:`core.output.saved_config.load_config` and :func:`core.studies.presets.resolve_saved_run` read a saved
  run back.
* :func:`html_report` — one HTML file that works offline: plotly.js is inlined once (no CDN), every figure is
  interactive, and the page lists the full configuration, seed, package versions, the claims-vs-measurements
  table and the rerun command of every run.
"""
from __future__ import annotations

import datetime as _dt
import html
import json
import math
import os
import platform
import re
import shlex
from importlib import metadata
from typing import Any

from ..measure.audit import audit_result, claim_of
from ..measure.compare import comparison_table, config_diff, headline, interval_text, run_label
from ..errors import DataError
from ..scenario import get
from . import plain_language as say
from .plain_language import VOID, pct
from ..measure.records import TIERS, RecordTable, plural, to_frame, top_frame
from ..theory.fdp import accuracy_bound

FORMAT = "privacy-attack-lab/run"
PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "plotly", "streamlit", "highspy", "sdv", "fairlearn",
            "joblib")


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


# Folders whose files are private to this server (a lab server's uploads): a path inside one never leaves the
# server in a report, a rerun command or a configuration download — the file's own name does, which is what
# the user called it (uploads are stored under the user's file name inside a private per-content folder).
_PRIVATE_DIRS: list[str] = []


def register_private_dir(path: str | os.PathLike) -> None:
    """Treat files under ``path`` as private: :func:`public_config` shows only their file name."""
    folder = os.path.join(os.path.realpath(path), "")
    if folder not in _PRIVATE_DIRS:
        _PRIVATE_DIRS.append(folder)


def public_value(value: Any) -> Any:
    """``value``, or only its file name if it is a path inside a private folder (see :func:`register_private_dir`)."""
    if isinstance(value, str) and value and _PRIVATE_DIRS:
        try:
            real = os.path.realpath(value)
        except (OSError, ValueError):
            return value
        if any(real.startswith(d) or value.startswith(d) for d in _PRIVATE_DIRS):
            return os.path.basename(value)
    return value


def public_config(result: Any) -> dict:
    """:func:`run_config` fit to hand on: a private upload appears as the user's file name, never as a path of
    the server, so ``python -m core run --config FILE`` works wherever that file sits beside it."""
    cfg = run_config(result)
    cfg["params"] = {k: public_value(v) for k, v in cfg["params"].items()}
    return cfg


def non_default_params(name: str, params: dict) -> dict:
    """The parameters of a run that differ from the scenario's defaults."""

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
    """``python -m core run SCENARIO --set KEY=VALUE … --seed N`` (parameters that differ from the defaults).

    An uploaded file appears as ``--set data_path=<the user's file name>``: the command reruns the run on any
    machine, from the folder that holds the file."""
    cfg = public_config(result)
    parts = ["python", "-m", "core", "run", cfg["scenario"]]
    for k, v in non_default_params(cfg["scenario"], cfg["params"]).items():
        parts += ["--set", f"{k}={_cli_value(v)}"]
    parts += ["--seed", str(cfg["seed"])]
    return " ".join(shlex.quote(p) for p in parts)


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


# ------------------------------------------------------------- the summary a board reads first
# What each lab publishes, for the report's title ("What an attacker learns from … at ε = 1").
PUBLISHED = {"aggregates": "the published block counts", "location": "the published location counts",
             "reconstruction": "the published query answers", "synthetic": "the published synthetic data",
             "ml-models": "the published model"}
# Where ε is counted per cell (or per observation), the guarantee for one person adds up over their cells.
PER_UNIT = {"aggregates": "cell", "location": "observation"}

# Readable names for the metrics of the technical tables; unknown keys fall back on :func:`readable`.
NAMES = {"auc": "AUC (0.5 = coin flip)", "auc_ci_low": "AUC, 95% interval, low",
         "auc_ci_high": "AUC, 95% interval, high",
         "accuracy": "attack accuracy", "accuracy_ci_low": "attack accuracy, 95% interval, low",
         "accuracy_ci_high": "attack accuracy, 95% interval, high", "claimed_epsilon": "ε per person (claimed)",
         "claimed_delta": "δ per person (claimed)", "empirical_epsilon_low": "ε the attack proves (lower bound)",
         "dp_bound_accuracy": "best accuracy DP allows", "dp_bound_auc": "best AUC DP allows",
         "cells_per_person": "cells one person can change", "utility_error": "utility error",
         "count_error_expected": "expected error per count", "count_error_measured": "measured error per count",
         "relative_error_expected": "expected relative error per count",
         "relative_error_measured": "measured relative error per count",
         "cells_wrong_expected": "share of counts not exact (expected)",
         "cells_wrong_measured": "share of counts not exact (measured)", "cells_released": "released cells",
         "targets": "people attacked", "synthetic_data": "synthetic data (1 = yes)",
         "deterministic_fraction": "share settled with certainty",
         "deterministic_count": "people settled with certainty",
         "deterministic_errors": "wrong certain answers", "release_epsilon": "ε of the release",
         "release_delta": "δ of the release", "noise_scale": "noise scale", "answer_rmse": "answer error (RMSE)",
         "mre_gt10": "mean relative error (counts > 10)", "tvd3": "3-way total variation distance",
         "model_accuracy": "model accuracy", "majority_baseline": "majority guess", "advantage": "attack advantage"}
_TOKENS = {"auc": "AUC", "tpr": "TPR", "fpr": "FPR", "ci": "95% interval", "epsilon": "ε", "delta": "δ",
           "dp": "DP", "md": "solver", "ms": "shadow model", "rmse": "RMSE", "mre": "MRE", "at": "at",
           "cip": "CIP", "rap": "RAP", "desia": "DeSIA", "mia": "membership", "aia": "attribute"}


def readable(key: str) -> str:
    """A metric's name in words: the table above, else its parts spelled out (``tpr_at_fpr_0.01`` → 'TPR at FPR
    0.01')."""
    if key in NAMES:
        return NAMES[key]
    return " ".join(_TOKENS.get(t, t) for t in str(key).split("_") if t)


def _plain_text(text: str) -> str:
    """A page sentence without its Markdown: links keep their words, emphasis marks go."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text or "")
    return re.sub(r"\*\*|__|`", "", text).strip()


def run_sentence(result: Any) -> str:
    """The sentence the run's page shows under its result (empty if the lab has none)."""

    name, config, metrics = _parts(result)
    series = (result.get("series") if isinstance(result, dict) else getattr(result, "series", None)) or {}
    try:
        if name == "aggregates":
            # lazy: start-up time (pandas, plotly only when used)
            from ..plots.aggregates import plain_summary
            return _plain_text(plain_summary(metrics, series) or "")
        if name == "location":
            return _plain_text(say.location(metrics, int(config.get("observations", 1)), config.get("epsilon")))
        if name == "reconstruction":
            return _plain_text(say.reconstruction(metrics))
        if name == "synthetic":  # imported here: a report of another lab never loads the generators' registry
            # lazy: start-up time (sklearn, pandas, plotly only when used)
            from ..scenarios.synthetic.views import result_sentence as synthetic_sentence

            return _plain_text(synthetic_sentence(metrics, series))
    except (KeyError, TypeError, IndexError, ValueError):  # a partial run lacks some numbers: no sentence
        return ""
    return ""


def report_title(result: Any) -> str:
    """'What an attacker learns from the published block counts at ε = 1' (or '… without noise')."""
    name, config, _ = _parts(result)
    what = PUBLISHED.get(name, "the published release")
    eps = config.get("epsilon")
    if isinstance(eps, (int, float)) and eps > 0:
        return f"What an attacker learns from {what} at ε = {eps:g}"
    claimed, _ = claim_of(result)
    if claimed is not None:
        return f"What an attacker learns from {what} at ε = {claimed:.3g} per person"
    return f"What an attacker learns from {what} without noise"


def epsilon_sentence(result: Any) -> str:
    """The chosen ε in words, with the per-person total where it adds up over several cells."""
    name, config, metrics = _parts(result)
    eps = config.get("epsilon")
    claimed, delta = claim_of(result)
    if not (isinstance(eps, (int, float)) and eps > 0) and claimed is None:
        return "No noise was added: the release carries no differential-privacy guarantee."
    unit = PER_UNIT.get(name)
    cells = metrics.get("cells_per_person")
    text = f"Chosen ε = {eps:g}" + (f" per {unit}" if unit else "") if isinstance(eps, (int, float)) and eps > 0 \
        else f"ε = {claimed:.3g} per person"
    if unit == "cell" and claimed is not None and cells:
        text += (f". One person's record can change up to {int(cells)} released cells, so the guarantee for a "
                 f"person adds up to ε = {eps:g} × {int(cells)} = {claimed:.3g}")
    elif unit == "observation":
        k = config.get("observations")
        if k:
            text += (f"; a person with {k} observations in the data is protected by up to ε = {eps:g} × {k} = "
                     f"{eps * k:.3g}")
    if delta:
        text += f" (δ = {delta:.2g})"
    return text + "."


def attack_sentence(result: Any) -> str:
    """The headline attack's success with its 95% interval, and the DP cap where the run has one."""

    _, _, metrics = _parts(result)
    h = headline(result)
    if h.attack is None:
        return "The attack did not finish: no success to report."
    lo, hi = metrics.get(f"{h.attack_metric}_ci_low"), metrics.get(f"{h.attack_metric}_ci_high")
    text = f"Attack success ({h.attack_label}): {h.attack:.3f}"
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and math.isfinite(lo) and math.isfinite(hi):
        text += f", 95% interval {lo:.3f} – {hi:.3f}"
    text += " (0.5 = a coin flip)."
    bound = metrics.get(f"dp_bound_{h.attack_metric}")
    if isinstance(bound, (int, float)) and math.isfinite(bound):
        text += (f" Differential privacy caps any attack at {pct(bound)}." if bound < VOID else
                 f" At this ε differential privacy would allow up to {pct(bound)}: the guarantee is practically "
                 "void.")
    return text


def utility_sentence(result: Any) -> str:
    """What the release costs in accuracy, in words."""
    name, config, metrics = _parts(result)
    if name == "aggregates" and "count_error_measured" in metrics:
        # lazy: start-up time (sklearn, pandas only when used)
        from ..scenarios.aggregates import utility
        series = (result.get("series") if isinstance(result, dict) else getattr(result, "series", None)) or {}
        return utility.sentence(utility.at_epsilon(metrics, series, float(config.get("epsilon") or 0), 1.0),
                                person=False)
    h = headline(result)
    if h.utility_error is None:
        return "Utility cost: not measured by this lab."
    return f"Utility cost ({h.utility_label}, lower = more useful): {h.utility_error:.3g}."


# Other parts of the lab add sentences to the summary (e.g. the odds of an attacker's guess and the nearest real
# deployments at the same ε) by registering a function ``result → list of plain-text lines``; each line is
# escaped and shown after the utility cost. A function that fails is skipped, never breaks the report.
SUMMARY_HOOKS: list = []


def register_summary_hook(fn) -> None:
    if fn not in SUMMARY_HOOKS:
        SUMMARY_HOOKS.append(fn)


def summary_lines(result: Any) -> list[str]:
    """The summary a board reads first, as plain-text paragraphs: the page's sentence, ε with its per-person
    total, the attack's success with its interval, the utility cost, then the registered hooks' lines."""
    lines = [run_sentence(result), epsilon_sentence(result), attack_sentence(result), utility_sentence(result)]
    for hook in SUMMARY_HOOKS:
        try:
            lines += [str(x) for x in (hook(result) or [])]
        except Exception:  # noqa: BLE001 — an optional addition must never cost the reader the report
            continue
    return [x for x in lines if x]


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

    data = result.get("exposure") if isinstance(result, dict) else getattr(result, "exposure", None)
    table = RecordTable.from_dict(data)
    if table is None or not len(table):
        return ""
    counts = ", ".join(f"{table.tier_counts.get(t, 0):,} {t}" for t in TIERS)
    top = top_frame(to_frame(table), REPORT_TOP_K)
    lines = [table.certification.get("why", ""), table.calibration.get("sentence", ""), *table.notes]
    return (f"<h4>Who is exposed</h4><p>{table.total:,} {html.escape(plural(table.unit))}: {html.escape(counts)}."
            "</p>" + "".join(f"<p class='small'>{html.escape(line)}</p>" for line in lines if line)
            + f"<p>The {len(top)} most exposed:</p>" + _table_html(top.to_dict("records"))
            + _groups_html(table.groups))


def _groups_html(groups: dict | None) -> str:
    """The scenario's per-group summary (e.g. per attacked user), escaped like every cell of the report."""
    if not groups or not groups.get("columns"):
        return ""
    cols = groups["columns"]
    rows = [dict(zip(cols, values)) for values in zip(*cols.values())]
    unit = html.escape(str(groups.get("unit", "group")))
    return (f"<p>Per {unit}:</p>" + "".join(f"<p class='small'>{html.escape(s)}</p>" for s in
                                            groups.get("sentences", [])) + _table_html(rows))


CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;color:#222}.summary p{font-size:17px;line-height:1.45;margin:.4em 0 .7em}
.verdict{font-size:19px;font-weight:600}
@page{size:A4;margin:14mm}
@media print{body{max-width:none;margin:0;padding:0;font-size:12px}.technical{break-before:page}
.plotly-graph-div,table,pre{break-inside:avoid}h2,h3{break-after:avoid}.modebar{display:none!important}}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:14px}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f3f3f3}
pre,code{background:#f6f8fa;padding:2px 4px;border-radius:3px}pre{padding:8px;overflow-x:auto}
.flag{background:#fde8e8;border:2px solid #c0392b;color:#8e1b10;padding:10px;font-weight:600;border-radius:4px}
.ok{background:#eaf6ea;border:1px solid #3c8d40;padding:8px;border-radius:4px}.small{color:#555;font-size:13px}"""


def html_report(results: list[Any], figures: list | None = None, title: str | None = None,
                labels: list[str] | None = None) -> str:
    """A self-contained HTML report of one run or a comparison of several (plotly.js inlined, no network)."""
    import plotly.graph_objects as go
    from plotly.offline import get_plotlyjs

    # lazy: start-up time (plotly only when used)
    from ..plots import fdp as fdp_plots

    if not results:
        raise DataError("nothing to report: no runs")
    labels = labels or [run_label(r, i + 1) if len(results) > 1 else run_label(r) for i, r in enumerate(results)]
    single = len(results) == 1
    title = title or (report_title(results[0]) if single else
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
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style><script type='text/javascript'>{get_plotlyjs()}</script></head><body><main>",
             f"<h1>{html.escape(title)}</h1>"]
    for r, label in zip(results, labels):
        v = audit_result(r)
        if v.broken:
            parts.append(f"<p class='flag'>⚠ {html.escape(label)}: {html.escape(v.message)}</p>")
    for r, label in zip(results, labels):
        lines = summary_lines(r)
        head = "" if single else f"<h2>{html.escape(label)}</h2>"
        first, rest = (lines[0], lines[1:]) if lines else ("", [])
        parts.append(f"<section class='summary'>{head}<p class='verdict'>{html.escape(first, quote=False)}</p>"
                     + "".join(f"<p>{html.escape(x, quote=False)}</p>" for x in rest) + "</section>")
    parts.append(f"<p class='small'>Written {now}. Everything in this report works offline; the command under "
                 "“Rerun” gives the same numbers with the same seed.</p>")
    parts.append("<section class='technical'><h2>Technical details</h2>")
    if len(results) > 1:
        parts.append("<h3>Headline metrics</h3>" + _table_html(
            [{readable(k) if k != "run" else k: v for k, v in row.items()}
             for row in comparison_table(results, labels)]))
        diff = config_diff([{k: public_value(v) for k, v in _parts(r)[1].items()} for r in results])
        parts.append("<h3>Configuration differences</h3>" + _table_html(
            [{"parameter": d["param"], **{lab: v for lab, v in zip(labels, d["values"])}}
             for d in diff if d["differs"]] or [{"parameter": "(identical configurations)"}]))
    for i, fig in enumerate(figs):
        parts.append(fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"fig{i}",
                                 config={"displaylogo": False}))
    for r, label in zip(results, labels):
        name, config, metrics = _parts(r)
        h = headline(r)
        parts.append(f"<h3>{html.escape(label)}</h3>")
        parts.append("<h4>Claims vs measurements</h4>" + _table_html(claims_table(r)))
        parts.append(_exposure_html(r))
        companion = (f"; {html.escape(h.companion_label)} = {_fmt(h.companion)} (over every record of the same "
                     "games, so far less noisy)" if h.companion is not None else "")
        parts.append(f"<p>Headline: {html.escape(h.attack_label)} = "
                     f"{html.escape(interval_text(h.attack, h.attack_ci, h.games))}{companion}; "
                     f"{html.escape(h.utility_label)} = {_fmt(h.utility_error)}.</p>")
        parts.append(f"<h4>Rerun</h4><pre>{html.escape(command_line(r))}</pre>")
        parts.append("<h4>Configuration</h4>" + _table_html(
            [{"parameter": k, "value": public_value(v)} for k, v in config.items()]))
        parts.append("<h4>Metrics</h4>" + _table_html([{"metric": readable(k), "value": v}
                                                        for k, v in metrics.items()]))
    parts.append("<h3>Software</h3>" + _table_html([{"package": k, "version": v}
                                                     for k, v in package_versions().items()]))
    parts.append("</section></main>")
    embedded = html.escape(json.dumps([public_config(r) for r in results]), quote=False)
    parts.append(f'<script type="application/json" id="lab-runs">{embedded}</script></body></html>')
    return "".join(parts)
