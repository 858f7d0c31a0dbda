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
reconnections — is :class:`Tab` (the class-scale benchmark drives the Lessons page's class mode with it):

    async with Tab("http://127.0.0.1:8501", "Lessons?lesson=3-reconstruction&class=ABC123") as tab:
        tab.fill("Display name", "Alice"); tab.fill("PIN (4–8 digits)", "4711")
        run = await tab.click("Join the class")          # a RunReport: texts, plots, done, error
        tab.has_text("you are Alice")

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


# --------------------------------------------------------------------------------------- a tab that acts
WIDGETS = ("button", "text_input", "radio", "slider", "number_input", "selectbox", "checkbox", "toggle")


@dataclass
class RunReport:
    """One script run of a :class:`Tab` (its reruns by ``st.rerun()`` included), seconds from the request."""

    first_plot: float | None = None
    done: float | None = None  # a run's done text ("Done:", "Stored result", …)
    done_text: str | None = None
    finished: float | None = None  # the script finished successfully
    starts: list[float] = field(default_factory=list)  # each script run's start (a second one: st.rerun())
    error: str | None = None
    texts: list[str] = field(default_factory=list)


class Tab:
    """A browser tab that stays open on one page and acts on it, as a student does: it keeps its **cookies**
    (Streamlit's XSRF cookie, which names the browser — the lab's class seat belongs to it — and a proxy's
    sticky-session cookie), the page's **address** as the script changes it (``st.query_params`` →
    ``page_info_changed``), and the **widget values** it has set, sent with every rerun request as the frontend
    sends them: a text input's string, a radio's option label, a slider's value, a button's one-shot trigger.
    Widgets are found by their label among the elements of the last script run.

    ``open()`` fetches ``/_stcore/health`` first (as a page load does: it sets the XSRF cookie, and through the
    lab's proxy the sticky cookie), then opens the websocket with those cookies and runs the page. When the
    server goes away the next action raises :class:`ConnectionError`; ``reopen(base_url)`` is a reload — the same
    cookies and address, a new session, possibly on another server."""

    def __init__(self, base_url: str, path: str = "", *, headers: dict[str, str] | None = None,
                 timeout: float = 300.0):
        self.base_url = base_url.rstrip("/")
        self.page, self.query = _split(path)
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self.ws = None
        self.elements: list = []  # the last run's elements (every delta's new_element)
        self.values: dict[str, object] = {}  # widget id -> WidgetState to send (triggers sent once)
        self.reconnects = 0

    async def __aenter__(self) -> "Tab":
        await self.open()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    # ---------------------------------------------------------------- connection
    async def _cookies_from(self, path: str) -> None:
        url = urllib.parse.urlsplit(self.base_url)
        reader, writer = await asyncio.wait_for(asyncio.open_connection(url.hostname, url.port or 80), 30)
        try:
            cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            extra = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
            cookie_line = f"Cookie: {cookie}\r\n" if cookie else ""
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: close\r\n{extra}"
                         f"{cookie_line}\r\n".encode())
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            await asyncio.wait_for(reader.read(), 30)
        finally:
            writer.close()
        if not head.startswith(b"HTTP/1.1 2"):
            status = head.split(b"\r\n")[0].decode(errors="replace")
            raise ConnectionError(f"{path}: {status}")
        for line in head.decode("latin-1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "set-cookie":
                key, _, rest = value.strip().partition("=")
                self.cookies[key] = rest.split(";")[0]

    async def open(self) -> RunReport:
        """Load the page (cookies), open the websocket and run the page's script."""
        from websockets.asyncio.client import connect

        await self._cookies_from("/_stcore/health")
        parts = urllib.parse.urlsplit(self.base_url)
        headers = {**self.headers, "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        self.ws = await connect(f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}/_stcore/stream",
                                subprotocols=["streamlit"], origin=f"{parts.scheme}://{parts.netloc}", proxy=None,
                                max_size=None, open_timeout=min(self.timeout, 120), ping_interval=None,
                                close_timeout=5, user_agent_header="stclient (Streamlit protocol load test)",
                                additional_headers=headers)
        self.values = {k: v for k, v in self.values.items() if not v.HasField("trigger_value")}
        return await self.run()

    async def reopen(self, base_url: str | None = None) -> RunReport:
        """A reload (after the server went away): the same cookies and address on ``base_url`` (default: the same
        one — behind the proxy, whichever server it picks). Widget values are not carried over: a new session."""
        await self.close()
        self.base_url = (base_url or self.base_url).rstrip("/")
        self.values, self.elements = {}, []
        self.reconnects += 1
        return await self.open()

    async def close(self) -> None:
        if self.ws is not None:
            try:
                await self.ws.close()
            except Exception:  # noqa: BLE001 — closing a dead connection
                pass
            self.ws = None

    # ---------------------------------------------------------------- the page
    def _find(self, label: str, kinds: tuple[str, ...] = WIDGETS):
        for element in reversed(self.elements):
            kind = element.WhichOneof("type")
            if kind in kinds and getattr(element, kind).label == label:
                return kind, getattr(element, kind)
        raise LookupError(f"no widget labelled {label!r} on the page")

    def has(self, label: str, kinds: tuple[str, ...] = WIDGETS) -> bool:
        try:
            self._find(label, kinds)
            return True
        except LookupError:
            return False

    def widget(self, label: str, kinds: tuple[str, ...] = WIDGETS):
        """The last run's widget element with this label (its proto: ``.id``, ``.disabled``, ``.options`` …)."""
        return self._find(label, kinds)[1]

    def texts(self) -> list[str]:
        out: list[str] = []
        for element in self.elements:
            if element.WhichOneof("type") != "plotly_chart":
                out.extend(_texts(element, []))
        return out

    def has_text(self, needle: str) -> bool:
        return any(needle in t for t in self.texts())

    def fill(self, label: str, value) -> None:
        """Set a widget's value for the next request (a form's inputs: sent with its submit button)."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        kind, w = self._find(label)
        state = WidgetState(id=w.id)
        if kind == "text_input":
            state.string_value = str(value)
        elif kind in ("radio", "selectbox"):
            state.string_value = value if isinstance(value, str) else w.options[int(value)]
        elif kind == "slider":
            state.double_array_value.data.extend([float(value)])
        elif kind == "number_input":
            state.double_value = float(value)
        elif kind in ("checkbox", "toggle"):
            state.bool_value = bool(value)
        else:
            raise ValueError(f"cannot fill a {kind}")
        self.values[w.id] = state

    async def set(self, label: str, value) -> RunReport:
        """Change a widget outside a form: the page reruns."""
        self.fill(label, value)
        return await self.run()

    async def click(self, label: str) -> RunReport:
        """Press a button (a form's submit button sends the form's filled values with it)."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        _, w = self._find(label, ("button",))
        if w.disabled:
            raise LookupError(f"the button {label!r} is disabled")
        self.values[w.id] = WidgetState(id=w.id, trigger_value=True)
        return await self.run()

    async def run(self) -> RunReport:
        """Send a rerun request with the address and widget values, and read until the script has finished
        (after any ``st.rerun()``); raises ConnectionError when the server is gone."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from websockets.exceptions import ConnectionClosed

        if self.ws is None:
            raise ConnectionError("the tab is closed")
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_name = self.page
        state.widget_states.SetInParent()
        for value in self.values.values():
            state.widget_states.widgets.append(value)
        for key, value in CONTEXT.items():
            setattr(state.context_info, key, value)
        state.context_info.url = f"{self.base_url}/{self.page}" + (f"?{self.query}" if self.query else "")
        self.values = {k: v for k, v in self.values.items() if not v.HasField("trigger_value")}
        report = RunReport()
        report_session = _Session(SessionReport(self.page), needs_plot=False)
        sent = time.perf_counter()
        deadline = sent + self.timeout
        try:
            await self.ws.send(msg.SerializeToString())
            elements: list = []
            while True:
                left = deadline - time.perf_counter()
                if left <= 0:
                    report.error = f"timeout after {self.timeout:.0f} s"
                    break
                try:
                    frame = await asyncio.wait_for(self.ws.recv(), left)
                except TimeoutError:
                    continue
                at = time.perf_counter() - sent
                fwd = ForwardMsg.FromString(frame)
                kind = fwd.WhichOneof("type")
                if kind == "new_session":
                    elements = []  # a rerun (st.rerun()) draws the page anew
                    report.starts.append(at)
                elif kind == "page_info_changed":
                    self.query = fwd.page_info_changed.query_string
                elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                    element = fwd.delta.new_element
                    elements.append(element)
                    if element.WhichOneof("type") == "plotly_chart" and report.first_plot is None:
                        report.first_plot = at
                report_session.handle(fwd, time.perf_counter())
                if report.done is None and report_session.r.done_text and report_session.r.done is not None:
                    report.done, report.done_text = at, report_session.r.done_text
                if report_session.r.error:
                    report.error = report_session.r.error
                    break
                if kind == "script_finished":
                    status = fwd.script_finished
                    if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        report_session.end = False
                        continue
                    report.finished = at
                    if status != ForwardMsg.FINISHED_SUCCESSFULLY:
                        report.error = report.error or f"script finished with status {status}"
                    break
        except ConnectionClosed as exc:
            self.ws = None
            raise ConnectionError(f"the server closed the connection ({exc})") from exc
        except OSError as exc:
            self.ws = None
            raise ConnectionError(str(exc)) from exc
        self.elements = elements
        report.texts = self.texts()
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
