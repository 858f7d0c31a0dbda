r"""Untrusted text made inert before it reaches a message that renders Markdown.

A link's value, an uploaded file's name, a column name or a table cell is written by a stranger. Streamlit's
messages (``st.toast``, ``st.error``, ``st.warning``, ``st.info``, ``st.markdown``, captions) render Markdown, and
GitHub-flavoured Markdown turns ``[text](url)`` into a live link, ``![x](url)`` into an image every visitor's
browser fetches (a tracking pixel in a shared class link), and even a bare ``www.example.org`` or ``a@b.org`` into
a link. Escaping Markdown's punctuation with backslashes does not stop those bare "autolinks", so this module
offers two tools, both pure text (the engine never imports Streamlit):

* :func:`inert` quotes one value inside a sentence of ours as an inline code span: nothing inside a code span is
  interpreted — no link, image, emphasis, HTML, maths or colour directive. Control characters are shown as
  escapes (``\\x1b``), so a value cannot break the line or fake a new one, and a long value is shortened with its
  length said, so a 1 MB link value is not a 1 MB toast.
* :func:`inert_text` keeps a whole message readable as prose (an engine error that quotes a value): the
  characters that open a link, an image, HTML, maths or a colour directive (``[ ] < > ` $ \``) are escaped, and
  a zero-width space is put into every autolink trigger (``://``, ``www.``, ``@``), which the eye does not see
  and the Markdown parser does not link.
"""
from __future__ import annotations

import re
import unicodedata

from ..basics.words import VALUE_LIMIT, shorten

TEXT_LIMIT = 2000  # characters of a whole message

_ZWSP = "\u200b"
# what makes a link, an image, HTML, maths or a colour directive; emphasis (``*``, ``_``) is left alone, so
# names such as query_ratio read as written and a message stays searchable
_PUNCT = re.compile(r"([\\`\[\]<>$])")
_AUTOLINK = re.compile(r"(?i)(://|www\.|@|mailto:|xmpp:)")


def _visible(text: str) -> str:
    """Control and other invisible characters (bidi overrides, zero-width) as escapes; the rest as is."""
    out = []
    for ch in text:
        if ch.isprintable() and unicodedata.category(ch) not in ("Cf", "Co", "Cs"):
            out.append(ch)
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def inert(value: object, limit: int = VALUE_LIMIT) -> str:
    """``value`` as an inline code span safe in any Markdown message: shown literally, one line, at most
    ``limit`` characters (then "… (N characters)" outside the span)."""
    text = "" if value is None else str(value)
    more = f"… ({len(text):,} characters)" if len(text) > limit else ""
    shown = _visible(text[:limit])
    # a code span's fence is longer than any run of backticks inside it; spaces keep edge backticks apart
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if (shown.startswith("`") or shown.endswith("`") or not shown.strip()) else ""
    if not shown:
        shown, pad = "(empty)", ""
    return f"{fence}{pad}{shown}{pad}{fence}{more}"


def inert_text(text: object, limit: int = TEXT_LIMIT) -> str:
    """A whole message of plain text made safe to render as Markdown: it reads the same, links nothing."""
    text = shorten("" if text is None else str(text), limit)
    text = _visible(" ".join(text.splitlines()))
    # a zero-width space inside each autolink trigger, then Markdown's punctuation escaped
    text = _AUTOLINK.sub(lambda m: {"://": ":" + _ZWSP + "//", "@": _ZWSP + "@"}.get(
        m.group(1), m.group(1)[:-1] + _ZWSP + m.group(1)[-1]), text)
    return _PUNCT.sub(r"\\\1", text)


# ------------------------------------------------------------------ values a link may carry at all
LINK_VALUE_LIMIT = 200  # characters of one query parameter (a pins token may be longer: LINK_TOKEN_LIMIT)
LINK_TOKEN_LIMIT = 8192
_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*", re.I)
_NOT_FINITE = re.compile(r"\s*[+-]?(inf|infinity|nan)\s*", re.I)


def link_value_problem(value: str, limit: int = LINK_VALUE_LIMIT) -> str | None:
    """Why a query parameter's value cannot be anything a lab's widget could set, or None.

    Too long, holding control characters, or a number that is not finite (``inf``, ``nan``, ``1e309``, which
    overflows a float): no widget offers such a value, and some of Streamlit's own URL readers raise on them."""
    text = str(value)
    if len(text) > limit:
        return f"too long ({len(text):,} characters; at most {limit:,})"
    if any(not ch.isprintable() for ch in text):
        return "holds control characters"
    if _NOT_FINITE.fullmatch(text):
        return "not a finite number"
    if _NUMBER.fullmatch(text):
        try:
            number = float(text)
        except ValueError:
            return "not a number"
        if number != number or number in (float("inf"), float("-inf")):
            return "too large a number"
    return None
