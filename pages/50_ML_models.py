"""ML models: which groups can an attacker single out as most exposed, and does rebalancing (BCorr) fix it?"""

import pandas as pd
import streamlit as st

from core.data.disparity_population import column_choices
from core.errors import LabError
from core.output import claims
from core.output import plain_language as say
from core.output.inert import inert_text
from core.plots import ml_models as plots
from core.scenarios.ml_models import columns, population_preview
from ui.widgets.page_widgets import (
    chart,
    download_result,
    download_table,
    figure,
    metric_row,
    param_widgets,
    scenario_page,
    show_error,
)
from ui.widgets.import_step import UPLOAD_TYPES, import_upload, new_file_for, role_select, suggestions
from ui.results.run_tools import run_tools
from ui.runs.page_runs import run_scenario


@st.cache_data(show_spinner=False, max_entries=8)
def preview_of(config, seed):
    """The first chart's data, once per population: finding the targeting candidates codes every categorical
    column (0.1-0.3 s of the server's time before a new tab's first chart). Each view gets its own copy."""
    return population_preview(config, seed)


scenario = scenario_page("ml-models", sidebar="ML model attribute inference",
                         about="What is happening here? (attacks, angular difference, targeting, BCorr)")

upload = st.sidebar.file_uploader("Your own records (CSV, TSV or Excel; choose 'Your CSV' as dataset)", type=UPLOAD_TYPES,
                                  help="One row per person; pick a binary label, a binary sensitive attribute "
                                       "and a categorical group attribute below.")
slots = {"kappa": None}  # the targeted attribute's chooser goes under the budget, once the data are known
config = param_widgets(scenario, exclude=("label", "sensitive", "group"), cost_capped="drivers", slots=slots)
seed = config.pop("seed")
overrides = {k: v for k, v in config.items()}
roles = {}
if config["dataset"] == "csv":
    if upload is None:
        st.info("Upload a CSV in the sidebar to use your own data.")
        st.stop()
    try:  # the import step: detected format (with overrides), first rows, column types, suggested roles
        overrides["data_path"], table = import_upload(upload, "ml-models")  # private 0600, removed when unused
        roles = suggestions(table, min_group=config["min_group"])
    except LabError as exc:
        show_error(exc)
        st.stop()
try:
    choices = column_choices(config["dataset"], overrides.get("data_path", ""))
except LabError as exc:
    show_error(exc)
    st.stop()
defaults = dict(zip(("label", "sensitive", "group"), columns({**config, "label": "", "sensitive": "", "group": ""})))
for role, title in (("label", "Label (model output)"), ("sensitive", "Sensitive attribute"),
                    ("group", "Group attribute")):
    opts = choices[role]
    key = f"ml-models.col.{config['dataset']}.{role}"
    if role in roles:  # an upload: the suggestion (with its reason) is where the chooser starts
        overrides[role] = role_select(st.sidebar, title, opts, key, roles[role], help=scenario.param(role).help,
                                      bind="query-params", disabled=len(opts) == 1)
        continue
    taken = [overrides[r] for r in ("label", "sensitive") if r in overrides]
    free = [i for i, c in enumerate(opts) if c not in taken] or [0]
    index = opts.index(defaults[role]) if defaults[role] in opts else free[0]
    overrides[role] = st.sidebar.selectbox(title, opts, index=index, key=key, bind="query-params",
                                           disabled=len(opts) == 1, help=scenario.param(role).help)
if config["dataset"] == "csv":  # numeric columns stay numbers unless the user says they are categories
    numeric = [c for c in choices["numeric"] if c not in (overrides["label"], overrides["sensitive"],
                                                           overrides["group"])]
    if new_file_for("ml-models.categorical"):  # a choice made for an earlier file
        st.session_state.pop("ml-models.categorical", None)
    if numeric:
        marked = st.sidebar.multiselect(
            "Numeric columns read as categories", numeric, key="ml-models.categorical",
            help="Numeric columns with more than 12 values are scaled numbers for the model (as the paper's code "
                 "does). Pick those that are really codes (a region number, an occupation code) to one-hot code "
                 "them instead.")
        overrides["categorical"] = ",".join(marked)
try:
    config = {**scenario.resolve(overrides), "seed": seed}
    preview = preview_of(config, seed)
    if config["targeting"] == "single" and preview["targeting_candidates"]:
        overrides["target_attribute"] = slots["kappa"].selectbox(
            "Targeted attribute", [""] + preview["targeting_candidates"], key=f"ml-models.target.{config['dataset']}",
            format_func=lambda c: c or "Widest range (the paper's rule)", bind="query-params",
            help=scenario.param("target_attribute").help + " Naming one follows a paper that targets a known "
                                                             "attribute, such as occupation on Adult.")
        config = {**scenario.resolve(overrides), "seed": seed}
except LabError as exc:
    show_error(exc)
    st.stop()

info = preview["info"]
top = st.container()
with top:
    chart(plots.population_rho(preview), "rho")
    st.caption(f"{info['train']:,} training records in {info['groups']} groups of {inert_text(info['group'])}; "
               f"the model predicts {inert_text(info['label'])} from every column including "
               f"{inert_text(info['sensitive'])}. This correlation is what the attacker cannot see — the model below "
               "is trained next.")


def _num(x, fmt: str = "{:.2f}") -> str:
    """A number for a caption; "n/a" when a step could not measure it (e.g. no group showed a slope)."""
    return "n/a" if x is None or x != x else fmt.format(x)


def _sentence(m: dict, s: dict) -> str:
    # every comparison in it follows its numbers' direction and intervals (core/output/claims.py); an uploaded
    # file's names and values are shown as written, never as Markdown
    return claims.ml_models(m, s, inert_text)


def _group_table(s: dict) -> pd.DataFrame:
    g = s["groups"]
    df = pd.DataFrame({"group": g["name"], "records": g["n"], "rho(s,y)": g["rho"], "AD (rad)": g["ad"],
                       "risk score": g["risk"], "attack accuracy": g["accuracy"],
                       "baseline aux accuracy": g["baseline_accuracy"]})
    if "bcorr" in s:
        df["accuracy after BCorr"] = s["bcorr"]["group_accuracy"]
    df.insert(0, "predicted rank", 0)
    df.loc[g["order"], "predicted rank"] = range(1, len(g["order"]) + 1)
    return df.sort_values("predicted rank")


def draw(result, final):
    m, s = result.metrics, result.series
    if "groups" not in s:
        return
    st.markdown(_sentence(m, s))
    for note in s.get("notes", []):  # an optional step the data could not support: the run went on without it
        st.info(note, icon=":material/info:")
    metric_row(m, {"accuracy": f"Attack accuracy ({s['info']['attack']})", "targeted_accuracy": "Targeted accuracy",
                   "spearman_disparity": "Ranking quality (Spearman)", "asrd": "Disparity ASRD",
                   "model_accuracy": "Model accuracy", "empirical_epsilon_low": "Empirical ε ≥"})
    floor = (f" (identical groups of these sizes: ≈ {100 * m['asrd_noise_floor']:.1f} by chance, the noise floor)"
             if "asrd_noise_floor" in m else "")
    caution = say.interval_caution(m.get("accuracy"), m.get("accuracy_ci_low"), m.get("accuracy_ci_high"),
                                   m.get("chance_accuracy"))
    if caution:
        st.warning(caution, icon=":material/warning:")
    st.caption(f"95% CI of the attack accuracy [{m['accuracy_ci_low']:.3f}, {m['accuracy_ci_high']:.3f}] · "
               f"Kendall τ {_num(m.get('kendall_disparity'))} (baseline from auxiliary data: "
               f"{_num(m.get('baseline_kendall'))}) · ASRD {100 * m['asrd']:.1f} points{floor} · "
               f"EOD {m['eod']:.3f} · DPD {m['dpd']:.3f} · the model claims no "
               f"differential privacy (ε = ∞) · training {result.timings.get('train_seconds', 0):.1f} s"
               f"{' (cached model)' if s['info'].get('cache_hit') else ''}")
    st.caption(say.ml_seed_spread(m, s))
    figs = {"groups-ranked": plots.group_bars(s), "ad-vs-accuracy": plots.ad_scatter(s)}
    if s.get("kappa_sweep"):
        figs["targeted-vs-kappa"] = plots.kappa_curve(s)
    figure(figs["groups-ranked"], "ml-models-groups-ranked", downloads=final)
    st.caption("Bars: the attack's real accuracy in each group (needs everyone's true secret; 95% intervals). Red "
               "line: the risk score the attacker computes from the model's answers alone. Groups are sorted by "
               "that score, so a falling bar height from left to right means the attacker's ranking is right.")
    left, right = st.columns(2)
    with left:
        figure(figs["ad-vs-accuracy"], "ml-models-ad-vs-accuracy", downloads=final)
    with right:
        if "targeted-vs-kappa" in figs:
            figure(figs["targeted-vs-kappa"], "ml-models-targeted-vs-kappa", downloads=final)
    if "bcorr" in s:
        figs["bcorr"] = plots.bcorr_bars(s)
        figure(figs["bcorr"], "ml-models-bcorr", downloads=final)
        st.caption(f"BCorr resampled every group to ρ* = {s['bcorr']['rho_star']:.2f} (the least-correlated "
                   f"group) and kept {100 * s['bcorr']['kept_fraction']:.0f}% of the records. With groups this "
                   f"small, identical groups would still differ by ≈ {100 * m['asrd_noise_floor_bcorr']:.0f} points "
                   "by chance (the ASRD noise floor). EOD "
                   f"{m['eod']:.3f} → {m['eod_bcorr']:.3f}, DPD {m['dpd']:.3f} → {m['dpd_bcorr']:.3f}.")
    if not final:
        return
    st.subheader("Why does a group leak? The confidence scatter")
    names = s["groups"]["name"]
    order = s["groups"]["order"]
    pick = st.selectbox("Group", [names[i] for i in order], key="ml-models.scatter_group",
                        help="Groups in the attacker's predicted order, most exposed first.")
    figs["confidence-scatter"] = plots.confidence_scatter(s, names.index(pick))
    figure(figs["confidence-scatter"], "ml-models-confidence-scatter")
    st.caption("Each dot is a record the model classifies right with either sensitive value. When the two "
               "classes' lines point in different directions (large angle), the model's confidence moves with the "
               "sensitive value differently for each class — and that is what the attack reads. Compare the most "
               "exposed group with one from the bottom of the list.")
    table = _group_table(s)
    with st.expander("Per-group numbers (table)"):
        st.dataframe(table, width="stretch", height=280)
        download_table(table, f"ml-models-groups-seed{result.config['seed']}")
    download_result(result)
    run_tools(result)  # audit banner (claimed vs measured ε), f-DP panel, Pin this run, HTML report


run_scenario(scenario, config, draw)
