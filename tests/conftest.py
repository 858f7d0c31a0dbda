import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Each test session gets its own empty result store (core/runtime/store.py), never the user's shared one.
os.environ.setdefault("LAB_STORE", tempfile.mkdtemp(prefix="lab-store-test-"))


@pytest.fixture(autouse=True)
def _keep_main_module():
    """AppTest.from_function runs its script as ``__main__`` and can leave that module behind; a later test
    that starts ``spawn`` processes (tests/test_store.py) would then make each child re-run the temporary
    script and die with NameError. Put the real ``__main__`` back after every test."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main
