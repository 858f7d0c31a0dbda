"""A new tab's first plot, sooner: Plotly's JavaScript fetched as soon as the app starts in the browser.

Streamlit loads its Plotly chunk (4.7 MB, about a second of the browser's time to evaluate on the class
machines) only when the first chart's message arrives, so a page opened in a new tab waits for the connection,
its script up to the first chart *and then* for Plotly. :func:`preload_plotly` starts that import with the
app's very first element (app.py draws it before any page runs), so Plotly is evaluated while the connection is
made and the page's script runs. The chunk is the one Streamlit serves from its own static files, at the same
address its own lazy import asks for: the browser's module map holds it once, and nothing is fetched from
anywhere but the lab's own server.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import streamlit as st

# The import names the chunk relative to Streamlit's own entry script, wherever the app is served (a path prefix
# behind a proxy included); the element that holds it is hidden, so it takes no room on the page.
_PRELOAD = """<span id="lab-plotly-preload"></span>
<style>[data-testid="stElementContainer"]:has(#lab-plotly-preload){display:none}</style>
<script>(() => {
  const entry = document.querySelector('script[src*="/static/js/index."]');
  if (entry) import(new URL(%s, entry.src).href).catch(() => {});
})();</script>"""


@functools.lru_cache(maxsize=1)
def plotly_chunk() -> str | None:
    """The file name of Streamlit's lazily loaded chunk that holds Plotly's JavaScript (None if this Streamlit
    has none: then nothing is preloaded and charts load as before)."""
    static = Path(st.__file__).parent / "static" / "static" / "js"
    found = sorted(static.glob("PlotlyChart.*.js"))
    return found[0].name if len(found) == 1 else None


def preload_plotly() -> None:
    """Start loading Plotly's JavaScript in the browser now (app.py, before any page draws). The browser runs
    the import once per tab; later runs send the same element, which the page keeps."""
    chunk = plotly_chunk()
    if chunk is not None:
        st.html(_PRELOAD % json.dumps(chunk), unsafe_allow_javascript=True)
