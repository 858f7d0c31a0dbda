"""What both the widgets (ui/common.py) and the run machinery (ui/runs.py) need: one clear line for an error,
and the draw counter that keeps chart keys unique across live redraws. Kept apart so neither of those modules
imports the other."""
from __future__ import annotations

import streamlit as st

from core.errors import LabError, ParameterError


def show_error(exc: BaseException) -> None:
    """One clear line for an engine error; never a traceback on the page."""
    if isinstance(exc, ParameterError):
        st.error(f"**{exc.param}**: {exc.message}", icon=":material/warning:")
    elif isinstance(exc, LabError):
        st.error(str(exc), icon=":material/warning:")
    else:
        st.error(f"Unexpected error ({type(exc).__name__}): {exc}", icon=":material/error:")


def tick() -> int:
    """Advance this session's draw counter: a live redraw repeats charts, and each needs a key of its own."""
    st.session_state["_draw_tick"] = st.session_state.get("_draw_tick", 0) + 1
    return st.session_state["_draw_tick"]
