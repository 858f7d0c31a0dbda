"""Per-run decision tools on the lab pages: the audit banner, the f-DP panel, pinning, the report downloads."""
from __future__ import annotations

import json

import streamlit as st

from core.measure.audit import audit_result
from core.output import plain_language as say
from core.runtime.games import Result
from core.plots import fdp as fdp_plots
from core.output.report import command_line, html_report, public_config, register_summary_hook
from core.studies.choosing_epsilon.epsilon_context import report_lines
from ui.widgets.page_widgets import chart
from ui.results.pins import pin_button, pin_id

register_summary_hook(report_lines)  # every report's summary: the claimed ε in odds, and the nearest deployments


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name).strip("_") or "run"


# The gallery of broken releases (Paper presets): every lab's measured-ε flag links to it.
GALLERY_LINK = "/Paper_presets#gallery-of-broken-releases"


def audit_banner(result: Result | dict) -> None:
    """A red banner when the measured ε lower bound exceeds the release's claim; a quiet caption otherwise."""
    v = audit_result(result)
    if v.broken:
        st.error(f"**Privacy claim violated.** {v.message}. Check the noise calibration and the privacy "
                 "accounting before releasing.", icon=":material/gpp_bad:")
    elif v.status in ("consistent", "no-claim"):
        st.caption(f"Measured privacy: {v.message}.")
    if v.status in ("violation", "consistent", "no-claim"):
        claimed = (f"the claim ({say.odds_short(v.claimed_epsilon, v.claimed_delta)})"
                   if v.claimed_epsilon is not None else "no claim")
        measured = say.odds_short(v.empirical_epsilon_low) if v.empirical_epsilon_low else "ε ≥ 0: nothing shown"
        st.caption(f"In plain words: {claimed}; the measurement shows the release is no safer than "
                   f"{measured}. [How the bound is computed]({say.GLOSSARY_PAGE}#empirical-epsilon): the attack "
                   "and its threshold are chosen on half the games and ε is bounded on the other half, so a "
                   "correct release raises a false alarm at most 5% of the time. "
                   f"[Known bugs this audit catches, each beside its fixed twin]({GALLERY_LINK}).")


def fdp_panel(result: Result | dict, key: str = "") -> None:
    """The mechanism's trade-off curve with the strongest measured ROC inside (nothing if the run has no ROC)."""
    fig = fdp_plots.tradeoff_figure(result)
    if fig is None:
        return
    with st.expander("Privacy guarantee as a trade-off curve (f-DP) vs the measured ROC", expanded=False):
        st.markdown("An (ε, δ)-DP release forces every attack's ROC curve below the black curve "
                    "(TPR ≤ 1 − f(FPR), [f-DP](/Glossary#f-dp)); the shaded area is everything the claim allows. "
                    "A measured curve that crosses it means the release leaks more than its ε.")
        log = st.toggle("Log axes (low false-positive rates)", key=f"fdp-log-{key or pin_id(result)}")
        chart(fdp_plots.tradeoff_figure(result, log=log) if log else fig, f"fdp-{key or pin_id(result)}")


def report_downloads(results: list[Result | dict], name: str, figures: list | None = None,
                     key: str = "") -> None:
    """HTML report (offline, interactive figures) and, for one run, the rerunnable JSON configuration."""
    slug = _slug(name)
    cols = st.columns(2)
    cols[0].download_button("⬇ Report (HTML, works offline)", data=lambda: html_report(results, figures),
                            file_name=f"{slug}-report.html", mime="text/html", key=f"dl-report-{slug}{key}")
    if len(results) == 1:
        cols[1].download_button("⬇ Configuration to rerun (JSON)",
                                data=lambda: json.dumps(public_config(results[0]), indent=1),
                                file_name=f"{slug}-config.json", mime="application/json",
                                key=f"dl-config-{slug}{key}",
                                help="python -m core run --config FILE reruns it with the same seed")
    else:
        cols[1].download_button("⬇ Configurations to rerun (JSON)",
                                data=lambda: json.dumps([public_config(r) for r in results], indent=1),
                                file_name=f"{slug}-configs.json", mime="application/json",
                                key=f"dl-config-{slug}{key}")


def run_tools(result: Result | None) -> None:
    """Everything drawn under a finished run, in one call: audit banner, f-DP panel, Pin this run, HTML report."""
    if result is None:
        return
    from ui.results.exposure_panel import exposure_panel

    exposure_panel(result)
    st.divider()
    audit_banner(result)
    fdp_panel(result)
    pin_button(result)
    name = f"{result.scenario}-seed{result.config.get('seed', 0)}"
    report_downloads([result], name)
    st.caption("Rerun from a terminal: `" + command_line(result) + "`")
