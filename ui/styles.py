"""Page-wide styles: the CSS that keeps the lab's text at WCAG 2.1 AA contrast."""
from __future__ import annotations

import streamlit as st


# ---------------------------------------------------------------- accessibility
# Streamlit draws captions at 60% opacity: its grey (#828180 on white, 3.88:1) fails WCAG 2.1 AA contrast (4.5:1
# for body-size text), and links inside turn a pale blue (2.96:1). Full opacity with a darker grey (#55585f, 6.9:1)
# and a darker link blue (#1a56a8, 6.9:1) keep captions visibly secondary and readable. Code blocks: the syntax
# highlighter's light blue (#00a4d4, 2.81:1) gives way to the code's own dark colour, and long lines wrap instead of
# scrolling (a scrollable block must be reachable by keyboard, and Streamlit's is not focusable).
ACCESSIBLE_CSS = """<style>
[data-testid="stCaptionContainer"]{opacity:1 !important;color:#55585f !important}
[data-testid="stCaptionContainer"] a{color:#1a56a8 !important}
[data-testid="stCode"] code span{color:inherit !important}
[data-testid="stCode"] pre{white-space:pre-wrap !important;overflow-wrap:anywhere}
</style>"""


def accessible_styles() -> None:
    """The page-wide CSS that brings Streamlit's faded text up to WCAG 2.1 AA contrast (app.py, every page)."""
    st.html(ACCESSIBLE_CSS)
