"""Accessibility helpers shared by every page: WCAG 2.1 AA contrast for Streamlit's faded text, and the text
alternative under every chart (a sentence and its data as an HTML table a screen reader can walk)."""
from __future__ import annotations

import html

import streamlit as st

from ui.charts.first_view import SIGNAL_KEY

# Streamlit draws captions at 60% opacity: its grey (#828180 on white, 3.88:1) fails WCAG 2.1 AA contrast (4.5:1
# for body-size text), and links inside turn a pale blue (2.96:1). Full opacity with a darker grey (#55585f, 6.9:1)
# and a darker link blue (#1a56a8, 6.9:1) keep captions visibly secondary and readable. Code blocks: the syntax
# highlighter's light blue (#00a4d4, 2.81:1) gives way to the code's own dark colour, and long lines wrap instead of
# scrolling (a scrollable block must be reachable by keyboard, and Streamlit's is not focusable). An inactive
# widget's label fades to 40% (2.26:1); a mid grey (#62666d, 5.3:1 on the sidebar) still reads as inactive.
# Last rule: the first view's signal (ui/charts/first_view.py) is an invisible component that takes no room (important:
# served in the page's head, this sheet comes before Streamlit's own styles).
ACCESSIBLE_CSS = """<style>
[data-testid="stCaptionContainer"]{opacity:1 !important;color:#55585f !important}
[data-testid="stCaptionContainer"] a{color:#1a56a8 !important}
[data-testid="stCode"] code span{color:inherit !important}
[data-testid="stCode"] pre,[data-testid="stCode"] code{white-space:pre-wrap !important;overflow-wrap:anywhere}
[data-testid="stCode"] pre{overflow:visible !important}
[data-testid="stElementContainer"]:has(input:disabled,textarea:disabled,button:disabled) [data-testid="stWidgetLabel"]
{color:#62666d !important}
.st-key-%s{display:none !important}
</style>""" % SIGNAL_KEY


# Set by ui.server.page_head.PageHead once serve.py's server has built it (before any session's script can run): every
# page's head then carries ACCESSIBLE_CSS.
STYLES_IN_HEAD = False


def accessible_styles() -> None:
    """The page-wide CSS that brings Streamlit's faded text up to WCAG 2.1 AA contrast (app.py, every page), as
    an element of the page. Served by serve.py, a page's head carries it already (ui/server/page_head.py), present from
    the first paint, so a new tab's first view (ui/charts/first_view.py) leaves the element out: Streamlit's HTML
    element runs its content through DOMPurify, about 25 ms of the browser's main thread before the page's first
    chart. Every later run still sends it, for an address whose page got no head line (ui.server.page_head.head_line)."""
    from ui.charts.first_view import view_ends_here

    if not (STYLES_IN_HEAD and view_ends_here()):
        st.html(ACCESSIBLE_CSS)


def chart_text(fig) -> None:
    """What a screen reader reaches instead of the picture: a sentence naming the chart, its axes and series, and
    its plotted points as an HTML table (with caption and column headers), folded under the chart. Every name
    is escaped: a series can be named after an uploaded file's column."""
    from core.plots.common import describe, figure_rows

    rows, thinned = figure_rows(fig)
    with st.expander("Chart as text and data table", icon=":material/table:"):
        st.html(f"<p>{html.escape(describe(fig))}</p>" + (_rows_table(fig, rows, thinned) if rows else
                                                             "<p>This chart has no plotted points to list.</p>"))


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape(str(v))


def _rows_table(fig, rows: list[dict], thinned: bool) -> str:
    from core.plots.common import strip_markup

    x = strip_markup(fig.layout.xaxis.title.text) if fig.layout.xaxis and fig.layout.xaxis.title else ""
    y = strip_markup(fig.layout.yaxis.title.text) if fig.layout.yaxis and fig.layout.yaxis.title else ""
    note = " (evenly thinned; the JSON download has every point)" if thinned else ""
    head = (f"<tr><th scope='col'>series</th><th scope='col'>{html.escape(x or 'x')}</th>"
            f"<th scope='col'>{html.escape(y or 'y')}</th></tr>")
    body = "".join(f"<tr><td>{_cell(r['series'])}</td><td>{_cell(r['x'])}</td><td>{_cell(r['y'])}</td></tr>"
                   for r in rows)
    title = html.escape(strip_markup(fig.layout.title.text) or "chart")
    return (f"<table><caption>Data of the chart: {title}{note}</caption><thead>{head}</thead>"
            f"<tbody>{body}</tbody></table>")
