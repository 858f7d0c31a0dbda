"""Compare pinned runs side by side: configuration diff, headline metrics, ROC curves and the privacy–utility trade-off."""
import json

import pandas as pd
import streamlit as st

from core.measure.audit import audit_result
from core.measure.compare import comparison_table, config_diff, difference_labels, ranking_verdict
from core.errors import LabError, ParameterError
from core.output.inert import inert, inert_text
from core.plots import fdp as plots
from core.output.report import non_default_params
from core.scenario import all_scenarios
from core.studies.link_rules import UPLOADED, from_link, is_file_param, linkable
from ui.widgets.page_widgets import figure, page_header
from ui.results.pins import (MAX_PINS, PINNABLE_LABS, add_pin, clear_pins, decode_pins, encode_pins, pinned, remove_pin,
                     restore_from_link, upload_hash)
from ui.widgets.uploads import held_file
from ui.results.exposure_panel import tier_changes_panel
from ui.results.run_tools import report_downloads
from ui.runs.page_runs import pool_run

page_header("Compare runs",
            f"Pin up to {MAX_PINS} runs on any lab page (*Pin this run* under the plots) and weigh them here: what "
            "changed between them, how far each attack got, and which settings buy the most privacy for the least "
            "loss of utility.")


restore_from_link()  # a reload or a new tab: the address names the pins, the shared store holds their results
pins = pinned()
scenarios = all_scenarios()


def _identity(scenario: str, params: dict, seed: int) -> str:
    """What makes two runs the same for a link: scenario, the parameters a page can set, seed."""
    sc = scenarios.get(scenario)
    if sc is None:
        return json.dumps([scenario, params, seed], sort_keys=True, default=str)
    try:
        params = sc.resolve(params)
    except LabError:
        pass
    return json.dumps([scenario, {k: v for k, v in params.items() if linkable(sc, k)}, seed], sort_keys=True,
                      default=str)


# what went wrong in the last rerun of linked runs: kept across the page's st.rerun(), shown once
for problem in st.session_state.pop("compare.problems", []):
    st.error(problem, icon=":material/warning:")

# ---- a shared link carries the pinned configurations (?pins=…); restore them in a fresh session
token = st.query_params.get("pins")
if token:
    try:
        linked = decode_pins(token)
    except ValueError:
        st.warning("The link's list of runs is damaged; showing this session's pins instead.")
        linked = []
    runs, refused, held = [], [], {}  # held: run → {file parameter: this session's file with the link's hash}
    for c in linked:
        try:
            runs.append(from_link(c["scenario"], c["params"], c["seed"]))
            # a run on an upload reruns on the same file (by content hash) when this session holds it again
            files = {n: held_file(h) for n in runs[-1].uploads if (h := upload_hash(c["params"], n))}
            if runs[-1].needs_upload and len(files) == len(runs[-1].uploads) and all(files.values()):
                held[id(runs[-1])] = files
        except ParameterError as exc:
            refused.append(f"**{inert_text(exc.param, 60)}**: {inert_text(exc.message, 300)}")
    have = {_identity(p["scenario"], {k: v for k, v in p["config"].items() if k != "seed"},
                      p["config"].get("seed", 0)) for p in pins}
    missing = [r for r in runs if _identity(r.scenario, r.params, r.seed) not in have]
    if missing or refused:
        if missing:
            st.info(f"This link holds {len(linked)} pinned run(s); {len(missing)} are not in this browser session. "
                    "Their configurations are below; rerun them (same seeds, same numbers) to compare. A link "
                    "carries only what a lab page's controls can set.")
        for r in missing:
            changed = non_default_params(r.scenario, r.params)
            line = (f"- **{scenarios[r.scenario].title}**, seed {r.seed}: "
                    + (", ".join(inert(f"{k}={v}") for k, v in changed.items()) or "default parameters"))
            if r.dropped:
                line += ("; dropped from the link, as no lab page sets them: "
                         + ", ".join(inert(name, 40) for name in r.dropped))
            if r.needs_upload and id(r) in held:
                line += "; it ran on an uploaded file that this session holds again (same content): it can rerun"
            elif r.needs_upload:
                line += ("; it ran on an uploaded file, which a link does not carry: upload the file again on the "
                         "lab page (the same content), and it can rerun here")
            st.markdown(line)
        for text in refused:
            st.warning(f"A linked run was left out: {text}", icon=":material/block:")
        rerunnable = [r for r in missing if not r.needs_upload or id(r) in held]
        if rerunnable and st.button(f"Rerun the {len(rerunnable)} linked run(s)", type="primary",
                                    key="compare.restore",
                                    help="Each run goes through the server's queue and limits, like a lab's Run"):
            bar = st.progress(0.0, text="rerunning…")
            problems = []
            for i, r in enumerate(rerunnable):
                bar.progress(i / len(rerunnable), text=f"{i + 1}/{len(rerunnable)}: {scenarios[r.scenario].title}")
                try:
                    add_pin(pool_run(scenarios[r.scenario], {**r.params, **held.get(id(r), {})}, r.seed, bar))
                except LabError as exc:
                    what = f"{scenarios[r.scenario].title}, seed {r.seed}"
                    message = exc.message if isinstance(exc, ParameterError) else str(exc)
                    problems.append(f"Rerun of the linked run {inert_text(what)} failed: {inert_text(message)}")
            bar.progress(1.0, text="done")
            st.session_state["compare.problems"] = problems
            st.rerun()

if not pins:
    st.info("No runs pinned yet. Open a lab, run it, and press **Pin this run** under its plots; pins stay while "
            "you move between pages.")
    for path, label in PINNABLE_LABS:
        st.page_link(path, label=label, icon=":material/science:")
    st.page_link("pages/70_Paper_presets.py", label="…or start from a paper preset", icon=":material/menu_book:")
    st.stop()

st.query_params["pins"] = encode_pins(pins)  # the address bar now reproduces this comparison
labels = difference_labels(pins)  # told apart by what differs (e.g. the generator)
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
sentence = ranking_verdict(pins, [inert_text(lab) for lab in labels])  # names only the differences the runs' 95% intervals support
if sentence:
    st.markdown(sentence)

st.subheader("Headline metrics")
st.dataframe(table.set_index("run").T.map(_cell), width="stretch")

st.subheader("What differs between the runs")
# an upload's server path is never shown: the table says which runs used an uploaded file
diff = config_diff([{k: UPLOADED if v and p["scenario"] in scenarios and is_file_param(scenarios[p["scenario"]], k)
                     else v for k, v in p["config"].items()} for p in pins])
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
