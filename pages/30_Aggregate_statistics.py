"""DeSIA vs CIP and RAP: infer a census respondent's attribute from a few released block-level counts (m/s)."""

import pandas as pd
import streamlit as st

from core.data.census import csv_columns
from core.errors import LabError
from core.plots import aggregates as plots
from core.scenario import get
from ui.common import (chart, download_figure, download_result, download_table, metric_row, page_header,
                       param_widgets, run_scenario, show_error)
from ui.report import run_tools

scenario = get("aggregates")
page_header(scenario)

# Small, fast page defaults (first ROC within seconds); the sidebar scales up to the paper's setting.
PAGE_DEFAULTS = {"block_size": 200, "blocks": 1, "query_ratio": 0.75, "shadows": 1000, "reconstructions": 3,
                 "rap_steps": 100, "attack": "all", "targets": 0}
for _name, _value in PAGE_DEFAULTS.items():
    if _name not in st.query_params:
        st.session_state.setdefault(f"{scenario.name}.{_name}", _value)

with st.expander("What is happening here? (read me first)", expanded=False):
    st.markdown(
        "A statistical agency publishes **counts** about a small area (a census *block*): *how many Hispanic "
        "women aged 22–24?*, *how many people are Asian alone?* … — cells of the 2010 census tables P1, P6, P7, "
        "P9, P11 and P12A–I. Only **m** cells are published, fewer than the **s** people of the block "
        "(m/s < 1), so the counts cannot pin down everyone's record. Is that safe?\n\n"
        "**The game.** The defender re-draws everyone's *Hispanic* value by a fair coin (so guessing gives "
        "AUC 0.5), publishes the counts, and the attacker — who knows a target's sex, age and race and that "
        "nobody else in the block shares them — must guess the target's Hispanic value.\n\n"
        "**DeSIA** has two modules. The *deterministic* one writes the counts as an integer program (one "
        "unknown per possible record: how many people have it) with a *uniqueness* constraint for the "
        "target, finds one solution, then asks the solver: *is there any solution where the target has the "
        "other value?* If not, the answer is **certain** (the target is *deterministically vulnerable*). "
        "Otherwise the *stochastic* module simulates thousands of *shadow* blocks from auxiliary data, with "
        "the target Hispanic or not, and trains a logistic regression to recognise the published counts.\n\n"
        "**Baselines.** CIP (integer programming) and RAP (gradient-based synthetic data) *reconstruct* K "
        "plausible blocks and vote among the records closest to the target.\n\n"
        "**Reading the ROC.** Each point is a threshold on the attack's score. The inset zooms into very low "
        "false-positive rates (log-log): an attack that is *certain* about a few people shows up there even "
        "if its overall AUC is modest.\n\n"
        ":material/warning: The default data are **synthetic** census blocks drawn from published 2010 national distributions "
        "(the real PPMF file is 15 GB and not available offline). Numbers here are **not** a reproduction of "
        "the paper's figures; upload a PPMF extract or any CSV to attack real data.")

st.sidebar.header("Census-block game")
source = st.sidebar.radio("Data", ["Synthetic census blocks", "PPMF-format CSV", "Generic CSV"],
                          key="aggregates.source_choice",
                          help="PPMF columns: QSEX, QAGE, CENRACE, CENHISP (+ block-id columns). A generic CSV "
                               "needs a categorical sensitive column.")
extra = {"data": "synthetic"}
if source != "Synthetic census blocks":
    upload = st.sidebar.file_uploader("CSV file", type=["csv"], key="aggregates.upload")
    if upload is None:
        st.info("Upload a CSV in the sidebar, or switch back to the synthetic census blocks.")
        st.stop()
    from ui.uploads import save_upload  # private 0600 file, deleted when no session needs it

    path = save_upload(upload.getvalue(), kind="aggregates")
    extra = {"data": "ppmf" if source.startswith("PPMF") else "csv", "data_path": str(path)}
    if extra["data"] == "csv":
        try:
            header = csv_columns(path)
        except LabError as exc:
            show_error(exc)
            st.stop()
        extra["sensitive_column"] = st.sidebar.selectbox("Sensitive column", header, key="aggregates.sensitive")

config = param_widgets(scenario, exclude=("data", "sweep"))
try:
    seed = config.pop("seed")
    config = scenario.resolve({**config, **extra})
    config["seed"] = seed
except LabError as exc:
    show_error(exc)
    st.stop()

NAMES = {"auc": "AUC", "tpr_at_fpr_0.001": "TPR @ 0.1% FPR", "tpr_at_fpr_0.01": "TPR @ 1% FPR",
         "deterministic_fraction": "Settled by the solver"}
ATTACK_NAMES = {"desia": "DeSIA", "cip_rand": "CIP-rand", "cip_init": "CIP-init", "rap_rand": "RAP-rand",
                "rap_init": "RAP-init", "random": "random guess"}
COUNTS = {"targets": "Targets", "deterministic_count": "Settled targets",
          "deterministic_errors": "Wrong settled answers"}


def draw(result, final):
    m, s = result.metrics, result.series
    if s.get("synthetic", True):
        st.caption(":material/science: Synthetic census blocks: illustrative numbers, not the paper's figures.")
    metric_row(m, NAMES)
    metric_row(m, COUNTS, fmt="{:.0f}")
    if "auc_not_deterministic" in m:
        st.caption(f"DeSIA on the targets the solver did not settle: AUC {m['auc_not_deterministic']:.3f}; "
                   f"M_D {result.timings.get('md_seconds_per_target', 0):.2f} s and M_S {result.timings.get('ms_seconds_per_target', 0):.2f}"
                   f" s per target; shadow-model validation AUC {m.get('shadow_validation_auc', float('nan')):.3f}; "
                   f"solver timeouts {m.get('timeouts', 0)}.")
    if s.get("roc"):
        fig = plots.roc_all(s)
        chart(fig, "aggregates-roc")
        aucs = [(name, m[f"auc_{key}"]) for key, name in ATTACK_NAMES.items() if f"auc_{key}" in m]
        if aucs:
            st.caption("AUC · " + " · ".join(f"{name} {v:.3f}" for name, v in aucs))
        if final:
            download_figure(fig, "aggregates-roc")
    table = plots.ablation_table(s)
    if not table.empty:
        st.subheader("Ablation (paper Table 3)")
        st.caption("Rows 1–3 come free with every DeSIA run; rows 4–5 (RAP instead of the solver) need "
                   "'Ablation with RAP rows' in the sidebar.")
        st.dataframe(table, width="stretch", hide_index=True)
        if final:
            download_table(table, "aggregates-ablation")
    if final:
        with st.expander("Per-target records"):
            rows = [{**{k: v for k, v in rec.items() if k != "rows"}, **row}
                    for rec in result.records for row in rec["rows"]]
            df = pd.DataFrame(rows)
            st.dataframe(df, width="stretch", height=240)
            download_table(df, f"aggregates-targets-seed{result.config['seed']}")
        download_result(result)
        run_tools(result)  # issue 11: audit banner, f-DP panel, pin, report


run_scenario(scenario, config, draw)

st.divider()
st.subheader("How do the attacks change with more counts, or with noise?")
st.markdown("Each point is a fresh release of the same blocks (heavier: one full run per point of the paper's "
            "grid). **m/s** = released cells per person; **ε** = Laplace noise per cell, rounded to an integer "
            "(smaller ε = more noise; DeSIA trains its shadows with the same noise).")
sweep = st.radio("Experiment", ["AUC vs m/s", "AUC vs ε"], horizontal=True, key="aggregates.sweep_choice")
sweep_config = {**config, "sweep": "query_ratio" if sweep == "AUC vs m/s" else "epsilon"}


def draw_sweep(result, final):
    fig = plots.sweep_figure(result.series)
    if fig is not None:
        chart(fig, "aggregates-sweep")
        if final:
            download_figure(fig, f"aggregates-{sweep_config['sweep']}")


run_scenario(scenario, sweep_config, draw_sweep, auto=False, label=f"Run {sweep}")
