"""Compare pinned runs side by side: configuration diff, headline metrics, ROC curves and the privacy–utility trade-off."""
import json

import pandas as pd
import streamlit as st

from core.measure.audit import audit_result
from core.measure.compare import comparison_table, config_diff, run_label
from core.errors import LabError
from core.runtime.games import run
from core.plots import fdp as plots
from core.output.report import non_default_params
from core.scenario import all_scenarios
from ui.common import figure, page_header, show_error
from ui.pins import MAX_PINS, PINNABLE_LABS, add_pin, clear_pins, decode_pins, encode_pins, pinned, remove_pin
from ui.records import tier_changes_panel
from ui.report import report_downloads

page_header("Compare runs",
            f"Pin up to {MAX_PINS} runs on any lab page (*Pin this run* under the plots) and weigh them here: what "
            "changed between them, how far each attack got, and which settings buy the most privacy for the least "
            "loss of utility.")


@st.cache_data(max_entries=32, show_spinner=False)
def _rerun(scenario: str, params_json: str, seed: int) -> dict:
    return run(scenario, json.loads(params_json), seed=seed).to_dict(records=False)


pins = pinned()

# ---- a shared link carries the pinned configurations (?pins=…); restore them in a fresh session
token = st.query_params.get("pins")
if token:
    try:
        linked = decode_pins(token)
    except (ValueError, TypeError):
        st.warning("The link's list of runs is damaged; showing this session's pins instead.")
        linked = []
    have = {json.dumps([p["scenario"], {k: v for k, v in p["config"].items() if k != "seed"},
                        p["config"].get("seed", 0)], sort_keys=True) for p in pins}
    missing = [c for c in linked if json.dumps([c["scenario"], c["params"], c["seed"]], sort_keys=True) not in have]
    if missing:
        known = all_scenarios()
        st.info(f"This link holds {len(linked)} pinned run(s); {len(missing)} are not in this browser session. "
                "Their configurations are below; rerun them (same seeds, same numbers) to compare.")
        for c in missing:
            changed = (non_default_params(c["scenario"], c["params"]) if c["scenario"] in known
                       else c["params"])
            st.markdown(f"- **{c['scenario']}**, seed {c['seed']}: "
                        + (", ".join(f"`{k}={v}`" for k, v in changed.items()) or "default parameters"))
        if st.button(f"Rerun the {len(missing)} linked run(s)", type="primary", key="compare.restore"):
            bar = st.progress(0.0, text="rerunning…")
            for i, c in enumerate(missing):
                if c["scenario"] not in known:
                    st.warning(f"Skipped a {c['scenario']!r} run: that scenario is not part of this build.")
                    continue
                bar.progress(i / len(missing), text=f"{i + 1}/{len(missing)}: {c['scenario']}")
                try:
                    add_pin(_rerun(c["scenario"], json.dumps(c["params"], sort_keys=True), c["seed"]))
                except LabError as exc:
                    show_error(exc)
            bar.progress(1.0, text="done")
            st.rerun()

if not pins:
    st.info("No runs pinned yet. Open a lab, run it, and press **Pin this run** under its plots; pins stay while "
            "you move between pages.")
    for path, label in PINNABLE_LABS:
        st.page_link(path, label=label, icon=":material/science:")
    st.page_link("pages/70_Paper_presets.py", label="…or start from a paper preset", icon=":material/menu_book:")
    st.stop()

st.query_params["pins"] = encode_pins(pins)  # the address bar now reproduces this comparison
labels = [run_label(p, i + 1) for i, p in enumerate(pins)]
short = [plots.short_label(p, i + 1) for i, p in enumerate(pins)]


def _cell(v):
    if v is None or (isinstance(v, float) and v != v):
        return "—"
    return f"{v:.4g}" if isinstance(v, float) else str(v)


# ---- the pins, with remove buttons
st.subheader(f"Pinned runs ({len(pins)} of {MAX_PINS})")
for label, p in zip(labels, pins):
    c1, c2 = st.columns([6, 1])
    verdict = audit_result(p)
    flag = " · :red[**leaks more than its ε allows**]" if verdict.broken else ""
    c1.markdown(f"**{label}**{flag}")
    c2.button("Remove", key=f"compare.remove.{p['pin_id']}", on_click=remove_pin, args=(p["pin_id"],))
st.button("Remove all", key="compare.clear", on_click=clear_pins)

for label, p in zip(labels, pins):
    v = audit_result(p)
    if v.broken:
        st.error(f"**{label}**: {v.message}", icon=":material/gpp_bad:")

# ---- what the stakeholder reads first
table = pd.DataFrame(comparison_table(pins, short))
best = table.dropna(subset=["attack"]) if "attack" in table else table.iloc[0:0]
if len(best):
    low = best.loc[best["attack"].idxmin()]
    st.markdown(f"Of the pinned runs, **{labels[short.index(low['run'])]}** leaks least: its attack reaches {low['attack metric']} "
                f"**{low['attack']:.3f}**" + (f" at a utility error of {low['utility error']:.3g} "
                                              f"({low['utility error metric']})" if pd.notna(low["utility error"])
                                              else "") + ".")

st.subheader("Headline metrics")
st.dataframe(table.set_index("run").T.map(_cell), width="stretch")

st.subheader("What differs between the runs")
diff = config_diff([p["config"] for p in pins])
changed = [d for d in diff if d["differs"]]
if changed:
    st.dataframe(pd.DataFrame([{"parameter": d["param"], **{lab: _cell(v) for lab, v in zip(short, d["values"])}}
                               for d in changed]), hide_index=True, width="stretch")
else:
    st.caption("The pinned runs have identical configurations.")
with st.expander("Full configurations"):
    st.dataframe(pd.DataFrame([{"parameter": d["param"], **{lab: _cell(v) for lab, v in zip(short, d["values"])}}
                               for d in diff]), hide_index=True, width="stretch")

figs = []
left, right = st.columns(2)
with left:
    roc = plots.roc_overlay(pins, short)
    if len(roc.data) > 1:
        figure(roc, "compare-roc")
        figs.append(roc)
    else:
        st.caption("None of the pinned runs has a ROC curve (reconstruction scores bits, not a threshold test).")
with right:
    y = st.radio("Leakage axis", ["attack metric", "empirical ε (95% lower bound)"], horizontal=True,
                 key="compare.y")
    scatter = plots.privacy_utility_scatter(pins, short, y="attack" if y == "attack metric" else "epsilon")
    figure(scatter, "compare-privacy-utility")
    figs.append(scatter)
    st.caption("x: the utility error each scenario reports (noise scale per count, answer RMSE, MRE>10, "
               "1 − model accuracy…; the legend names each run's pair); y: how far its strongest attack got. ★ marks runs no other pinned run beats "
               "on both axes. Runs from different scenarios share the axes but measure different things.")

tier_changes_panel(pins, labels)

st.subheader("Hand it on")
report_downloads(pins, "comparison", figures=figs + [f for f in (plots.tradeoff_figure(p) for p in pins) if f],
                 key="-compare")
st.caption("The HTML report embeds plotly.js (it opens offline) and lists every run's configuration, seed, package "
           "versions, claims vs measurements and the command that reruns it. This page's address holds the pinned "
           "configurations: share it and the receiver can rerun the same comparison.")
