"""A browser tab that stays open and acts, over Streamlit's websocket protocol (benchmarks/stclient.py speaks it
for a tab that only watches): it fills forms, picks options, clicks buttons and keeps its browser's cookies, so a
load test can drive pages that need a visitor's input — the Lessons page's class mode in
benchmarks/bench_class_scale.py — for milliseconds of client CPU a tab.

    async with Tab("http://127.0.0.1:8501", "Lessons?lesson=3-reconstruction&class=ABC123") as tab:
        tab.fill("Display name", "Alice"); tab.fill("PIN (4–8 digits)", "4711")
        run = await tab.click("Join the class")          # a RunReport: its texts, first plot, done, error
        tab.has_text("you are Alice")
"""
from __future__ import annotations

import asyncio
import time
import urllib.parse
from dataclasses import dataclass, field

from stclient import CONTEXT, SessionReport, _Session, _split, _texts

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
        if kind == "text_input":
            field_value = {"string_value": str(value)}
        elif kind in ("radio", "selectbox"):  # the option's label, as the frontend sends it
            field_value = {"string_value": value if isinstance(value, str) else w.options[int(value)]}
        elif kind == "slider":
            field_value = {"double_array_value": {"data": [float(value)]}}
        elif kind == "number_input":
            field_value = {"double_value": float(value)}
        elif kind in ("checkbox", "toggle"):
            field_value = {"bool_value": bool(value)}
        else:
            raise ValueError(f"cannot fill a {kind}")
        self.values[w.id] = WidgetState(id=w.id, **field_value)

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
