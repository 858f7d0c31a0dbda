"""Charts of scatter, bar and pie traces drawn with plotly.js's own basic bundle, so a new tab draws them sooner.

Streamlit's chart element loads all of plotly.js (a 4.7 MB chunk) when a page's first chart arrives, and the
browser evaluates it in one task of its main thread: 1.2-1.5 s on the class machines, half of the time a page
holding one chart takes to draw it in a new tab. plotly.js is also published in partial bundles; its basic one
(scatter, bar and pie traces with every layout feature: axes, legends, shapes, annotations, colour bars) is a
quarter of the size and evaluated in 0.26 s there. Drawing a chart whose traces all belong to that bundle with it
brought a one-chart page's first plot in a new tab to 0.50x the same page drawn by ``st.plotly_chart`` (1.41 s
against 2.68 s, median of 8 visits each, interleaved; benchmarks/FIRST_VIEW.md).

Only in a browser: a session that runs no JavaScript (AppTest, a protocol client) gets ``st.plotly_chart`` with the
same figure, so what a page computes is tested there as before. A chart keeps its renderer for as long as its
traces keep their types, so a page never swaps one for the other under the reader's eyes. Charts with other traces
(heatmaps, histograms, WebGL scatter) keep Streamlit's element, which draws the figure as it is (``theme=None``)
exactly as this view does.

The bundle is ``plotly-basic.min.js`` of the npm package ``plotly.js-basic-dist-min``, unmodified, of the same
plotly.js version as the full bundle inside the pinned ``plotly`` Python package (``BUNDLE_VERSION``; a test keeps
the two equal, and the view stands aside if they ever differ). Its MIT licence is ``ui/static/plotly-LICENSE.txt``.
To update it with the ``plotly`` pin::

    npm pack plotly.js-basic-dist-min@<version> && tar xzf plotly.js-basic-dist-min-<version>.tgz
    cp package/plotly-basic.min.js ui/static/ && cp package/LICENSE ui/static/plotly-LICENSE.txt

The file is served by Streamlit's own route for a component's files (``/component/<name>/<file>``, declared
below), so it comes from the lab's server whether it is started by ``serve.py`` or ``streamlit run app.py``, and
nothing is fetched from elsewhere.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import plotly.io as pio
import streamlit as st

STATIC = Path(__file__).resolve().parent / "static"
BUNDLE = "plotly-basic.min.js"
BASIC_TRACES = frozenset({"scatter", "bar", "pie"})  # the trace modules of plotly.js's basic bundle
DEFAULT_HEIGHT = 450  # st.plotly_chart's height for a figure that sets none

# Drawn into the page itself, not a shadow root: plotly.js puts its stylesheet (the mode bar's, the hover
# labels') into the document's head. The bundle is loaded once per page, by the first chart that needs it; a
# chart drawn again (a rerun with new numbers) is updated in place by Plotly.react.
_JS = """export default function ({ data, parentElement }) {
  let host = parentElement.querySelector(':scope > div.lab-plotly');
  if (!host) {
    host = document.createElement('div');
    host.className = 'lab-plotly';
    host.style.width = '100%';
    parentElement.appendChild(host);
  }
  host.style.height = data.height + 'px';
  const figure = JSON.parse(data.figure);
  const draw = () => {
    window.Plotly.react(host, figure.data, figure.layout, {displaylogo: false, responsive: true});
    if (!host.labResize) {  // the column can change width without the window doing so (the sidebar closed)
      host.labResize = new ResizeObserver(() => { if (host.data) window.Plotly.Plots.resize(host); });
      host.labResize.observe(host);
    }
  };
  const failed = () => {
    host.textContent = 'This chart could not be drawn: its drawing library did not load. Reload the page; ' +
      "the chart's numbers are in the table under it.";
  };
  if (window.Plotly && window.Plotly.react) {
    draw();
  } else {
    window.labPlotly = window.labPlotly || new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = data.src;
      script.onload = resolve;
      script.onerror = () => { window.labPlotly = null; reject(); };
      document.head.appendChild(script);
    });
    window.labPlotly.then(draw, failed);
  }
  return () => {
    if (host.labResize) host.labResize.disconnect();
    if (window.Plotly && host.data) window.Plotly.purge(host);
  };
}"""


@functools.lru_cache(maxsize=1)
def bundle_version(path: Path = STATIC / BUNDLE) -> str | None:
    """The plotly.js version in a bundle's header comment (``* plotly.js (basic - minified) v4.1.1``)."""
    try:
        head = path.read_text(encoding="utf-8")[:300]
    except OSError:
        return None
    found = re.search(r"plotly\.js\b[^\n]*?\bv(\d+\.\d+\.\d+)", head)
    return found.group(1) if found else None


@functools.lru_cache(maxsize=1)
def full_bundle_version() -> str | None:
    """The plotly.js version that the ``plotly`` Python package ships (and writes figures for)."""
    import plotly

    return bundle_version(Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js")


def drawable(fig) -> bool:
    """Whether this view can draw ``fig``: every trace one of the basic bundle's, and the bundle the same
    plotly.js as the ``plotly`` package's own (figures are written for that version)."""
    types = {trace.type for trace in fig.data}
    return bool(types) and types <= BASIC_TRACES and bundle_version() is not None \
        and bundle_version() == full_bundle_version()


@functools.lru_cache(maxsize=1)
def _components():
    """The file route that serves the bundle, and the element that draws with it (made once per server)."""
    import streamlit.components.v1 as v1

    files = v1.declare_component("lab_plotly_files", path=str(STATIC))
    view = st.components.v2.component("lab_plotly_view", js=_JS, isolate_styles=False)
    return f"/component/{files.name}/{BUNDLE}", view


def draw(fig, key: str) -> None:
    """``fig`` drawn in the page by plotly.js's basic bundle, the column's width and the figure's height."""
    src, view = _components()
    height = fig.layout.height or DEFAULT_HEIGHT
    # serialised as Streamlit serialises a figure for its own element (the figure was validated as it was built)
    view(data={"figure": pio.to_json(fig, validate=False), "src": src, "height": height}, key=key)
