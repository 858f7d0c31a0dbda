"""Synthetic data: does releasing generated records protect a person's secret? (Annamalai et al., USENIX Sec. 2024)."""
import inspect
from pathlib import Path

import pandas as pd
import streamlit as st

from core.data.dataset import load_csv
from core.errors import LabError
from core.plots import synthetic as plots
from core.scenario import get
from core.scenarios.synthetic import (DATASETS, DEFAULT_SECRET, DP_GENERATORS, EPOCH_GENERATORS, GENERATORS,
                                      base_dataset)
from core.releases.synthesizers import SYNTHESIZERS
from ui.common import (chart, download_figure, download_result, download_table, figure, metric_row, page_header,
                       param_widgets, run_scenario, run_sweep, show_error)
from ui.report import run_tools
from ui.uploads import save_upload

scenario = get("synthetic")
page_header(scenario)

# Small, fast page defaults (first plot within seconds); the sidebar scales up to the paper's setting.
PAGE_DEFAULTS = {"games": 10, "synth_size": 10_000, "n": 1000}
for _name, _value in PAGE_DEFAULTS.items():
    if _name not in st.query_params:
        st.session_state.setdefault(f"{scenario.name}.{_name}", _value)

with st.expander("What is happening here? (read me first)", expanded=False):
    st.markdown((Path(__file__).resolve().parent.parent / "content" / "synthetic.md").read_text())

# ------------------------------------------------------------------ sidebar: data, secret, generator, ε
st.sidebar.header("Release")
p_data = scenario.param("dataset")
dataset = st.sidebar.selectbox("Data", DATASETS, key="synthetic.dataset", bind="query-params",
                               format_func=lambda d: p_data.choice_labels.get(d, d), help=p_data.help)
extra = {"dataset": dataset}
try:
    if dataset == "csv":
        upload = st.sidebar.file_uploader("CSV file", type=["csv"], key="synthetic.upload",
                                          help="Categorical columns (numeric ones are binned); one binary secret")
        if upload is None:
            st.info("Upload a CSV in the sidebar, or pick one of the built-in data sets.")
            st.stop()
        path = save_upload(upload.getvalue(), "synthetic")  # private 0600 file, removed when no session needs it
        extra["data_path"] = path
        table = load_csv(path, name=upload.name)
    else:
        table, _ = base_dataset(dataset)
except LabError as exc:
    show_error(exc)
    st.stop()
binary = [c for c in table.columns if len(table.domain[c]) == 2]
options = ([DEFAULT_SECRET[dataset]] if dataset in DEFAULT_SECRET else []) + \
    [c for c in binary if c != DEFAULT_SECRET.get(dataset)]
options += [f"{c}={v}" for c in table.columns if len(table.domain[c]) > 2 for v in table.domain[c][:12]]
if not options:
    st.error("The file has no column to use as the secret.")
    st.stop()
extra["secret"] = st.sidebar.selectbox("Secret column", options, key=f"synthetic.secret.{dataset}", bind="query-params",
                                       help="The attribute the attacker tries to learn. Two-valued columns, or "
                                            "column=value to binarise a categorical one.")
if dataset != "csv" and extra["secret"] == DEFAULT_SECRET[dataset]:
    extra["secret"] = ""

p_gen = scenario.param("generator")
generator = st.sidebar.selectbox("Generator", GENERATORS, key="synthetic.generator", bind="query-params",
                                 format_func=lambda g: p_gen.choice_labels.get(g, g), help=p_gen.help)
extra["generator"] = generator
if generator in DP_GENERATORS:
    _own = inspect.signature(SYNTHESIZERS[generator].__init__).parameters.get("epsilon")
    _default = float(_own.default) if _own is not None and isinstance(_own.default, (int, float)) else 10.0
    _grid = sorted({0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, _default})
    extra["epsilon"] = st.sidebar.select_slider("ε (privacy budget)", _grid, value=_default,
                                                key=f"synthetic.epsilon.{generator}", bind="query-params",
                                                help="The generator's differential-privacy budget (paper: 1, 10, "
                                                     "100; IndHist: DataSynthesizer's 0.1); smaller = more noise")
else:
    st.sidebar.caption(f"{SYNTHESIZERS[generator].title or generator}: no DP guarantee, so no ε to set.")

st.sidebar.header("Game and attack")
hidden = ("dataset", "data_path", "secret", "generator", "epsilon") + \
    (() if generator in EPOCH_GENERATORS else ("epochs",))  # epochs only matter for the neural generators
widget_config = param_widgets(scenario, exclude=hidden)
seed = widget_config.pop("seed")
try:
    config = scenario.resolve({**widget_config, **extra})
except LabError as exc:
    show_error(exc)
    st.stop()
config["seed"] = seed

NAMES = {"accuracy": "Attack accuracy", "auc": "AUC", "tpr_at_fpr_0.1": "TPR @ 10% FPR", "mre_gt10": "MRE>10",
         "tvd3": "3-TVD"}
EPS_NAMES = {"claimed_epsilon": "Claimed ε", "empirical_epsilon_low": "Empirical ε (95% lower bound)"}
ATTACK_WORDS = {"recon": "the linear-reconstruction attack", "dcr": "the closest-record attack",
                "infer": "the random-forest attack"}
METRIC_LABELS = {"mre_gt10": "MRE>10", "tvd3": "3-TVD"}


def sentence(m: dict, s: dict) -> str:
    acc, size = m["accuracy"], s["sizes"][-1]
    gen = s["generator"]["title"]
    secret = s.get("secret", "secret")
    useful = "useful (MRE>10 < 0.2)" if m["mre_gt10"] < 0.2 else "of limited use (MRE>10 ≥ 0.2)"
    risk = ("well above" if m["accuracy_ci_low"] > 0.5 else "not clearly above")
    return (f"**With these settings, an attacker who knows everyone's quasi-identifiers guesses a target's "
            f"`{secret}` right {acc:.0%} of the time** from {size:,} synthetic records made by {gen} — "
            f"{risk} the 50% of a coin flip (95% CI {m['accuracy_ci_low']:.0%}–{m['accuracy_ci_high']:.0%}, "
            f"{m['games_done']} games). The same release is {useful}.")


def draw(result, final):
    m, s = result.metrics, result.series
    if not m:
        return
    label = s.get("dataset_label", "")
    if "surrogate" in label:
        st.caption(f":material/science: {label} — compare shapes, not values, with the paper.")
    else:
        st.caption(f":material/groups: {label}")
    st.markdown(sentence(m, s))
    metric_row(m, NAMES)
    shown = dict(m)
    if shown.get("claimed_epsilon") is None:
        shown["claimed_epsilon"] = "none (not DP)"
    metric_row(shown, EPS_NAMES, fmt="{:.2f}")
    if len(s.get("attacks", [])) > 1:
        metric_row(m, {"accuracy_recon": "Adv_recon", "accuracy_dcr": "Adv_dcr", "accuracy_infer": "Adv_infer",
                       "accuracy_max": "Acc_max"}, fmt="{:.1%}")
    # --- headline: the privacy–utility scatter (this run + any comparison already computed)
    st.subheader("Privacy–utility trade-off")
    metric = st.session_state.get("synthetic.metric_choice", "mre_gt10")
    points = list(s["privacy_utility"]) + st.session_state.get("synthetic.compare_points", [])
    fig = plots.privacy_utility(points, metric, s["high_risk"], s["good_utility"])
    chart(fig, "synthetic-tradeoff")
    st.caption("Each point is one release (generator × ε × synthetic size m; marker = m). Bottom-left is best: "
               "useful data (left of the green line) that the attack cannot exploit (below the red line). The black "
               "line is the Pareto front. Press *Compare generators* below to add every generator.")
    if final:
        download_figure(fig, "synthetic-tradeoff")
    left, right = st.columns(2)
    with left:
        figure(plots.accuracy_vs_size(plots.size_lines(s)), "synthetic-accuracy-vs-size", downloads=final)
    with right:
        if s.get("roc"):
            figure(plots.roc(s), "synthetic-roc", downloads=final)
    left, right = st.columns(2)
    with left:
        if s.get("accuracy_vs_queries"):
            figure(plots.accuracy_vs_queries(s), "synthetic-accuracy-vs-queries", downloads=final)
    with right:
        figure(plots.utility_vs_size(s), "synthetic-utility-vs-size", downloads=final)
    ex = s.get("example")
    if ex:
        with st.expander("One game, step by step (what the attacker saw)", expanded=True):
            st.markdown(f"Game {ex['game'] + 1}: among the {ex['n']:,} records, {ex['unique_targets']:,} have a unique "
                        "combination of quasi-identifiers; one of them is the target. Its true secret was "
                        f"**{ex['original']}**, and the coin re-drew it as **{ex['truth']}** before the generator "
                        f"saw the data. The attacker sees these quasi-identifiers and {ex['m']:,} synthetic rows:")
            st.dataframe(pd.DataFrame([ex["target"]]), hide_index=True, width="stretch")
            rows = []
            for a, g in ex["guesses"].items():
                score = ex["scores"][a]
                rows.append({"attack": a, "score": round(float(score), 4), "guess": g, "truth": ex["truth"],
                             "won": "yes" if g == ex["truth"] else "no"})
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
            rec = ex.get("recon")
            if rec:
                st.markdown(f"Adv_recon asked **{rec['queries']:,}** queries ({rec['lp_rows']:,} cover at least one "
                            f"record); the LP's value for the target is **t_u = {rec['t_u']:.3f}** (guess 1 if ≥ 0.5); "
                            f"total error of the best fit ‖A t − r̂‖₁ = {rec['objective']:.1f}. "
                            "t_u at every size: " + ", ".join(
                                f"m={m:,}: {t:.2f}" for m, t in zip(s["sizes"], ex["t_u_by_size"]) if t is not None))
    if final:
        with st.expander("Per-game records"):
            flat = []
            for r in result.records:
                if r["kind"] != "main":
                    continue
                for row in r["sizes"]:
                    flat.append({"game": r["game"], "truth": r["truth"], **row})
            df = pd.DataFrame(flat)
            st.dataframe(df, width="stretch", height=240)
            download_table(df, f"synthetic-games-seed{result.config['seed']}")
        t = result.timings
        if t:
            st.caption(f"Per game: fit {t.get('fit_seconds', 0):.2f} s · sample {t.get('sample_seconds', 0):.2f} s · "
                       f"attacks {t.get('attack_seconds', 0):.2f} s (the fitted generator and its sample are cached).")
        download_result(result)
        run_tools(result)  # issue 11: audit banner, f-DP panel, pin, report


st.radio("Utility error on the trade-off plot's x axis", list(METRIC_LABELS), horizontal=True,
         format_func=METRIC_LABELS.get, key="synthetic.metric_choice",
         help="MRE>10: mean relative error of 3-way counts above 10. 3-TVD: total variation distance of 3-way "
              "marginals. Both: lower = more useful; the paper calls < 0.2 good utility.")
run_scenario(scenario, config, draw)

# ------------------------------------------------------------------ compare generators (sweeps)
st.divider()
st.subheader("Compare generators")
st.markdown("Runs the same games (same records, targets and seed) for several generators — non-private ones, then "
            "the DP ones at several ε — with the sizes above. Their points join the trade-off scatter. RAP, "
            "RAP-softmax and the neural generators (CTGAN, TVAE) take minutes per game on two cores: add them with "
            "few games.")
base = {k: v for k, v in config.items() if k not in ("seed", "generator", "epsilon")}
base["query_sweep"] = False  # only the size ladder enters the comparison
# Quick by default; RAP-style generators (2,000 optimisation steps) and the neural ones take minutes per game.
fast = [g for g in ("nonprivate", "baynet", "indhist", "privbayes") if g in GENERATORS]
c1, c2 = st.columns(2)
plain = c1.multiselect("Generators without DP", [g for g in GENERATORS if g not in DP_GENERATORS],
                       default=[g for g in fast if g not in DP_GENERATORS], key="synthetic.compare_plain")
dp = c2.multiselect("DP generators", list(DP_GENERATORS), default=[g for g in DP_GENERATORS if g in fast],
                    key="synthetic.compare_dp")
eps_grid = c2.multiselect("ε values", [1.0, 10.0, 100.0], default=[1.0, 10.0, 100.0], key="synthetic.compare_eps")
rows = []
if plain:
    out = run_sweep(scenario, base, {"generator": plain}, seed, label="Compare generators (no DP)",
                    key="synthetic-plain")
    if out:
        rows += out["rows"]
if dp and eps_grid:
    out = run_sweep(scenario, base, {"generator": dp, "epsilon": sorted(eps_grid)}, seed,
                    label="Compare DP generators over ε", key="synthetic-dp")
    if out:
        rows += out["rows"]
if rows:
    from core.scenarios.synthetic import size_ladder
    sizes = size_ladder(config["synth_size"])
    st.session_state["synthetic.compare_points"] = plots.points_from_rows(rows, sizes)
    metric = st.session_state.get("synthetic.metric_choice", "mre_gt10")
    pts = st.session_state["synthetic.compare_points"]
    figure(plots.privacy_utility(pts, metric), "synthetic-compare-tradeoff")
    front = plots.pareto_front([p for p in pts if p["accuracy"] <= 0.6], metric)
    if front:
        best = front[0]
        st.markdown(f"**Best release that keeps the attack at or below 60%:** {plots.point_name(best)} with "
                    f"m = {best['m']:,} synthetic records ({METRIC_LABELS[metric]} {best[metric]:.2f}, attack "
                    f"accuracy {best['accuracy']:.0%}).")
    else:
        st.markdown("**No compared release keeps the attack at or below 60%.**")
    left, right = st.columns(2)
    with left:
        figure(plots.accuracy_vs_size(plots.rows_size_lines(rows, sizes), "Accuracy vs synthetic size, per generator"),
               "synthetic-compare-size")
    with right:
        if any(r.get("epsilon") for r in rows):
            figure(plots.accuracy_vs_epsilon(rows, sizes), "synthetic-accuracy-vs-epsilon")
    roc_attack = next((a for a in ("recon", "dcr", "infer") if any(a in r.get("series", {}).get("roc", {})
                                                                  for r in rows)), None)
    if roc_attack:
        figure(plots.roc_per_generator(rows, roc_attack, sizes[-1]), "synthetic-compare-roc")
    table = pd.DataFrame([{"generator": r["generator"], "ε": r.get("epsilon") or "—", "accuracy": r.get("accuracy"),
                           "AUC": r.get("auc"), "MRE>10": r.get("mre_gt10"), "3-TVD": r.get("tvd3"),
                           "empirical ε ≥": r.get("empirical_epsilon_low")} for r in rows])
    st.dataframe(table, hide_index=True, width="stretch")
    download_table(table, "synthetic-compare")
