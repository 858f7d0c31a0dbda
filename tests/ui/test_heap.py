"""ui/server/heap.py: the server imports what its pages import, then freezes the heap, so Python's full collections
walk only what sessions make afterwards."""
from __future__ import annotations

import gc
import logging
import sys
import textwrap

import pytest

from ui.server.heap import ROOT, app_files, freeze_libraries, page_imports


def test_page_imports_are_the_top_level_absolute_imports_in_order_each_once(tmp_path):
    page = tmp_path / "page.py"
    page.write_text(textwrap.dedent("""
        import json, os.path
        from collections import OrderedDict
        from . import sibling
        import json
        def later():
            import csv  # imported when the function runs, not before the page draws
    """))
    assert page_imports([page]) == ["json", "os.path", "collections"]


def test_the_real_pages_need_streamlit_and_the_engine():
    files = app_files()
    assert files[0] == ROOT / "app.py" and len(files) > 10
    names = page_imports(files)
    assert {"streamlit", "ui.widgets.page_widgets", "ui.charts.first_view"} <= set(names)
    assert any(n.startswith("core.") for n in names)


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()  # the test process goes on collecting as before


def test_freezing_imports_the_pages_modules_and_leaves_the_collector_little_to_walk(tmp_path, monkeypatch, unfrozen,
                                                                                   caplog):
    module = tmp_path / "lab_heap_probe.py"
    module.write_text("TABLE = [{'row': i} for i in range(5000)]\n")
    page = tmp_path / "page.py"
    page.write_text("import lab_heap_probe\nimport lab_heap_no_such_module\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = len(gc.get_objects())
    with caplog.at_level(logging.WARNING, logger="ui.server.heap"):
        frozen = freeze_libraries([page])
    assert "lab_heap_probe" in sys.modules  # imported before any session needs it
    assert "lab_heap_no_such_module" in caplog.text  # a broken import is logged, not raised: its page says so
    table = sys.modules["lab_heap_probe"].TABLE
    assert frozen >= len(table) and gc.get_freeze_count() > 0
    walked = gc.get_objects()  # what a full collection still walks: not the probe's rows, nor most of the rest
    assert not any(o is table for o in walked) and len(walked) < before / 10
    del sys.modules["lab_heap_probe"]
