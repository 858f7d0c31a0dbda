import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Each test session gets its own empty result store (core/store.py), never the user's shared one.
os.environ.setdefault("LAB_STORE", tempfile.mkdtemp(prefix="lab-store-test-"))
