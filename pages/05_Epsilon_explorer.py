"""What a privacy budget ε buys: the best any attack can do, the noise it costs, the √n rule — in closed form."""
import pandas as pd
import streamlit as st

from core.errors import LabError
from core.plots import epsilon as plots
from core.theory.epsilon_explorer import explain_epsilon
from ui.common import download_table, figure, metric_row, page_header, show_error

page_header("ε explorer: what a privacy budget buys",
            "Choose ε and see, without running a single game, the best any attacker can do against a release "
            "that is ε-differentially private — and what noise that costs.",
            "Kairouz, Oh & Viswanath (2015) optimal composition; Balle & Wang (2018) analytic Gaussian; "
            "CS208 lecture 2 (√n rule)")

st.sidebar.header("Privacy budget")
epsilon = st.sidebar.select_slider("ε per observation", options=[0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0,
                                                                3.0, 5.0, 8.0, 10.0], value=0.5, key="eps.epsilon",
                                   help="Privacy loss of one release about one person")
delta = st.sidebar.select_slider("δ", options=[0.0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3], value=0.0, key="eps.delta",
                                 format_func=lambda d: "0 (pure DP)" if d == 0 else f"{d:g}",
                                 help="Probability with which the ε guarantee may fail; keep it ≪ 1/population")
k_max = st.sidebar.slider("Observations k (releases about the same person)", 1, 200, 60, key="eps.k")
n = st.sidebar.number_input("People n (for the reconstruction rule)", 10, 100_000, 100, step=10, key="eps.n")
ratio = st.sidebar.slider("Queries per person m/n", 0.5, 8.0, 2.0, 0.5, key="eps.ratio")

try:
    data = explain_epsilon(float(epsilon), float(delta), int(k_max), int(n), float(ratio))
except LabError as exc:
    show_error(exc)
    st.stop()

num = data["numbers"]
metric_row({"acc1": num["accuracy_bound_1"], "acck": num["accuracy_bound_k"], "odds": num["odds_factor"],
            "lap": num["laplace_scale_count"], "gauss": num["gaussian_sigma_count_analytic"]},
           {"acc1": "Max attack accuracy, 1 observation", "acck": f"… after k = {k_max}",
            "odds": "Max odds factor e^ε", "lap": "Laplace scale (a count)", "gauss": "Gaussian σ (a count)"})
st.caption(f"Gaussian σ uses analytic calibration at δ = {data['reconstruction']['gaussian_delta']:g} "
           f"(classic rule: {num['gaussian_sigma_count_classic']:.2f}). Accuracy is balanced accuracy of the best "
           "membership test; 0.5 is a coin flip.")

left, right = st.columns(2)
with left:
    figure(plots.accuracy_bound_figure(data), "epsilon-accuracy-bound")
with right:
    figure(plots.roc_bound_figure(data), "epsilon-roc-bound")
st.markdown("Privacy budgets **add up**: a person observed k times under ε each is protected roughly like one "
            "release at a larger ε (the curves use the *optimal* composition theorem, tighter than k·ε). The "
            "Location membership lab measures real attacks against these curves.")

left, right = st.columns(2)
with left:
    figure(plots.posterior_figure(data), "epsilon-posterior")
with right:
    table = pd.DataFrame(data["posterior_table"]).rename(columns={"prior": "attacker's prior",
                                                                    "max_posterior": "max belief after one release"})
    st.dataframe(table.style.format("{:.3f}"), hide_index=True, width="stretch")
    download_table(table, "epsilon-posterior-table")
    rec = data["reconstruction"]
    st.markdown(f"**Reconstruction check.** Releasing m = {rec['queries']} subset counts about n = {rec['n']} "
                f"people with total budget (ε = {epsilon:g}, δ = {rec['gaussian_delta']:g}) needs Gaussian noise "
                f"σ ≈ {rec['gaussian_sigma']:.1f} per answer, i.e. **{rec['sigma_over_sqrt_n']:.2f}·√n**: "
                f"{rec['verdict']}. Try it in the Reconstruction lab with defence = gaussian.")

from ui.ladder import epsilon_ladder  # noqa: E402  (issue 11: a self-contained section)

epsilon_ladder()
