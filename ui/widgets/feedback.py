"""What both the widgets (ui/widgets/page_widgets.py) and the run machinery (ui/runs/page_runs.py) need: one clear line for an error,
the draw counter that keeps chart keys unique across live redraws, and the browser session's id. Kept apart so
neither of those modules imports the other."""
from __future__ import annotations

import logging
import uuid

import streamlit as st

from core.errors import LabError, ParameterError
from core.output.inert import inert_text

log = logging.getLogger("privacy_lab.ui")


def show_error(exc: BaseException) -> None:
    """One clear line for an engine error; never a traceback on the page.

    Engine messages quote what the user (or a link, a file, a column name) gave them, so they are shown as inert
    text: no link, image or HTML can come out of them. An error that is not the engine's own (a bug) is not
    shown at all — its text may hold server paths — but logged with a short reference the page names."""
    if isinstance(exc, ParameterError):
        st.error(f"**{inert_text(exc.param, 200)}**: {inert_text(exc.message)}", icon=":material/warning:")
    elif isinstance(exc, LabError):
        st.error(inert_text(str(exc)), icon=":material/warning:")
    else:
        ref = uuid.uuid4().hex[:8]
        log.error("unexpected error, reference %s", ref, exc_info=exc)
        st.error(f"Unexpected error ({type(exc).__name__}); the server log has the details under reference {ref}.",
                 icon=":material/error:")


def tick() -> int:
    """Advance this session's draw counter: a live redraw repeats charts, and each needs a key of its own."""
    st.session_state["_draw_tick"] = st.session_state.get("_draw_tick", 0) + 1
    return st.session_state["_draw_tick"]


def run_failed(exc: BaseException, partial, unit: tuple[str, str], live, area, preview) -> None:
    """A run that failed (e.g. its worker was killed): the error in one line, and what is true beside it.

    The live plots (``live``) were a run in progress, not its result, so they give way to the page's preview
    (``preview()``, if any); the games that had finished show only as partial numbers
    (:func:`partial_after_failure`); ``partial`` is the last report's :class:`~core.runtime.games.Result`, or None."""
    live.empty()
    if preview is not None:
        tick()  # the preview was drawn once already in this run: its charts need keys of their own
        with live.container():
            preview()
    with area:
        show_error(exc)
        if partial is not None and partial.games_done:
            partial_after_failure(partial, unit)


def partial_after_failure(result, unit: tuple[str, str]) -> None:
    """The numbers of the games that finished before a run failed, labelled as partial with their count.

    Only as a table, folded away: a page's own draw would show a headline over the configured number of
    games, which these numbers are not. ``unit``: the scenario's (singular, plural) name of a game."""
    import pandas as pd

    from core.basics.words import count

    done, total = count(result.games_done, *unit), count(result.games_total, *unit)
    with st.expander(f"Partial numbers: {done} of {total} finished before the failure", expanded=False):
        st.caption(f"These numbers cover only the {done} played before the run failed. They are not the run's "
                   "result and were not stored; run it again for the full result.")
        rows = [{"metric": k, f"value over {done}": v} for k, v in result.metrics.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if rows:
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def session_id() -> str | None:
    """This browser session's id (None outside a script run: tests, bare mode)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
    except Exception:  # no script context (tests, bare mode)
        return None
    return getattr(ctx, "session_id", None)
