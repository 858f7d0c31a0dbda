"""Membership inference on DP location counts: threshold, MLP and optimal attacks against the DP accuracy bound."""
import hashlib
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from core.errors import LabError
from core.plots import location as plots
from core.scenario import get
from core.scenarios.location import theory_curves
from ui.common import chart, download_figure, download_result, download_table, metric_row, page_header, \
    param_widgets, run_scenario, show_error
from ui.report import run_tools

scenario = get("location")
page_header(scenario)

with st.expander("What is happening here? (attackers, observations, the DP bound)", expanded=False):
    st.markdown(
        "A city publishes **counts per site and hour** (e.g. how many people tweeted from each of 96 areas in each of "
        "800 hours), computed over a group of **G = 1,999** people. Each person counts at most once per hour "
        "(clipping, C = 1), and every count gets random noise — **Laplace** or **Gaussian** — so that each hour's "
        "release is **ε-differentially private**.\n\n"
        "The attacker holds a *target* trace and asks: *was this person in the group?* A coin flip decides whether "
        "the target is added (the **membership game**). Only the target's **positive observations** matter — the "
        "k cells (site, hour) where the target was seen; **k** is the x-axis of most plots.\n\n"
        "**Who is the attacker?**\n"
        "* **Informed attacker** — the adversary of the DP definition: knows *every other* trace, subtracts them, and "
        "sees `b + noise` in each of the k cells. Only the noise protects the target; no data is needed.\n"
        "* **Auxiliary attacker** — knows only a separate sample of the population. It simulates *shadow "
        "aggregates* (half with the target) to learn what member and non-member counts look like; the other "
        "people's counts add to its uncertainty.\n\n"
        "**Attacks.** *One-threshold*: add up the k cells, compare with a threshold. *Two-threshold*: threshold "
        "each cell first, then count the cells above — robust to Laplace's heavy tails. *MLP*: a neural network "
        "trained on shadow aggregates (what earlier papers used). *Likelihood ratio*: the Neyman–Pearson optimal "
        "test, the best any attacker can do.\n\n"
        "**The DP bound** (black, dashed) is the highest accuracy that *any* attack can reach against *any* "
        "mechanism that is ε-DP per observation, after k observations (Kairouz et al.'s optimal composition). "
        "The paper's point: a measured curve far below the bound does not mean the data are safer — the grey "
        "dotted curve (best possible against *this* mechanism) shows how much of the gap is due to the attack "
        "(e.g. the MLP learning the sub-optimal one-threshold rule from too few shadows) and how much is simply "
        "because Laplace noise is not the worst-case ε-DP mechanism.")

st.sidebar.header("Location membership game")
upload = st.sidebar.file_uploader("Your own check-ins (CSV, auxiliary attacker)", type=["csv"],
                                  help="Columns: user, timestamp (unix or ISO), and lat/lon or site. "
                                       "Gridded 12×8, last 800 hours, one site per user and hour.")
config = param_widgets(scenario)
if upload is not None:
    data = upload.getvalue()
    path = Path(tempfile.gettempdir()) / f"location-{hashlib.sha1(data).hexdigest()[:16]}.csv"
    if not path.exists():
        path.write_bytes(data)
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
top = st.empty()
with top.container():
    chart(plots.accuracy_vs_observations(theory), "theory")
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
    metric_row(m, {"accuracy": f"Accuracy ({config['attack']})", "auc": "AUC",
                   "dp_bound_accuracy": "DP bound", "optimal_informed_accuracy": "Best possible (informed)",
                   "tpr_at_fpr_0.01": "TPR @ 1% FPR"})
    extra = f" · mean clean count at the target's cells λ = {m['mean_clean_count']:.2f}" \
        if "mean_clean_count" in m else ""
    st.caption(f"k = {config['observations']}, {result.records[0]['games']} test games, 95% CI "
               f"[{m['accuracy_ci_low']:.3f}, {m['accuracy_ci_high']:.3f}] · noise scale {m['noise_scale']:.3f}"
               f" · gap to the DP bound {m['gap_to_bound']:.3f}{extra}")
    figs = {"accuracy-vs-observations": plots.accuracy_vs_observations(theory, s)}
    with top.container():
        chart(figs["accuracy-vs-observations"], "acc-k")
        if final:
            download_figure(figs["accuracy-vs-observations"], "location-accuracy-vs-observations")
    left, right = st.columns(2)
    figs["auc-vs-observations"] = plots.accuracy_vs_observations(theory, s, metric="auc")
    figs["roc"] = plots.roc_curves(s)
    for col, name in ((left, "auc-vs-observations"), (right, "roc")):
        with col:
            chart(figs[name], name)
            if final:
                download_figure(figs[name], f"location-{name}")
    figs["histograms"] = plots.score_histograms(s)
    chart(figs["histograms"], "hist")
    st.caption("Two-threshold scores are integers (cells above their threshold); the LRT score is a "
               "log-likelihood ratio (member if > 0); the one-threshold score is the plain sum of the k cells.")
    if len(s.get("shadows", {}).get("one-threshold", {}).get("x", [])) > 1:
        figs["accuracy-vs-shadows"] = plots.accuracy_vs_shadows(s)
        chart(figs["accuracy-vs-shadows"], "shadows")
        st.caption("Threshold attacks need few shadows; the paper finds the MLP needs ~200k shadow aggregates to "
                   "learn the two-threshold rule (App. E).")
    if "mlp" in s:
        st.subheader("What did the MLP learn?")
        figs["mlp-weights"] = plots.mlp_weights(s)
        chart(figs["mlp-weights"], "mlp-w")
        st.caption("Roughly equal weights everywhere = every hidden unit sums all cells (the one-threshold rule, "
                   "paper Fig. 12, 2k shadows). A diagonal with biases of opposite sign = one threshold per cell "
                   "(the two-threshold rule, Fig. 15, 200k shadows). Hidden units are ordered by their strongest "
                   "input. A net can also mix its units: the bottom bars (each cell's weight in the linearised "
                   "output) are then roughly equal for a sum rule.")
        chart(plots.mlp_training(s), "mlp-h")
    if final:
        for name in ("histograms", "accuracy-vs-shadows", "mlp-weights"):
            if name in figs:
                download_figure(figs[name], f"location-{name}")
        table = _table(s)
        with st.expander("Measured points (table)"):
            st.dataframe(table, width="stretch", height=240)
            download_table(table, f"location-points-seed{result.config['seed']}")
        download_result(result)
        run_tools(result)  # issue 11: audit banner, f-DP panel, pin, report


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
