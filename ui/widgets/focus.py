"""Move the keyboard focus to a part of the page after a rerun, once.

A button that submits something (a lesson's "Commit my prediction") disappears in the rerun it causes, and the
browser's focus falls back to the start of the page: a keyboard or screen-reader user is then dozens of Tab presses
away from what the button produced. :func:`focus_once` puts the focus on the first heading of a keyed container
(``st.container(key=…)``, whose element carries the class ``st-key-<key>``), or on the container itself, made
focusable with ``tabindex="-1"`` (reachable by script, not added to the Tab order). The browser scrolls it into
view, and a screen reader reads the heading.

It runs only in a browser session (an AppTest session runs no JavaScript); its own element takes no room.
"""
from __future__ import annotations

import streamlit as st

_JS = """export default function ({ data, parentElement }) {
  const node = parentElement.host || parentElement;  // (a shadow root's host, or the element itself)
  const own = node.closest && node.closest('[data-testid="stElementContainer"]');
  if (own) own.style.display = 'none';
  if (!data || !data.target) return;
  let tries = 0;
  const go = () => {
    const box = document.querySelector('.st-key-' + CSS.escape(data.target));
    const head = box && (box.querySelector('h1, h2, h3, h4, h5, h6') || box);
    if (!head) { if (tries++ < 300) requestAnimationFrame(go); return; }
    if (!head.hasAttribute('tabindex')) head.setAttribute('tabindex', '-1');
    head.focus();
  };
  go();
}"""
_component = None


def focus_once(target: str, token: str) -> None:
    """Focus the container keyed ``target`` when this element is drawn; ``token`` names the event (a new token
    focuses again, the same one on a later rerun does not move the reader's focus)."""
    global _component
    from ui.charts.first_view import browser_session

    if not browser_session():
        return
    if _component is None:
        _component = st.components.v2.component("lab_focus", js=_JS)
    _component(data={"target": target, "token": token}, key=f"lab-focus-{target}")
