"""The Streamlit code the pages share (the engine in core/ never imports Streamlit; nothing here computes a result).

What belongs here, by role, one subpackage each (docs/ARCHITECTURE.md, "What goes where in ui/ and core/studies/"):

* widgets/ — what every page draws its controls and output with: the page preamble, parameter widgets, ``chart``
  and downloads (page_widgets.py), errors, widget limits, the address-bar guard, focus, accessibility, the CSV
  import step and its upload files;
* charts/ — how a chart reaches the browser: plotly.js's partial bundles (static/) and a new tab's first view;
* server/ — what the server adds around every page: the head line and the frozen heap (serve.py uses them);
* runs/ — a page's runs while they happen: the worker pool, queue, Stop, sweeps, visitors' limits, stored results;
* results/ — what a page shows under a finished run: run tools, "Who is exposed", pins;
* lesson_page/ — the Lessons page: a step's flow, the handouts, class mode and who is asking;
* lab_parts/ — one lab page's part that outgrew its page (a sidebar, the ε explorer's sections).
"""
