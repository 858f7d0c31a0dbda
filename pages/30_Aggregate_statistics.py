"""DeSIA vs CIP and RAP: infer a census respondent's attribute from a few released block-level counts (m/s)."""

import pandas as pd
import streamlit as st

from core.attacks.declaration import attacks_of
from core.output import plain_language as say
from core.errors import LabError
from core.output.inert import inert_text
from core.plots import aggregates as plots
from core.scenarios.aggregates import utility
from core.scenarios.aggregates.preview import block_preview
from ui.widgets.page_widgets import (chart, charts_side_by_side, content, download_figure, download_result, download_table,
                       metric_row, scenario_page, param_widgets, plain, show_error, stop_unless_ready)
from ui.lab_parts.aggregates_data import data_controls, generic_chosen
from ui.runs.page_runs import run_scenario
from ui.results.run_tools import run_tools

# The header follows the data: the census secret is Hispanic origin, an upload's is the column the user picks.
_generic = generic_chosen()
scenario = scenario_page("aggregates", about="What is happening here? (read me first)",
                         sidebar="Table-release game" if _generic else "Census-block game",
                         summary=("Infer a person's yes/no secret (the column you choose) from a few hundred "
                                  "released counts: DeSIA's integer program + shadow classifier vs reconstruction "
                                  "attacks." if _generic else None))

# Small, fast page defaults (first ROC within seconds); the sidebar scales up to the paper's setting.
PAGE_DEFAULTS = scenario.page_defaults  # where this page starts (Scenario.page_defaults)


data = data_controls()

config = param_widgets(scenario, exclude=("data", "sweep"), defaults=PAGE_DEFAULTS, cost_capped="drivers")
tolerance = st.sidebar.number_input(
    "Count tolerance (for the accuracy side)", min_value=0, max_value=1000, value=1, step=1,
    key="aggregates.tolerance",
    help="A published count counts as wrong when it is off by more than this many people")
stop_unless_ready(data.problem, data.missing)  # every control is drawn above, so none is forgotten
try:
    seed = config.pop("seed")
    config = scenario.resolve({**config, **data.extra})
    config["seed"] = seed
except LabError as exc:
    show_error(exc)
    st.stop()

SWEEP_BLOCKS, SWEEP_BLOCKS_DEFAULT = (1, 2, 3, 4, 6, 10), 3

NAMES = {"auc": "AUC", "tpr_at_fpr_0.001": "TPR @ 0.1% FPR", "tpr_at_fpr_0.01": "TPR @ 1% FPR",
         "deterministic_fraction": "Settled by the solver"}
# the AUC line: each declared attack's metric suffix and label (core/attacks/aggregates/__init__.py), then chance
ATTACK_NAMES = {**{a.metric: a.short for a in attacks_of("aggregates")}, "random": "random guess"}
COUNTS = {"targets": "Targets", "deterministic_count": "Settled targets",
          "deterministic_errors": "Wrong settled answers"}


def draw(result, final):
    m, s = result.metrics, result.series
    sentence = plots.plain_summary(m, s)
    plain(sentence)
    for note in s.get("fit_notes", []):  # what your file could not support, and what was played instead
        st.caption(f":material/tune: {inert_text(note)}")
    if s.get("synthetic", True):
        st.caption(":material/science: Synthetic census blocks: illustrative numbers, not the paper's figures.")
    if final and m.get("targets") is not None and "auc_ci_low" in m:
        lo, hi = m["auc_ci_low"], m["auc_ci_high"]
        if m["targets"] < s.get("min_targets", 50) or hi - lo > 0.2:
            st.warning(f"Only **{m['targets']} targets** were attacked: the AUC of {m['auc']:.3f} has a 95% "
                       f"confidence interval of **{lo:.2f} – {hi:.2f}**, too wide to say how well the attack "
                       "works. Use more blocks, a larger block or more targets per block.",
                       icon=":material/warning:")
    # The headline chart right under the sentence, its numbers under it: a new tab's first view ends at the first
    # chart (ui/charts/first_view.py), and every element above it is drawn before it can be.
    if s.get("roc"):
        fig = plots.roc_all(s)
        chart(fig, "aggregates-roc")
        aucs = [(name, m[f"auc_{key}"]) for key, name in ATTACK_NAMES.items() if f"auc_{key}" in m]
        if aucs:
            st.caption("AUC · " + " · ".join(f"{name} {v:.3f}" for name, v in aucs))
        # one container in every draw, so a live draw's tiles never linger beside the final draw's buttons
        downloads = st.container()
        if final:
            with downloads:
                download_figure(fig, "aggregates-roc")
    metric_row(m, NAMES)
    if "auc_ci_low" in m:
        st.caption(f"[AUC](/Glossary#auc) 95% CI {m.get('auc_ci_low', float('nan')):.3f} – "
                   f"{m.get('auc_ci_high', float('nan')):.3f} "
                   f"({'DeLong' if m.get('auc_ci_clusters', 1) == 1 else 'bootstrap over releases and targets'}) · "
                   f"[empirical ε](/Glossary#empirical-epsilon) ≥ {m.get('empirical_epsilon_low', float('nan')):.2f} "
                   "(95% confidence; threshold chosen on half the targets, bound on the other half) · ε per "
                   "person: " + ("none (exact counts)" if m.get("epsilon_per_person") is None else
                                 f"{m['epsilon_per_person']:.3g} = {m['epsilon_per_cell']:g} per cell × "
                                 f"{m['cells_per_person']} cells ({say.odds_short(m['epsilon_per_person'])})")
                   + (" · the interval includes one release only: targets sharing a release are not independent, "
                      "so use 2 or more blocks for an interval that covers another release"
                      if m.get("auc_ci_clusters") == 1 else ""))
    metric_row(m, COUNTS, fmt="{:.0f}")
    if "auc_not_deterministic" in m:
        st.caption(f"DeSIA on the targets the solver did not settle: AUC {m['auc_not_deterministic']:.3f}; "
                   f"M_D {result.timings.get('md_seconds_per_target', 0):.2f} s and M_S {result.timings.get('ms_seconds_per_target', 0):.2f}"
                   f" s per target; shadow-model validation AUC {m.get('shadow_validation_auc', float('nan')):.3f}; "
                   f"solver timeouts {m.get('timeouts', 0)}.")
    # What the counts lose comes after what the attack gains: the ROC is the page's headline chart.
    if final and "count_error_measured" in m:
        accuracy_side(m, s)
    table = plots.ablation_table(s)
    if not table.empty:
        st.subheader("Ablation (paper Table 3)")
        st.caption("Rows 1–3 come free with every DeSIA run; rows 4–5 (RAP instead of the solver) need "
                   "'Ablation with RAP rows' in the sidebar.")
        st.dataframe(table, width="stretch", hide_index=True)
        if final:
            download_table(table, "aggregates-ablation")
    if final and before is not None:
        with st.expander("Before any attack: the targets and the cells that involve them"):
            chart(plots.secret_cells(before), "aggregates-before")
            st.caption(say.aggregates_preview(before))
            _equivalent_sample(before)
    if final:
        with st.expander("Per-target records"):
            rows = [{**{k: v for k, v in rec.items() if k != "rows"}, **row}
                    for rec in result.records for row in rec["rows"]]
            df = pd.DataFrame(rows)
            st.dataframe(df, width="stretch", height=240)
            download_table(df, f"aggregates-targets-seed{result.config['seed']}")
        download_result(result)
        run_tools(result)  # audit banner (claimed vs measured ε), f-DP panel, Pin this run, HTML report


def accuracy_side(m, s):
    """What the published counts lose at the chosen ε, beside what the attack gains: one sentence, the numbers,
    and one chart of attack success and count error against ε."""
    eps = float(config["epsilon"])
    numbers = utility.at_epsilon(m, s, eps, float(tolerance))
    st.subheader("What the published counts lose")
    plain(utility.sentence(numbers, s.get("sensitive", "")))
    tiles = {"per_person_epsilon": "ε per person (all cells)", "abs_expected": "Expected error per cell",
             "abs_measured": "Measured error per cell", "rel_expected": "Expected relative error",
             "rel_measured": "Measured relative error",
             "off_expected": f"Cells off by > {numbers['tolerance']:g} (expected)",
             "off_measured": f"Cells off by > {numbers['tolerance']:g} (measured)"}
    share = ("rel_expected", "rel_measured", "off_expected", "off_measured")  # read as percentages
    shown = {k: (f"{100 * v:.1f}%" if k in share else f"{v:.3g}") for k, v in numbers.items()
             if k in tiles and v is not None}
    metric_row(shown, tiles)
    if eps > 0:
        fig = plots.tradeoff_figure(utility.tradeoff_curves(m, eps), s.get("sensitive", ""))
        chart(fig, "aggregates-tradeoff")
        download_figure(fig, "aggregates-tradeoff")


@st.cache_data(max_entries=32, show_spinner=False)
def _block_preview(items: tuple, seed: int) -> dict:
    return block_preview(dict(items), seed)


try:  # the data under attack first (something true at once): the run's own blocks and cells, no attack needed
    before = _block_preview(tuple(sorted((k, v) for k, v in config.items() if k != "seed")), config["seed"])
except LabError:
    before = None  # the run reports the same problem


def preview():
    """Drawn while the run waits: the targets and how many released cells involve each; with noise, the ROC
    region the release's DP claim allows."""
    charts_side_by_side((plots.secret_cells(before), "aggregates-before"),
                        (plots.roc_bound_preview(before), "aggregates-roc-bound"))
    st.caption(say.aggregates_preview(before) + " " + content("aggregates", "preview"))
    _equivalent_sample(before)


def _equivalent_sample(before: dict) -> None:
    """The noise's cost as a sample size, on the cells this run releases (nothing without noise)."""
    sample = (before or {}).get("equivalent_sample")
    if sample:
        st.caption(f"{say.equivalent_sample_sentence(sample['fraction'])} (Over the {sample['cells']:,} released "
                   f"cells, mean true count {sample['mean_count']:.1f}: Laplace noise errs by 1/ε = "
                   f"{sample['mae']:.3g} on average; a Bernoulli sample of fraction r scaled by 1/r errs by about "
                   "√(2/π)·√(c(1 − r)/r) on a count c; r is chosen so the two mean absolute errors match.)")


run_scenario(scenario, config, draw, preview=preview if before is not None else None)

st.divider()
st.subheader("How do the attacks change with more counts, or with noise?")
st.markdown("Each point is a fresh release of the same blocks (heavier: one full run per point of the grid). "
            "**m/s** = released cells per person (the grid goes beyond the paper's m < s while the tables have "
            "cells); **ε** = [Laplace noise](/Glossary#laplace-mechanism) per cell, rounded to an integer "
            "(smaller ε = more noise; DeSIA trains its shadows with the same noise). The shaded bands are 95% "
            "[confidence intervals](/Glossary#confidence-band) of each AUC: where bands overlap, the run cannot "
            "tell the points apart. The dashed line on the ε plot is the highest AUC the release's own "
            "[DP guarantee](/Glossary#dp-bound) (ε per person) still allows.")
c1, c2 = st.columns([2, 1])
sweep = c1.radio("Experiment", ["AUC vs m/s", "AUC vs ε"], horizontal=True, key="aggregates.sweep_choice")
sweep_blocks = c2.select_slider("Blocks per point", SWEEP_BLOCKS, value=SWEEP_BLOCKS_DEFAULT,
                                key="aggregates.sweep_blocks",
                                help="Each block adds its unique people as targets (≈100–150 at s = 200). "
                                     "One block per point gives AUC intervals of about ±0.1 — too wide to "
                                     "see the curve's shape; three or more narrow them to ±0.05.")
sweep_config = {**config, "blocks": int(sweep_blocks), "ablation": False,
                "sweep": "query_ratio" if sweep == "AUC vs m/s" else "epsilon"}


def draw_sweep(result, final):
    fig = plots.sweep_figure(result.series)
    if fig is not None:
        chart(fig, "aggregates-sweep")
        if final:
            download_figure(fig, f"aggregates-{sweep_config['sweep']}")


try:  # every experiment shows its estimate before it starts
    _resolved = scenario.resolve({k: v for k, v in sweep_config.items() if k != "seed"})
    st.caption(f"Estimate before it starts: {scenario.n_games(_resolved):,} attack runs, about "
               f"{scenario.estimate_cost(_resolved).seconds / 60:.0f} minutes of one core.")
except LabError as exc:
    show_error(exc)
st.page_link("pages/32_Choose_epsilon_for_tables.py", label="Choosing an ε for your tables? State your count error and "
             "attack tolerances and see the options", icon=":material/balance:")
run_scenario(scenario, sweep_config, draw_sweep, auto=False, label=f"Run {sweep}")
