"""The Synthetic data lab's sidebar above the game's controls: the data (a built-in set or the user's CSV), the
secret column, the generator and, for a DP generator, its ε.

Every control is drawn even when the run cannot start (no file yet, an unreadable file): a control Streamlit does
not draw in a run is forgotten, and an upload must never change another control. What stops the run is returned
(``missing``, ``problem``) and shown by the page after all its controls.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from core.errors import LabError
from core.output import plain_language as say
from core.releases.synthesizers import SYNTHESIZERS
from core.scenarios.synthetic.data import DATASETS, DP_GENERATORS, GENERATORS
from core.scenarios.synthetic.release_file import FILE
from core.scenarios.synthetic.views import epsilon_choices, records_cap, secret_choices, secret_param
from ui.widgets.import_step import UPLOAD_TYPES, import_upload, role_select, suggestions

HELP_SECRET = ("The attribute the attacker tries to learn. Two-valued columns, or column=value to binarise a "
               "categorical one.")


@dataclass
class Release:
    """What the sidebar chose: ``extra`` (dataset, data_path, secret, generator, epsilon) for the scenario,
    ``caps`` on the game's controls (n never passes the records an uploaded table holds), and why the run cannot
    start yet (``missing``: nothing to attack; ``problem``: a LabError to show)."""
    extra: dict = field(default_factory=dict)
    caps: dict = field(default_factory=dict)
    missing: str | None = None
    problem: LabError | None = None


def release_controls(scenario) -> Release:
    """Draw the data, secret, generator and ε controls in the sidebar, in that order."""
    out = Release()
    p_data = scenario.param("dataset")
    dataset = st.sidebar.selectbox("Data", DATASETS, key="synthetic.dataset", bind="query-params",
                                   format_func=lambda d: p_data.choice_labels.get(d, d), help=p_data.help)
    out.extra["dataset"] = dataset
    upload_name, table, options = "", None, None
    if dataset == "csv":
        upload = st.sidebar.file_uploader("The original (CSV, TSV or Excel)", type=UPLOAD_TYPES,
                                          key="synthetic.upload",
                                          help="One row per person. Columns with many numeric values are cut "
                                               "into ranges for the generators; the secret is a yes/no column (or "
                                               "column=value).")
        if upload is None:
            out.missing = "Upload a CSV in the sidebar, or pick one of the built-in data sets."
        else:
            try:
                out.extra["data_path"], table = import_upload(upload, "synthetic")  # private 0600, removed when unused
                upload_name = upload.name
            except LabError as exc:
                out.problem = exc
    if out.missing is None and out.problem is None:
        try:
            options = secret_choices(dataset, out.extra.get("data_path", ""), upload_name)
        except LabError as exc:
            out.problem = exc
    if options:
        if table is not None:
            secret = role_select(st.sidebar, "Secret column", options, f"synthetic.secret.{dataset}",
                                 suggestions(table).get("secret"), help=HELP_SECRET, bind="query-params")
        else:
            secret = st.sidebar.selectbox("Secret column", options, key=f"synthetic.secret.{dataset}",
                                          bind="query-params", help=HELP_SECRET)
        out.extra["secret"] = secret_param(dataset, secret)

    p_gen = scenario.param("generator")
    # a release made elsewhere is attacked against your own original only, so "file" is offered with a CSV
    offered = GENERATORS + ((FILE,) if dataset == "csv" else ())
    generator = st.sidebar.selectbox("Generator", offered, key="synthetic.generator", bind="query-params",
                                     format_func=lambda g: p_gen.choice_labels.get(g, g), help=p_gen.help)
    out.extra["generator"] = generator
    if generator == FILE:
        _release_upload(out)
    elif generator in DP_GENERATORS:
        grid, default = epsilon_choices(generator)
        out.extra["epsilon"] = st.sidebar.select_slider(
            "ε (privacy budget)", grid, value=default, key=f"synthetic.epsilon.{generator}", bind="query-params",
            help="The generator's differential-privacy budget (paper: 1, 10, 100; IndHist: DataSynthesizer's 0.1); "
                 "smaller = more noise")
        st.sidebar.caption(f"In plain words — {say.odds_short(float(out.extra['epsilon']))}")
    else:
        st.sidebar.caption(f"{SYNTHESIZERS[generator].title}: no DP guarantee, so no ε to set.")

    if table is not None and options and out.problem is None:
        try:  # n never passes the records the user's table holds
            out.caps["n"] = records_cap(dataset, out.extra.get("data_path", ""), out.extra["secret"])
        except LabError as exc:
            out.problem = exc
    return out


def _release_upload(out: Release) -> None:
    """The second upload of ``generator=file``: the synthetic release to attack, made from the original above."""
    upload = st.sidebar.file_uploader("The synthetic release (CSV)", type=["csv"], key="synthetic.release_upload",
                                      help="A synthetic table made from the original above (SDV, MOSTLY AI, a "
                                           "statistics office's tool…), with the same columns. The attacks "
                                           "guess each target's secret from it.")
    st.sidebar.caption("A release read from a file claims no ε here: the attacks measure what it gives away.")
    if upload is None:
        if out.missing is None and out.problem is None:
            out.missing = "Upload the synthetic release in the sidebar (the same columns as the original)."
        return
    try:
        out.extra["release_path"], _ = import_upload(upload, "synthetic-release")
    except LabError as exc:
        out.problem = out.problem or exc
