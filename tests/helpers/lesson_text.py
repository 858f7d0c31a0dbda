"""What a student can read on a Lessons page (AppTest), and the ways a step's measured answer can be printed: shared
by the tests that check a lesson reveals nothing early and shows only human labels."""
from __future__ import annotations

import html
import json
import re

from streamlit.testing.v1.element_tree import Block

_TAG = re.compile(r"<[^>]+>")


def _chart_text(spec: str) -> list[str]:
    """What a chart prints: its titles, annotations, series names and text labels, and the values a funnel or bar
    writes on itself (a funnel's "percent initial" too)."""
    fig = json.loads(spec)
    layout, out = fig.get("layout", {}), []

    def title(obj):
        t = (obj or {}).get("title")
        return t.get("text", "") if isinstance(t, dict) else (t or "")

    out.append(title(layout))
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            out.append(title(axis))
    out += [a.get("text", "") for a in layout.get("annotations", [])]
    for trace in fig.get("data", []):
        out.append(str(trace.get("name", "")))
        text = trace.get("text")
        out += [str(t) for t in text] if isinstance(text, list) else [str(text or "")]
        info = trace.get("textinfo", "")
        if trace.get("type") == "funnel" or "value" in info or "percent" in info:
            values = [v for v in trace.get("x" if trace.get("orientation", "h") == "h" else "y", [])
                      if isinstance(v, (int, float))]
            out += [f"{v:g}" for v in values]
            if values and values[0] and "percent" in info:
                out += [f"{100 * v / values[0]:.0f}%" for v in values]
    return [_TAG.sub(" ", t) for t in out if t]


def page_text(at) -> list[str]:
    """Every piece of text the page shows, in page order: markdown, captions, metrics, widget labels and options,
    buttons, tables, the charts' printed text and their text alternatives (expander labels included)."""
    out: list[str] = []

    def walk(block):
        for key in sorted(block.children):
            node = block.children[key]
            if isinstance(node, Block):
                label = getattr(getattr(node.proto, "expandable", None), "label", "")
                if label:
                    out.append(label)
                walk(node)
                continue
            kind = node.type
            if kind == "plotly_chart":
                out.extend(_chart_text(node.proto.spec))
            elif kind in ("dataframe", "arrow_data_frame"):
                frame = node.value
                out.extend(map(str, frame.columns))
                out.extend(str(v) for v in frame.astype(str).to_numpy().ravel())
            elif kind == "html":
                out.append(html.unescape(_TAG.sub(" ", node.proto.body)))
            else:
                for attr in ("label", "value", "body", "options", "help", "placeholder"):
                    try:
                        v = getattr(node, attr)
                    except Exception:  # noqa: BLE001 - an element without that field
                        continue
                    if isinstance(v, str):
                        out.append(v)
                    elif isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
                        out.extend(v)
    walk(at.main)
    walk(at.sidebar)
    return [t for t in out if t]


def answer_forms(step, truth: float) -> set[str]:
    """The ways a page prints ``truth``: the reveal card's value, and for a share 45% and 45.0%, for any other
    quantity its 2- and 3-significant-digit forms (single digits are left out: they are everywhere)."""
    p = step.predict
    forms = {p.shown(truth)} if p.kind != "choice" else set()
    if p.percent:  # (a chart's data table prints the fraction itself, to 4 significant digits)
        forms |= {f"{100 * truth:.0f}%", f"{100 * truth:.1f}%", f"{truth:.4g}"}
    else:
        forms |= {f"{truth:.2f}", f"{truth:.3g}", f"{truth:.4g}"}
    return {f for f in forms if len(re.sub(r"\D", "", f).lstrip("0")) >= 2 and f not in ("100%", "100.0%")}


def shows(texts: list[str], form: str) -> str | None:
    """The first of ``texts`` that prints ``form`` as a whole number (not inside a longer one), or None."""
    pattern = re.compile(r"(?<![\d.,])" + re.escape(form) + (r"(?![\d])" if form.endswith("%") else r"(?![\d%]|\.\d)"))
    for text in texts:
        if pattern.search(text):
            return text
    return None


_LINK_TARGET = re.compile(r"\]\([^)]*\)")  # a Markdown link's address is not shown, only its text
_SNAKE = re.compile(r"(?<![\w/#.=-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/])")
_NONE = re.compile(r"(?<![\w-])(None|nan|NaN)(?![\w-])")


def raw_labels(texts: list[str]) -> list[str]:
    """Engine names shown as they are in ``texts``: snake_case identifiers and ``None``/``nan`` (each with a little
    context)."""
    out = []
    for text in texts:
        shown = _LINK_TARGET.sub("]", text)
        for pattern in (_SNAKE, _NONE):
            for m in pattern.finditer(shown):
                out.append(f"{m.group(0)!r} in {shown[max(0, m.start() - 40):m.end() + 40]!r}")
    return out
