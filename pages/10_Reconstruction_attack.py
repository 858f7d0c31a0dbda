"""Dinur–Nissim: recover n secret bits from noisy subset counts, and see the attack break at noise ≈ √n (CS208 lecture 2)."""
import pandas as pd
import streamlit as st

from core.plots import reconstruction as plots
from core.scenario import get
from ui.common import chart, download_result, download_table, figure, metric_row, page_header, param_widgets, \
    run_scenario, run_sweep
from ui.report import run_tools

scenario = get("reconstruction")
page_header(scenario)

with st.expander("What is happening here?", expanded=False):
    st.markdown(
        "Each of **n** people has a secret bit (say, a positive test result). The curator publishes **m** counts, "
        "each one *\"how many people in this random group have the bit set?\"*, protected by a defence "
        "(rounding, Gaussian noise, or answering from a random subsample). The attacker solves for the bits that "
        "best explain every published count — a linear program (minimise the total error, 0 ≤ x ≤ 1, round at ½), "
        "least squares, or an integer program.\n\n"
        "**Dinur & Nissim (2003):** if every answer is within E = o(√n) of the truth, this recovers all but a "
        "vanishing fraction of the bits. Noise of order **√n** — the natural sampling error of a count — is needed "
        "to stop it, which is why every plot marks √n. With exact answers, m = n random queries already determine "
        "the data (a random 0/1 matrix is invertible with high probability); with noise, more queries help the "
        "attacker (the default is m = 2n, as in problem set 2).\n\n"
        "**LP engine.** By default the LP is solved by a dense interior-point method that returns an answer only "
        "with a *certificate*: a dual solution whose bound matches the total error to 1e-8, which proves the answer "
        "optimal. Choose HiGHS to solve the same LP with a general-purpose solver; it reaches the same optimum, "
        "about 6–10× slower at n = 1000 (compare *Solver ms / game*).")

st.sidebar.header("Reconstruction game")
config = param_widgets(scenario)


def draw(result, final):
    m, s = result.metrics, result.series
    t = result.timings
    shown = {**m, "solver_ms": 1000 * t["solver_seconds"]} if "solver_seconds" in t else m
    metric_row(shown, {"accuracy": "Bits recovered", "majority_baseline": "Majority-guess baseline",
                       "answer_rmse": "Answer RMSE", "sqrt_n": "√n", "solver_ms": "Solver ms / game"})
    if "accuracy" in m:
        eps = m.get("release_epsilon")
        eps_txt = "no differential-privacy guarantee" if eps is None else f"ε ≈ {eps:.3g} at δ = 1e-5 for the release"
        st.caption(f"95% Clopper–Pearson interval for the accuracy: [{m['accuracy_ci_low']:.3f}, "
                   f"{m['accuracy_ci_high']:.3f}] over {m['trials_done']} trials × n bits · m = {m['queries']} "
                   f"queries · {eps_txt}.")
    figs = {}
    if s.get("accuracy_vs_query_ratio", {}).get("x"):
        figs["accuracy_vs_query_ratio"] = plots.accuracy_vs_ratio(s, m)
    if s.get("accuracy_vs_defense_level", {}).get("x"):
        figs["accuracy_vs_defense_level"] = plots.accuracy_vs_level(s, m)
    cols = st.columns(2)
    for col, (name, fig) in zip(cols, list(figs.items())[:2]):
        with col:
            figure(fig, f"reconstruction-{name}", downloads=final)
    if s.get("accuracy_vs_rmse"):
        left, right = st.columns(2)
        with left:
            figure(plots.accuracy_vs_rmse(s), "reconstruction-accuracy-vs-rmse", downloads=final)
        with right:
            if s.get("trials"):
                chart(plots.trials_histogram(s), "trials")
    elif s.get("trials"):
        chart(plots.trials_histogram(s), "trials")
    if final:
        with st.expander("Per-game records"):
            table = pd.DataFrame(result.records)
            st.dataframe(table, width="stretch", height=240)
            download_table(table, f"reconstruction-games-seed{result.config['seed']}")
        download_result(result)
        run_tools(result)  # issue 11: audit banner, pin, report


run_scenario(scenario, config, draw)

st.subheader("Heatmap: queries per person × noise")
st.caption("Every cell plays games at one (m/n, σ) setting with Gaussian noise σ = c·√n and the sidebar's n, "
           "query family, solver and seed (up to 5 trials per cell). Blue: the attack recovers the data; red: "
           "no better than guessing.")
heat_base = {k: v for k, v in config.items() if k not in ("seed", "query_ratio", "defense_level")}
heat_base.update(defense="gaussian", noise_unit="absolute", sweeps=False, trials=min(5, config["trials"]))
heat = run_sweep(scenario, heat_base, plots.heatmap_grid(config["n"]), config["seed"],
                 label="Run the heatmap", key="recon-heatmap")
if heat is not None:
    figure(plots.accuracy_heatmap(heat), "reconstruction-heatmap")
    download_table(pd.DataFrame(heat["rows"]), "reconstruction-heatmap-cells")

st.subheader("Scaling: the same σ/√n gives the same accuracy at every n")
st.caption("Least squares at the sidebar's m/n for n = 100, 400 and 1,600 with Gaussian noise σ = c·√n "
           "(3 trials per point). Curves that coincide are the picture of Dinur–Nissim's √n threshold.")
scale_base = {"query_ratio": config["query_ratio"], "queries": config["queries"], "defense": "gaussian",
              "noise_unit": "sqrt_n", "solver": "lsq", "trials": 3, "sweeps": False}
scaling = run_sweep(scenario, scale_base, plots.scaling_grid(), config["seed"], label="Run the n-scaling sweep",
                    key="recon-scaling")
if scaling is not None:
    figure(plots.scaling_figure(scaling), "reconstruction-n-scaling")
