"""The "Who is exposed" panel under a lab's headline plots: per-record tiers, score distribution, a sortable top-k
table, a record card on selection and the CSV download. All numbers come from the run's ``exposure`` table."""
from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from core.data.file_rows import in_file
from core.measure.records import (
    TIERS,
    RecordTable,
    counterfactual,
    dp_comparisons,
    guess_prior,
    plural,
    to_frame,
    top_frame,
)
from core.output import claims
from core.output.inert import inert, inert_text, shorten
from core.plots.records import group_chart, score_histogram, score_summary
from ui.widgets.page_widgets import chart, content, download_table

TOP_K = 50


def _default_epsilon(result) -> float:
    metrics = result.metrics if hasattr(result, "metrics") else result.get("metrics", {})
    for key in ("release_epsilon", "claimed_epsilon"):
        value = metrics.get(key)
        if isinstance(value, (int, float)) and math.isfinite(value) and 0 < value <= 20:
            return float(value)
    config = result.config if hasattr(result, "config") else result.get("config", {})
    value = config.get("epsilon")
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) and 0 < value <= 20 else 1.0


def exposure_panel(result, key: str = "") -> None:
    """Draw the panel for a finished run (nothing for runs without a per-record table)."""
    data = result.exposure if hasattr(result, "exposure") else (result or {}).get("exposure")
    table = RecordTable.from_dict(data)
    if table is None or not len(table):
        return
    slug = f"{getattr(result, 'scenario', 'run')}{key}"
    st.subheader("Who is exposed", anchor=False)
    st.markdown(content("records"))
    counts = table.tier_counts
    row = st.container(horizontal=True, wrap=True, gap="large")
    for tier in TIERS:
        share = counts.get(tier, 0) / max(1, table.total)
        row.metric(f"{tier.capitalize()} {plural(table.unit)}", f"{counts.get(tier, 0):,}",
                   help=f"{100 * share:.1f}% of {table.total:,} {plural(table.unit)}", width="content")
    st.caption(inert_text(table.certification.get("why", "")))
    st.caption(inert_text(table.calibration.get("sentence", "")))
    for note in table.notes:
        st.caption(inert_text(note))
    with st.expander("What the tiers mean", expanded=False):
        for tier in TIERS:
            st.markdown(content("records", tier))
    if table.groups:
        _groups_view(table.groups, slug)
    chart(score_histogram(data), f"exposure-hist-{slug}")
    st.caption(score_summary(data))
    df = to_frame(table)  # columns as lists: ~10 ms for 10⁴ rows (hashing them for a cache costs more)
    top = top_frame(df, TOP_K)
    st.markdown(f"**{claims.exposure_heading(table.tier_counts, len(top), plural(table.unit))}** (click a column "
                "to sort, a row for its card)")
    event = st.dataframe(top, hide_index=True, on_select="rerun", selection_mode="single-row",
                         key=f"exposure-top-{slug}", width="stretch",
                         column_config={"score": st.column_config.NumberColumn(format="%.4f"),
                                        "reason": st.column_config.TextColumn(width="large")})
    rows = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    record = top.iloc[rows[0]] if rows else top.iloc[0]
    _record_card(record, table, df, _default_epsilon(result), slug, _compared(record, result),
                 _offers_dp(result))
    download_table(df, f"who-is-exposed-{slug}", label=f"Who is exposed ({len(df):,} {plural(table.unit)})")


def _compared(record: pd.Series, result) -> list[dict]:
    """The record in every DP release at hand: this run if it is one, and the pinned runs of the same lab."""
    from core.measure.compare import difference_labels
    from ui.results.pins import pinned, restore_from_link

    restore_from_link()  # pins a link carries are taken back before the card reads them (once per link)
    pins = list(pinned())
    return dp_comparisons(record, result, pins, difference_labels(pins) if pins else [])


def _offers_dp(result) -> bool:
    """Whether the lab can play a differentially private release (an ε, or a defence with Gaussian noise)."""
    from core.errors import ParameterError
    from core.scenario import get

    try:
        sc = get(getattr(result, "scenario", None) or (result or {}).get("scenario", ""))
    except ParameterError:  # a pseudo-run (the lecture's views) is no registered lab: no DP to offer
        return False
    return any(p.name == "epsilon" or (p.name == "defense" and "gaussian" in (p.choices or ())) for p in sc.params)


def _groups_view(groups: dict, slug: str) -> None:
    """The scenario's roll-up per group (e.g. per attacked user): what it means, the verdict, a chart of the
    attack's AUC per group with its interval, and the table with its download."""
    unit = groups.get("unit", "group")
    st.markdown(f"#### Per {unit}")
    try:
        st.markdown(content(*groups.get("content", ())))
    except (KeyError, TypeError, FileNotFoundError):
        pass  # a table without its explanation still shows its numbers
    for sentence in groups.get("sentences", []):
        st.markdown(inert_text(sentence))
    chart(group_chart(groups), f"exposure-groups-{slug}")
    df = pd.DataFrame(groups["columns"])
    numbers = {c: st.column_config.NumberColumn(format="%.3f") for c in df.columns
               if pd.api.types.is_float_dtype(df[c])}
    st.dataframe(df, hide_index=True, width="stretch", column_config=numbers, key=f"exposure-groups-table-{slug}")
    download_table(df, f"who-is-exposed-per-{unit}-{slug}", label=f"Per {unit} ({len(df):,} {plural(unit)})")


def _record_card(record: pd.Series, table: RecordTable, df: pd.DataFrame, epsilon: float, slug: str,
                 compared: list[dict] | None = None, offers_dp: bool = False) -> None:
    with st.container(border=True):
        st.markdown(f"**Record card — {table.unit}** {inert(record['id'])}")
        # a value the game drew stands beside the person's own, marked "(your file)": not something the attacker knows
        own = {c: record[c] for c in table.known if c.endswith(in_file(""))}
        known = {c: record[c] for c in table.known if c not in own}
        if known:
            st.markdown("What the attacker knows:")
            st.dataframe(pd.DataFrame([known]), hide_index=True)
        if own:
            st.caption("In your file: " + "; ".join(f"{inert_text(c[:-len(in_file(''))])} = {inert_text(v)}"
                                                     for c, v in own.items()))
        k = record.get("k") if "k" in record.index else None
        cols = st.columns(4)
        # a metric's value is plain text (only its label renders Markdown): shortened, never interpreted
        cols[0].metric("Truth", shorten(str(record["secret"])))
        cols[1].metric("Guess", f"{shorten(str(record['guess']))} ({'right' if record['correct'] else 'wrong'})")
        cols[2].metric("Score", f"{record['score']:.4g}")
        cols[3].metric("Sharing the known attributes (k)", "—" if k is None or pd.isna(k) else f"{int(k):,}")
        st.markdown(f"Tier: **{record['tier']}** — {inert_text(record['reason'])}")
        eps = st.number_input("ε of a differentially private release to compare with", min_value=0.01,
                              max_value=20.0, value=float(epsilon), step=0.1, key=f"exposure-eps-{slug}",
                              help="Defaults to the run's own ε where it has one")
        prior = guess_prior(table, record["guess"])
        if table.baseline is not None:  # guesses such as names, not values the secrets take
            prior_words = f"a blind guess is right {100 * prior:.2g}% of the time"
        else:
            prior_words = (f"a guess of {inert(record['guess'])} is right for {100 * prior:.1f}% of these "
                           f"{plural(table.unit)} with no release at all")
        bound = counterfactual(eps, 0.0, prior)
        st.markdown(f"Under a DP release at ε = {eps:g} this record's best attack is bounded by "
                    f"**{100 * bound:.3g}%** chance of being right ({prior_words}).")
        if compared:
            st.markdown("**Measured where the release is differentially private**")
            for c in compared:
                st.markdown(_measured_sentence(c))
            with st.expander("How to read the bound beside what was measured"):
                st.markdown(content("records", "counterfactual"))
        elif offers_dp:
            st.caption("Pin a run of this lab that releases with differential privacy (an ε) and this card shows "
                       "what the attack measured for this record there, beside the bound at that ε.")


def _measured_sentence(c: dict) -> str:
    """One comparison of :func:`core.measure.records.dp_comparisons` as a sentence (values from the tables are
    a stranger's text: shown inert)."""
    delta = f", δ = {c['delta']:.2g}" if c["delta"] else ""
    where = ("In this run" if c["this_run"] else f"In your pinned run {inert_text(c['run'])}")
    rate = ("" if c["hit_rate"] is None else
            f" Over that run, its guesses of {inert(c['guess'])} were right {100 * c['hit_rate']:.1f}% of "
            f"{c['hit_n']:,} times (95% lower bound {100 * c['hit_low']:.1f}%; a lower bound above the ceiling "
            "would mean the release breaks its promise).")
    if c.get("games", 1) > 1:
        where += f" (its highest-scoring of {c['games']} games)"
    bound = (f"at that ε no attack is right about it with more than **{100 * c['bound']:.3g}%** chance"
             if c["bound"] < 0.995 else "at that ε the guarantee no longer limits an attack on it (bound ≈ 100%)")
    return (f"{where}, a DP release at ε = {c['epsilon']:.3g}{delta} per person, this record's tier is "
            f"**{c['tier']}**: guess {inert(c['guess'])} ({'right' if c['correct'] else 'wrong'}), score "
            f"{c['score']:.3g}; {bound}.{rate}")


def tier_changes_panel(pins: list[dict], labels: list[str]) -> None:
    """Compare runs: which records changed tier between two pinned runs of the same scenario (records matched by
    id: same seed and size give the same people, so e.g. a defence's effect shows person by person)."""
    from core.measure.records import tier_changes

    have = [i for i, p in enumerate(pins) if p.get("exposure")]
    if len(have) < 2:
        return
    st.subheader("Who changed tier")
    c1, c2 = st.columns(2)
    a = c1.selectbox("Before", have, format_func=lambda i: labels[i], index=0, key="compare.tiers.a")
    b = c2.selectbox("After", have, format_func=lambda i: labels[i], index=1, key="compare.tiers.b")
    if a == b:
        st.caption("Choose two different runs.")
        return
    if pins[a]["scenario"] != pins[b]["scenario"]:
        st.caption("The two runs play different games, so their records are different people: choose two runs of "
                   "the same lab.")
        return
    ta, tb = pins[a]["exposure"], pins[b]["exposure"]
    shared = len(set(map(str, ta["columns"]["id"])) & set(map(str, tb["columns"]["id"])))
    changes = tier_changes(ta, tb)
    if not shared:
        st.caption("No record ids in common (different seeds or sizes draw different people).")
        return
    st.markdown(f"**{len(changes):,} of {shared:,}** records present in both runs changed tier.")
    if changes:
        df = pd.DataFrame(changes)
        moves = df.groupby(["before", "after"]).size().reset_index(name="records")
        st.dataframe(moves, hide_index=True)
        st.dataframe(df.head(200), hide_index=True, width="stretch")
        download_table(df, "tier-changes", label="Records that changed tier")
