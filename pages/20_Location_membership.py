"""Membership inference on DP location counts: threshold, MLP and optimal attacks against the DP accuracy bound."""

import pandas as pd
import streamlit as st

from core.output import plain_language as say
from core.errors import LabError
from core.plots import location as plots
from core.scenarios.location import theory_curves
from core.output.inert import inert_text
from ui.widgets.page_widgets import (chart, content, download_result, download_table, figure, metric_row, scenario_page,
                       param_widgets, plain, show_error)
from ui.runs.page_runs import run_scenario
from ui.results.run_tools import run_tools

scenario = scenario_page("location", about="What is happening here? (attackers, observations, the DP bound)",
                         sidebar="Location membership game")


upload = st.sidebar.file_uploader("Your own check-ins (CSV, auxiliary attacker)", type=["csv", "tsv", "txt"],
                                  help="Columns: user, timestamp (unix or ISO), and lat/lon or site; comma, "
                                       "semicolon or tab separated. Gridded 12×8, last 800 hours, one site per "
                                       "user and hour. Who is exposed names the rows of your file behind each "
                                       "attacked user's cells (row 1 = the first row under the header).")
config = param_widgets(scenario, cost_capped="drivers")  # no control reaches a run the server refuses
if upload is not None:
    from ui.widgets.uploads import save_upload  # private 0600 file, deleted when no session needs it

    path = save_upload(upload.getvalue(), kind="location", name=upload.name)
    try:
        seed = config.pop("seed")
        config = {**scenario.resolve({**config, "trace_file": str(path)}), "seed": seed}
    except LabError as exc:
        show_error(exc)
        st.stop()
    if config["attacker"] == "informed":
        st.sidebar.info("The informed attacker needs no data: choose the auxiliary attacker to use the file.")

# Closed-form curves first: the bound and the optimum need no games.
try:
    theory = theory_curves(config)
except LabError as exc:
    show_error(exc)
    st.stop()
sentence = st.empty()  # the plain-language reading, once games have been played
top = st.empty()
with top.container():
    chart(plots.accuracy_vs_observations(theory, legend_side=True), "theory")
    st.caption("Closed form (no games yet): DP bound, exact optimum and the informed-attacker theory of the "
               "one- and two-threshold attacks (Theorems 2–3). Measured curves follow.")


def _mlp_request():
    st.session_state["location.attack"] = "mlp"
    st.session_state["location.shadow_sweep_max"] = min(st.session_state.get("location.shadow_sweep_max", 0), 20_000)
    st.session_state["location._mlp_go"] = True


def _table(series: dict) -> pd.DataFrame:
    rows = []
    for sweep, x_name in (("observations", "k"), ("shadows", "train_shadows")):
        for name, c in series.get(sweep, {}).items():
            for x, acc, auc, lo, hi in zip(c["x"], c["accuracy"], c["auc"], c["ci_low"], c["ci_high"]):
                rows.append({"sweep": x_name, "x": x, "attack": name, "accuracy": acc, "ci_low": lo,
                             "ci_high": hi, "auc": auc})
    return pd.DataFrame(rows)


def draw(result, final):
    m, s = result.metrics, result.series
    if not s:
        return
    k = s.get("info", {}).get("k", config["observations"])  # the k played: a check-in file may support fewer
    with sentence.container():
        plain(say.location(m, k, config["epsilon"]))
        for note in s.get("fit_notes", []):  # what your file could not support, and what was played instead
            st.caption(f":material/tune: {inert_text(note)}")
    metric_row(m, {"accuracy": f"Accuracy ({config['attack']})", "auc": "AUC",
                   "dp_bound_accuracy": "DP bound", "optimal_informed_accuracy": "Best possible (informed)",
                   "tpr_at_fpr_0.01": "TPR @ 1% FPR"})
    extra = f" · mean clean count at the target's cells λ = {m['mean_clean_count']:.2f}" \
        if "mean_clean_count" in m else ""
    st.caption(f"k = {k}, {result.records[0]['games']} test games, 95% CI "
               f"[{m['accuracy_ci_low']:.3f}, {m['accuracy_ci_high']:.3f}] · noise scale {m['noise_scale']:.3f}"
               f" · gap to the {say.term('dp-bound', 'DP bound')} {m['gap_to_bound']:.3f}{extra} · "
               f"{say.term('auc')}, {say.term('tpr-at-fpr')}: see the glossary.")
    caution = say.interval_caution(m.get("accuracy"), m.get("accuracy_ci_low"), m.get("accuracy_ci_high"), 0.5,
                                   "the membership attack", "Play more test games.")
    if caution:  # members and non-members are equally likely in every test game: guessing is right half the time
        st.warning(caution, icon=":material/info:")
    with top.container():
        figure(plots.accuracy_vs_observations(theory, s, legend_side=True), "location-accuracy-vs-observations",
               downloads=final)
    left, right = st.columns(2)
    with left:
        figure(plots.accuracy_vs_observations(theory, s, metric="auc"), "location-auc-vs-observations",
               downloads=final)
    with right:
        figure(plots.roc_curves(s), "location-roc", downloads=final)
    figure(plots.score_histograms(s), "location-histograms", downloads=final)
    st.caption("Two-threshold scores are integers (cells above their threshold); the LRT score is a "
               "log-likelihood ratio (member if > 0); the one-threshold score is the plain sum of the k cells.")
    if len(s.get("shadows", {}).get("one-threshold", {}).get("x", [])) > 1:
        figure(plots.accuracy_vs_shadows(s), "location-accuracy-vs-shadows", downloads=final)
        st.caption("Threshold attacks need few shadows; the paper finds the MLP needs ~200k shadow aggregates to "
                   "learn the two-threshold rule (App. E).")
    if "mlp" in s:
        st.subheader("What did the MLP learn?")
        figure(plots.mlp_weights(s), "location-mlp-weights", downloads=final)
        st.caption(content("location", "mlp"))
        figure(plots.mlp_training(s), "location-mlp-training", downloads=final)
    if final:
        table = _table(s)
        with st.expander("Measured points (table)"):
            st.dataframe(table, width="stretch", height=240)
            download_table(table, f"location-points-seed{result.config['seed']}", label="measured points")
        download_result(result)
        run_tools(result)  # audit banner (claimed vs measured ε), f-DP panel, Pin this run, HTML report


is_mlp = config["attack"] == "mlp"
auto = (not is_mlp) or st.session_state.pop("location._mlp_go", False)
if is_mlp and not auto:
    st.info("The MLP trains one network per point of the k sweep and of the shadow sweep (minutes at 200k shadows).")
run_scenario(scenario, config, draw, auto=auto, label="Train the MLP meta-classifier")
if not is_mlp:
    st.subheader("MLP meta-classifier")
    st.markdown("Earlier attacks trained a neural network on a few thousand shadow aggregates. Train one here to "
                "see which rule it learns and how far below the threshold attacks it lands.")
    st.button("Train the MLP meta-classifier (slow, with progress)", on_click=_mlp_request, type="primary",
              help="Switches the attack to the MLP and runs it: one network per point of the k sweep and of the "
                   "shadow sweep (capped at 20k shadows; raise 'Shadow sweep up to' for 200k).")
