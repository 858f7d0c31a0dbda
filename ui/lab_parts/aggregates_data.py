"""The Aggregate statistics lab's data in the sidebar: the synthetic census blocks, a PPMF-format CSV, or any CSV
with a yes/no column (the secret) and the columns the attacker knows, over which the counts are tabulated.

Every control is drawn even when the run cannot start: what stops it is returned (``missing``: nothing to attack
yet, in words; ``problem``: an unreadable upload, a LabError) and shown by the page after all its controls.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from core.data.census import binary_columns
from core.errors import LabError
from core.output.inert import inert, inert_text

SOURCES = ["Synthetic census blocks", "PPMF-format CSV", "Generic CSV"]
_SOURCE_KEY = "aggregates.source_choice"


def generic_chosen() -> bool:
    """Whether the data chosen in the sidebar is a generic CSV, known before the sidebar is drawn (the page's header,
    drawn first, names the secret after it: an upload's column, not the census's Hispanic origin)."""
    return st.session_state.get(_SOURCE_KEY, SOURCES[0]) == SOURCES[2]


@dataclass
class Data:
    """``extra``: the scenario's data parameters (data, data_path, sensitive_column)."""
    extra: dict = field(default_factory=lambda: {"data": "synthetic"})
    missing: str | None = None
    problem: LabError | None = None


def data_controls() -> Data:
    """Draw the data choice (and, for an upload, the file, the secret and the known columns) in the sidebar."""
    out = Data()
    source = st.sidebar.radio("Data", SOURCES, key=_SOURCE_KEY,
                              help="PPMF columns: QSEX, QAGE, CENRACE, CENHISP (+ block-id columns). A generic CSV "
                                   "needs a yes/no (two-valued) sensitive column.")
    if source == SOURCES[0]:
        return out
    from ui.widgets.uploads import UPLOAD_TYPES

    upload = st.sidebar.file_uploader("CSV file" if source == SOURCES[1] else "CSV file (or TSV, Excel)",
                                      type=["csv"] if source == SOURCES[1] else UPLOAD_TYPES, key="aggregates.upload")
    if upload is None:
        out.missing = "Upload a CSV in the sidebar, or switch back to the synthetic census blocks."
        return out
    from ui.widgets.uploads import save_upload  # private 0600 file, deleted when no session needs it

    if source == SOURCES[1]:
        out.extra = {"data": "ppmf",
                     "data_path": str(save_upload(upload.getvalue(), kind="aggregates", name=upload.name))}
        return out
    from ui.widgets.import_step import import_upload, new_file_for, role_select, suggestions

    try:
        path, table = import_upload(upload, "aggregates")  # the import step: format, preview, column types
        candidates = binary_columns(path)
    except LabError as exc:
        out.problem = exc
        return out
    if not candidates:
        out.missing = (f"{inert(upload.name)} has no column with exactly two values. The attacks infer a yes/no "
                       "secret: add such a column (e.g. smoker = yes/no) or switch back to the census blocks.")
        return out
    roles = suggestions(table)
    sensitive = role_select(
        st.sidebar, "Sensitive column (yes/no)", candidates, "aggregates.sensitive", roles.get("sensitive"),
        help="The secret the attacker infers; only columns with exactly two values are offered.")
    others = [str(c) for c in table.frame.columns if str(c) != sensitive]
    qi = roles.get("quasi_identifiers")
    if new_file_for("aggregates.known") or "aggregates.known" not in st.session_state \
            or not set(st.session_state["aggregates.known"]) <= set(others):
        st.session_state["aggregates.known"] = [c for c in (qi.columns if qi else others[:4]) if c in others]
    known = st.sidebar.multiselect(
        "What the attacker knows (columns)", others, key="aggregates.known",
        help="The released counts are tabulated over these columns and the secret; each extra column multiplies "
             "the cells the solver must consider, so keep the few an attacker could learn elsewhere (age, sex, "
             "place…).")
    if qi is not None:
        st.sidebar.caption(f"Suggested: {inert_text(qi.why)}.")
    if not known:
        out.missing = "Choose at least one column the attacker knows about the target."
    else:  # the engine reads only the chosen columns and the secret, in the file's order
        out.extra = {"data": "csv", "sensitive_column": sensitive,
                     "data_path": str(save_upload(table.normalised_csv(known + [sensitive]), "aggregates",
                                                  name=upload.name))}
    return out
