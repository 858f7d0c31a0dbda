"""Synthetic data: does releasing generated records protect a person's secret? (Annamalai et al., USENIX Sec. 2024)."""
import streamlit as st

from core.errors import LabError
from core.output import plain_language as say
from core.plots import synthetic as plots
from core.scenarios.synthetic.preview import data_preview
from core.scenarios.synthetic.views import (
    UTILITY_METRICS,
    attack_metric_names,
    compare_setup,
    compare_view,
    games_table,
    noise_warning,
    page_params,
    result_view,
)
from core.studies.choosing_epsilon.deployment_registry import ticks as deployment_ticks
from ui.widgets.page_widgets import (
    chart,
    charts_side_by_side,
    content,
    download_figure,
    download_result,
    download_table,
    figure,
    keep,
    metric_row,
    param_widgets,
    scenario_page,
    show_error,
    stop_unless_ready,
)
from ui.results.run_tools import run_tools
from ui.runs.page_runs import run_scenario
from ui.runs.sweeps import run_sweep
from ui.lab_parts.synthetic_release import release_controls

scenario = scenario_page("synthetic", about="What is happening here? (read me first)",
                         sidebar="Release")

# The x-axis choice is drawn only under a finished run's chart: a run refused or failed must not reset it.
keep("synthetic.metric_choice")

# Small, fast page defaults (first plot within seconds); the sidebar scales up to the paper's setting.
PAGE_DEFAULTS = scenario.page_defaults  # where this page starts (Scenario.page_defaults)


# ------------------------------------------------------------------ sidebar: data, secret, generator, ε
release = release_controls(scenario)
extra = release.extra
generator = extra["generator"]
st.sidebar.header("Game and attack")
widget_config = param_widgets(scenario, exclude=page_params(generator), defaults=PAGE_DEFAULTS,
                              data_caps=release.caps, cost_capped="drivers")
seed = widget_config.pop("seed")
stop_unless_ready(release.problem, release.missing)  # every control is drawn above, so none is forgotten
try:
    config = scenario.resolve({**widget_config, **extra})
except LabError as exc:
    show_error(exc)
    st.stop()
config["seed"] = seed

HEADLINE_NAMES = {"risk": "Inference risk vs control [95% CI]",
                  "train_control": "Right on training vs control records",
                  "baseline": "Majority baseline", "target": "Target accuracy [95% CI]",
                  "half_width": "Interval half-width", "target_baseline": "Target majority baseline",
                  "all_records": "All-records accuracy (low variance)"}
NAMES = {"auc": "AUC", "tpr_at_fpr_0.1": "TPR @ 10% FPR", "mre_gt10": "MRE>10",
         "tvd3": "3-TVD"}
EPS_NAMES = {"claimed_epsilon": "Claimed ε", "empirical_epsilon_low": "Empirical ε (95% lower bound)"}
ATTACK_NAMES = attack_metric_names()  # from the attacks' declarations (core/attacks/synthetic/__init__.py)


def draw(result, final):
    s = result.series
    v = result_view(result.metrics, s)
    if not v:
        return
    st.caption(f":material/science: {v.label} — compare shapes, not values, with the paper." if v.surrogate
               else f":material/groups: {v.label}")
    if v.risk_sentence:
        st.markdown(v.risk_sentence)  # written by the lab from the numbers; no user text
    st.markdown(v.sentence)  # it says already whether the interval clears a coin flip; the advice to play more
    # games goes beside the interval's own tiles, under the chart
    # --- headline: the privacy–utility scatter (this run + any comparison already computed), right under the
    # sentence and its numbers under it: a new tab's first view ends at this chart (ui/charts/first_view.py), and every
    # element above it is drawn before it can be.
    st.subheader("Privacy–utility trade-off")
    metric = st.session_state.get("synthetic.metric_choice", "mre_gt10")
    points = list(s["privacy_utility"]) + st.session_state.get("synthetic.compare_points", [])
    fig = plots.privacy_utility(points, metric, s["high_risk"], s["good_utility"])
    chart(fig, "synthetic-tradeoff")
    if final:  # under the chart it sets; a new tab's first view, which ends at the chart, draws one element less
        st.radio("Utility error on the x axis", list(UTILITY_METRICS), horizontal=True,
                 format_func=UTILITY_METRICS.get, key="synthetic.metric_choice",
                 help="MRE>10: mean relative error of 3-way counts above 10. 3-TVD: total variation distance of "
                      "3-way marginals. Both: lower = more useful; the paper calls < 0.2 good utility.")
    st.caption(content("synthetic", "tradeoff"))
    if final:
        download_figure(fig, "synthetic-tradeoff")
    metric_row(v.headline, HEADLINE_NAMES)
    caution = noise_warning(result.metrics, int(result.config.get("games", 0)))
    if caution:
        st.warning(caution, icon=":material/warning:")
    st.caption(content("synthetic", "interval"))
    if v.risks is not None:
        st.subheader("The three risks, against a control set")
        st.dataframe(v.risks, hide_index=True, width="stretch")
        st.caption(content("synthetic", "risk"))
    if v.proxies is not None:
        st.subheader("Proxy scores beside the attacks")
        st.dataframe(v.proxies, hide_index=True, width="stretch")
        st.caption(content("synthetic", "proxies"))
    metric_row(v.metrics, NAMES)
    if v.per_attack:
        metric_row(v.metrics, ATTACK_NAMES, fmt="{:.1%}")
    # ε, claimed and measured, under the chart: the attack's numbers lead straight into the trade-off they make.
    metric_row(v.eps_metrics, EPS_NAMES, fmt="{:.2f}")
    frac = result.metrics.get("sample_equivalent")
    if isinstance(frac, (int, float)) and frac == frac:
        st.caption(say.equivalent_sample_sentence(frac, "These synthetic data cost") + " " + content("synthetic",
                                                                                                     "sample"))
    left, right = st.columns(2)
    with left:
        cap = plots.dp_bound(before) if before is not None else None
        figure(plots.accuracy_vs_size(plots.size_lines(s), bound=cap), "synthetic-accuracy-vs-size",
               downloads=final)
    with right:
        if s.get("roc"):
            figure(plots.roc(s), "synthetic-roc", downloads=final)
    left, right = st.columns(2)
    with left:
        if s.get("accuracy_vs_queries"):
            figure(plots.accuracy_vs_queries(s), "synthetic-accuracy-vs-queries", downloads=final)
    with right:
        figure(plots.utility_vs_size(s), "synthetic-utility-vs-size", downloads=final)
    ex = v.example
    if ex:
        with st.expander("One game, step by step (what the attacker saw)", expanded=True):
            st.markdown(ex.intro)
            st.dataframe(ex.target, hide_index=True, width="stretch")
            st.dataframe(ex.guesses, hide_index=True, width="stretch")
            if ex.recon:
                st.markdown(ex.recon)
            if final and before is not None:
                chart(plots.uniqueness_bars(before), "synthetic-before")
    if final:
        with st.expander("Per-game records"):
            df = games_table(result.records)
            st.dataframe(df, width="stretch", height=240)
            download_table(df, f"synthetic-games-seed{result.config['seed']}")
        t = result.timings
        if t:
            st.caption(f"Per game: fit {t.get('fit_seconds', 0):.2f} s · sample {t.get('sample_seconds', 0):.2f} s · "
                       f"attacks {t.get('attack_seconds', 0):.2f} s (the fitted generator and its sample are cached).")
        download_result(result)
        run_tools(result)  # audit banner (claimed vs measured ε), f-DP panel, Pin this run, HTML report


@st.cache_data(max_entries=32, show_spinner=False)
def _data_preview(items: tuple, seed: int) -> dict:
    return data_preview(dict(items), seed)


try:  # the data under attack first (something true at once): game 1's own sample, no generator fitted
    before = _data_preview(tuple(sorted((k, v) for k, v in config.items() if k != "seed")), seed)
except LabError:
    before = None  # the run reports the same problem


def preview():
    """Drawn while the run waits: how the quasi-identifiers single out game 1's records; for a DP generator,
    the accuracy frame with the cap its ε puts on every attack."""
    cap = plots.dp_bound(before)
    charts_side_by_side((plots.uniqueness_bars(before), "synthetic-before"),
                        (plots.accuracy_vs_size([], bound=cap, sizes=before["sizes"]) if cap is not None else None,
                         "synthetic-accuracy-bound"))
    st.caption(say.synthetic_preview(before))


run_scenario(scenario, config, draw, preview=preview if before is not None else None)

# ------------------------------------------------------------------ compare generators (sweeps)
st.divider()
st.subheader("Compare generators")
st.markdown(content("synthetic", "compare"))
cmp = compare_setup(config)
c1, c2 = st.columns(2)
plain = c1.multiselect("Generators without DP", cmp.plain, default=cmp.plain_default,
                       key="synthetic.compare_plain")
dp = c2.multiselect("DP generators", cmp.dp, default=cmp.dp_default, key="synthetic.compare_dp")
eps_grid = c2.multiselect("ε values", cmp.epsilons, default=cmp.epsilons_default, key="synthetic.compare_eps")
rows = []
if plain:
    out = run_sweep(scenario, cmp.base, {"generator": plain}, seed, label="Compare generators (no DP)",
                    key="synthetic-plain")
    if out:
        rows += out["rows"]
if dp and eps_grid:
    out = run_sweep(scenario, cmp.base, {"generator": dp, "epsilon": sorted(eps_grid)}, seed,
                    label="Compare DP generators over ε", key="synthetic-dp")
    if out:
        rows += out["rows"]
if rows:
    metric = st.session_state.get("synthetic.metric_choice", "mre_gt10")
    view = compare_view(rows, config["synth_size"], metric)
    sizes = view.sizes
    st.session_state["synthetic.compare_points"] = view.points
    figure(plots.privacy_utility(view.points, metric), "synthetic-compare-tradeoff")
    st.markdown(view.sentence)
    left, right = st.columns(2)
    with left:
        figure(plots.accuracy_vs_size(plots.rows_size_lines(rows, sizes), "Accuracy vs synthetic size, per generator"),
               "synthetic-compare-size")
    with right:
        if view.by_epsilon:
            figure(plots.accuracy_vs_epsilon(rows, sizes, deployment_ticks()), "synthetic-accuracy-vs-epsilon")
            st.caption("Ticks along the bottom: real deployments at these ε (hover for the source; grey = a unit "
                       "of privacy smaller than a person).")
    if view.roc_attack:
        figure(plots.roc_per_generator(rows, view.roc_attack, sizes[-1]), "synthetic-compare-roc")
    st.dataframe(view.table, hide_index=True, width="stretch")
    download_table(view.table, "synthetic-compare")
