"""Settings and fixtures for every test, wherever its file sits in the tree (docs/TESTING.md).

How test files are imported: pytest's default ``prepend`` mode, test folders without ``__init__.py``. Each test
file is then imported under its own base name with its folder put first on ``sys.path``, exactly as when the tests
were one flat folder, so what worked there keeps working under pytest-xdist: a worker process (``-n 2``) collects
the same way its controller does, and a ``spawn`` child (tests/core/runtime/test_store.py) or the run pool's
worker (jobs named by module and function, tests/helpers/pool_jobs.py) finds a module by the plain name its
parent used. The price is that two test files may not share a base name, even in different folders: pytest then
stops collecting with "import file mismatch" — name the file after its subject (``test_synthetic_page.py``, not
``test_page.py``). Not ``__init__.py`` files: every folder would need one, and a package tests/core/ without
tests/__init__.py beside it is imported as ``core``, hiding the engine. Not ``--import-mode=importlib``: it puts
no test folder on ``sys.path``, so a test file could no longer import a neighbour of its folder
(tests/browser/test_accessibility.py reads the page list of test_browser.py).

The shared helpers (browser_helpers, apptest_helpers, db_helpers, pool_jobs, …) live in tests/helpers/, put on
``sys.path`` here, so a test anywhere imports them by their plain names, as do the processes it starts (a child
inherits ``sys.path``; a process started from the command line gets it through PYTHONPATH)."""
import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(TESTS / "helpers"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Each test session gets its own empty result store (core/runtime/store.py), never the user's shared one; each
# of pytest-xdist's worker processes its own (a worker inherits the environment its controller set).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["LAB_STORE"] = tempfile.mkdtemp(prefix=f"lab-store-test-{os.environ['PYTEST_XDIST_WORKER']}-")
else:
    os.environ.setdefault("LAB_STORE", tempfile.mkdtemp(prefix="lab-store-test-"))
# ... and its own records database (class mode: core/db, core/classroom), never the user's
os.environ["LAB_DATABASE"] = os.path.join(tempfile.mkdtemp(prefix="lab-db-test-"), "lab.sqlite3")


# The browser tests' lab server (one a worker, for the session) and Chromium (one a module): browser_helpers.py
from browser_helpers import browser, server  # noqa: E402,F401
# The records database of each backend (SQLite, a throwaway PostgreSQL): db_helpers.py
from db_helpers import db, postgres_cluster  # noqa: E402,F401


# Folders whose every test gets a marker, so that a test put there cannot miss it: tests/browser/ holds the tests that
# need Chromium or a real lab server (the ``browser`` marker leaves them out of the quick run).
FOLDER_MARKERS = {"browser": "browser"}


def _top_folder(path) -> str:
    """The folder of tests/ a test file sits in ("browser" for tests/browser/test_browser.py), "" at the top."""
    try:
        parts = Path(path).resolve().relative_to(TESTS.resolve()).parts
    except ValueError:  # a test collected from outside tests/ (pytest given another folder)
        return ""
    return parts[0] if len(parts) > 1 else ""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Every test in tests/browser/, and every test elsewhere that uses the lab server or Chromium fixture, is a
    browser test. The browser tests share one lab server and Chromium (the fixtures above): under
    ``-n 2 --dist loadgroup`` they all run in one worker, one after another, while the other worker takes the
    engine and AppTest tests. First among the hooks, because pytest-xdist's own reads the group marker in this
    same hook (and before the one that selects by ``-m``, so a test that only uses the fixtures is a browser test
    too). The group takes effect only where pytest-xdist can append it to each test's id, which pytest 9.2's
    structured ids prevent (requirements.txt pins 9.1.1; tests/browser/test_browser.py checks the ids)."""
    for item in items:
        if _top_folder(item.path) in FOLDER_MARKERS:
            item.add_marker(FOLDER_MARKERS[_top_folder(item.path)])
        if item.get_closest_marker("browser") is not None or {"server", "browser"} & set(item.fixturenames):
            item.add_marker(pytest.mark.browser)  # so that -m "not browser" leaves out every test needing them
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture(autouse=True)
def _keep_main_module():
    """AppTest.from_function runs its script as ``__main__`` and can leave that module behind; a later test
    that starts ``spawn`` processes (tests/core/runtime/test_store.py) would then make each child re-run the temporary
    script and die with NameError. Put the real ``__main__`` back after every test."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main
