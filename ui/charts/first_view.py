"""A new tab's first plot, sooner: the page's first chart before the rest of it, and before the sidebar.

(Since then most charts no longer wait for Streamlit's Plotly chunk at all: in a browser, a chart whose traces one
of plotly.js's partial bundles holds is drawn with it, ui/charts/plotly_view.py. What follows still holds for the charts
Streamlit's element draws, and for the page's other elements.)

Streamlit loads its Plotly chunk (4.7 MB, about 0.6 s of the browser's main thread to evaluate on the class
machines) only when the first chart's message arrives, so a page opened in a new tab waits for the connection,
its script up to the first chart *and then* for Plotly; anything the browser renders before that chart delays
the import. (Importing Plotly from an element of its own, sent first, did not help: Streamlit runs such a
script only once its first batch of elements is rendered, after the chart's own import has begun. The served
page's head starts it instead where no chart has come by then, ui/server/page_head.py. Nor did a hidden, empty chart
sent before anything else, which does start Plotly's evaluation at a one-chart page's moment: measured in one
run against the same lab without it, five labs came at 1.14-1.27x the floor with it and 1.07-1.19x without;
the evaluation then competes with rendering the page's own elements for the browser's one main thread.)

Fetching Plotly early is not enough: a lab sends its first chart within a second, but also 50–70 more elements
(text, tables, widgets, 3–7 more charts) that the browser renders in the same task as that chart, which then
appears only when all of them are drawn — 2–4× later than a page with one chart. So a browser session's first
page view ends at its first chart (:func:`after_chart`): the browser draws it, says so through a small
component, and the page runs again in full — the charts and tables below arrive once the first one is on screen.
Its text alternative (the expander with the chart's data, a 15–30 kB table) comes with the full run, a
moment later. Every later view (another lab chosen in the sidebar, a widget changed) is drawn in one run as
before. A session that is not a browser running JavaScript (AppTest, a protocol client) is never cut short,
nor is a page while it watches a run on the worker pool (stopping there would cancel the run), nor a chart in
an ``st.fragment``.

Before its first chart every lab draws 15–40 sidebar controls (sliders, number inputs, select boxes, uploads),
whose JavaScript is loaded on demand and rendered before the chart, and the browser imports Plotly only once
it reaches the chart. So on that first view the sidebar is held back (:func:`page_run`): its controls still run
on the server, so the chart is computed from the very values they will show, but their elements are sent only
by the full rerun (or at once, if the run will not end at a chart). Measured on the class machine
(``benchmarks/bench_first_view.py``), with the text alternative deferred and the served head of
ui/server/page_head.py, a new tab's first plot came at 1.12–1.26× the one-chart floor instead of 1.23–1.52×.

The same holds for the text of a collapsed expander above the first chart (a lab's 4-8 kB "What is happening
here?"): nobody sees it on the first view, so its contents wait for the full run (:func:`deferred`) while its
label goes out at once.

The sidebar's controls are dropped from the first view, not sent after its chart: sent after it, they were
rendered before the chart was drawn and the gain was gone. A control whose value a link set is then told
to the browser again by the full run (:meth:`_HeldBack.drop`).
"""
from __future__ import annotations

import contextlib
import threading

import streamlit as st

WEBGL = "_first_view.webgl"  # session state: names of the charts of this run that use WebGL


@contextlib.contextmanager
def page_run():
    """Around every run of the app (app.py): a fresh count of the page's WebGL charts, and on a browser's first
    view the sidebar held back until the page's first chart has gone out (:func:`after_chart`) or the run ends
    without one, whichever comes first."""
    st.session_state[WEBGL] = set()
    _resend_held_values()
    _hold_sidebar()
    try:
        yield
    finally:  # a run that stops, fails or ends before any chart still sends its sidebar
        release_sidebar()


def webgl_budget(fig, name: str):
    """``fig`` as drawn on this page: at most ``MAX_WEBGL_CHARTS`` charts of a page use WebGL (the browser
    blanks the oldest contexts beyond its limit); a later one has its WebGL scatter traces drawn as SVG. Charts
    are told apart by name, so a live redraw of the same chart does not count twice."""
    from core.plots.common import MAX_WEBGL_CHARTS, uses_webgl, without_webgl

    if not uses_webgl(fig):
        return fig
    used = st.session_state.setdefault(WEBGL, set())
    if name in used or len(used) < MAX_WEBGL_CHARTS:
        used.add(name)
        return fig
    return without_webgl(fig)


# ------------------------------------------------------------ the rest of the page after the first chart
DRAWN = "_first_view.drawn"  # session state: this browser has drawn a chart; no view of it is cut short again
# The signal's key, so its element's class (``st-key-…``): hidden by ui/widgets/accessibility.py, and what the browser tests wait
# to see gone before they look at a page's full view.
SIGNAL_KEY = "lab-first-chart"
_SIGNAL_JS = """export default function ({ setTriggerValue }) {
  let sent = false;
  const send = () => { if (!sent) { sent = true; setTriggerValue('drawn', true); } };
  const look = () => {
    if (sent) return;
    if (document.querySelector('.js-plotly-plot .main-svg')) requestAnimationFrame(() => setTimeout(send, 0));
    else requestAnimationFrame(look);
  };
  look();
  setTimeout(send, 6000);  // a chart that never draws must not leave the page without its rest
}"""
_signal = None
_watching = threading.local()  # the script thread is watching a run on the worker pool


def _drawn() -> None:
    st.session_state[DRAWN] = True


def _runs_javascript() -> bool:
    """Whether this session is a browser (its websocket's User-Agent), which runs the signal's JavaScript. Kept
    apart from :func:`browser_session` so that a test can give an AppTest session a first view while its charts
    stay Streamlit's elements, whose figures it reads."""
    return browser_session()


def browser_session() -> bool:
    """Whether this session is a browser, by its websocket's User-Agent (AppTest and protocol clients are not)."""
    try:
        return "Mozilla/" in (st.context.headers.get("User-Agent") or "")
    except Exception:  # no request behind the session (AppTest, a bare script)
        return False


def _in_fragment() -> bool:
    """Inside an ``st.fragment`` the signal would rerun only the fragment, never the rest of the page."""
    try:  # Streamlit 1.67 keeps the running fragment in a per-thread state, not on the run context
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        return ThreadState.get().fragment_id is not None
    except (ImportError, AttributeError):
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
        return bool(ctx is not None and getattr(ctx, "current_fragment_id", None))


@contextlib.contextmanager
def watching_run():
    """Charts drawn inside (a run's live progress) never end the page: stopping there would cancel the run."""
    before = getattr(_watching, "on", False)
    _watching.on = True
    release_sidebar()
    try:
        yield
    finally:
        _watching.on = before


class _HeldBack:
    """Stands in for the script run's message sender on a browser session's first view: the elements of the
    sidebar and of any container passed to :func:`deferred` are held back, everything else goes out at once.
    ``release()`` sends the held ones in their order; ``drop()`` forgets them (the run ends at its first chart,
    and the full rerun sends them again).

    The sidebar's controls still run on the server, so the page computes with exactly the values they will show;
    only their drawing waits. Which container an element belongs to is told by the start of its delta path."""

    def __init__(self, ctx, send, marks: dict):
        self.ctx, self.send, self.held, self.marks = ctx, send, [], marks
        self.prefixes: list[tuple[int, ...]] = [(_SIDEBAR,)]
        runner = getattr(send, "__self__", None)
        events = getattr(runner, "on_event", None)
        from streamlit.runtime.scriptrunner.script_runner import ScriptRunnerEvent

        # Held elements go out even after st.stop(): the runner's own sender would stop again before sending.
        self.deliver = (lambda msg: events.send(runner, event=ScriptRunnerEvent.ENQUEUE_FORWARD_MSG,
                                                forward_msg=msg)) if events is not None else send

    def __call__(self, msg) -> None:
        path = tuple(msg.metadata.delta_path) if msg.HasField("delta") else ()
        if path and any(path[:len(prefix)] == prefix for prefix in self.prefixes):
            self.held.append(msg)
        else:
            self.send(msg)

    def _restore(self) -> list:
        held, self.held = self.held, []
        if self.ctx._enqueue is self:
            self.ctx._enqueue = self.send
        return held

    def release(self) -> None:
        """Send the held elements, and remember that the browser holds this session's sidebar. The mark goes
        into a dictionary the session already holds, not through ``st.session_state``: a release at the end of
        a run that ``st.stop()`` ended (a lab awaiting its upload) may use no Streamlit command, session state
        included — each raises the stop again, and the mark would be lost."""
        for msg in self._restore():
            self.deliver(msg)
        self.marks[_SIDEBAR_SENT] = True

    def drop(self) -> None:
        """Forget the held elements, and have the next run send the values of their keyed controls afresh.

        A control whose value was set through session state (a link, a preset) tells the browser that value
        only in the run that set it, and the browser never saw that run's sidebar: without the resend it
        would show the control's default while the page computes with the linked value."""
        keys = []
        for msg in self._restore():
            element = msg.delta.new_element
            kind = element.WhichOneof("type") if msg.HasField("delta") else None
            if kind in _SETTABLE:
                with contextlib.suppress(Exception):  # a control without a key shows its default anyway
                    keys.append(self.ctx.session_state._state._key_id_mapper.get_key_from_id(
                        getattr(element, kind).id))
        st.session_state[_RESEND] = keys


_SIDEBAR = 1  # RootContainer.SIDEBAR in the delta path
_MARKS = "_first_view.marks"  # session state: a dictionary of what the browser of this session holds
_SIDEBAR_SENT = "sidebar_sent"  # in it: the browser holds this session's sidebar
_RESEND = "_first_view.resend"  # session state: keys of controls whose values the next run sends again
# controls whose value session state may set (buttons, uploads and the like may not, and have none to resend)
_SETTABLE = frozenset({"slider", "number_input", "text_input", "text_area", "checkbox", "radio", "selectbox",
                       "multiselect", "color_picker", "date_input", "time_input", "button_group"})


def _resend_held_values() -> None:
    """Set each control held back by the first view to its own value, before any control of this run exists:
    Streamlit then sends the value with the control (``set_value``), as it did in the run the browser missed."""
    for key in st.session_state.pop(_RESEND, None) or ():
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def _hold_sidebar() -> None:
    """On a browser session's first view, hold the sidebar's elements back (:class:`_HeldBack`). Does nothing
    where the view is drawn in one run anyway (AppTest, a protocol client, a session that has drawn a chart) or
    where this Streamlit has no per-run sender to stand in for; nor once the browser holds a sidebar of this
    session (a first view without a chart, awaiting an upload): dropping it then would take away the controls
    the visitor is using, and the file just uploaded with them."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    marks = st.session_state.setdefault(_MARKS, {})
    if st.session_state.get(DRAWN) or marks.get(_SIDEBAR_SENT) or not _runs_javascript():
        return
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not hasattr(ctx, "_enqueue") or isinstance(ctx._enqueue, _HeldBack):
        return
    ctx._enqueue = _HeldBack(ctx, ctx._enqueue, marks)


def _held():
    """This script run's held sidebar, if any."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    held = getattr(ctx, "_enqueue", None)
    return held if isinstance(held, _HeldBack) else None


def deferred(container):
    """``container`` — a collapsed expander, whose contents the first view does not show — with its contents held
    back on a browser's first view like the sidebar's: sent with the full run, or at the end of a run that does
    not end at a chart. The label still goes out at once, so nothing on the page moves when the contents come.
    Measured on the class machine, deferring the 4-8 kB "What is happening here?" text of a lab brought its
    first plot 30-250 ms sooner. Elsewhere (every later view, AppTest) the container is drawn as usual."""
    held, cursor = _held(), getattr(container, "_cursor", None)  # Streamlit's own: a newer one may lack it
    if held is not None and cursor is not None:
        held.prefixes.append(tuple(cursor.delta_path[:-1]))  # the container's own path (its next child's, less one)
    return container


def release_sidebar() -> None:
    """Send the sidebar now (a run that will not end at its first chart: a watched run, a chart in a fragment,
    the end of the run)."""
    held = _held()
    if held is not None:
        held.release()


def view_ends_here() -> bool:
    """Whether a chart sent now ends this run (:func:`after_chart`): a browser session's first view, outside a
    watched run and a fragment."""
    return not (st.session_state.get(DRAWN) or getattr(_watching, "on", False) or _in_fragment()
                or not _runs_javascript())


def after_chart() -> None:
    """Called right after a chart is sent (``ui.widgets.page_widgets.chart``): on a browser session's first view, end this run
    here, with a signal that reruns the page as soon as the browser has drawn the chart."""
    global _signal
    if not view_ends_here():
        release_sidebar()
        return
    if _signal is None:
        _signal = st.components.v2.component("lab_first_chart", js=_SIGNAL_JS)
    _signal(key=SIGNAL_KEY, on_drawn_change=_drawn)
    held = _held()
    if held is not None:
        held.drop()
    st.stop()
