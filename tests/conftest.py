import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """The browser tests share one lab server and Chromium (the fixtures above): under
    ``-n 2 --dist loadgroup`` they all run in one worker, one after another, while the other worker takes the
    engine and AppTest tests. First among the hooks, because pytest-xdist's own reads the group marker in this
    same hook (and before the one that selects by ``-m``, so a test that only uses the fixtures is a browser test
    too). The group takes effect only where pytest-xdist can append it to each test's id, which pytest 9.2's
    structured ids prevent (requirements.txt pins 9.1.1; tests/test_browser.py checks the ids)."""
    for item in items:
        if item.get_closest_marker("browser") is not None or {"server", "browser"} & set(item.fixturenames):
            item.add_marker(pytest.mark.browser)  # so that -m "not browser" leaves out every test needing them
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture(autouse=True)
def _keep_main_module():
    """AppTest.from_function runs its script as ``__main__`` and can leave that module behind; a later test
    that starts ``spawn`` processes (tests/test_store.py) would then make each child re-run the temporary
    script and die with NameError. Put the real ``__main__`` back after every test."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main
