"""Which ε for a table release: state the count error and the attack advantage you accept, see the range of ε per
person that meets both, three options, and a board report."""
import pandas as pd
import streamlit as st

from core.errors import LabError
from core.studies.choosing_epsilon import board_report
from core.plots.table_decision import decision_figure, text_alternative
from core.scenario import get
from core.studies.choosing_epsilon import table_epsilon as td
from core.studies.choosing_epsilon.ladder import ladder_rows
from core.studies.choosing_epsilon.ladder_reading import sentences
from core.studies.choosing_epsilon.deployment_registry import ticks
from ui.widgets.page_widgets import content, download_table, figure, number_field, page_header, plain, show_error
from ui.results.run_tools import GALLERY_LINK
from ui.runs.sweeps import run_sweep, sweep_estimate

page_header("Choose ε for a table release",
            "State what your release can accept — how wrong a published count may be, and how much better than "
            "guessing an attacker may do — and see the ε per person that meets both, beside real deployments.",
            "Dwork & Roth (2014) composition; DeSIA (Mao, Stevanoski & de Montjoye) for the measured attack")

sb = st.sidebar
sb.header("The tables")
block_size = sb.select_slider("People per block", [100, 200, 454], value=200, key="choose.s", bind="query-params")
ratio = sb.select_slider("Released cells per person (m/s)", [0.25, 0.5, 0.75], value=0.75, key="choose.ratio",
                         bind="query-params")
seed = int(sb.number_input("Seed (which cells are released)", 0, 1000, 0, key="choose.seed"))


@st.cache_data(show_spinner="Counting the cells one person is in…", max_entries=16)
def _design(block_size: int, ratio: float, seed: int) -> dict:
    d = td.design(block_size, ratio, 1, seed)
    return {k: v for k, v in d.items() if k != "config"}


try:
    design = _design(int(block_size), float(ratio), seed)
except LabError as exc:
    show_error(exc)
    st.stop()

st.subheader("Your tolerances")
c1, c2, c3, c4 = st.columns(4)
kind = c1.radio("Count error as", ["absolute (± people)", "share of a typical count"], key="choose.kind")
relative = kind.startswith("share")
if relative:
    error = c2.select_slider("Error at most (share of the count)", [0.1, 0.25, 0.5, 1.0, 2.0], value=1.0,
                             format_func=lambda v: f"{100 * v:g}%", key="choose.rel")
else:
    error = number_field(c2, "Error at most ± (people)", key="choose.abs", kind="int", default=10, low=1, high=1000,
                         step=1)
confidence = c3.select_slider("for this share of counts", [0.8, 0.9, 0.95, 0.99], value=0.8,
                              format_func=lambda q: f"{100 * q:g}%", key="choose.conf")
advantage_pts = c4.select_slider("Attack advantage over guessing at most (points)", [5, 10, 15, 20, 25, 30, 40],
                                 value=40, key="choose.adv",
                                 help="On the scale where 50% is guessing: 30 points = no attack tells a "
                                      "person's yes from no more than 80% of the time")
ladder = st.session_state.get("choose.ladder")
try:
    base = td.decide(design["cells_per_person"], float(error), relative, float(confidence), advantage_pts / 100,
                     design["typical_count"], ladder=ladder)
    chosen = st.select_slider("Chosen ε per person (marked on the chart)",
                              options=sorted({round(o["epsilon_per_person"], 3) for o in base["options"]}),
                              value=round(base["recommended"], 3), key="choose.eps",
                              format_func=lambda e: f"{e:g}")
    decision = td.decide(design["cells_per_person"], float(error), relative, float(confidence),
                         advantage_pts / 100, design["typical_count"], chosen=float(chosen), ladder=ladder)
except LabError as exc:
    show_error(exc)
    st.stop()

plain(td.summary_sentence(decision))
deployments = [t for t in ticks() if t["comparable"]]  # like units only: deployments that protect a whole person
fig = decision_figure(decision, deployments)
figure(fig, "choose-epsilon-tables", label="attack success and count error vs ε per person")
st.caption(text_alternative(decision) + f" One person's record is in up to {design['cells_per_person']} of the "
           f"{design['cells_released']} released cells, so ε per person = ε per cell × "
           f"{design['cells_per_person']}.")

st.subheader("Three options")
cols = st.columns(3)
for col, o in zip(cols, decision["options"]):
    head = {"below": "A · more protection", "recommended": "B · recommended", "above": "C · more accuracy"}
    with col.container(border=True):
        st.markdown(f"**{head[o['label']]}**: ε = {o['epsilon_per_person']:.3g} per person "
                    f"({o['epsilon_per_cell']:.3g} per cell)")
        st.markdown(f"Attack: {o['attack_words']}.")
        st.markdown(f"Count error: off by {o['error_mean']:.2g} on average; within ±{o['error_bound']:g} for "
                    f"{100 * decision['confidence']:g}% of counts.")
        st.caption(o["odds"])
        st.caption("Nearest comparable deployments: " + "; ".join(
            f"{r['organisation']}, {r['product']}: ε = {r['epsilon']:.3g}" for r in o["deployments"]))

st.subheader("Measure the attack at these options")
sc = get("aggregates")
grid = {"epsilon": sorted({round(o["epsilon_per_cell"], 4) for o in decision["options"]})}
measure_base = {"block_size": int(block_size), "query_ratio": float(ratio), "attack": "desia", "blocks": 4,
                "shadows": 1000, "targets": 40}
try:
    cost = sweep_estimate(sc, measure_base, grid)
    st.caption(f"Estimate before it starts: {len(grid['epsilon'])} runs of DeSIA on 4 synthetic blocks, about "
               f"{cost.seconds / 60:.1f} minutes of one core. Four blocks let each interval include how much "
               "another release of the same tables would differ.")
except LabError as exc:
    show_error(exc)
out = run_sweep(sc, measure_base, grid, seed, label=f"Measure ({len(grid['epsilon'])} runs)", key="choose-tables")
if out is not None:
    measured = ladder_rows("aggregates", out)
    if measured != st.session_state.get("choose.ladder"):
        st.session_state["choose.ladder"] = measured
        st.rerun()
    table = pd.DataFrame([{"ε per person": r["epsilon_per_person"], "ε per cell": r["epsilon"],
                           "attack AUC": r["attack"], "95% low": r["attack_ci_low"], "95% high": r["attack_ci_high"],
                           "DP cap": r["bound"]} for r in measured["rows"]])
    st.dataframe(table, hide_index=True)
    download_table(table, "measured-epsilon-ladder", "the measured attack per ε")
    for line in sentences(measured):
        st.markdown(line)

st.subheader("Board report")
st.download_button("⬇ Board report with the three options (HTML, prints to PDF)",
                   data=lambda: board_report.board_html(decision, figure=fig),
                   file_name="board-report-epsilon-tables.html", mime="text/html")
st.markdown(content("choosing_epsilon") + f" A release that forgets to add ε up over a person's cells is in the "
            f"[gallery of known bugs]({GALLERY_LINK}).")
