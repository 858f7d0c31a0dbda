"""Charts drawn with plotly.js's own partial bundles in the browser, so a new tab draws them sooner.

Streamlit's chart element loads all of plotly.js (a 4.7 MB chunk) when a page's first chart arrives, and the
browser evaluates it in one task of its main thread: 1.2-1.5 s on the class machines, half of the time a page
holding one chart takes to draw it in a new tab. plotly.js is also published in partial bundles, each with every
layout feature (axes, legends, shapes, annotations, colour bars) and some of the trace types:

* ``basic``: scatter, bar and pie; a quarter of the full size, evaluated in 0.26 s there;
* ``cartesian``: those and heatmap, histogram, 2-d histogram, box, violin, contour, image, ternary scatter;
  evaluated in 0.67 s.

A chart whose traces all belong to one of them is drawn with the smaller that suffices. That brought a one-chart
page's first plot in a new tab to 0.50x the same page drawn by ``st.plotly_chart`` (1.41 s against 2.68 s, median
of 8 visits each, interleaved; benchmarks/FIRST_VIEW.md). Charts with other traces (a funnel, WebGL scatter) keep
Streamlit's element, which draws the figure as it is (``theme=None``), as this view does.

Only in a browser: a session that runs no JavaScript (AppTest, a protocol client) gets ``st.plotly_chart`` with the
same figure, so what a page computes is tested there as before. A chart keeps its renderer for as long as its
traces keep their types, so a page never swaps one for the other under the reader's eyes.

The bundles are ``plotly-basic.min.js`` and ``plotly-cartesian.min.js`` of the npm packages
``plotly.js-basic-dist-min`` and ``plotly.js-cartesian-dist-min``, unmodified, of the same plotly.js version as
the full bundle inside the pinned ``plotly`` Python package (a test keeps them equal, and the view stands aside if
they ever differ). Their MIT licence is ``ui/charts/static/plotly-LICENSE.txt``. To update them with the ``plotly`` pin::

    npm pack plotly.js-basic-dist-min@<version> plotly.js-cartesian-dist-min@<version>
    # unpack each; copy its .min.js into ui/charts/static/ and its LICENSE to ui/charts/static/plotly-LICENSE.txt

The files are served by Streamlit's own route for a component's files (``/component/<name>/<file>``, declared
below), so they come from the lab's server whether it is started by ``serve.py`` or ``streamlit run app.py``, and
nothing is fetched from elsewhere.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import plotly.io as pio
import streamlit as st

STATIC = Path(__file__).resolve().parent / "static"
BUNDLES = {  # name: (file, the trace modules it holds); smallest first
    "basic": ("plotly-basic.min.js", frozenset({"scatter", "bar", "pie"})),
    "cartesian": ("plotly-cartesian.min.js", frozenset({"scatter", "bar", "pie", "box", "contour", "heatmap",
                                                        "histogram", "histogram2d", "histogram2dcontour",
                                                        "image", "scatterternary", "violin"})),
}
BUNDLE = BUNDLES["basic"][0]  # the one a page's head loads early (ui/server/page_head.py): most charts need only it
DEFAULT_HEIGHT = 450  # st.plotly_chart's height for a figure that sets none
FILES = "lab_plotly_files"  # the component whose files route serves ``STATIC``
ROUTE = f"component/{__name__}.{FILES}/"  # that route, under the server's base path (Streamlit's naming)

# Drawn into the page itself, not a shadow root: plotly.js puts its stylesheet (the mode bar's, the hover
# labels') into the document's head. Each bundle is loaded once per page, by the first chart that needs it, and
# each defines the global Plotly as it runs: the instance is taken at its script's load event, which fires right
# after that script ran. The cartesian bundle holds everything the basic one does, so once it is on the page the
# basic one is not fetched. A chart drawn again (a rerun with new numbers) is updated in place by Plotly.react.
# Loads a bundle once per page and gives its Plotly: shared by the chart view below and by the served page's head
# (ui/server/page_head.py), which starts the basic bundle early on a page slow to draw a chart. Each bundle defines the
# global Plotly as it runs; its instance is taken at its script's load event, which fires right after that script
# ran. A load that failed is forgotten, so the next try fetches again.
LOADER_JS = """window.labLoadPlotly = window.labLoadPlotly || function (kind, src) {
  const loads = window.labPlotly = window.labPlotly || {};
  loads[kind] = loads[kind] || new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = () => resolve(window.Plotly);
    script.onerror = () => { delete loads[kind]; reject(); };
    document.head.appendChild(script);
  });
  return loads[kind];
};"""

# Drawn into the page itself, not a shadow root: plotly.js puts its stylesheet (the mode bar's, the hover
# labels') into the document's head. The cartesian bundle holds everything the basic one does, so once it is on
# the page the basic one is not fetched. A chart drawn again (a rerun with new numbers) is updated in place by
# Plotly.react.
_JS = """export default function ({ data, parentElement }) {
  %s
  let host = parentElement.querySelector(':scope > div.lab-plotly');
  if (!host) {
    host = document.createElement('div');
    host.className = 'lab-plotly';
    host.style.width = '100%%';
    parentElement.appendChild(host);
  }
  host.style.height = data.height + 'px';
  const figure = JSON.parse(data.figure);
  const draw = (Plotly) => {
    if (host.labPlotly && host.labPlotly !== Plotly && host.data) host.labPlotly.purge(host);
    host.labPlotly = Plotly;
    Plotly.react(host, figure.data, figure.layout, Object.assign({displaylogo: false}, data.config));
    // redrawn to the column's width whenever it changes (the window, the sidebar closed); never while hidden (a
    // closed tab, a page being replaced), where Plotly refuses to resize
    if (!host.labResize) {
      host.labResize = new ResizeObserver(() => {
        if (host.data && host.getClientRects().length) host.labPlotly.Plots.resize(host).catch(() => {});
      });
      host.labResize.observe(host);
    }
  };
  const failed = () => {
    host.textContent = 'This chart could not be drawn: its drawing library did not load. Reload the page; ' +
      "the chart's numbers are in the table under it.";
  };
  // (a basic chart on a page that has the cartesian bundle takes that one, already loaded: src is then unused)
  const kind = data.bundle === 'basic' && (window.labPlotly || {}).cartesian ? 'cartesian' : data.bundle;
  const load = () => window.labLoadPlotly(kind, data.src);
  load().then(draw, () => load().then(draw, failed));
  return () => {
    if (host.labResize) host.labResize.disconnect();
    if (host.labPlotly && host.data) host.labPlotly.purge(host);
  };
}""" % LOADER_JS


@functools.lru_cache(maxsize=4)
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


def bundle_for(fig) -> str | None:
    """The smallest of ``BUNDLES`` that holds every trace of ``fig`` and is the same plotly.js as the ``plotly``
    package's own (figures are written for that version); None if none can draw it."""
    types = {trace.type for trace in fig.data}
    if not types:
        return None
    for name, (file, traces) in BUNDLES.items():
        version = bundle_version(STATIC / file)
        if types <= traces and version is not None and version == full_bundle_version():
            return name
    return None


@functools.lru_cache(maxsize=1)
def _components():
    """The file route that serves the bundles, and the element that draws with them (made once per server)."""
    import streamlit.components.v1 as v1

    v1.declare_component(FILES, path=str(STATIC))  # serves the folder at ROUTE
    view = st.components.v2.component("lab_plotly_view", js=_JS, isolate_styles=False)
    base = "/".join(part for part in (st.get_option("server.baseUrlPath") or "").split("/") if part)
    return f"{'/' + base if base else ''}/{ROUTE}", view


def draw(fig, bundle: str, key: str, config: dict | None = None) -> None:
    """``fig`` drawn in the page with plotly.js's ``bundle`` (``bundle_for``), the column's width and the figure's
    height; ``config``: Plotly's own options, as ``st.plotly_chart`` takes them (``displayModeBar``, say)."""
    folder, view = _components()
    height = fig.layout.height or DEFAULT_HEIGHT
    # serialised as Streamlit serialises a figure for its own element (the figure was validated as it was built)
    view(data={"figure": pio.to_json(fig, validate=False), "bundle": bundle, "src": folder + BUNDLES[bundle][0],
               "height": height, "config": config or {}}, key=key)
