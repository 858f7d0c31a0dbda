"""The ε ladder section of the ε explorer: measured attacks at a list of ε values, beside the bound."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import LabError
from core.output import plain_language as say
from core.studies.choosing_epsilon import ladder_reading
from core.studies.choosing_epsilon.ladder import (DEFAULT_EPSILONS, ladder_base, ladder_rows, ladder_scenarios, ladder_table,
                                 parse_epsilons, per_person_sentence)
from core.plots.deployments import deployment_summary
from core.plots.fdp import ladder_figure
from core.studies.choosing_epsilon.deployment_registry import ticks
from core.scenario import get
from ui.widgets.page_widgets import download_table, figure, show_error
from ui.runs.sweeps import run_sweep, sweep_estimate


def epsilon_ladder() -> None:
    """Pick a scenario and ε values; run them (progress, cached); one chart: attack, bound, utility vs ε."""
    st.divider()
    st.subheader("ε ladder: what real attacks reach at each ε")
    st.markdown("The curves above are what *any* attack could reach. The ladder runs a lab's attacks at several "
                "values of ε and draws what they *actually* reach (with a 95% band), the bound, and what the data "
                "lose — the picture to decide on an ε with.")
    names = ladder_scenarios()
    if not names:
        st.info("No lab with an ε parameter is available.")
        return
    url_name = st.query_params.get("ladder_scenario")
    if "ladder.scenario" not in st.session_state:
        st.session_state["ladder.scenario"] = url_name if url_name in names else names[names.index("location")
                                                                                         if "location" in names else 0]
    if "ladder.eps" not in st.session_state:
        st.session_state["ladder.eps"] = st.query_params.get("ladder_eps") or ", ".join(f"{e:g}" for e in
                                                                                         DEFAULT_EPSILONS)
    c1, c2, c3 = st.columns([2, 3, 1])
    name = c1.selectbox("Lab", names, key="ladder.scenario", format_func=lambda n: get(n).title)
    text = c2.text_input("ε values (comma-separated)", key="ladder.eps",
                         help="Each value is one full run of the lab with the same seed")
    seed = c3.number_input("Seed", 0, 2**31 - 1, 0, key="ladder.seed")
    st.query_params["ladder_scenario"] = name
    st.query_params["ladder_eps"] = text
    sc = get(name)
    try:
        epsilons = parse_epsilons(text, sc)
        base = ladder_base(sc)
    except LabError as exc:
        show_error(exc)
        return
    try:  # the estimate before it starts
        minutes = f", about {sweep_estimate(sc, base, {'epsilon': epsilons}).seconds / 60:.1f} minutes of one core"
    except LabError:
        minutes = ""
    st.caption("Settings: the lab's defaults" + (", with " + ", ".join(f"{k} = {v}" for k, v in base.items()) +
                                                 " to keep each rung short" if base else "") +
               f". {len(epsilons)} runs{minutes}.")
    out = run_sweep(sc, base, {"epsilon": epsilons}, int(seed), label=f"Run the ladder ({len(epsilons)} runs)",
                    key=f"ladder-{name}")
    if out is None:
        return
    ladder = ladder_rows(name, out)
    st.session_state["ladder.last"] = ladder  # the accuracy-first section quotes the measured attack
    for line in ladder_reading.sentences(ladder):  # every claim backed by the rungs' intervals
        st.markdown(line)
    note = per_person_sentence(ladder)
    if note:
        st.markdown(note)
    deployments = ticks()
    figure(ladder_figure(ladder, deployments), f"epsilon-ladder-{name}")
    # the deployments protect a whole person: read them against the ladder's ε per person where it has one
    top_eps = max(r.get("epsilon_per_person") or r["epsilon"] for r in ladder["rows"])
    st.caption("Ticks along the bottom: real deployments at these ε (hover for organisation, product, unit, period "
               "and source; grey = a unit smaller than a person). " + deployment_summary(deployments, top_eps))
    table = pd.DataFrame(ladder_table(ladder))
    table["ε per person in plain words"] = [say.odds_short(r.get("epsilon_per_person") or r.get("per_person_epsilon"))
                                         for r in ladder["rows"]]
    st.dataframe(table, hide_index=True, width="stretch")
    download_table(table, f"epsilon-ladder-{name}")
