"""The import step of every lab that takes a CSV: how the file was read (with overrides), its first rows,
each column's type and distinct values, what is ignored (identifiers, empty columns, Total rows) and the roles
the engine suggests with one line of why.

Pages call :func:`import_upload` right after their ``st.file_uploader``; it returns the path of the
normalised file the engine reads (UTF-8, comma-separated, decimal points, without the ignored columns and
rows: exactly what the preview showed) and the :class:`~core.data.table_import.TableImport`, whose
``suggest_roles`` the page uses as the default of its role choosers (:func:`role_select`).

Each upload starts its own import. The format boxes, the ignored columns and the summary-row choice are keyed
by the file's content hash, so a new file starts at "detected" with its own defaults and a choice made for
one file never reaches the next (a box holding the previous file's "detected (Windows-1252)" once failed the
next upload). The role choosers and the page's other per-file choices ask :func:`new_file_for` whether
their stored value belongs to an earlier file, and go back to the new file's suggestion if so. Nothing here
touches any other control of the page.
"""
from __future__ import annotations

import hashlib
from contextlib import contextmanager

import streamlit as st

from core.cancel import stop_check
from core.data.csv_format import detect_format
from core.data.dataset import DECIMALS, DELIMITERS, ENCODINGS
from core.data.table_import import Suggestion, TableImport, YesNo, inspect_upload, suggest_roles
from core.errors import DataError
from core.output.inert import inert_text
from ui.widgets.uploads import UPLOAD_TYPES, save_upload  # noqa: F401  (the pages' uploader types)

DETECTED = "detected"
_CURRENT = "_import.current"  # the content hash of the file the page imported in this script run


@contextmanager
def parse_guard():
    """Parsing an upload stops (``core.errors.Cancelled``) once the browser session that sent it has gone, so a
    closed tab does not keep a server thread busy with its file."""
    from ui.widgets.feedback import session_id
    from ui.runs.page_runs import session_alive

    sid = session_id()
    with stop_check(lambda: not session_alive(sid)):
        yield


# One session's own cache, emptied when its tab closes: a parsed upload is the largest thing a visitor can make the
# server hold (a 20 MB, 499-column CSV parses to about 300 MB of pandas objects), and a server-wide cache kept it
# for 15 minutes after its visitor had gone. Its entries (the file with each set of format choices tried) are
# kept while the visitor works on the file, so a choice made and taken back is not parsed again.
@st.cache_data(max_entries=4, ttl=900, show_spinner="Reading your file…", scope="session")
def _inspect(digest: str, name: str, encoding, delimiter, decimal, ignore, keep_summary, yes_no,
             _raw: bytes) -> TableImport:
    # keyed by the content's hash (never its bytes) and the choices; bounded in entries and time
    with parse_guard():
        return inspect_upload(_raw, name, encoding=encoding, delimiter=delimiter, decimal=decimal,
                              ignore=None if ignore is None else list(ignore), keep_summary_rows=keep_summary,
                              yes_no=yes_no)


def _detected(raw: bytes, name: str):
    """The detected format, for the boxes' labels when the chosen one cannot read the file (None if nothing can)."""
    try:
        return detect_format(raw, name)[0]
    except DataError:
        return None


def new_file_for(key: str) -> bool:
    """True when the choice stored under ``key`` was made for another file than the one imported in this run
    (and from now on it belongs to this one). The first file of a session is not "new": a link's values stay."""
    current = st.session_state.get(_CURRENT)
    stamp_key = f"_import.file.{key}"
    before = st.session_state.get(stamp_key)
    st.session_state[stamp_key] = current
    return before is not None and current is not None and before != current


def import_upload(upload, kind: str) -> tuple[str, TableImport]:
    """Read ``upload`` (a Streamlit ``UploadedFile``) for the lab ``kind``; draw the import panel.

    Returns ``(path of the normalised file, table)``; raises :class:`~core.errors.DataError` (one line) for
    an unusable file, which the page shows with ``show_error`` — after the panel, so a format chosen by
    mistake can be chosen back."""
    raw = upload.getvalue()
    digest = hashlib.sha256(raw).hexdigest()
    st.session_state[_CURRENT] = digest
    keys = {part: f"{kind}.import.{digest[:16]}.{part}"
            for part in ("encoding", "delimiter", "decimal", "ignore", "summary", "yesno", "above", "equals")}
    known = {"encoding": ENCODINGS, "delimiter": DELIMITERS, "decimal": DECIMALS}
    chosen = {}
    for part, options in known.items():
        value = st.session_state.get(keys[part], DETECTED)
        chosen[part] = None if value == DETECTED or value not in options else value
    ignore = st.session_state.get(keys["ignore"])
    keep_summary = bool(st.session_state.get(keys["summary"], False))
    table, problem = None, None
    try:
        table = _inspect(digest, upload.name, chosen["encoding"], chosen["delimiter"], chosen["decimal"],
                         None if ignore is None else tuple(ignore), keep_summary, _yes_no(keys), raw)
    except DataError as exc:
        problem = exc
    detected = table.detected if table is not None else _detected(raw, upload.name)
    size = f" — {table.rows:,} rows × {table.frame.shape[1]} columns used" if table is not None else ""
    # Open for a new file; keyed by the file, so it stays as the user left it while they choose in it (without a
    # key, its identity followed its arguments and it snapped shut on the run after each choice).
    with st.expander(f"Your file: {inert_text(upload.name)}{size}", expanded=True,
                     key=f"{kind}.import.{digest[:16]}.panel"):
        if table is not None and table.workbook:
            st.caption("Read from the workbook's first sheet (values as last calculated by the spreadsheet).")
        elif detected is not None:
            used = f"Read as {table.fmt.describe()}. " if table is not None else ""
            st.caption(f"{used}Detected: {detected.describe()}. If the preview looks wrong (one wide column, "
                       "numbers shown as text), choose the format here.")
            _format_boxes(keys, detected)
        if problem is not None:
            if st.session_state.get(keys["yesno"]):
                st.session_state[keys["yesno"]] = ""  # a yes/no rule this file cannot take: back to none
            raise problem
        _shape_controls(table, keys)
        _yes_no_controls(table, keys)
        st.markdown("**First rows** (as the lab uses them)")
        st.dataframe(table.preview(), hide_index=True, width="stretch")
        st.markdown("**Columns**: what the lab does with each, type as read (numbers stay numbers), distinct "
                    "values and empty cells")
        st.dataframe(table.column_table(), hide_index=True, width="stretch",
                     column_config={"use": st.column_config.TextColumn(width="large")})  # the reason, readable
    path = save_upload(table.normalised_csv(), kind, name=upload.name)  # messages name the user's file
    return path, table


def _format_boxes(keys: dict, detected) -> None:
    c1, c2, c3 = st.columns(3)
    c1.selectbox("Encoding", [DETECTED, *ENCODINGS], key=keys["encoding"],
                 format_func=lambda e: f"detected ({ENCODINGS[detected.encoding]})" if e == DETECTED
                 else ENCODINGS[e])
    c2.selectbox("Separator", [DETECTED, *DELIMITERS], key=keys["delimiter"],
                 format_func=lambda d: f"detected ({DELIMITERS[detected.delimiter]})" if d == DETECTED
                 else DELIMITERS[d])
    c3.selectbox("Decimal mark", [DETECTED, *DECIMALS], key=keys["decimal"],
                 format_func=lambda d: f"detected ({DECIMALS[detected.decimal]})" if d == DETECTED
                 else DECIMALS[d])


def _shape_controls(table: TableImport, keys: dict) -> None:
    """What is ignored and why, with the overrides: the ignored columns, and whether Total rows are dropped."""
    columns = [c.name for c in table.columns]
    if keys["ignore"] not in st.session_state:
        st.session_state[keys["ignore"]] = list(table.default_ignored)
    elif not set(st.session_state[keys["ignore"]]) <= set(columns):  # names read with another encoding
        st.session_state[keys["ignore"]] = [c for c in st.session_state[keys["ignore"]] if c in columns]
    st.multiselect("Ignored columns (not data about a person)", columns, key=keys["ignore"],
                   help="Identifiers (unique on every row), empty and mostly-empty columns are ignored unless you "
                        "keep them: an ID would single out everyone, and a mostly-empty column would drop every "
                        "row where it is empty in the labs that need complete rows. Remove a column here to "
                        "use it, or add one to leave it out.")
    for note in table.notes:
        kept = note.column not in table.ignored
        drops = "" if note.kind == "identifier" else \
            f" Ignoring it drops no row; keeping it drops {note.drops:,} of {table.rows:,} rows in labs that need " \
            "complete rows."
        st.caption(f"{inert_text(note.column)}: {note.kind} — {'kept (your choice)' if kept else 'ignored'} "
                   f"({inert_text(note.why)}).{drops}")
    if table.summaries:
        found = "; ".join(f"row {s.row} ({inert_text(s.why)})" for s in table.summaries[:5])
        st.checkbox(f"Keep the {len(table.summaries)} summary row(s) as people", key=keys["summary"],
                    help="Rows that total the others (\"Total\", \"Summe\", \"Gesamt\", or a last row equal to the "
                         "sum of the rows above) are not people; they are dropped unless you keep them. Rows are "
                         "numbered as in your file: row 1 is the first row under the header.")
        if table.dropped:
            st.caption(f"Summary rows dropped ({len(table.dropped)} of {table.rows + len(table.dropped):,} rows): "
                       f"{found}. Every other row keeps its number from your file.")
        else:
            st.caption(f"Summary rows kept as people (your choice): {found}.")
    if table.empty_rows:
        shown = ", ".join(str(r) for r in table.empty_rows[:8]) + (" …" if len(table.empty_rows) > 8 else "")
        st.caption(f"Empty rows dropped ({len(table.empty_rows):,}: row {shown}): every cell is empty, so they "
                   "are nobody. Every other row keeps its number from your file (blank lines are counted, as a "
                   "spreadsheet counts them).")


def _yes_no(keys: dict) -> YesNo | None:
    """The yes/no rule chosen in the panel (None: none)."""
    column = st.session_state.get(keys["yesno"])
    if not column:
        return None
    above = st.session_state.get(f"{keys['above']}.{column}")  # each column keeps its own threshold or value
    if isinstance(above, (int, float)):
        return YesNo(str(column), threshold=float(above))
    equals = st.session_state.get(f"{keys['equals']}.{column}")
    return YesNo(str(column), value=str(equals)) if equals is not None else None


def _yes_no_controls(table: TableImport, keys: dict) -> None:
    """Make a column yes/no for a role that needs two values: a number above a threshold, or one value against
    the rest (a table with no yes/no column, or one too few, can still give a label or a secret)."""
    source = table.source if table.source is not None else table.frame
    body = [c for c in table.columns if c.name not in table.ignored and c.distinct > 2]
    if not body:
        return
    column = st.selectbox("Make a yes/no column (for a label or secret that needs two values)",
                          ["", *[c.name for c in body]], key=keys["yesno"],
                          format_func=lambda c: c or "none",
                          help="Labs that infer a yes/no fact (a model's label, the secret) need a column with "
                               "exactly two values. A column of numbers becomes above / not above a threshold; a "
                               "text column becomes one value against all the others. It replaces the column.")
    if not column:
        return
    values = source[column].dropna()
    above, equals = f"{keys['above']}.{column}", f"{keys['equals']}.{column}"
    if table.summary(column).kind == "number":
        if not isinstance(st.session_state.get(above), (int, float)):
            st.session_state[above] = float(values.median())
        st.number_input(f"{inert_text(column)} above", key=above,
                        help="Rows above this value are \"yes\", the others \"no\" (default: the median).")
    else:
        common = [str(v) for v in values.astype(str).value_counts().index[:50]]
        if st.session_state.get(equals) not in common:
            st.session_state[equals] = common[0]
        st.selectbox(f"{inert_text(column)} equal to", common, key=equals,
                     help="Rows with this value are \"yes\", every other value \"no\".")
    if table.yes_no is None and _yes_no(keys) is not None:
        st.rerun()  # the rule's default (the median, the most common value) was just set: read the file with it
    if table.yes_no is not None:
        made = table.frame[table.yes_no.name].value_counts()
        st.caption(f"New column {inert_text(table.yes_no.name)}: {made.get('yes', 0):,} yes, {made.get('no', 0):,} no.")


def suggestions(table: TableImport, min_group: int = 20) -> dict[str, Suggestion]:
    return suggest_roles(table.frame, min_group=min_group)


def role_select(container, title: str, options: list, key: str, suggestion: Suggestion | None, help: str = "",
                **kw):
    """A selectbox for one role whose first value is the suggestion (when it is among ``options``), with the
    suggestion's reason under it; a choice the user made is kept for this file (and a stale one, or one made
    for an earlier file, replaced by the new file's suggestion)."""
    if new_file_for(key) or st.session_state.get(key) not in options:
        if suggestion is not None and suggestion.column in options:
            st.session_state[key] = suggestion.column
        elif options:
            st.session_state[key] = options[0]
    value = container.selectbox(title, options, key=key, help=help, **kw)
    if suggestion is not None and value == suggestion.column:
        container.caption(f"Suggested: {inert_text(suggestion.why)}.")
    return value
