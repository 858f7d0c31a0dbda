"""The pages the first-view benchmarks set a lab against (bench_first_view.py, bench_first_view_trace.py,
bench_page_runs.py): the one-chart floor, the floor with elements above its chart, and the floor as a page of a
copy of the lab (its frame without a lab's content)."""
from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st
st.title("One chart")
st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 1, 0])))
"""

# What one kind of element above a page's first chart costs that chart: the floor page with N such elements
# before its chart (--element-costs). The first view of every lab ends at its first chart, so whatever a lab
# draws above that chart is rendered before the chart can be.
_HEAD = 'import plotly.graph_objects as go\nimport streamlit as st\nst.title("One chart")\n'
_CHART = 'st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 1, 0])))\n'
ELEMENT_VARIANTS = {  # name: (elements above the chart, the code that draws them)
    "12 metrics": (12, "for r in range(3):\n    for i, c in enumerate(st.columns(4)):\n"
                       "        c.metric(f'Metric {r}{i}', f'{0.5 + i / 10:.3f}', help='what it is')\n"),
    "10 paragraphs": (10, "for i in range(10):\n    st.markdown('A **sentence** with a [link](/Glossary) and "
                          "some words to wrap. ' * 4)\n"),
    "10 captions": (10, "for i in range(10):\n    st.caption('A caption of about one line of small words. ' * 2)\n"),
    "4 controls": (4, "st.multiselect('m', ['a', 'b', 'c'], ['a', 'b'])\nst.select_slider('s', [1, 2, 3], 1)\n"
                      "st.slider('x', 0.0, 1.0, 0.3)\nst.slider('y', 0.0, 1.0, 0.3)\n"),
    # what the labs put between their title and first chart: the plain-language sentence (an alert with an
    # icon), a demo's tabs, a row of columns around the chart, a section's subheader
    "4 alerts": (4, "for i in range(4):\n    st.info('What the result means, in one sentence with a number: 0.62.',"
                    " icon=':material/record_voice_over:')\n"),
    "5 tabs": (5, "st.tabs(['1 · One', '2 · Two', '3 · Three', '4 · Four', '5 · Five'])\n"),
    "4 subheaders": (4, "for i in range(4):\n    st.subheader(f'Section {i}')\n"),
    "2 columns": (2, "a, b = st.columns(2)\na.markdown('left')\nb.markdown('right')\n"),
    # the server's own work before the chart (a lab's script computes its first figure, the floor's does not):
    # Python kept busy on one core while the browser starts, one "element" a millisecond
    "150 ms of script": (150, "import time\nt0 = time.perf_counter()\nwhile time.perf_counter() - t0 < 0.15:\n"
                              "    pass\n"),
    "300 ms of script": (300, "import time\nt0 = time.perf_counter()\nwhile time.perf_counter() - t0 < 0.3:\n"
                              "    pass\n"),
}


@contextlib.contextmanager
def frame_tree():
    """A copy of this checkout (its tracked kind of files: no virtual environments, caches or git data) with the
    floor page added as one more page of the lab, ``pages/99_Lab_frame.py``: the floor run through everything a
    lab page runs through except its own content. Against the floor, it says what the frame costs a first plot."""
    with tempfile.TemporaryDirectory(prefix="lab-frame-") as tmp:
        tree = Path(tmp) / "lab"
        shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv*", "__pycache__", ".pytest_cache",
                                                                  "*.pyc", "node_modules"))
        (tree / "pages" / "99_Lab_frame.py").write_text(
            '"""The one-chart floor as a page of the lab (benchmarks/bench_first_view.py --frame)."""\n'
            + FLOOR_APP, encoding="utf-8")
        yield tree
