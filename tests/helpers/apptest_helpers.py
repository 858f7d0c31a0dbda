"""Shared AppTest plumbing for the page tests: open a lab through app.py's navigation, read chart titles."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest
from lab_paths import ROOT


def open_page(page: str, timeout: float = 180, run: bool = True, **params) -> AppTest:
    """``pages/…`` opened through app.py (as a visitor would), with ``params`` as the link's query parameters;
    ``run=False`` returns it before the page's first run so a test can set more query parameters."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout).run()
    at.switch_page(page)
    for key, value in params.items():
        at.query_params[key] = str(value)
    return at.run() if run else at


def chart_titles(at: AppTest) -> list[str]:
    """The title text of every plotly chart on the page."""
    return [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]


def before_first_chart(at: AppTest) -> list[str]:
    """The types of the main column's elements above its first plotly chart, in page order (containers
    entered, not listed): what a browser draws before that chart on a new tab's first view."""
    from streamlit.testing.v1.element_tree import Block

    seen: list[str] = []

    def walk(block) -> bool:
        for key in sorted(block.children):
            node = block.children[key]
            if isinstance(node, Block):
                if walk(node):
                    return True
            elif node.type == "plotly_chart":
                return True
            else:
                seen.append(node.type)
        return False

    if not walk(at.main):
        raise AssertionError("the page has no chart")
    return seen
