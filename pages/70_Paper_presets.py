"""Paper presets: one click per headline figure of each source paper, with the paper's number beside ours."""
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from core.errors import LabError
from core.output.inert import inert
from core.studies.presets import (compare_with_paper, is_known_bug, known_bug_verdict, link_params, load_presets,
                                  quick_look, sweep_base, sweep_table)
from core.scenario import get
from ui.widgets.page_widgets import content, download_table, page_header, show_error
from ui.results.pins import pin_button
from ui.runs.page_runs import pool_run, server_refusal
from ui.runs.sweeps import run_sweep, sweep_refusal
from ui.results.run_tools import audit_banner

ROOT = Path(__file__).resolve().parent.parent

page_header("Paper presets",
            "Each preset loads the configuration behind a headline figure of one of the source papers. Open it in "
            "its lab to see every plot, or run it here to put our number beside the paper's. Each card says in "
            "one sentence why the two may differ.")


def _page_file(slug: str) -> str | None:
    hits = sorted((ROOT / "pages").glob(f"[0-9]*_{slug}.py"))
    return f"pages/{hits[0].name}" if hits else None


def _open_in_lab(preset: dict, page: str) -> None:
    """Put the preset into the lab's widgets (this session) and into its address (shareable), then go there."""
    sc = get(preset["scenario"])
    config = sc.resolve(preset["params"])
    for name, value in config.items():
        if sc.param(name).ui:
            st.session_state[f"{sc.name}.{name}"] = value
    st.session_state[f"{sc.name}.seed"] = int(preset.get("seed", 0))
    st.switch_page(page, query_params=link_params(preset))


try:
    presets = load_presets()
except LabError as exc:
    show_error(exc)
    st.stop()

chosen = st.query_params.get("preset")
if chosen and chosen not in presets:
    st.warning(f"The link names an unknown preset {inert(chosen)}; showing all presets.")
    chosen = None
order = sorted(presets, key=lambda n: (n != chosen, not presets[n]["available"]))
results = st.session_state.setdefault("_preset_results", {})
failed = st.session_state.setdefault("_preset_failed", {})


def _run_button(where, name: str, params: dict, label: str, key: str, help: str) -> None:
    """A button in ``where`` that runs ``params`` of preset ``name`` through the worker pool, as a lab's Run
    does."""
    p = presets[name]
    if where.button(label, key=key, type="primary", help=help):
        bar = where.progress(0.0, text=f"Running {p['scenario']} with the paper's settings…")
        try:
            results[name] = pool_run(get(p["scenario"]), params, int(p.get("seed", 0)), bar).to_dict(records=False)
        except LabError as exc:
            failed[name] = exc  # shown after the rerun below, not wiped by it
        st.rerun()


def _sweep(where, name: str) -> None:
    """A comparison preset plays every point of its grid (one sweep through the worker pool), or a quick look
    at every point when the full grid is over the server's limits; the finished points as a table."""
    p = presets[name]
    sc, seed = get(p["scenario"]), int(p.get("seed", 0))
    points = 1
    for values in p["sweep"].values():
        points *= len(values)
    params, label = sweep_base(p), f"Run all {points} points here"
    if (refusal := sweep_refusal(sc, params, p["sweep"], seed)) is not None:
        quick = quick_look(p)
        if quick is None or sweep_refusal(sc, sweep_base(p, quick["params"]), p["sweep"], seed) is not None:
            where.caption(f"Too heavy for this server: {refusal}. Run it with the command below.")
            return
        where.caption(f"The full preset ({quick['full_games']:,} games per point, a 95% interval of about "
                      f"±{quick['full_half_width']:.2f} at an accuracy of {quick['accuracy']:.2f}) is too heavy for "
                      f"this server: run it with the command below. A quick look here plays {quick['games']} games "
                      f"at each of the {points} points, good to about ±{quick['half_width']:.2f} — read the "
                      "intervals before comparing the points.")
        params, label = sweep_base(p, quick["params"]), f"Quick look here ({points} points × {quick['games']} games)"
    with where:
        out = run_sweep(sc, params, p["sweep"], seed, label=label,
                        key=f"preset.sweep.{name}")
    if out is None or not out.get("rows"):
        return
    first = compare_with_paper(p, out["rows"][0])
    where.metric(f"Ours, first point (seed {seed})", "—" if first["ours"] is None else
                 f"{first['ours']:.3f}", None if first["difference"] is None else f"{first['difference']:+.3f} vs paper",
                 delta_color="off")
    table = sweep_table(p, out)
    st.dataframe(table, hide_index=True)
    done = "" if out.get("completed") else " (stopped: the finished points only)"
    st.caption(f"Every point of the grid, {len(table)} of {points}{done}: " + "; ".join(
        ", ".join(f"{k} {v}" for k, v in row.items()) for row in table))
    download_table(pd.DataFrame(table), f"preset-{name}-grid", "Every point of the grid")


def _card(name: str) -> None:
    p = presets[name]
    bug = is_known_bug(name)
    with st.container(border=True):
        st.markdown(f"#### {p['title']}")
        st.caption(f"{p['paper']} · {p['figure']}")
        if not p["available"]:
            st.info(f"Not available in this build: {p['problem']}.", icon=":material/hourglass_empty:")
            st.markdown(f"Paper: **{p['metric_label']} = {p['paper_value']:g}** — {p['paper_value_note']}")
            return
        page = _page_file(p["page"])
        left, mid, right = st.columns([2, 2, 3])
        # the label above the number wraps (a metric's own label is cut short in a narrow column)
        left.caption("Claimed ε" if bug else f"Paper: {p['metric_label']}")
        left.metric("Claimed ε" if bug else f"Paper: {p['metric_label']}", f"{p['paper_value']:g}",
                    label_visibility="collapsed")
        result = results.get(name)
        if p.get("sweep"):
            _sweep(mid, name)
        elif result is not None:
            cmp = compare_with_paper(p, result["metrics"])
            played = result["config"].get("games") or 0
            setting = f"quick look, {played} games" if played < (p["params"].get("games") or 0) else "same setting"
            mid.metric("Measured ε, 95% lower bound (seed {})".format(p.get("seed", 0)) if bug else
                       f"Ours ({setting}, seed {p.get('seed', 0)})",
                       "—" if cmp["ours"] is None else f"{cmp['ours']:.3f}",
                       None if cmp["difference"] is None else
                       f"{cmp['difference']:+.3f} vs {'the claim' if bug else 'paper'}",
                       delta_color="off")
            if cmp["sd"] is not None:  # a mean over seeds: where the paper's (one-seed) number falls
                mid.caption(f"{cmp['text']}: the paper's value is {abs(cmp['paper_z']):.1f} s.d. "
                            + ("above" if cmp["paper_z"] > 0 else "below") + " our mean.")
            if cmp["ci"] is not None:  # one seed's number is only as good as its interval
                mid.caption(f"95% CI {cmp['ci'][0]:.3f}–{cmp['ci'][1]:.3f} over {cmp['games'] or '?'} games: the "
                            "paper's value is " + ("inside it" if cmp["paper_inside"] else "outside it") + ".")
            for key, label in p.get("companions", {}).items():  # lower-variance numbers from the same games
                if result["metrics"].get(key) is not None:
                    mid.caption(f"{label}: {float(result['metrics'][key]):.3f}")
        elif (refusal := server_refusal(get(p["scenario"]), p["params"], int(p.get("seed", 0)))) is None:
            _run_button(mid, name, p["params"], "Run here", f"preset.run.{name}",
                        f"python -m core run --preset {name} (through the server's queue and limits)")
        elif (quick := quick_look(p)) and server_refusal(get(p["scenario"]), quick["params"],
                                                          int(p.get("seed", 0))) is None:
            mid.caption(f"The full preset ({quick['full_games']:,} games, a 95% interval of about "
                        f"±{quick['full_half_width']:.2f} at an accuracy of {quick['accuracy']:.2f}) is too heavy "
                        f"for this server: run it with the command below. A quick look here plays {quick['games']} "
                        f"games, good to about ±{quick['half_width']:.2f} — read its interval before comparing it "
                        "with the paper.")
            _run_button(mid, name, quick["params"], f"Quick look here ({quick['games']} games)",
                        f"preset.quick.{name}", f"python -m core run --preset {name} --set games={quick['games']}")
        else:
            mid.caption(f"Too heavy for this server: {refusal}. Run it with the command below.")
        if name in failed:
            with mid:
                show_error(failed.pop(name))
        with right:
            if bug:
                st.markdown(f"**What goes wrong:** {p['explanation']}")
                st.caption(f"{p['paper_value_note']} · reference: {p['source']}")
                if p.get("reference", "").startswith("https://"):
                    st.link_button("Reference", p["reference"])
            else:
                st.markdown(f"**Why ours may differ:** {p['explanation']}")
                st.caption(f"{p['paper_value_note']} · source: {p['source']}")
        c1, c2, c3 = st.columns([1, 1, 2])
        if bug:  # the bug is a parameter the lab pages never offer: a lab opened from here would run it correctly
            c1.caption("Runs here or on the command line only")
        else:
            if page is not None and c1.button("Open in the lab", key=f"preset.open.{name}"):
                _open_in_lab(p, page)
            query = urlencode(link_params(p))
            c2.markdown(f"[Shareable link](/{p['page']}{'?' + query if query else ''})")
        c3.code(f"python -m core run --preset {name}", language="bash")
        if result is not None:
            audit_banner(result)
            if bug:
                verdict = known_bug_verdict(p, result)
                expected = "should flag it" if verdict["expected"] else "should not flag it"
                (st.success if verdict["ok"] else st.error)(
                    f"The audit {'flagged' if verdict['flagged'] else 'did not flag'} this release; it {expected}.")
            pin_button(result)


papers = [n for n in order if not is_known_bug(n)]
gallery = [n for n in order if is_known_bug(n)]
for name in papers:
    _card(name)
if gallery:
    st.header("Gallery of broken releases", anchor="gallery-of-broken-releases")
    st.markdown(content("presets_gallery"))
    for name in gallery:
        _card(name)
