"""Where the repository is, for every test wherever its file sits in the tests/ tree: ``from lab_paths import
ROOT``. A test that counted parent folders (``Path(__file__).parent.parent``) would break each time its file moved
to a deeper or shallower folder."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # tests/helpers/lab_paths.py → the repository
