"""A Streamlit protocol client: one browser tab's conversation with a Streamlit server, without the browser.

A load test that runs a class's worth of headless browsers on the server's own machine measures mostly the
starved browsers (each page view costs Chromium seconds of CPU; in a class those run on the students'
laptops). This client speaks the server's websocket protocol directly, as the Streamlit 1.67 frontend does,
so a load test can put the same work on the server for a few milliseconds of client CPU per session:

* **page load** (optional): ``GET`` the page's HTML and, if given, the static files a fresh browser fetched
  for it (recorded from Chromium, see ``benchmarks/bench_load.py``), six at a time over keep-alive
  connections like a browser. Streamlit serves ``/static`` uncompressed: ~9 MB per fresh tab.
* **websocket** ``ws://host:port/_stcore/stream`` with subprotocol ``streamlit`` (the frontend's
  ``new WebSocket(url, ["streamlit", ...session tokens])``; the tokens — XSRF token, a previous session id
  for reconnection — only matter for login cookies and reconnects), per-message deflate as Chromium offers,
  an ``Origin`` header of the same origin.
* **one BackMsg** ``rerun_script`` with the ClientState that Chromium sends when it opens a page (recorded
  with playwright's ``framesent`` events): ``page_name`` (the URL path, e.g. ``Reconstruction_attack``; empty
  for the home page), ``query_string`` (the URL's query without ``?``), empty ``widget_states``, no
  ``page_script_hash``, and a ``context_info`` (timezone, locale, url, colour scheme). That is all the
  frontend sends while a page is open and untouched: no heartbeats (it sends ``app_heartbeat`` only when an
  embedding host asks), no widget values until a user acts. A script's ``st.rerun()`` is rerun by the server
  on its own, with the same client state.
* then it **reads ForwardMsgs** until the page is done, as a tab that stays open: ``new_session`` (a script
  run starts), ``delta`` (``new_element`` — plotly_chart, markdown, alert, exception, progress… — and
  ``add_block``, e.g. a status box whose label says "Running…"/"Done:"), ``script_finished``,
  ``page_not_found``, ``session_event``. The server pings; the websocket library answers (the client sends
  no pings of its own: a late pong from a busy server must not end the session).
* **ForwardMsg references**: the server replaces a large cacheable ``new_element`` by a ``ref_hash`` only if
  the client listed that hash in ``ClientState.cached_message_hashes`` (``ScriptRunContext.enqueue`` in 1.67).
  This client lists none — as a fresh tab, whose cache is empty — so references do not occur; should one
  arrive anyway it is resolved from the messages already received, or reported as an error.

Per session it reports seconds from sending the rerun request to the first delta carrying a Plotly chart and
to **done**: a status text ("Done:", "Stored result", "Cached result", "Stopped after", or a refusal's "needs
about"), or — for a page without a run — the script finishing successfully with its content drawn (with
``needs_plot``, a plot among it). **Errors**: an exception element, "Unexpected error" / "ended unexpectedly"
in any text, a compile error, a disconnect, a timeout, or a run that finishes without the plot it owes.
A ``page_not_found`` message ends the session with outcome ``"page not found"``.

    report = asyncio.run(open_page("http://127.0.0.1:8501", "Reconstruction_attack?n=600", needs_plot=True))
    report.first_plot, report.done, report.error, report.outcome

A tab that **acts** — fills a form, picks a radio option, clicks a button, keeps its browser's cookies across
reconnections — is ``sttab.Tab``, on the same protocol.

Not supported (our pages do not use them): fragments' ``auto_rerun`` (counted in ``report.ignored``), file
uploads, login.
"""
from __future__ import annotations

import asyncio
import re
import time
import urllib.parse
from dataclasses import dataclass, field

DONE_TEXT = re.compile(r"Done:|Stored result|Cached result|Stopped after|needs about")
RUNNING_TEXT = re.compile(r"Running |Queued:|preparing")
STARTED_TEXT = re.compile(r"preparing…|\b\d+ / \d+ [a-z -]+ · \d+ s")  # the progress line once a worker has the run
ERROR_TEXT = re.compile(r"Unexpected error|ended unexpectedly")
# What an untouched Chromium tab sends (its locale and timezone here; the server only stores them).
CONTEXT = {"timezone": "UTC", "timezone_offset": 0, "locale": "en-US", "is_embedded": False,
           "color_scheme": "light"}
FETCH_CONNECTIONS = 6  # a browser's parallel HTTP/1.1 connections per host


@dataclass
class SessionReport:
    """What one protocol session saw. Times are seconds from sending the rerun request (``load``: the page
    load before it)."""

    path: str
    first_plot: float | None = None
    done: float | None = None
    error: str | None = None
    outcome: str = "pending"  # done | page not found | error | timeout | disconnected
    has_run: bool = False  # a "Running…"/"Queued:"/"preparing" or done text appeared: the page ran a job
    started: float | None = None  # the run's progress line first said it was running ("preparing…", "3 / 10 …")
    refused: bool = False  # the run was refused by the cost limits ("needs about")
    done_text: str | None = None  # which done text: "Done:", "Stored result", … (a store hit or a computed run)
    plots: int = 0  # plotly_chart elements received (every redraw counts)
    elements: int = 0
    runs: int = 0  # script runs started (new_session): 2 when the script called st.rerun() once
    finished: list[int] = field(default_factory=list)  # script_finished statuses, in order
    exceptions: list[str] = field(default_factory=list)
    messages: int = 0
    received_bytes: int = 0
    load: float | None = None  # page load (HTML and assets) before the websocket, if fetched
    request_at: float | None = None  # seconds from the session's start (page load included) to the rerun request
    load_bytes: int = 0
    load_failed: list[str] = field(default_factory=list)  # "status path" of page-load requests that failed
    ignored: list[str] = field(default_factory=list)  # ForwardMsg types this client does not act on

    @property
    def page(self) -> str:
        return self.path.split("?")[0]


def _split(path: str) -> tuple[str, str]:
    """``"Name?a=1&b=2"`` → (``"Name"``, ``"a=1&b=2"``); the home page is ``""``."""
    page, _, query = path.lstrip("/").partition("?")
    return page, query


def rerun_request(base_url: str, path: str):
    """The BackMsg a freshly opened tab sends for ``path`` (see the module docstring)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    page, query = _split(path)
    msg = BackMsg()
    state = msg.rerun_script
    state.query_string = query
    state.widget_states.SetInParent()
    state.page_name = page
    for key, value in CONTEXT.items():
        setattr(state.context_info, key, value)
    state.context_info.url = f"{base_url.rstrip('/')}/{page}"
    return msg


def _texts(message, out: list[str]) -> list[str]:
    """Every string field of a protobuf message, recursively (labels, bodies, captions, messages)."""
    for desc, value in message.ListFields():
        values = value if desc.is_repeated else [value]
        if desc.type == desc.TYPE_MESSAGE:
            for item in values:
                if hasattr(item, "ListFields"):  # (a map's values may be scalars)
                    _texts(item, out)
        elif desc.type == desc.TYPE_STRING:
            out.extend(values)
    return out


class _Session:
    def __init__(self, report: SessionReport, needs_plot: bool):
        self.r = report
        self.needs_plot = needs_plot
        self.cache: dict = {}  # hash -> cacheable ForwardMsg, to resolve references
        self.sent_at = 0.0
        self.end = False

    def fail(self, error: str, outcome: str = "error") -> None:
        if self.r.error is None:
            self.r.error, self.r.outcome = error[:300], outcome
        self.end = True

    def handle(self, msg, now: float) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            cached = self.cache.get(msg.ref_hash)
            if cached is None:
                return self.fail(f"reference to a message never received ({msg.ref_hash[:12]})")
            msg, kind = cached, cached.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash:
            self.cache[msg.hash] = msg
        at = now - self.sent_at
        if kind == "new_session":
            self.r.runs += 1
        elif kind == "delta":
            self._delta(msg.delta, at)
        elif kind == "script_finished":
            status = msg.script_finished
            self.r.finished.append(status)
            if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                return self.fail("script compile error")
            if status == ForwardMsg.FINISHED_SUCCESSFULLY:  # (EARLY_FOR_RERUN: st.rerun, the server goes on)
                if self.r.done is None:
                    if self.needs_plot and not self.r.plots:
                        return self.fail("script finished without a plot")
                    if not self.r.elements:
                        return self.fail("script finished without drawing anything")
                    self.r.done = at
                self.r.outcome = "done"
                self.end = True
        elif kind == "page_not_found":
            self.fail(f"page not found: {msg.page_not_found.page_name or self.r.page!r}", outcome="page not found")
        elif kind == "session_event":
            if msg.session_event.HasField("script_compilation_exception"):
                exc = msg.session_event.script_compilation_exception
                self.fail(f"exception: {exc.type}: {exc.message}"[:300])
        elif kind == "auto_rerun" and kind not in self.r.ignored:
            self.r.ignored.append(kind)

    def _delta(self, delta, at: float) -> None:
        which = delta.WhichOneof("type")
        if which in ("new_element", "new_transient"):
            element = getattr(delta, which)
            if which == "new_transient":  # a list of transient elements
                for item in element.elements:
                    self._element(item, at)
            else:
                self._element(element, at)
        elif which == "add_block":
            self._text(" ".join(_texts(delta.add_block, [])), at)

    def _element(self, element, at: float) -> None:
        self.r.elements += 1
        kind = element.WhichOneof("type")
        if kind == "plotly_chart":
            self.r.plots += 1
            if self.r.first_plot is None:
                self.r.first_plot = at
            return  # the figure's JSON is data, not page text
        if kind == "exception":
            exc = element.exception
            self.r.exceptions.append(f"{exc.type}: {exc.message}")
            return self.fail(f"exception on the page: {exc.type}: {exc.message}")
        self._text(" ".join(_texts(element, [])), at)

    def _text(self, text: str, at: float) -> None:
        if not text:
            return
        bad = ERROR_TEXT.search(text)
        if bad:
            return self.fail("unexpected error" if bad.group(0) == "Unexpected error" else "worker crashed")
        if RUNNING_TEXT.search(text):
            self.r.has_run = True
        if self.r.started is None and STARTED_TEXT.search(text):
            self.r.started = at
        found = DONE_TEXT.search(text)
        if found and self.r.done is None:
            self.r.done, self.r.has_run = at, True
            self.r.refused = found.group(0) == "needs about"
            self.r.done_text = found.group(0)


async def _get(host: str, port: int, paths: list[str], report: SessionReport) -> None:
    """``GET`` each path over one keep-alive HTTP/1.1 connection (bodies read and dropped)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while paths:
            path = paths.pop()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: */*\r\n"
                         "Accept-Encoding: gzip, deflate, br, zstd\r\nConnection: keep-alive\r\n\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in head.decode("latin-1").split("\r\n")[1:] if line)}
            # (read first, then add: `report.load_bytes += await …` would lose the other connections' adds)
            if "content-length" in headers:
                got = len(await reader.readexactly(int(headers["content-length"])))
            elif headers.get("transfer-encoding", "").lower() == "chunked":
                got = 0
                while True:
                    size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                    await reader.readexactly(size + 2)  # data + CRLF
                    got += size
                    if size == 0:  # the last chunk (no trailers from this server)
                        break
            else:  # no length: the body ends with the connection
                got = len(await reader.read())
                report.load_bytes += got
                return
            report.load_bytes += got
            if not head.startswith((b"HTTP/1.1 2", b"HTTP/1.1 3", b"HTTP/1.0 2")):
                report.load_failed.append(f"{head.split(b' ', 2)[1].decode()} {path}")
            if headers.get("connection", "").lower() == "close":
                return
    finally:
        writer.close()


async def load_page(base_url: str, path: str, assets: list[str] | None, report: SessionReport) -> None:
    """A fresh tab's page load: the page's HTML, ``/_stcore/health`` and ``/_stcore/host-config``, and the
    recorded ``assets`` (absolute paths on the server), over up to six connections."""
    url = urllib.parse.urlsplit(base_url)
    todo = list(dict.fromkeys([f"/{path.lstrip('/')}", "/_stcore/health", "/_stcore/host-config",
                               *(assets or [])]))[::-1]  # popped from the end: the HTML first
    start = time.perf_counter()
    await asyncio.gather(*(_get(url.hostname, url.port or 80, todo, report)
                           for _ in range(min(FETCH_CONNECTIONS, len(todo)))))
    report.load = time.perf_counter() - start


async def open_page(base_url: str, path: str = "", *, timeout: float = 900.0, needs_plot: bool = False,
                    load: bool = False, assets: list[str] | None = None, linger: float = 30.0,
                    headers: dict[str, str] | None = None) -> SessionReport:
    """Open ``path`` (``"Page?query"``, ``""`` for the home page) on the server at ``base_url`` as a browser
    tab that stays open, and report what happened (see the module docstring).

    ``needs_plot``: the page owes a plot (a lab): finishing without one is an error. ``load``/``assets``: do
    the page load first. After a done text the session stays until the script finishes (at most ``linger``
    seconds more), so an exception while the final result is drawn still counts. ``timeout`` bounds the page
    load, and the session from the rerun request on. ``headers`` go with the websocket's opening request (a
    proxy's ``X-Forwarded-For``, say). It never raises: every failure is in the report."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    report = SessionReport(path)
    session = _Session(report, needs_plot)
    started = time.perf_counter()
    parts = urllib.parse.urlsplit(base_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    ws_url = f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}/_stcore/stream"
    try:
        if load or assets:
            await asyncio.wait_for(load_page(base_url, path, assets, report), timeout)
        async with connect(ws_url, subprotocols=["streamlit"], origin=origin, proxy=None, max_size=None,
                           open_timeout=min(timeout, 120), ping_interval=None, close_timeout=5,
                           user_agent_header="stclient (Streamlit protocol load test)",
                           additional_headers=headers) as ws:
            session.sent_at = time.perf_counter()
            report.request_at = session.sent_at - started
            await ws.send(rerun_request(base_url, path).SerializeToString())
            deadline = session.sent_at + timeout
            lingering = False
            while not session.end:
                now = time.perf_counter()
                if report.done is not None and not lingering:  # done: wait a little for the script to end
                    deadline, lingering = min(deadline, now + linger), True
                if now >= deadline:
                    break
                try:
                    frame = await asyncio.wait_for(ws.recv(), deadline - now)
                except TimeoutError:
                    break
                now = time.perf_counter()
                if isinstance(frame, str):
                    session.fail("the server sent a text frame")
                    break
                report.messages += 1
                report.received_bytes += len(frame)
                session.handle(ForwardMsg.FromString(frame), now)
            if not session.end:  # the deadline passed
                if report.done is not None:
                    report.outcome = "done"  # done, the script still drawing after `linger`: not an error
                else:
                    session.fail(f"timeout after {timeout:.0f} s", outcome="timeout")
    except ConnectionClosed as exc:
        if report.done is not None:
            report.outcome = "done"
        else:
            session.fail(f"disconnected ({exc})", outcome="disconnected")
    except (OSError, TimeoutError) as exc:
        session.fail(f"{type(exc).__name__}: {exc}" if str(exc) else f"{type(exc).__name__} (connect/load)",
                     outcome="disconnected" if isinstance(exc, OSError) else "timeout")
    except Exception as exc:  # noqa: BLE001 — a protocol surprise is a result, not a crash of the load test
        session.fail(f"{type(exc).__name__}: {exc}")
    return report


if __name__ == "__main__":  # one session against a running server
    import argparse
    import json
    from dataclasses import asdict

    ap = argparse.ArgumentParser(description="Open one page of a running Streamlit server as a protocol client.")
    ap.add_argument("url", help="e.g. http://127.0.0.1:8501")
    ap.add_argument("path", nargs="?", default="", help='page and query, e.g. "Reconstruction_attack?n=600"')
    ap.add_argument("--plot", action="store_true", help="the page owes a plot (a lab)")
    ap.add_argument("--timeout", type=float, default=900.0)
    args = ap.parse_args()
    rep = asyncio.run(open_page(args.url, args.path, needs_plot=args.plot, load=True, timeout=args.timeout))
    print(json.dumps(asdict(rep), indent=1))
