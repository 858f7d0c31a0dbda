"""The line serve.py adds to each page's head (ui/server/page_head.py): Streamlit's own setting for where its server
is, on the app's HTML pages only, so a deep link probes one address instead of two; and the page-wide CSS of
ui/widgets/accessibility.py, which the pages then do not send again."""
from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import pytest

from ui.server.page_head import _PAGE, _ROOT, PageHead, head_line, with_head_line



@pytest.fixture(autouse=True)
def _styles_flag_restored(monkeypatch):
    """Building a PageHead marks the process as serving the CSS in the head; no other test may inherit that."""
    from ui.widgets import accessibility as access

    monkeypatch.setattr(access, "STYLES_IN_HEAD", access.STYLES_IN_HEAD)


INDEX = b"<!DOCTYPE html><html><head><title>Streamlit</title></head><body><div id=root></div></body></html>"


@pytest.mark.parametrize("path, base, expect", [
    ("/", "", _ROOT), ("", "", _ROOT), ("/Location_membership", "", _PAGE),
    ("/a/b", "", None),  # not a page: Streamlit's catch-all answers it, and probes as before
    ("/lab", "lab", _ROOT), ("/lab/", "/lab/", _ROOT), ("/lab/Glossary", "lab", _PAGE),
    ("/Glossary", "lab", None), ("/x/y/Glossary", "x/y", _PAGE),
])
def test_the_line_follows_the_path_below_the_apps_base(path, base, expect):
    assert head_line(path, base) == expect


def test_the_line_is_the_last_element_of_the_head_and_nothing_else_changes():
    out = with_head_line(INDEX, _PAGE)
    assert out.replace(_PAGE, b"") == INDEX and out.index(_PAGE) + len(_PAGE) == out.index(b"</head>")
    assert with_head_line(b"<p>no head</p>", _PAGE) == b"<p>no head</p>"
    for line in (_PAGE, _ROOT):  # a fixed script: nothing from the request or the visitor reaches the page
        assert b"location.origin+location.pathname" in line and b"BACKEND_BASE_URL" in line


def test_the_head_carries_the_accessible_css_before_the_script():
    from ui.widgets.accessibility import ACCESSIBLE_CSS

    for line in (_PAGE, _ROOT):  # the same fixed sheet the pages send as an element when not served by serve.py
        assert line.startswith(ACCESSIBLE_CSS.encode()) and line.index(b"<script>") == len(ACCESSIBLE_CSS.encode())


def test_a_served_first_view_leaves_the_css_to_the_head_and_every_other_run_sends_it(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from ui.charts import first_view
    from ui.widgets import accessibility as access

    def page():
        from ui.widgets.accessibility import accessible_styles

        accessible_styles()

    def css_elements(at) -> int:
        return sum("stCaptionContainer" in h.proto.body for h in at.get("html"))

    monkeypatch.setattr(access, "STYLES_IN_HEAD", False)  # streamlit run app.py, AppTest: no head line
    assert css_elements(AppTest.from_function(page).run()) == 1
    PageHead(lambda *a: None, base_url_path="")  # what serve.py's server builds before any session's script runs
    assert access.STYLES_IN_HEAD
    assert css_elements(AppTest.from_function(page).run()) == 1  # not a browser: never a first view
    monkeypatch.setattr(first_view, "_runs_javascript", lambda: True)  # a browser's first view
    at = AppTest.from_function(page).run()
    assert css_elements(at) == 0
    at.session_state[first_view.DRAWN] = True  # its first chart drawn: the runs after it
    assert css_elements(at.run()) == 1


def test_the_late_plotly_load_names_the_labs_basic_bundle_on_this_server():
    from ui.charts import plotly_view

    name = f"{plotly_view.__name__}.{plotly_view.FILES}"  # the component route that serves ui/charts/static
    assert (plotly_view.STATIC / plotly_view.BUNDLE).is_file()
    for line in (_PAGE, _ROOT):  # relative, as Streamlit's own scripts: nothing is fetched from elsewhere
        assert f"labLoadPlotly('basic','./component/{name}/{plotly_view.BUNDLE}')".encode() in line
        assert b"http" not in line
        # the loader the chart view waits on, so the bundle loads once
        assert plotly_view.LOADER_JS.encode() in line and plotly_view.LOADER_JS in plotly_view._JS


def _serve(path: str, *, body: bytes = INDEX, content_type: bytes = b"text/html; charset=utf-8", status=200,
           zipped: bool = False, method: str = "GET", chunks: int = 1, scope_type: str = "http"):
    """Run PageHead around a one-response ASGI app; returns the messages it sent."""
    payload = gzip.compress(body) if zipped else body
    headers = [(b"content-type", content_type), (b"content-length", str(len(payload)).encode()),
               (b"etag", b'"abc"'), (b"cache-control", b"no-cache")] + ([(b"content-encoding", b"gzip")]
                                                                         if zipped else [])

    async def inner(scope, receive, send):
        await send({"type": "http.response.start", "status": status, "headers": headers})
        step = max(1, len(payload) // chunks)
        parts = [payload[i:i + step] for i in range(0, len(payload), step)] or [b""]
        for i, part in enumerate(parts):
            await send({"type": "http.response.body", "body": part, "more_body": i < len(parts) - 1})

    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    asyncio.run(PageHead(inner, base_url_path="")({"type": scope_type, "method": method, "path": path},
                                                  receive, send))
    return sent


def _body(sent) -> bytes:
    return b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def _headers(sent) -> dict:
    return {k: v for k, v in sent[0]["headers"]}


@pytest.mark.parametrize("zipped, chunks", [(False, 1), (True, 1), (False, 5)])
def test_a_page_gets_the_line_with_its_new_length(zipped, chunks):
    sent = _serve("/Location_membership", zipped=zipped, chunks=chunks)
    body, headers = _body(sent), _headers(sent)
    assert body == with_head_line(INDEX, _PAGE)
    assert int(headers[b"content-length"]) == len(body)
    assert b"content-encoding" not in headers and b"etag" not in headers  # they described the file without it
    assert headers[b"cache-control"] == b"no-cache"


@pytest.mark.parametrize("kw", [
    {"content_type": b"application/javascript", "body": b"export default 1;</head>"},  # a script, not a page
    {"status": 304, "body": b""},  # the browser's copy is current
    {"status": 404},
    {"method": "HEAD"},
    {"method": "POST"},
])
def test_every_other_response_passes_untouched(kw):
    body = kw.get("body", INDEX)
    sent = _serve("/", **kw)
    assert _body(sent) == body and _headers(sent)[b"etag"] == b'"abc"'


def test_a_path_that_is_no_page_passes_untouched():
    assert _body(_serve("/static/js/x/y.html")) == INDEX
