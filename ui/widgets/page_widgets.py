"""Shared page machinery: the page preamble, generated parameter widgets, charts with their text alternative
and downloads (a page's run itself is ui/runs/page_runs.py).

Pages stay thin: ``config = param_widgets(scenario)`` → ``run_scenario(...)``
(one engine call, with progress, a Stop button and live redraws) → plots built
by ``core.plots``. Everything here is presentation; no attack logic.
"""
from __future__ import annotations

import functools
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core.errors import LabError, ParameterError
from core.output import plain_language as say
from core.output import safe_csv
from core.output.inert import inert
from core.params import Param
from core.runtime.games import Result
from core.scenario import Scenario
from ui.widgets.feedback import show_error, tick  # noqa: F401  (pages import show_error with the other widgets)
from ui.widgets.widget_limits import cost_cap, valid_range
from ui.widgets.address_guard import guard_link


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
    guard_link()
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


def scenario_page(name: str, about: str, sidebar: str, content_name: str | None = None,
                  summary: str | None = None) -> Scenario:
    """The opening every lab page shares: the registered scenario, its title and source (``summary`` replaces
    the scenario's own where the page's data call for other words), the "What is happening here?" expander over
    the lab's content file, and the sidebar's heading. Returns the scenario."""
    from core.scenario import get

    from ui.charts.first_view import deferred

    scenario = get(name)
    page_header(scenario, summary=summary)
    with deferred(st.expander(about, expanded=False)):  # collapsed: a new tab's first view sends its text later
        st.markdown(content(content_name or name.replace("-", "_")))
    st.sidebar.header(sidebar)
    return scenario


def stop_unless_ready(problem: BaseException | None, missing: str | None) -> None:
    """End the page's run before its engine call when the data are unusable (the error in one line) or not yet
    given (what to do). Pages call it after drawing every control, since Streamlit forgets a control a run skips."""
    if problem is not None:
        show_error(problem)
        st.stop()
    if missing:
        st.info(missing)
        st.stop()


# --------------------------------------------------------------- text
CONTENT_DIR = Path(__file__).resolve().parents[2] / "content"
_SECTION = re.compile(r"^<!-- section: ([\w-]+) -->\s*$", re.M)


@functools.lru_cache(maxsize=32)
def _content_sections(name: str) -> dict[str, str]:
    text = (CONTENT_DIR / f"{name}.md").read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    sections = {"main": parts[0].strip()}
    for title, body in zip(parts[1::2], parts[2::2]):
        sections[title] = body.strip()
    return sections


def content(name: str, section: str = "main") -> str:
    """Explanatory text of a page, read from ``content/<name>.md``.

    A file may hold several parts separated by ``<!-- section: NAME -->`` lines; the text before the first
    marker is ``"main"``.
    """
    return _content_sections(name)[section]


def plain(sentence: str) -> None:
    """The page's one plain-language sentence: what the current result means for a release."""
    if sentence:
        st.info(sentence, icon=":material/record_voice_over:")


# --------------------------------------------------------------- widgets
MAX_SLIDER_STEPS = 400


def _fmt_number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def lazy_tabs(demos: dict, key: str) -> None:
    """Tabs of which only the open one runs: ``demos`` maps each tab's label to the function that draws it.

    Choosing a tab reruns the page (``st.tabs(on_change="rerun")``), so a new visitor's browser draws one
    demo's charts, not every tab's, and a change in one demo does not replay the others. The open tab is bound
    to the address bar (``key``), so a link opens the same tab. Controls in a closed tab must be bound too, or
    kept with ``kept_editor``: Streamlit forgets a widget that a run does not draw."""
    for tab, demo in zip(st.tabs(list(demos), key=key, on_change="rerun", bind="query-params"), demos.values()):
        if tab.open:
            with tab:
                demo()


def keep(key: str) -> None:
    """Keep the value of a control that some runs do not draw (one drawn only under a finished result, say).

    Streamlit forgets a widget's value after a run that does not draw it, so the control would come back at its
    default. Set again from session state at the top of a run, the value is the session's own and outlives that
    run (the way Streamlit's documentation keeps a widget's value across pages)."""
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]


def kept_editor(base: pd.DataFrame, *, key: str, **kw) -> pd.DataFrame:
    """``st.data_editor`` whose edits survive runs that do not draw it, such as a closed lazy tab.

    Streamlit forgets a widget's state after a run that does not draw it, so an editor drawn again would start
    from ``base`` and lose the user's rows. The edited table is kept in the session instead, and an editor
    drawn anew starts from it. While the editor lives, it keeps the table it started from (its own edits are
    relative to that table)."""
    kept, origin = f"_{key}.edited", f"_{key}.origin"
    if key not in st.session_state or origin not in st.session_state:
        st.session_state[origin] = st.session_state.get(kept, base)
    edited = st.data_editor(st.session_state[origin], key=key, **kw)
    st.session_state[kept] = edited
    return edited


def number_field(container, label: str, *, key: str, kind: str, default, low=None, high=None, step=None,
                 low_open: bool = False, high_open: bool = False, help: str | None = None, disabled: bool = False,
                 fmt: str | None = None, bind: str | None = None):
    """A number input whose out-of-range entries are corrected *and explained*.

    Streamlit's own min/max make the browser silently keep the old value when a user types 99999999, so
    the range is checked here: a value outside it is replaced by the nearest allowed one and a warning
    under the field names the allowed range. The widget therefore never holds a value the engine refuses.
    """
    lo, hi = valid_range(kind, low, high, step, low_open, high_open)
    cast = int if kind == "int" else float
    fix_key = f"_fix.{key}"

    def clamp(value):
        if value is None:
            return cast(default), "is empty"
        if lo is not None and value < lo:
            return cast(lo), f"is below the minimum {_fmt_number(lo)}"
        if hi is not None and value > hi:
            return cast(hi), f"is above the maximum {_fmt_number(hi)}"
        return value, None

    allowed = _range_words(lo, hi)
    message = st.session_state.pop(fix_key, None)
    if key in st.session_state:  # a typed value (or a link's) arrives here before the widget is drawn
        value, why = clamp(st.session_state[key])
        if why:
            message = f"**{label}**: {_fmt_number(st.session_state[key])} {why}; allowed: {allowed}. " \
                      f"Using {_fmt_number(value)}."
            st.session_state[key] = value
    else:
        st.session_state[key] = cast(default)
    kw = {"bind": bind} if bind else {}
    value = container.number_input(label, step=cast(step) if step else (1 if kind == "int" else None),
                                   format=fmt or ("%d" if kind == "int" else "%g"), key=key,
                                   help=((help or "") + f"\n\nAllowed: {allowed}.").strip(), disabled=disabled, **kw)
    fixed, why = clamp(value)
    once_key = f"_fixed_once.{key}"
    if why:  # e.g. a link's value, first seen by the widget itself: use the nearest allowed one
        message = f"**{label}**: {_fmt_number(value) if value is not None else 'the value'} {why}; allowed: " \
                  f"{allowed}. Using {_fmt_number(fixed)}."
        st.session_state[fix_key] = message
        if not st.session_state.get(once_key):  # rerun once so the field itself shows the corrected value
            st.session_state[once_key] = True
            st.rerun()
        value = fixed
    else:
        st.session_state.pop(once_key, None)
    if message:
        container.warning(message, icon=":material/straighten:")
    return value


def _range_words(lo, hi) -> str:
    if lo is not None and hi is not None:
        return f"{_fmt_number(lo)} to {_fmt_number(hi)}"
    if lo is not None:
        return f"at least {_fmt_number(lo)}"
    if hi is not None:
        return f"at most {_fmt_number(hi)}"
    return "any number"


def _initial(p: Param, key: str, default: Any) -> Any:
    """This session's value, else the link's, else ``default`` (where the page starts)."""
    if key in st.session_state:
        return st.session_state[key]
    text = st.query_params.get(p.name)
    if text is not None:
        try:
            return p.parse(text)
        except ParameterError:
            st.toast(f"Ignored the link's value for {p.name}: {inert(text)} (allowed: {p.range_text()})",
                     icon=":material/warning:")
    return default


def _widget(p: Param, key: str, container, inactive: str | None = None, cap: tuple | None = None) -> Any:
    """The widget for one Param. It offers only values ``p.validate`` accepts (open bounds included);
    ``inactive`` (a reason) disables it with a note saying why. ``cap = (value, why)`` lowers an int's top to
    what the server accepts at the other current settings: a typed field, whose note says why."""
    value = _initial(p, key, p.default)
    if key not in st.session_state:
        st.session_state[key] = value
    help_text = p.help + (f"\n\n**Inactive:** {inactive}." if inactive else "")
    disabled = inactive is not None
    if cap is not None and p.kind == "int":
        top, why = cap
        return number_field(container, p.title, key=key, kind="int", default=min(p.default, top), low=p.low,
                            high=top, step=int(p.step or 1), low_open=p.low_open, help=f"{help_text}\n\n{why}",
                            disabled=disabled)
    if p.choices is not None:
        return container.selectbox(p.title, p.choices, key=key, help=help_text, disabled=disabled,
                                   format_func=lambda c: p.choice_labels.get(c, str(c)))
    if p.kind == "bool":
        return container.toggle(p.title, key=key, help=help_text, disabled=disabled)
    if p.kind == "str":
        return container.text_input(p.title, key=key, help=help_text, disabled=disabled)
    if p.kind == "int":
        step = int(p.step or 1)
        lo, hi = valid_range("int", p.low, p.high, step, p.low_open, p.high_open)
        if lo is not None and hi is not None and (hi - lo) / step <= MAX_SLIDER_STEPS:
            st.session_state[key] = min(max(int(st.session_state[key]), lo), hi)
            return container.slider(p.title, lo, hi, step=step, key=key, help=help_text, disabled=disabled)
        return number_field(container, p.title, key=key, kind="int", default=p.default, low=p.low, high=p.high,
                            step=step, low_open=p.low_open, high_open=p.high_open, help=help_text,
                            disabled=disabled)
    step = float(p.step) if p.step else None
    lo, hi = valid_range("float", p.low, p.high, step, p.low_open, p.high_open)
    if lo is not None and hi is not None and step and (hi - lo) / step <= MAX_SLIDER_STEPS:
        st.session_state[key] = min(max(float(st.session_state[key]), lo), hi)
        return container.slider(p.title, float(lo), float(hi), step=step, key=key, help=help_text,
                                disabled=disabled)
    return number_field(container, p.title, key=key, kind="float", default=p.default, low=p.low, high=p.high,
                        step=step, low_open=p.low_open, high_open=p.high_open, help=help_text, disabled=disabled)


def _top(p: Param):
    return valid_range(p.kind, p.low, p.high, p.step, p.low_open, p.high_open)[1]


def _cost_drivers(scenario: Scenario, current: dict, shown: list) -> list[str]:
    """The shown int parameters the scenario's cost estimate names as its drivers at the current settings."""
    try:
        drivers = scenario.estimate_cost(scenario.resolve({k: v for k, v in current.items() if k != "seed"})).drivers
    except LabError:
        return []
    return [p.name for p in shown if p.kind == "int" and p.name in drivers]


def param_widgets(scenario: Scenario, container=None, only=None, exclude=(), seed: bool = True,
                  defaults: dict | None = None, cost_capped: tuple | str = (), data_caps: dict | None = None,
                  slots: dict | None = None) -> dict:
    """Widgets generated from the scenario's Params; values mirrored into ``st.query_params``.

    Widgets of parameters that have no effect under the current choices (``Param.active_when``) are
    disabled with a note. Returns the validated config (plus ``"seed"`` when ``seed``). On an invalid
    combination the page shows the engine's message and stops.

    ``defaults``: where the page starts for some parameters instead of the scenario's defaults (a small, fast
    first run). The link holds every value that differs from where the page starts, so a shared link reopens
    with the same values (a value equal to the scenario's default but not the page's stays in it).

    ``cost_capped`` / ``data_caps``: int parameters whose top follows the server's limits at the other current
    settings, or the user's data (``{name: (top, why)}``): drawn as typed fields that correct a larger value and
    say why. ``cost_capped="drivers"``: every shown int the cost estimate grows with, wherever its widget's own
    range would reach a run the server refuses.

    ``slots``: ``{parameter name: None}``; each is filled with an empty container placed right under that
    parameter's widget, for a control the page can only build later (e.g. one whose choices come from the data)
    but that belongs beside it.
    """
    container = container if container is not None else st.sidebar
    start = {**scenario.defaults(), **(defaults or {}), "seed": 0}
    shown = [p for p in scenario.params
             if p.ui and (only is None or p.name in only) and p.name not in exclude]
    # Current values first (session state or the link), so a widget knows whether it is active.
    for p in shown:
        key = f"{scenario.name}.{p.name}"
        if key not in st.session_state:
            st.session_state[key] = _initial(p, key, start[p.name])
    current = {**scenario.defaults(), **{p.name: st.session_state[f"{scenario.name}.{p.name}"] for p in shown}}
    inactive = scenario.inactive(current)
    if cost_capped == "drivers":  # every int the cost grows with, capped only where the server would refuse
        caps = {name: cap for name in _cost_drivers(scenario, current, shown)
                if (cap := cost_cap(scenario, current, name)) is not None and cap[0] < _top(scenario.param(name))}
    else:
        caps = {name: cost_cap(scenario, current, name) for name in cost_capped}  # ui.widgets.widget_limits
    for name, cap in (data_caps or {}).items():  # what the user's data allow (e.g. records in their table)
        if cap is not None and (caps.get(name) is None or cap[0] < caps[name][0]):
            caps[name] = cap
    values = {}
    for p in shown:
        values[p.name] = _widget(p, f"{scenario.name}.{p.name}", container, inactive.get(p.name), caps.get(p.name))
        if slots is not None and p.name in slots:
            slots[p.name] = container.container()
        if p.name == "epsilon" and isinstance(values[p.name], (int, float)) and values[p.name] > 0:
            container.caption(f"In plain words — {say.odds_short(float(values[p.name]))}")  # every ε input
    if seed:
        seed_param = Param("seed", "int", 0, "random seed: the same seed gives the same numbers",
                           label="Seed", low=0, high=2**31 - 1)
        values["seed"] = _widget(seed_param, f"{scenario.name}.seed", container)
    for name, value in values.items():
        if value != start[name]:
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


CHART_FONT = '"Source Sans", sans-serif'  # the app's own font (Streamlit's theme), for the charts' text too


def chart(fig, name: str, **kw) -> None:
    """A plotly chart with a key unique to the current draw (live redraws repeat charts), its series told apart
    by line style and marker as well as colour, its text alternative under it (on a new tab's first view, which
    ends at this chart, with the full run that follows), and at most six WebGL charts on a page
    (ui.charts.first_view.webgl_budget). In a browser, a chart whose traces a partial bundle of plotly.js holds is drawn
    with that bundle (ui/charts/plotly_view.py: a new tab draws it in half the time); any other with ``st.plotly_chart``.
    Both draw the figure as it is (``theme=None``), so the two kinds look alike on one page."""
    from core.plots.common import distinguish
    from core.plots.margins import reserve_side_margins
    from ui.charts import plotly_view
    from ui.widgets.accessibility import chart_text
    from ui.charts.first_view import after_chart, browser_session, view_ends_here, webgl_budget

    reserve_side_margins(fig)  # room for the y axes' labels up front: Plotly then draws the chart once, not twice
    fig = distinguish(webgl_budget(fig, name))
    if not fig.layout.font.family:
        fig.update_layout(font_family=CHART_FONT)
    key = f"{name}-{st.session_state.get('_draw_tick', 0)}"
    config = kw.pop("config", None)  # Plotly's own options: both renderers take them
    bundle = plotly_view.bundle_for(fig) if not kw and browser_session() else None
    if bundle:
        plotly_view.draw(fig, bundle, key=key, config=config)
    else:
        st.plotly_chart(fig, key=key, width="stretch", theme=None, config=config, **kw)
    if not view_ends_here():
        chart_text(fig)
    after_chart()  # a new tab's first view ends here; the rest follows once the browser has drawn this chart


def charts_side_by_side(*named) -> None:
    """``(figure, name)`` pairs in equal columns; a ``None`` figure is left out, so a lone chart takes the width."""
    shown = [(fig, name) for fig, name in named if fig is not None]
    columns = st.columns(len(shown)) if len(shown) > 1 else [st.container()]
    for column, (fig, name) in zip(columns, shown):
        with column:
            chart(fig, name)


# ------------------------------------------------------------- downloads
def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name).strip("_") or "download"


def figure_label(fig) -> str:
    """What a figure shows, for its download buttons: its title without markup or subtitle."""
    title = fig.layout.title.text or ""
    title = re.split(r"<br\s*/?>", title)[0]
    return re.sub(r"<[^>]+>", "", title).strip() or "figure"


def download_figure(fig, name: str, label: str | None = None) -> None:
    """HTML (interactive, self-contained) and JSON downloads of a plotly figure, in one row labelled with
    what they download; call it right under the chart (``figure`` does)."""
    slug = _slug(name)
    what = label or figure_label(fig)
    row = st.container(horizontal=True, gap="small")
    row.download_button(f"{what} · HTML", data=lambda: fig.to_html(include_plotlyjs=True, full_html=True),
                        file_name=f"{slug}.html", mime="text/html", key=f"dl-html-{slug}", icon=":material/download:",
                        help=f"Download “{what}” as an interactive, self-contained web page", type="tertiary")
    row.download_button(f"{what} · data (JSON)", data=lambda: fig.to_json(), file_name=f"{slug}.json",
                        mime="application/json", key=f"dl-json-{slug}", icon=":material/download:",
                        help=f"Download the data and layout of “{what}” as Plotly JSON", type="tertiary")


def figure(fig, name: str, downloads: bool = True, label: str | None = None) -> None:
    """A chart with its HTML/JSON download buttons right under it, labelled with what they download."""
    chart(fig, name)
    if downloads:
        download_figure(fig, name, label)


def download_table(df: pd.DataFrame, name: str, label: str | None = None) -> None:
    slug = _slug(name)
    what = label or name.replace("-", " ")
    st.download_button(f"{what} · table (CSV)", data=lambda: safe_csv.to_csv(df), file_name=f"{slug}.csv",
                       mime="text/csv", key=f"dl-csv-{slug}", icon=":material/download:", type="tertiary",
                       help=f"Download {what}: {len(df):,} rows as CSV (cells that a spreadsheet would run as "
                            "formulas are prefixed with ')")


def download_result(result: Result, name: str | None = None) -> None:
    """The whole run (config with seed, metrics, series, per-game records) as JSON."""
    slug = _slug(name or f"{result.scenario}-seed{result.config.get('seed', 0)}")
    st.download_button("⬇ Full result with configuration and seed (JSON)",
                       data=lambda: result.to_json(indent=1), file_name=f"{slug}.json",
                       mime="application/json", key=f"dl-result-{slug}")


def metric_row(metrics: dict, names: dict[str, str], fmt: str = "{:.3f}") -> None:
    """A row of ``st.metric`` tiles for the named metrics that exist. The row wraps instead of truncating a
    label: each tile is as wide as its label."""
    shown = [(label, metrics[k]) for k, label in names.items() if k in metrics]
    if not shown:
        return
    row = st.container(horizontal=True, wrap=True, gap="large")
    for label, value in shown:
        text = "—" if value is None or (isinstance(value, float) and math.isnan(value)) else (
            fmt.format(value) if isinstance(value, (int, float)) else str(value))
        row.metric(label, text, width="content")
