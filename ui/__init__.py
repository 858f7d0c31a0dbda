"""The Streamlit code the pages share (the engine in core/ never imports Streamlit; nothing here computes a result).

What belongs here, by role (docs/ARCHITECTURE.md, "What goes where in ui/ and core/studies/"):

* shared widgets — common.py (page preamble, parameter widgets, ``chart``, downloads), access.py, feedback.py,
  limits.py, links.py;
* the run machinery — runs.py (a page's run: queue, progress, Stop, stored results), sweeps.py (a page's sweeps),
  visitors.py, stored.py;
* serving and a new tab's first view — page_head.py, first_view.py, plotly_view.py, heap.py;
* feature panels used by several pages — records.py, pins.py, report.py, ladder.py, epsilon_context.py,
  import_step.py, uploads.py, lessons.py;
* one lab's sidebar where it outgrew its page — synthetic_release.py, aggregates_data.py, reid_people.py.
"""
