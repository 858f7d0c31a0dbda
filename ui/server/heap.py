"""The server's libraries, imported at its start and then kept out of Python's full garbage collections.

A full (oldest-generation) collection walks every object the cyclic collector tracks. With what the labs import
loaded (Streamlit, pandas, scikit-learn, plotly and the engine: about 190,000 objects, nearly all of them
functions, classes and module dictionaries that live as long as the server), one walk holds the interpreter lock
for a tenth of a second or more (0.3–0.55 s seen on the serving machine with its caches filled): every session's
script and the sending of every queued message wait for it, a new tab's first chart among them.
``postScriptGC = false`` (.streamlit/config.toml) stopped Streamlit's own collection after each run; Python still
starts one of its own as objects pile up.

:func:`freeze_libraries`, called once by ``serve.py`` before the server takes a session, imports every module the
pages import, collects once, and moves what is then alive into the collector's permanent generation
(``gc.freeze``): later collections walk only what came after (``benchmarks/bench_heap.py`` measures both).
Nothing of any session exists yet, so nothing a session leaves behind is frozen; frozen objects are still freed
when their last reference goes, and only a reference cycle among them, made before any session, is never
collected. The imports also spare the first visitor of each lab the wait for them.
"""
from __future__ import annotations

import ast
import gc
import importlib
import logging
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_log = logging.getLogger(__name__)


def page_imports(files) -> list[str]:
    """The absolute modules the top level of each file imports (``import a.b``, ``from a.b import c``), in order,
    each once: what a page needs before it can draw anything."""
    names: list[str] = []
    for path in files:
        for node in ast.parse(Path(path).read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.append(node.module)
    return list(dict.fromkeys(names))


def app_files() -> list[Path]:
    """app.py and the pages it serves (the files whose imports a visitor's first run needs)."""
    return [ROOT / "app.py", *sorted((ROOT / "pages").glob("[0-9]*_*.py"))]


def freeze_libraries(files=None) -> int:
    """Import what the app and its pages import (``files``: app.py and pages/*.py), collect, then freeze the
    heap. A module that fails to import is logged and left to fail where a page imports it, with the page's own
    message. Returns the number of objects frozen."""
    files = files if files is not None else app_files()
    # Before the server runs, each st.cache_data a module defines checks its settings against an in-memory store
    # and says so ("No runtime found"); the cache itself is made at its first call, in the server's own store.
    quiet = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        for name in page_imports(files):
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 — the page that imports it reports it, where a visitor can see it
                _log.warning("could not import %s before serving", name, exc_info=True)
    finally:
        quiet.setLevel(level)
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
