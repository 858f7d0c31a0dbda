"""Privacy-attack lab: navigation and landing page (every scenario page lives in pages/)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import streamlit as st

from ui.widgets.accessibility import accessible_styles
from ui.widgets.page_widgets import chart
from ui.charts.first_view import page_run

ROOT = Path(__file__).resolve().parent
st.set_page_config(page_title="Privacy-attack lab", page_icon="🛡️", layout="wide")
accessible_styles()  # WCAG 2.1 AA contrast for captions, on every page (they all run through this file)


def _title(path: Path) -> str:
    return re.sub(r"^\d+_", "", path.stem).replace("_", " ")


def _summary(path: Path) -> str:
    """First line of the page module's docstring (read, not executed): one line about the lab."""
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError):
        return ""
    return doc.splitlines()[0] if doc else ""


PAGE_FILES = sorted((ROOT / "pages").glob("[0-9]*_*.py"))


@st.cache_data(show_spinner=False, max_entries=1)
def _bound_figure():
    from core.plots.epsilon import accuracy_bound_figure
    from core.theory.epsilon_explorer import explain_epsilon
    fig = accuracy_bound_figure(explain_epsilon(1.0, 0.0, 60, 100, 2.0))
    return fig.for_each_trace(lambda t: t.update(name=t.name.replace(" (chosen)", "")))  # nothing chosen here


def _bound_teaser() -> None:
    """What ε promises, drawn once on the home page (it also loads the chart library, so the first lab a
    visitor opens draws at once)."""
    left, right = st.columns([3, 2], vertical_alignment="center")
    with left:
        chart(_bound_figure(), "home-bound", config={"displayModeBar": False})
    with right:
        st.markdown("**What a privacy budget promises.** Each curve is the best accuracy *any* attack can reach "
                    "when it tries to tell whether one person is in the data, after that person is released about "
                    "k times with budget ε each. 0.5 is a coin flip. The labs measure real attacks against this "
                    "bound.")
        st.page_link(str(ROOT / "pages" / "05_Epsilon_explorer.py"), label="Choose your own ε in the ε explorer",
                     icon=":material/tune:")


LESSONS = ROOT / "pages" / "03_Lessons.py"


def _lessons_first() -> None:
    """New here? The lessons are the guided way in: each lab is open-ended, a lesson says what to look at."""
    with st.container(border=True):
        st.markdown("**New to privacy attacks? Start with the lessons.** Seven short lessons, one per source paper: "
                    "at each step you predict what an attack will achieve, run it, and see how far off you were. "
                    "Teachers can run them with a class and watch the class's predictions live.")
        st.page_link(str(LESSONS), label="Start the lessons", icon=":material/school:")


def home() -> None:
    st.title("Privacy-attack lab")
    st.markdown(
        "Pick a dataset, a release (a differentially private mechanism, noisy statistics or a synthetic-data "
        "generator), a privacy budget ε and an attack — then watch the privacy game run. Every page plays the "
        "attacks of a published paper many times with fixed seeds and draws what it measures (ROC curves, "
        "accuracy against the number of observations or queries, privacy–utility trade-offs) next to what theory "
        "says is possible.")
    st.markdown(
        "**How to read the games.** A *game* is one round between a defender, who releases statistics about a "
        "dataset, and an attacker, who tries to learn something about one person (are they in the data? what is "
        "their secret attribute?). Playing many games estimates how often the attacker wins. An attack that wins "
        "no more often than guessing means the release protected that person; differential privacy (ε) bounds "
        "how far above guessing any attack can get.")
    st.markdown("New to the words? The [glossary](/Glossary) explains [AUC](/Glossary#auc), "
                "[ε](/Glossary#epsilon), the [DP bound](/Glossary#dp-bound) and the rest in plain language; every "
                "lab links a term's first use there.")
    _lessons_first()
    _bound_teaser()
    st.subheader("Labs")
    for path in PAGE_FILES:
        if path.stem.startswith("9") or path.stem == LESSONS.stem:
            continue
        st.page_link(str(path), label=_title(path), icon=":material/science:")
        summary = _summary(path)
        if summary:
            st.caption(summary)
    st.subheader("Reference")
    for path in PAGE_FILES:
        if path.stem.startswith("9"):
            st.page_link(str(path), label=_title(path), icon=":material/menu_book:")
            st.caption(_summary(path))
    st.caption("Every configuration is mirrored in the address bar, so a link reproduces a run; every plot and "
               "table can be downloaded. The same engine runs from the command line: `python -m core list`.")


pages = [st.Page(home, title="Home", icon=":material/home:", default=True)]
# Default URL paths (file name without the number prefix) match what Streamlit knows before the first
# run, so a shared deep link works even on a freshly started server.
pages += [st.Page(str(path), title=_title(path)) for path in PAGE_FILES]
# Plotly's JavaScript starts loading before any page's first chart arrives; a new tab's first view draws its first
# chart before the sidebar's controls (ui/charts/first_view.py)
with page_run():
    st.navigation(pages).run()
