"""Decision game: decide on true and DP counts shuffled together, and see at which ε your decisions stop changing."""

import pandas as pd
import streamlit as st

from core.errors import LabError
from core.output import plain_language as say
from core.plots.epsilon import decision_figure
from core.studies.choosing_epsilon import decision_game as game
from ui.widgets.page_widgets import content, download_table, figure, number_field, page_header, plain, show_error

page_header("Decision game: does the noise change your decisions?",
            "State a rule you would act on, decide on each region's count — shown twice, once true and once from "
            "a differentially private release, shuffled — and see how often your decisions flip at each ε, beside "
            "what an attacker gains at the same ε.",
            "After the PATCG differential-privacy game; closed form for a threshold rule")
st.markdown(content("epsilon_explorer", "decision"))

sb = st.sidebar
sb.header("Your rule")
threshold = number_field(sb, "Fund a region if its count exceeds T =", key="dg.threshold", kind="int", default=100,
                         low=1, high=1_000_000, step=10)
k = sb.slider("Regions per round", 2, 12, 6, key="dg.k")
spread = number_field(sb, "True counts lie within ± of T", key="dg.spread", kind="int", default=20, low=1,
                      high=1_000_000, step=5, help="Close calls are where noise can change a decision")
mechanism = sb.selectbox("Noise", game.MECHANISMS, key="dg.mechanism",
                         format_func=lambda m: {"laplace": "Laplace (pure ε)", "gaussian": "Gaussian (δ = 1e-5)"}[m])
sensitivity = number_field(sb, "Sensitivity Δ (one person changes a count by)", key="dg.sens", kind="float",
                           default=1.0, low=0.01, high=1000.0, step=1.0)
seed = number_field(sb, "Seed", key="dg.seed", kind="int", default=0, low=0, high=2**31 - 1)

setup = {"threshold": int(threshold), "regions": int(k), "spread": int(spread), "mechanism": mechanism,
         "sensitivity": float(sensitivity), "seed": int(seed), "delta": 1e-5 if mechanism == "gaussian" else 0.0}
if st.session_state.get("dg.setup") != setup:  # a new rule or region set starts a new session
    st.session_state.update({"dg.setup": setup, "dg.rounds": [], "dg.scored": []})
rounds, scored = st.session_state["dg.rounds"], st.session_state["dg.scored"]
if spread > threshold:
    st.error("**spread**: the true counts must stay at or above zero; choose a spread no larger than T.",
             icon=":material/warning:")
    st.stop()
try:
    regions = game.regions(k, threshold, spread, seed)
except LabError as exc:
    show_error(exc)
    st.stop()

# The chart is there from the start, above the game: the closed form for the rule, and each scored round as a
# mark. First on the page, it is drawn first in a new tab (whose first view ends at the first chart).
data = game.chart_data(regions, threshold, scored, sensitivity, mechanism)
figure(decision_figure(data), "decision-game-flips", label="decision flips vs ε")
agree = data["agreement_epsilon"]
summary = ", ".join(f"ε = {r['epsilon']:g}: {r['flip_rate']:.0%}" for r in data["rounds"]) or "none yet"
st.caption("Text alternative: the blue curve falls from about 50% of decisions flipping at tiny ε towards none "
           "at large ε; the dashed red curve is the attacker's best chance to tell whether a person is in the "
           f"data, rising from 50%. Your rounds: {summary}. "
           + (f"From ε ≈ {agree:.3g} the rule keeps at least 95% of its decisions, where an attacker can be "
              f"right at most {say.pct(game.guess_bound(agree))} of the time." if agree else
              "No ε up to 1000 keeps 95% of decisions: a region sits at the threshold."))


st.subheader("Deal a round")
c1, c2 = st.columns([3, 2])
epsilon = c1.select_slider("ε of the DP release in this round", options=[0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0,
                                                                          5.0, 10.0], value=0.1, key="dg.epsilon")
c1.caption(f"In plain words — {say.odds_short(float(epsilon), setup['delta'])}")
pending = bool(rounds) and len(rounds) > len(scored)
if c2.button("Deal a new round" if not pending else "Deal again (discard this round)", type="primary",
             key="dg.deal"):
    try:
        rnd = game.new_round(regions, float(epsilon), sensitivity, mechanism, 1e-5, seed=seed * 1000 + len(rounds))
    except LabError as exc:
        show_error(exc)
        st.stop()
    if pending:
        rounds[-1] = rnd
    else:
        rounds.append(rnd)
    st.rerun()

if rounds and len(rounds) > len(scored):
    rnd = rounds[-1]
    n = len(rounds)
    st.markdown(f"**Round {n} (ε = {rnd['epsilon']:g}).** Each region appears twice; one copy is its true count, "
                f"the other the DP count. Decide on every card: fund if the count exceeds **{threshold:,}**?")
    with st.form(f"dg.form.{n}"):
        cols = st.columns(3)
        picks = {}
        for i, card in enumerate(rnd["cards"]):
            picks[card["id"]] = cols[i % 3].radio(
                f"{card['region']}: count {card['value']:,.0f}", ["Fund", "Don't fund"], index=None,
                horizontal=True, key=f"dg.card.{n}.{card['id']}")
        done = st.form_submit_button("Reveal which copy was which", type="primary")
    if done:
        try:
            score = game.score_round(rnd, {i: (None if v is None else v == "Fund") for i, v in picks.items()},
                                     threshold)
        except LabError as exc:
            show_error(exc)
        else:
            scored.append(score)
            st.rerun()
elif not rounds:
    st.info("Deal a round to start. Try a small ε first (0.05 or 0.1), then a large one.",
            icon=":material/casino:")

if scored:
    last = scored[-1]
    rnd = rounds[len(scored) - 1]
    closed = game.flip_rate([r["true"] for r in regions], threshold, rnd["epsilon"], sensitivity, mechanism)
    plain(f"At ε = {last['epsilon']:g} your decisions flipped for {last['flip_rate']:.0%} of regions "
          f"({sum(r['flipped'] for r in last['regions'])} of {len(last['regions'])}); a player who follows the rule "
          f"exactly flips {closed:.0%} of them on average. {say.odds_sentence(last['epsilon'], setup['delta'])}")
    table = pd.DataFrame([{"region": r["region"], "true count": r["true"], "DP count": r["dp"],
                           "your decision on the true count": "fund" if r["decision_true"] else "don't",
                           "your decision on the DP count": "fund" if r["decision_dp"] else "don't",
                           "flipped": "yes" if r["flipped"] else "no"} for r in last["regions"]])
    st.dataframe(table, hide_index=True, width="stretch")

if scored:
    download_table(table, "decision-game-last-round", label="last round")
    st.download_button("⬇ Whole session (JSON)", key="dg.export",
                       data=game.session_json(setup, regions, rounds[:len(scored)], scored),
                       file_name="decision-game-session.json", mime="application/json",
                       help="Your rule, the regions, every round's cards with which copy was which, and your clicks")
    if st.button("Start over", key="dg.reset"):
        st.session_state.update({"dg.rounds": [], "dg.scored": []})
        st.rerun()
