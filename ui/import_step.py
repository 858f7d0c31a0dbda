"""The import step of every lab that takes a CSV: how the file was read (with overrides), its first rows,
each column's type and distinct values, and the roles the engine suggests with one line of why.

Pages call :func:`import_upload` right after their ``st.file_uploader``; it returns the path of the
normalised file the engine reads (UTF-8, comma-separated, decimal points: exactly what the preview showed)
and the :class:`~core.data.table_import.TableImport`, whose ``suggest_roles`` the page uses as the default
of its role choosers (:func:`role_select`). Nothing here touches any other control of the page.
"""
from __future__ import annotations

import hashlib
from contextlib import contextmanager

import streamlit as st

from core.cancel import stop_check
from core.data.dataset import DECIMALS, DELIMITERS, ENCODINGS
from core.data.table_import import Suggestion, TableImport, inspect_upload, suggest_roles
from core.output.inert import inert_text
from ui.uploads import save_upload

DETECTED = "detected"


@contextmanager
def parse_guard():
    """Parsing an upload stops (``core.errors.Cancelled``) once the browser session that sent it has gone, so a
    closed tab does not keep a server thread busy with its file."""
    from ui.feedback import session_id
    from ui.runs import session_alive

    sid = session_id()
    with stop_check(lambda: not session_alive(sid)):
        yield


@st.cache_data(max_entries=8, ttl=900, show_spinner="Reading your file…")
def _inspect(digest: str, name: str, encoding, delimiter, decimal, _raw: bytes) -> TableImport:
    # keyed by the content's hash (never its bytes) and the chosen format; bounded in entries and time
    with parse_guard():
        return inspect_upload(_raw, name, encoding=encoding, delimiter=delimiter, decimal=decimal)


def import_upload(upload, kind: str) -> tuple[str, TableImport]:
    """Read ``upload`` (a Streamlit ``UploadedFile``) for the lab ``kind``; draw the import panel.

    Returns ``(path of the normalised file, table)``; raises :class:`~core.errors.DataError` (one line) for
    an unusable file, which the page shows with ``show_error``."""
    raw = upload.getvalue()
    digest = hashlib.sha256(raw).hexdigest()
    keys = {part: f"{kind}.import.{part}" for part in ("encoding", "delimiter", "decimal")}
    chosen = {part: (None if st.session_state.get(k, DETECTED) == DETECTED else st.session_state[k])
              for part, k in keys.items()}
    table = _inspect(digest, upload.name, chosen["encoding"], chosen["delimiter"], chosen["decimal"], raw)
    path = save_upload(table.normalised_csv(), kind, name=upload.name)  # messages name the user's file
    with st.expander(f"Your file: {inert_text(upload.name)} — {table.rows:,} rows × {len(table.columns)} columns",
                     expanded=st.session_state.get(f"_{kind}.import.seen") != digest):
        st.session_state[f"_{kind}.import.seen"] = digest
        st.caption(f"Read as {table.fmt.describe()}. Detected: {table.detected.describe()}. If the preview "
                   "looks wrong (one wide column, numbers shown as text), choose the format here.")
        c1, c2, c3 = st.columns(3)
        c1.selectbox("Encoding", [DETECTED, *ENCODINGS], key=keys["encoding"],
                     format_func=lambda e: f"detected ({ENCODINGS[table.detected.encoding]})" if e == DETECTED
                     else ENCODINGS[e])
        c2.selectbox("Separator", [DETECTED, *DELIMITERS], key=keys["delimiter"],
                     format_func=lambda d: f"detected ({DELIMITERS[table.detected.delimiter]})" if d == DETECTED
                     else DELIMITERS[d])
        c3.selectbox("Decimal mark", [DETECTED, *DECIMALS], key=keys["decimal"],
                     format_func=lambda d: f"detected ({DECIMALS[table.detected.decimal]})" if d == DETECTED
                     else DECIMALS[d])
        st.markdown("**First rows**")
        st.dataframe(table.preview(), hide_index=True, width="stretch")
        st.markdown("**Columns**: type as read (numbers stay numbers) and number of distinct values")
        st.dataframe(table.column_table(), hide_index=True, width="stretch")
    return path, table


def suggestions(table: TableImport, min_group: int = 20) -> dict[str, Suggestion]:
    return suggest_roles(table.frame, min_group=min_group)


def role_select(container, title: str, options: list, key: str, suggestion: Suggestion | None, help: str = "",
                **kw):
    """A selectbox for one role whose first value is the suggestion (when it is among ``options``), with the
    suggestion's reason under it; a choice the user made is kept (and a stale one replaced)."""
    if st.session_state.get(key) not in options:
        st.session_state.pop(key, None)
        if suggestion is not None and suggestion.column in options:
            st.session_state[key] = suggestion.column
    value = container.selectbox(title, options, key=key, help=help, **kw)
    if suggestion is not None and value == suggestion.column:
        container.caption(f"Suggested: {inert_text(suggestion.why)}.")
    return value
