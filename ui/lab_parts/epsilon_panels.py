"""ε in context on the ε explorer: the odds in plain words with an icon array and a movable prior, real deployments
on the ε axis, and the accuracy-first picker ("counts within ±E for 95% of queries" → the ε needed)."""
from __future__ import annotations

import streamlit as st

from core.errors import LabError
from core.output import plain_language as say
from core.plots import epsilon as plots
from core.plots.deployments import deployment_summary
from core.studies.choosing_epsilon import table_epsilon as table_decision
from core.studies.choosing_epsilon.deployment_registry import load_registry, ticks
from core.theory import odds
from ui.widgets.page_widgets import content, download_table, figure, number_field, plain, show_error


@st.cache_data(show_spinner=False, max_entries=4)
def _ticks() -> list[dict]:
    return ticks()


def plain_words(epsilon: float, delta: float) -> None:
    """The odds sentence, an icon array of 100 people at a prior the user moves, and the belief-vs-ε chart with
    real deployments as ticks (hover: organisation, product, unit, period, source)."""
    st.divider()
    st.subheader("This ε in plain words")
    prior_pct = st.slider("The attacker's belief before the release that a given person is in the data (%)",
                          1, 99, 50, key="eps.prior", bind="query-params",
                          help="50% = the attacker has no idea. Move it to see how far one release can move a "
                               "stronger or weaker suspicion.")
    prior = prior_pct / 100
    try:
        post = odds.posterior_bound(epsilon, prior, delta)
        curve = odds.belief_curve(prior, delta, chosen=epsilon)
        deployments = _ticks()
    except LabError as exc:
        show_error(exc)
        return
    plain(say.odds_sentence(epsilon, delta, prior))
    left, right = st.columns([1, 1])
    with left:
        figure(plots.icon_array_figure(prior, post), "epsilon-icon-array", downloads=False,
               label="icon array of 100 people")
        st.caption(f"Text alternative: of 100 people like this one, the attacker starts out thinking about "
                   f"{round(100 * prior)} are in the data and can end up, at most, at {round(100 * post)} in 100. "
                   "Filled circles: counted as in the data; open circles: not.")
    with right:
        figure(plots.belief_vs_epsilon_figure(curve, deployments), "epsilon-belief-deployments",
               label="belief bound vs ε with real deployments")
        st.caption("Text alternative: the curve rises from the prior at small ε towards certainty at large ε. "
                   + deployment_summary(deployments, epsilon) + " Hover a tick for the organisation, product, "
                   "unit of privacy, period and source; grey ticks protect something smaller than a whole "
                   "person (one day, one event), so their ε is not comparable one-for-one.")
    with st.expander(f"All {len(deployments)} real deployments in the registry (sources one click away)"):
        import pandas as pd

        table = pd.DataFrame([{k: r[k] for k in ("organisation", "product", "year", "epsilon", "delta", "rho",
                                                  "unit", "model", "period", "source")} for r in load_registry()])
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={"source": st.column_config.LinkColumn("source"),
                                    "epsilon": st.column_config.NumberColumn("ε", format="%.3g"),
                                    "delta": st.column_config.NumberColumn("δ", format="%.0e"),
                                    "rho": st.column_config.NumberColumn("ρ (zCDP)", format="%.4g")})
        download_table(table, "epsilon-registry", label="registry")
        st.markdown(content("epsilon_registry"))


def accuracy_first(delta: float) -> None:
    """"I need counts within ±E for a share q of queries of sensitivity Δ" → ε (Laplace and Gaussian), what an
    attacker gains at that ε, the equivalent sample, and the ladder's measured attack when one was run."""
    st.divider()
    st.subheader("Accuracy first: the ε your accuracy needs")
    st.markdown(content("epsilon_explorer", "accuracy"))
    c1, c2, c3, c4 = st.columns(4)
    error = number_field(c1, "Counts within ± E", key="eps.acc.error", kind="float", default=10.0, low=0.01,
                         high=1e6, step=1.0, bind="query-params")
    share = c2.select_slider("for this share of queries", options=[0.8, 0.9, 0.95, 0.99, 0.999], value=0.95,
                             format_func=lambda q: f"{q:.1%}".replace(".0%", "%"), key="eps.acc.share",
                             bind="query-params")
    sens = number_field(c3, "Sensitivity Δ (one person changes a count by)", key="eps.acc.sens", kind="float",
                        default=1.0, low=0.01, high=1000.0, step=1.0, bind="query-params")
    typical = number_field(c4, "A typical count (for the sample comparison)", key="eps.acc.count", kind="int",
                           default=500, low=1, high=10_000_000, step=100, bind="query-params")
    cells = int(number_field(st, "Counts one person is in (k): a person's ε adds up over them", key="eps.acc.k",
                             kind="int", default=1, low=1, high=10_000, step=1, bind="query-params",
                             help="One person's record in k published counts spends the ε of each: ε per person "
                                  "= k × ε per count (the census tables of Aggregate statistics: k = 11)"))
    gdelta = delta if delta > 0 else 1e-5
    try:
        eps_lap = odds.epsilon_for_accuracy(error, share, sens, "laplace")
        eps_gau = odds.epsilon_for_accuracy(error, share, sens, "gaussian", gdelta)
        frac = odds.equivalent_sample_fraction([typical], odds.noise_mae(eps_lap, sens))
    except LabError as exc:
        show_error(exc)
        return
    m0, m1, m2, m3 = st.columns(4)  # per person first, per count beside it
    m0.metric("ε per person, Laplace noise", f"{cells * eps_lap:.3g}", help=f"{cells} × the ε per count")
    m1.metric("ε per count, Laplace noise", f"{eps_lap:.3g}")
    m2.metric(f"ε per count, Gaussian noise (δ = {gdelta:g})", f"{eps_gau:.3g}")
    m3.metric("Attacker's certainty at that ε per person", f"≤ {say.pct(odds.posterior_bound(cells * eps_lap))}",
              help="From 50/50 before the release, at the Laplace ε per person")
    first = (say.accuracy_first_sentence(error, share, sens, eps_lap, eps_gau, gdelta) if cells == 1 else
             table_decision.accuracy_first_sentence(error, share, sens, eps_lap, cells))
    plain(first + " "
          + say.equivalent_sample_sentence(frac).replace("the data", f"counts around {typical:,}"))
    st.caption("Laplace: ε = Δ·ln(1/(1 − q))/E. Gaussian: σ = E/Φ⁻¹((1 + q)/2), then the analytic-Gaussian ε of σ "
               "at δ. Equivalent sample: a Bernoulli sample of fraction r scaled by 1/r errs on a count c by about "
               "√(2/π)·√(c(1 − r)/r) on average; r is chosen so this equals the noise's mean absolute error (Δ/ε "
               "for Laplace): r = 1/(1 + (MAE/S)²) with S = √(2/π)·√c.")
    measured = st.session_state.get("ladder.last")
    if measured and measured.get("rows"):
        rows = [r for r in measured["rows"] if r.get("attack") is not None]
        if rows:
            def person(r):  # compare like units: the rung's ε per person where the lab knows it
                return r.get("epsilon_per_person") or r.get("per_person_epsilon") or r["epsilon"]

            near = min(rows, key=lambda r: abs(person(r) - cells * eps_lap))
            st.markdown(f"**Measured:** the ε ladder you ran ({measured['scenario']}) reached "
                        f"{measured['attack_label']} **{near['attack']:.3f}** at ε = {person(near):.3g} per person "
                        f"({near['epsilon']:g} per unit), the rung nearest to {cells * eps_lap:.3g} per person.")
    else:
        st.caption("Run the ε ladder below to see what a real attack reaches near this ε.")
