"""What a privacy budget ε buys: the best any attack can do, the noise it costs, the √n rule — in closed form."""
import pandas as pd
import streamlit as st

from core.output import plain_language as say
from core.errors import LabError
from core.plots import epsilon as plots
from core.theory.epsilon_explorer import explain_epsilon
from ui.widgets.page_widgets import content, download_table, figure, metric_row, number_field, page_header, plain, show_error

page_header("ε explorer: what a privacy budget buys",
            f"Choose {say.term('epsilon', 'ε')} and see, without running a single game, the best any attacker can "
            f"do against a release that is ε-{say.term('differential-privacy', 'differentially private')} — and "
            "what noise that costs.",
            "Kairouz, Oh & Viswanath (2015) optimal composition; Balle & Wang (2018) analytic Gaussian; "
            "CS208 lecture 2 (√n rule)")

# Every control is bound to the address bar (bind="query-params"): a link reproduces the view.
sb = st.sidebar
sb.header("Privacy budget")
epsilon = sb.select_slider("ε per observation", options=[0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0,
                                                         3.0, 5.0, 8.0, 10.0], value=0.5, key="eps.epsilon",
                           help="Privacy loss of one release about one person", bind="query-params")
delta = sb.select_slider("δ", options=[0.0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3], value=0.0, key="eps.delta",
                         format_func=lambda d: "0 (pure DP)" if d == 0 else f"{d:g}",
                         help="Probability with which the ε guarantee may fail; keep it ≪ 1/population",
                         bind="query-params")
k_max = sb.slider("Observations k (releases about the same person)", 1, 200, 60, key="eps.k", bind="query-params")
n = number_field(sb, "People n (for the reconstruction rule)", key="eps.n", kind="int", default=100, low=10,
                 high=100_000, step=10, bind="query-params")
ratio = sb.slider("Queries per person m/n", 0.5, 8.0, 2.0, 0.5, key="eps.ratio", bind="query-params")

@st.cache_data(show_spinner=False, max_entries=256)
def explained(epsilon, delta, k_max, n, ratio):
    """Closed form, but ~0.5 s of bound computations: cached so a returning view draws at once."""
    return explain_epsilon(epsilon, delta, k_max, n, ratio)


try:
    data = explained(float(epsilon), float(delta), int(k_max), int(n), float(ratio))
except LabError as exc:
    show_error(exc)
    st.stop()

num = data["numbers"]
plain(say.epsilon_explorer(float(epsilon), int(k_max), num["accuracy_bound_1"], num["accuracy_bound_k"]))
sb.caption(f"In plain words — {say.odds_short(float(epsilon), float(delta))}")
# The two headline charts right under the sentence, their numbers under them (a new tab's first view ends at
# the first chart, and everything above it is drawn before it can be).
left, right = st.columns(2)
with left:
    figure(plots.accuracy_bound_figure(data), "epsilon-accuracy-bound", label="accuracy bound vs k")
with right:
    figure(plots.roc_bound_figure(data), "epsilon-roc-bound", label="ROC bound")
metric_row({"acc1": num["accuracy_bound_1"], "acck": num["accuracy_bound_k"], "odds": num["odds_factor"],
            "lap": num["laplace_scale_count"], "gauss": num["gaussian_sigma_count_analytic"]},
           {"acc1": "Max accuracy, 1 release", "acck": f"… after k = {k_max}",
            "odds": "Max odds factor e^ε", "lap": "Laplace scale", "gauss": "Gaussian σ"})
st.caption(f"Accuracy: the highest [balanced accuracy]({say.GLOSSARY_PAGE}#balanced-accuracy) of any "
           f"{say.term('membership-inference', 'membership test')} (0.5 is a coin flip). Noise scales are for one "
           f"count ({say.term('sensitivity', 'sensitivity')} 1). Gaussian σ uses analytic calibration at "
           f"δ = {data['reconstruction']['gaussian_delta']:g} (classic rule: "
           f"{num['gaussian_sigma_count_classic']:.2f}).")

st.markdown(content("epsilon_explorer"))

left, right = st.columns(2)
with left:
    figure(plots.posterior_figure(data), "epsilon-posterior", label="belief bound")
with right:
    table = pd.DataFrame(data["posterior_table"]).rename(columns={"prior": "attacker's prior",
                                                                    "max_posterior": "max belief after one release"})
    st.dataframe(table.style.format("{:.3f}"), hide_index=True, width="stretch")
    download_table(table, "epsilon-posterior-table", label="belief table")
    rec = data["reconstruction"]
    st.markdown(f"**Reconstruction check.** Releasing m = {rec['queries']} subset counts about n = {rec['n']} "
                f"people with total budget (ε = {epsilon:g}, δ = {rec['gaussian_delta']:g}) needs Gaussian noise "
                f"σ ≈ {rec['gaussian_sigma']:.1f} per answer, i.e. **{rec['sigma_over_sqrt_n']:.2f}·√n**: "
                f"{rec['verdict']}. Try it in the Reconstruction lab with defence = gaussian.")

from ui.lab_parts.epsilon_panels import accuracy_first, plain_words  # noqa: E402  (self-contained sections)
from ui.lab_parts.epsilon_ladder import epsilon_ladder  # noqa: E402  (a self-contained section at the foot of the page)

plain_words(float(epsilon), float(delta))
accuracy_first(float(delta))
st.page_link("pages/06_Decision_game.py", label="Play the decision game: do your decisions change at this ε?",
             icon=":material/casino:")
epsilon_ladder()
