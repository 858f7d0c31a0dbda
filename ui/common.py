"""Shared page machinery: header, generated parameter widgets, live runs, downloads.

Pages stay thin: ``config = param_widgets(scenario)`` → ``run_scenario(...)``
(one engine call, with progress, a Stop button and live redraws) → plots built
by ``core.plots``. Everything here is presentation; no attack logic.
"""
from __future__ import annotations

import math
from typing import Any

import pandas as pd
import streamlit as st

from core.errors import LabError, ParameterError
from core.games import Result
from core.params import Param
from core.scenario import Scenario


# ---------------------------------------------------------------- header
def _use_app_navigation() -> None:
    """Run every page through app.py's ``st.navigation``.

    Because ``pages/`` exists, a fresh Streamlit server serves a deep link (``/Reconstruction_attack``)
    the old multipage way — the page file alone, without app.py — until some session has run app.py.
    Switching that process-wide flag off and rerunning hands the same URL to ``st.navigation``.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a future Streamlit without the legacy mode
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        # Rerun only on a session's first page view, so no widget click is ever swallowed.
        if not st.session_state.get("_navigation_v2"):
            st.session_state["_navigation_v2"] = True
            st.rerun()
    st.session_state["_navigation_v2"] = True


def page_header(scenario: Scenario | str, summary: str | None = None, paper: str | None = None) -> None:
    _use_app_navigation()
    if isinstance(scenario, Scenario):
        title, summary, paper = scenario.title, summary or scenario.summary, paper or scenario.paper
    else:
        title = scenario
    # app.py sets this too; repeating it keeps the wide layout when Streamlit serves the very first
    # deep link on a fresh server by running the page file on its own.
    st.set_page_config(page_title=f"{title} · Privacy-attack lab", layout="wide")
    st.title(title)
    if summary:
        st.markdown(summary)
    if paper:
        st.caption(f"Source: {paper}")


def show_error(exc: BaseException) -> None:
    """One clear line for an engine error; never a traceback on the page."""
    if isinstance(exc, ParameterError):
        st.error(f"**{exc.param}**: {exc.message}", icon=":material/warning:")
    elif isinstance(exc, LabError):
        st.error(str(exc), icon=":material/warning:")
    else:
        st.error(f"Unexpected error ({type(exc).__name__}): {exc}", icon=":material/error:")


# --------------------------------------------------------------- widgets
def _initial(p: Param, key: str) -> Any:
    if key in st.session_state:
        return st.session_state[key]
    text = st.query_params.get(p.name)
    if text is not None:
        try:
            return p.parse(text)
        except ParameterError:
            st.toast(f"Ignored the link's value for {p.name}: {text!r}", icon=":material/warning:")
    return p.default


def _widget(p: Param, key: str, container) -> Any:
    value = _initial(p, key)
    if key not in st.session_state:
        st.session_state[key] = value
    if p.choices is not None:
        return container.selectbox(p.title, p.choices, key=key, help=p.help,
                                   format_func=lambda c: p.choice_labels.get(c, str(c)))
    if p.kind == "bool":
        return container.toggle(p.title, key=key, help=p.help)
    if p.kind == "str":
        return container.text_input(p.title, key=key, help=p.help)
    lo = p.low if p.low is not None else None
    hi = p.high if p.high is not None else None
    if p.kind == "int":
        step = int(p.step or 1)
        if lo is not None and hi is not None and (hi - lo) / step <= 400:
            return container.slider(p.title, int(lo), int(hi), step=step, key=key, help=p.help)
        return container.number_input(p.title, min_value=None if lo is None else int(lo),
                                      max_value=None if hi is None else int(hi), step=step, key=key, help=p.help)
    step = float(p.step) if p.step else None
    if lo is not None and hi is not None and step and (hi - lo) / step <= 400:
        return container.slider(p.title, float(lo), float(hi), step=step, key=key, help=p.help)
    return container.number_input(p.title, min_value=None if lo is None else float(lo),
                                  max_value=None if hi is None else float(hi),
                                  step=step, format="%g", key=key, help=p.help)


def param_widgets(scenario: Scenario, container=None, only=None, exclude=(), seed: bool = True) -> dict:
    """Widgets generated from the scenario's Params; values mirrored into ``st.query_params``.

    Returns the validated config (plus ``"seed"`` when ``seed``). On an invalid
    combination the page shows the engine's message and stops.
    """
    container = container if container is not None else st.sidebar
    values = {}
    for p in scenario.params:
        if not p.ui or (only is not None and p.name not in only) or p.name in exclude:
            continue
        values[p.name] = _widget(p, f"{scenario.name}.{p.name}", container)
    if seed:
        seed_param = Param("seed", "int", 0, "random seed: the same seed gives the same numbers",
                           label="Seed", low=0, high=2**31 - 1)
        values["seed"] = _widget(seed_param, f"{scenario.name}.seed", container)
    for name, value in values.items():
        default = 0 if name == "seed" else scenario.param(name).default
        if value != default:
            st.query_params[name] = str(value).lower() if isinstance(value, bool) else str(value)
        elif name in st.query_params:
            del st.query_params[name]
    params = {k: v for k, v in values.items() if k != "seed"}
    try:
        config = scenario.resolve(params)
    except ParameterError as exc:
        show_error(exc)
        st.stop()
    if seed:
        config["seed"] = int(values["seed"])
    return config


# ------------------------------------------------------------------ runs
# The run machinery (server-wide worker pool with a visible queue, Stop, abandoned runs, cost limits, the
# shared result store) lives in ui/runs.py; re-exported here so pages keep importing from ui.common.
from ui.runs import MAX_CACHED_RESULTS, POLL_SECONDS, _in_worker, run_scenario, run_sweep  # noqa: E402,F401


def _tick() -> int:
    st.session_state["_draw_tick"] = st.session_state.get("_draw_tick", 0) + 1
    return st.session_state["_draw_tick"]


def chart(fig, name: str, **kw) -> None:
    """``st.plotly_chart`` with a key unique to the current draw (live redraws repeat charts)."""
    st.plotly_chart(fig, key=f"{name}-{st.session_state.get('_draw_tick', 0)}", width="stretch", **kw)


# ------------------------------------------------------------- downloads
def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name).strip("_") or "download"


def download_figure(fig, name: str) -> None:
    """HTML (interactive, self-contained) and JSON downloads of a plotly figure."""
    slug = _slug(name)
    c1, c2 = st.columns(2)
    c1.download_button("⬇ Figure (HTML)", data=lambda: fig.to_html(include_plotlyjs=True, full_html=True),
                       file_name=f"{slug}.html", mime="text/html", key=f"dl-html-{slug}")
    c2.download_button("⬇ Figure data (JSON)", data=lambda: fig.to_json(), file_name=f"{slug}.json",
                       mime="application/json", key=f"dl-json-{slug}")


def figure(fig, name: str, downloads: bool = True) -> None:
    """A chart followed by its HTML/JSON download buttons."""
    chart(fig, name)
    if downloads:
        download_figure(fig, name)


def download_table(df: pd.DataFrame, name: str) -> None:
    slug = _slug(name)
    st.download_button("⬇ Table (CSV)", data=lambda: df.to_csv(index=False), file_name=f"{slug}.csv",
                       mime="text/csv", key=f"dl-csv-{slug}")


def download_result(result: Result, name: str | None = None) -> None:
    """The whole run (config with seed, metrics, series, per-game records) as JSON."""
    slug = _slug(name or f"{result.scenario}-seed{result.config.get('seed', 0)}")
    st.download_button("⬇ Full result with configuration and seed (JSON)",
                       data=lambda: result.to_json(indent=1), file_name=f"{slug}.json",
                       mime="application/json", key=f"dl-result-{slug}")


def metric_row(metrics: dict, names: dict[str, str], fmt: str = "{:.3f}") -> None:
    """A row of ``st.metric`` tiles for the named metrics that exist."""
    shown = [(label, metrics[k]) for k, label in names.items() if k in metrics]
    if not shown:
        return
    for col, (label, value) in zip(st.columns(len(shown)), shown):
        text = "—" if value is None or (isinstance(value, float) and math.isnan(value)) else (
            fmt.format(value) if isinstance(value, (int, float)) else str(value))
        col.metric(label, text)
