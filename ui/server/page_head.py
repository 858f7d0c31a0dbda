"""One line added to the head of every page the lab serves: where the app's server is, so a shared deep link
connects at once, Plotly's JavaScript for a page whose first chart is slow to come, and the lab's page-wide CSS.

Streamlit's browser code does not know whether ``/Location_membership`` is a page of an app served at ``/`` or
an app served under the path ``/Location_membership`` (behind a proxy, say). So it asks both: first
``/Location_membership/_stcore/health`` (a 404 here), then, after a retry pause, ``/_stcore/health``. Measured
on the class machine, every page opened from a link or in a new tab lost 0.10–0.15 s to that second round,
about a tenth of the one-chart floor of ``benchmarks/bench_first_view.py``; the home page, at the root, never
did. The server does know: it has just served that HTML for a page path. :class:`PageHead` writes the answer
into the page as Streamlit's own embedding setting (``window.__streamlit.BACKEND_BASE_URL``), read once when
its code starts, and the browser probes one address.

The answer is computed in the browser from its own address (the page's last path segment dropped), so a proxy
that serves the lab under a prefix of its own keeps working; a path the server does not serve as a page (two
or more segments past ``server.baseUrlPath``, Streamlit's catch-all) gets nothing added and Streamlit probes
as before. The line is the same for every visitor and holds nothing from the request.

The same line loads plotly.js's basic bundle (the file ui/charts/plotly_view.py draws most of the lab's charts with, at
the address that view loads it from, through the loader that view uses, ``labLoadPlotly``, so the page loads it once)
if no chart has appeared 2.5 s after the page's head was read: a lab whose default run computes for a while, or
a page without a chart, then has Plotly ready when its chart comes. A page whose first chart comes sooner loads
it through that chart, at once. Until the charts had bundles of their own, this line imported Streamlit's full
Plotly chunk instead, and what follows was measured with that chunk (1.2-1.5 s to evaluate, the basic bundle
0.26 s): an earlier import competes with the page's own start for the browser's one main thread (0.6 s to
evaluate Plotly then) and was measured slower.
Tried again on the lab as it was (``bench_first_view.py --against``, five labs, visits interleaved in one
run): imported at the document's load, a lab moved by -0.10 to +0.11 of the one-chart floor (one lab slower
beyond noise); imported as soon as the app's websocket opened (so never ahead of the connection), by -0.04 to
+0.07, none beyond noise. The import does run Plotly's code (on the glossary, which draws no chart, a 0.9 s
task of the browser's follows it at once). Timed in single visits of Aggregate statistics, from the socket's
open to the first plot took 1.6-1.7 s whichever way Plotly came: fetched and compiled, then evaluated (0.9-1.0 s),
then the chart drawn with the page's elements (0.3-0.45 s after the evaluation, against the floor's 0.16 s), all
on the browser's one main thread; an import at the socket's open started the evaluation no sooner than 0.3 s
after its fetch, and a ``modulepreload`` of the chunk on top of it (fetched with the document) delayed the
socket's open by about what it saved later (median first plot 2.39 s both ways, 4 visits). Imported the moment
the websocket message holding the first chart's figure arrives (before React renders the elements above the
chart, which then render while the chunk is fetched and compiled off the main thread): -0.08 to +0.07, none
beyond noise (A/B, five labs, 6 visits). The main thread is busy from the socket's open to the first plot;
moving Plotly's evaluation within that time does not shorten it.

The same line carries the page-wide CSS of ui/widgets/accessibility.py (WCAG contrast for captions), so that it applies from
the first paint and a new tab's first view does not send it as an element: Streamlit's HTML element sanitises
its content with DOMPurify, about 25 ms of the browser's main thread before the page's first chart
(``benchmarks/bench_first_view_trace.py``, a CPU profile of Aggregate statistics).

Used by ``serve.py`` (an ``st.App`` around app.py, which ``run.sh app`` starts); ``streamlit run app.py`` serves
the same lab without it.
"""
from __future__ import annotations

import gzip


def _line(base: str) -> bytes:
    """The page-wide CSS of ui/widgets/accessibility.py, and the script: Streamlit's setting for its server's address (``base``,
    a JavaScript expression), and the late load of the lab's Plotly bundle, named relative to the page as
    Streamlit's own scripts are."""
    from ui.charts import plotly_view
    from ui.widgets.accessibility import ACCESSIBLE_CSS

    late = (plotly_view.LOADER_JS + "setTimeout(function(){if(document.querySelector('.js-plotly-plot')||"
            f"window.labPlotly)return;window.labLoadPlotly('basic','./{plotly_view.ROUTE}{plotly_view.BUNDLE}')"
            ".catch(function(){})},2500);")
    return (ACCESSIBLE_CSS + f"<script>window.__streamlit=Object.assign({{}},window.__streamlit,"
            f"{{BACKEND_BASE_URL:{base}}});{late}</script>").encode()


# The page's directory (its last segment dropped), or the app's root itself.
_PAGE = _line("location.origin+location.pathname.replace(/\\/[^\\/]*$/,'/')")
_ROOT = _line("location.origin+location.pathname")
_DROPPED = (b"content-length", b"content-encoding", b"etag", b"last-modified")


def head_line(path: str, base_url_path: str = "") -> bytes | None:
    """The line for the HTML served at ``path`` (the request's path, ``base_url_path`` Streamlit's
    ``server.baseUrlPath``): ``_ROOT`` at the app's root, ``_PAGE`` one segment below it, else None."""
    base = [s for s in base_url_path.split("/") if s]
    parts = [s for s in path.split("/") if s]
    if parts[:len(base)] != base:
        return None
    rest = parts[len(base):]
    return _ROOT if not rest else _PAGE if len(rest) == 1 else None


def with_head_line(html: bytes, line: bytes) -> bytes:
    """``html`` with ``line`` as the last element of its head (unchanged if it has no ``</head>``)."""
    at = html.find(b"</head>")
    return html if at < 0 else html[:at] + line + html[at:]


class PageHead:
    """ASGI middleware: adds :func:`head_line` to the HTML pages of the app (a GET answered 200 with
    ``text/html``); every other response passes through untouched, streamed as it comes.

    The page is read whole (Streamlit's ``index.html``, 2 kB), unzipped if an inner layer zipped it, and sent
    with its new length; its validators (ETag, Last-Modified) are dropped because they describe the file
    without the line."""

    def __init__(self, app, base_url_path: str | None = None):
        import ui.widgets.accessibility

        self.app = app
        # Built by serve.py's server before any session's script runs: from now on every page's head carries the
        # page-wide CSS, and a new tab's first view does not send it as an element (ui.widgets.accessibility.accessible_styles).
        ui.widgets.accessibility.STYLES_IN_HEAD = True
        if base_url_path is None:
            from streamlit import config

            base_url_path = config.get_option("server.baseUrlPath") or ""
        self.base_url_path = base_url_path

    async def __call__(self, scope, receive, send):
        line = (head_line(scope.get("path", ""), self.base_url_path)
                if scope["type"] == "http" and scope.get("method") == "GET" else None)
        if line is None:
            await self.app(scope, receive, send)
            return
        start, body = None, []

        async def send_with_line(message):
            nonlocal start
            if message["type"] == "http.response.start":
                headers = {k.lower(): v for k, v in message.get("headers", [])}
                if message.get("status") == 200 and headers.get(b"content-type", b"").startswith(b"text/html"):
                    start = message  # held until the whole page is read
                    return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            html = b"".join(body)
            headers = start.get("headers", [])
            if any(k.lower() == b"content-encoding" and v.strip().lower() == b"gzip" for k, v in headers):
                html = gzip.decompress(html)
            html = with_head_line(html, line)
            headers = [(k, v) for k, v in headers if k.lower() not in _DROPPED]
            await send({**start, "headers": [*headers, (b"content-length", str(len(html)).encode())]})
            await send({"type": "http.response.body", "body": html})

        await self.app(scope, receive, send_with_line)
