"""Uploaded files on disk: private, shared by content, deleted when no session needs them.

Some engine parameters are file paths (``trace_file``, ``data_path``), so an upload has to live on
disk while a session uses it. :func:`save_upload` writes it into one private folder of this server
process (``mkdtemp``: mode 0700) as a file only the server's user can read (mode 0600, created with
``O_EXCL`` so nothing pre-planted is reused), named by the content's SHA-256 so sessions that upload
the same bytes share one file. Each session holds at most one file per ``kind``; the file is deleted
as soon as no session holds it — when a session uploads another file, clears the upload, or ends
(its state is garbage-collected) — and the whole folder when the server exits.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import tempfile
import threading
import weakref
from pathlib import Path
from typing import MutableMapping

#: The file types every CSV-taking lab's uploader accepts (the import step reads each; .xls and .ods only to refuse
#: them with "save it as CSV", where the uploader's own "files are not allowed" gave no hint).
UPLOAD_TYPES = ["csv", "tsv", "txt", "xlsx", "xls", "ods"]

_LOCK = threading.Lock()
_DIR: Path | None = None
_HOLDERS: dict[str, int] = {}  # path -> number of sessions holding it


def upload_dir() -> Path:
    """The private folder of this server process (created on first use, removed at exit)."""
    global _DIR
    with _LOCK:
        if _DIR is None or not _DIR.is_dir():
            _DIR = Path(tempfile.mkdtemp(prefix="lab-uploads-"))  # mode 0700
            atexit.register(shutil.rmtree, _DIR, True)
            from core.output.report import register_private_dir

            register_private_dir(_DIR)  # reports and rerun commands show the file's name, never this path
        return _DIR


def safe_file_name(name: str, suffix: str = ".csv") -> str:
    """The user's file name as stored and shown: its last path part, letters, digits and ``_ .,()+-`` only.

    A browser sends whatever name the user's file has; it ends up in messages and captions, so anything that
    could be read as Markdown, a path or a Streamlit directive (brackets, asterisks, backticks, colons,
    slashes, angle brackets) becomes ``-``."""
    base = str(name).replace("\\", "/").rsplit("/", 1)[-1]
    base = re.sub(r"[^\w .,()+-]", "-", base).strip(" .")[:100]
    return base or f"upload{suffix}"


class _Hold:
    """One session's claim on one file; the file goes when the last claim is dropped or collected."""

    def __init__(self, path: str):
        self.path = path
        self._finalizer = weakref.finalize(self, _release, path)

    def release(self) -> None:
        self._finalizer()


def _release(path: str) -> None:
    with _LOCK:
        left = _HOLDERS.get(path, 0) - 1
        if left > 0:
            _HOLDERS[path] = left
            return
        _HOLDERS.pop(path, None)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        folder = os.path.dirname(path)
        if _DIR is not None and folder != str(_DIR):  # the file's own folder (a named upload), now empty
            try:
                os.rmdir(folder)
            except OSError:
                pass


def _state() -> MutableMapping:
    import streamlit as st

    return st.session_state


def save_upload(data: bytes, kind: str, suffix: str = ".csv", state: MutableMapping | None = None,
                name: str | None = None) -> str:
    """Path of a private file holding ``data``, held for this session under ``kind``.

    ``state`` is the session's state mapping (default: ``st.session_state``). ``name``: the user's file name
    (``upload.name``); the file is then stored under that name (made safe) in a private folder of its own, so
    every message, caption, report and rerun command of the engine shows the name the user knows instead of
    an internal one.
    """
    state = _state() if state is None else state
    key = f"_upload.{kind}"
    digest = hashlib.sha256(data).hexdigest()[:24]
    if name is None:
        path = str(upload_dir() / f"{kind}-{digest}{suffix}")
    else:
        path = str(upload_dir() / f"{kind}-{digest}" / safe_file_name(name, suffix))
    held = state.get(key)
    if isinstance(held, _Hold) and held.path == path and os.path.exists(path):
        return path
    with _LOCK:
        folder = os.path.dirname(path)
        if not os.path.isdir(folder):
            os.mkdir(folder, 0o700)
        if not os.path.exists(path):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        _HOLDERS[path] = _HOLDERS.get(path, 0) + 1
    state[key] = _Hold(path)
    if isinstance(held, _Hold):
        held.release()
    return path


def held_file(digest: str, state: MutableMapping | None = None) -> str | None:
    """The path of a file this session holds whose content has the SHA-256 ``digest`` (None if none): a pinned
    run on an upload reruns on the same file uploaded again."""
    state = _state() if state is None else state
    for key, held in list(state.items()):
        if str(key).startswith("_upload.") and isinstance(held, _Hold) and os.path.isfile(held.path):
            with open(held.path, "rb") as fh:
                if hashlib.file_digest(fh, "sha256").hexdigest() == digest:
                    return held.path
    return None


def drop_upload(kind: str, state: MutableMapping | None = None) -> None:
    """Release this session's file of ``kind`` (e.g. when the user removed the upload)."""
    state = _state() if state is None else state
    held = state.pop(f"_upload.{kind}", None)
    if isinstance(held, _Hold):
        held.release()
