"""The address bar is written by strangers: values no widget could take are dropped before any widget reads them."""
from __future__ import annotations

import streamlit as st

from core.output.inert import LINK_TOKEN_LIMIT, LINK_VALUE_LIMIT, inert, link_value_problem


def _forget_initial_link_value(name: str) -> None:
    """Streamlit seeds bound widgets from the address the session opened with (a copy that deleting from
    ``st.query_params`` does not touch), so a dropped value is removed there too."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
        initial = ctx.session_state._state.query_params._initial_query_params if ctx is not None else None
    except AttributeError:  # another Streamlit: its binding may not keep such a copy
        return
    if isinstance(initial, dict):
        initial.pop(name, None)


def guard_link() -> None:
    """Drop every query parameter no widget could have set, with a note, before any widget reads the link.

    A link is written by a stranger: a value that is too long, holds control characters or is a number that is
    not finite (``inf``, ``nan``, ``1e309``) is never a widget's value, and Streamlit's own readers of bound
    widgets raise on some of them (an overflow in a number input), which would put a traceback on the page."""
    for name in list(st.query_params.keys()):
        limit = LINK_TOKEN_LIMIT if name == "pins" else LINK_VALUE_LIMIT
        problems = [why for value in st.query_params.get_all(name)
                    if (why := link_value_problem(value, limit)) is not None]
        if len(name) > LINK_VALUE_LIMIT or link_value_problem(name) is not None:
            problems.append("not a parameter name")
        if problems:
            del st.query_params[name]
            _forget_initial_link_value(name)
            st.toast(f"Ignored the link's value for {inert(name, 40)}: {problems[0]}.", icon=":material/warning:")
