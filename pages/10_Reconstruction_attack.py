"""Dinur–Nissim: recover n secret bits from noisy subset counts, and see the attack break at noise ≈ √n (CS208 lecture 2)."""
import pandas as pd
import streamlit as st

from core.output import plain_language as say
from core.plots import reconstruction as plots
from core.errors import LabError
from core.scenarios.reconstruction import theory_curves
from ui.widgets.page_widgets import (chart, content, download_result, download_table, figure, metric_row, scenario_page,
                       param_widgets, plain)
from ui.runs.page_runs import run_scenario
from ui.runs.sweeps import run_sweep
from ui.results.run_tools import run_tools

scenario = scenario_page("reconstruction", about="What is happening here?",
                         sidebar="Reconstruction game")


config = param_widgets(scenario, cost_capped=("n",))  # n goes only as high as the server accepts


@st.cache_data(max_entries=64, show_spinner=False)
def _theory(items: tuple) -> dict:
    return theory_curves(dict(items))


try:  # closed form first (something true at once), no games needed; a bad setting is reported by the run below
    theory = _theory(tuple(sorted(scenario.resolve({k: v for k, v in config.items() if k != "seed"}).items())))
except LabError:
    theory = None


def _chosen_level(sweep_defense):
    """The sidebar's level on the level sweep (absolute units), or None when the sweep is of another defence
    (defence none: the sweep adds Gaussian noise, and the chosen setting is its σ = 0)."""
    if sweep_defense == config["defense"]:
        return scenario.level(config)
    return 0.0 if config["defense"] == "none" and sweep_defense == "gaussian" else None


def preview():
    """The closed-form frame of the two sweeps, drawn while the run waits; the run's points fill it in."""
    left, right = st.columns(2)
    with left:
        chart(plots.accuracy_vs_ratio({}, {}, chosen=config["query_ratio"], theory=theory),
              "reconstruction-theory-ratio")
    with right:
        chart(plots.accuracy_vs_level({}, {}, chosen=_chosen_level(theory["level"]["defense"]), theory=theory),
              "reconstruction-theory-level")
    st.caption(say.reconstruction_preview(theory) + " " + content("reconstruction", "preview"))


def draw(result, final):
    m, s = result.metrics, result.series
    t = result.timings
    plain(say.reconstruction(m))
    if "accuracy" in m:  # a warning about the run's size belongs above what it qualifies
        caution = say.interval_caution(m["accuracy"], m["accuracy_ci_low"], m["accuracy_ci_high"],
                                       m.get("majority_baseline"), "the reconstruction", "Play more trials.")
        if caution:
            st.warning(caution, icon=":material/info:")
    # The headline charts right under the sentence, their numbers under them: a new tab's first view ends at the
    # first chart (ui/charts/first_view.py), and every element above it is drawn before it can be.
    figs = {}
    if s.get("accuracy_vs_query_ratio", {}).get("x"):
        figs["accuracy_vs_query_ratio"] = lambda: plots.accuracy_vs_ratio(s, m, chosen=config["query_ratio"],
                                                                          theory=theory)
    if s.get("accuracy_vs_defense_level", {}).get("x"):
        figs["accuracy_vs_defense_level"] = lambda: plots.accuracy_vs_level(
            s, m, chosen=_chosen_level(s.get("sweep_defense")), theory=theory)
    cols = st.columns(2)
    for col, (name, build) in zip(cols, list(figs.items())[:2]):
        with col:
            figure(build(), f"reconstruction-{name}", downloads=final)
    shown = {**m, "solver_ms": 1000 * t["solver_seconds"]} if "solver_seconds" in t else m
    metric_row(shown, {"accuracy": "Bits recovered", "majority_baseline": "Majority-guess baseline",
                       "answer_rmse": "Answer RMSE", "sqrt_n": "√n", "solver_ms": "Solver ms / game"})
    if "accuracy" in m:
        eps = m.get("release_epsilon")
        eps_txt = ("no differential-privacy guarantee" if eps is None else
                   f"ε ≈ {eps:.3g} at δ = 1e-5 for the release ({say.odds_short(eps, 1e-5)})")
        st.caption(f"95% {say.term('clopper-pearson-interval', 'Clopper–Pearson interval')} for the accuracy: [{m['accuracy_ci_low']:.3f}, "
                   f"{m['accuracy_ci_high']:.3f}] over {m['trials_done']} trials × n bits · m = {m['queries']} "
                   f"queries · {eps_txt}.")
    if s.get("accuracy_vs_rmse"):
        left, right = st.columns(2)
        with left:
            figure(plots.accuracy_vs_rmse(s), "reconstruction-accuracy-vs-rmse", downloads=final)
        with right:
            if s.get("trials"):
                figure(plots.trials_histogram(s), "reconstruction-trials", downloads=final)
    elif s.get("trials"):
        figure(plots.trials_histogram(s), "reconstruction-trials", downloads=final)
    if final:
        with st.expander("Per-game records"):
            table = pd.DataFrame(result.records)
            st.dataframe(table, width="stretch", height=240)
            download_table(table, f"reconstruction-games-seed{result.config['seed']}")
        download_result(result)
        run_tools(result)  # audit banner (claimed vs measured ε), Pin this run, HTML report


run_scenario(scenario, config, draw, preview=preview if theory is not None else None)

st.subheader("Heatmap: queries per person × noise")
st.caption(content("reconstruction", "heatmap"))
heat_base = {k: v for k, v in config.items() if k not in ("seed", "query_ratio", "defense_level")}
heat_base.update(defense="gaussian", noise_unit="absolute", sweeps=False, trials=min(5, config["trials"]))
heat = run_sweep(scenario, heat_base, plots.heatmap_grid(config["n"]), config["seed"],
                 label="Run the heatmap", key="recon-heatmap")
if heat is not None:
    sigma = {"gaussian": scenario.level(config), "none": 0.0}.get(config["defense"])
    figure(plots.accuracy_heatmap(heat, chosen=(config["query_ratio"], sigma)), "reconstruction-heatmap")
    download_table(pd.DataFrame(heat["rows"]), "reconstruction-heatmap-cells")

st.subheader("Scaling: the same σ/√n gives the same accuracy at every n")
st.caption(content("reconstruction", "scaling"))
scale_base = {"query_ratio": config["query_ratio"], "queries": config["queries"], "defense": "gaussian",
              "noise_unit": "sqrt_n", "solver": "lsq", "trials": 3, "sweeps": False}
scaling = run_sweep(scenario, scale_base, plots.scaling_grid(), config["seed"], label="Run the n-scaling sweep",
                    key="recon-scaling")
if scaling is not None:
    figure(plots.scaling_figure(scaling), "reconstruction-n-scaling")
