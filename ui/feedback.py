"""What both the widgets (ui/common.py) and the run machinery (ui/runs.py) need: one clear line for an error,
and the draw counter that keeps chart keys unique across live redraws. Kept apart so neither of those modules
imports the other."""
from __future__ import annotations

import streamlit as st

import logging
import uuid

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
