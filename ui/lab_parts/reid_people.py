"""The Reidentification lecture's people: the sidebar that picks them (a survey's real records shipped offline, a
synthetic town, or the user's CSV) and the bounded cache that loads them once for all five demos.

Every cache is bounded: its arguments come from the address bar (one population is ~20 MB, and a script can send
a thousand seeds); an upload's people are cached for its session alone (key: the path of its normalised file, which
is named by the content's SHA-256) and go when the session ends.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from core.errors import LabError
from core.output.inert import inert_text
from core.reid import lecture
from ui.widgets.page_widgets import number_field, show_error
from ui.server.housekeeping import release_when_idle
from ui.widgets.import_step import UPLOAD_TYPES, import_upload, new_file_for, role_select, suggestions

POPULATIONS = 6
CACHE_TTL = 1800
BIND = {"bind": "query-params"}  # every control is mirrored in the address bar: a link reproduces the view


@st.cache_resource(show_spinner=False, max_entries=POPULATIONS, ttl=CACHE_TTL)
def load(source, n_people, n_zips, seed, upload=None, sensitive=None):
    """The people of the demos; ``upload``: the path of the uploaded file, normalised (ui.widgets.import_step)."""
    return lecture.load(source, n_people, n_zips, seed, upload, sensitive)


@st.cache_resource(show_spinner=False, max_entries=1, scope="session")
def load_upload(source, n_people, n_zips, seed, upload, sensitive=None):
    """The people of an uploaded file, for its session alone: they go when the visitor's tab closes, where the
    shared cache above kept an upload's people (hundreds of MB for a wide file) for half an hour."""
    return lecture.load(source, n_people, n_zips, seed, upload, sensitive)


release_when_idle(load)  # built-in record sets: rebuilt in a second on the next visit


@dataclass(frozen=True)
class People:
    """The loaded people (``P``), the key the demos' caches are keyed by, the record set's label and the seed."""
    P: object
    key: tuple
    label: str
    seed: int


def people_controls(sb) -> People:
    """Draw the "People" section of the sidebar and load its people; stops the page (with a message) while an
    upload is awaited or cannot be read."""
    sb.header("People")
    sources, default_source = lecture.source_choices()
    # A radio, not a select box: the long names of the record sets stay readable (a select box truncates them).
    source = sb.radio("Records", list(sources), format_func=sources.get, key="reid.source", index=default_source,
                      **BIND)
    n_people, n_zips = lecture.TOWN_DEFAULT, lecture.ZIPS_DEFAULT
    seed = int(number_field(sb, "Seed", key="reid.seed", kind="int", default=0, low=0, high=2**31 - 1, **BIND))
    upload, sens = None, None
    if source == "synthetic":
        n_people = sb.select_slider("People in the town", list(lecture.TOWN_SIZES), lecture.TOWN_DEFAULT,
                                    key="reid.town", **BIND)
        n_zips = sb.slider("ZIP codes", 1, 20, lecture.ZIPS_DEFAULT, help="fewer people per ZIP → more people unique",
                           key="reid.zips", **BIND)
    elif source == lecture.UPLOAD:
        f = sb.file_uploader("CSV (or TSV, Excel), one person per row", type=UPLOAD_TYPES)
        if f is None:
            st.info("Upload a CSV in the sidebar, or pick one of the built-in record sets.")
            st.stop()
        try:  # the import step: detected format (with overrides), first rows, column types, suggested roles
            upload, table = import_upload(f, "reid")  # the normalised file's path (named by its content's hash)
        except LabError as exc:
            show_error(exc)
            st.stop()
        sens = role_select(sb, "Sensitive column", [str(c) for c in table.frame.columns], "reid.sensitive",
                           suggestions(table).get("sensitive"),
                           help="The attribute a linked record reveals; the other columns are candidate "
                                "quasi-identifiers (columns unique on every row, such as names, are left out).")
        if new_file_for(f"reid.qis.{lecture.UPLOAD}"):  # the demos' column choices were made for an earlier file
            for k in [k for k in st.session_state if str(k).startswith(tuple(
                    f"reid.{part}.{lecture.UPLOAD}" for part in ("qis", "lvl", "kq")))]:
                del st.session_state[k]
    key = (source, n_people, n_zips, seed, upload, sens)
    try:
        P = (load if upload is None else load_upload)(*key)
    except LabError as exc:
        show_error(exc)
        st.stop()
    sb.caption(inert_text(lecture.describe(P)))  # an upload's column names: text, not Markdown
    return People(P, key, sources[source], seed)
