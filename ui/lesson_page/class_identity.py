"""Who is asking, for class mode: the browser that holds a seat, and the visitor the class limits count.

* The **browser** is the secret token inside Streamlit's XSRF cookie (``_streamlit_xsrf``, set once per browser and
  sent with the page's websocket): the cookie's text changes on every page load (its mask does), the token inside it
  does not. Only a SHA-256 digest of the token is used and stored. A fresh browser — or a browser a stranger opens
  a student's address in — has another token, so it holds no seat. Without the cookie (XSRF protection turned off)
  the browser is this page session: a reload then needs the PIN.
* The **client address** counts only when the lab sits behind its proxy (the connection comes from this machine and
  carries ``X-Forwarded-For``, whose last entry the proxy wrote); a direct connection's address is used as it is.
"""
from __future__ import annotations

import binascii
import hashlib

import streamlit as st

from core.classroom import Visitor
from ui.widgets.feedback import session_id


def _digest(kind: str, value: bytes | str) -> str:
    raw = value if isinstance(value, bytes) else value.encode()
    return hashlib.sha256(kind.encode() + b":" + raw).hexdigest()[:32]


def _xsrf_token(cookie: str) -> bytes | None:
    """The token inside an XSRF cookie (version 2: ``2|mask|masked token|time``, the token is mask XOR masked)."""
    value = cookie.strip("\"'")
    try:
        if value.startswith("2|"):
            _, mask_hex, masked_hex, _ = value.split("|")
            mask, masked = binascii.a2b_hex(mask_hex), binascii.a2b_hex(masked_hex)
            return bytes(m ^ mask[i % len(mask)] for i, m in enumerate(masked)) or None
        return binascii.a2b_hex(value) or None
    except (binascii.Error, ValueError):
        return None


def browser() -> str | None:
    """This browser's digest (None outside a server and without a session: unit tests)."""
    try:
        cookie = st.context.cookies.get("_streamlit_xsrf")
    except Exception:  # no request context
        cookie = None
    token = _xsrf_token(cookie) if isinstance(cookie, str) and cookie else None
    if token:
        return _digest("browser", token)
    sid = session_id()
    return _digest("session", sid) if sid else None


def address() -> str | None:
    """A digest of the client's address: the proxy's ``X-Forwarded-For`` entry when the connection comes from this
    machine, else the connection's own address (None when neither is known)."""
    try:
        ip = st.context.ip_address
        forwarded = st.context.headers.get("X-Forwarded-For")
    except Exception:
        return None
    ip = ip if isinstance(ip, str) else None  # (a test harness's stand-in is not an address)
    if isinstance(forwarded, str) and forwarded and (ip is None or ip in ("127.0.0.1", "::1")):
        ip = forwarded.split(",")[-1].strip()
    return _digest("address", ip) if ip else None


def visitor() -> Visitor:
    return Visitor(browser=browser(), address=address())


def lab_address(path: str) -> str:
    """An absolute address on this lab (scheme and host the visitor's browser used), for links handed to others."""
    from urllib.parse import urlsplit

    try:
        url = st.context.url
        host = st.context.headers.get("Host")
    except Exception:
        url = host = None
    if isinstance(url, str) and url:
        parts = urlsplit(url)
        if parts.scheme and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}{path}"
    return f"http://{host if isinstance(host, str) and host else 'localhost:8501'}{path}"
