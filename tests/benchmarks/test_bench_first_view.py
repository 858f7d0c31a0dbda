"""bench_first_view.py --frame (benchmarks/floor_pages.py): the lab's frame measured alone, as a copy of the lab
whose one extra page is the one-chart floor (no browser here: what the copy holds, and that the app lists the page
where the benchmark looks)."""
from __future__ import annotations

import re
import sys

from lab_paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from floor_pages import FLOOR_APP, frame_tree  # noqa: E402


def test_frame_tree_is_the_lab_with_the_floor_as_one_more_page():
    with frame_tree() as tree:
        page = tree / "pages" / "99_Lab_frame.py"
        assert page.read_text(encoding="utf-8").endswith(FLOOR_APP)  # the floor's own code, nothing of a lab's
        for part in ("serve.py", "app.py", ".streamlit/config.toml", "ui/charts/first_view.py", "ui/server/page_head.py"):
            assert (tree / part).read_bytes() == (ROOT / part).read_bytes(), part
        assert not (tree / ".git").exists() and not list(tree.glob(".venv*"))
        assert not list(tree.rglob("__pycache__"))
        # app.py lists every pages/NN_Name.py as a page titled by its name, so the benchmark's URL is /Lab_frame
        app = (tree / "app.py").read_text(encoding="utf-8")
        assert 'sorted((ROOT / "pages").glob("[0-9]*_*.py"))' in app
        assert re.sub(r"^\d+_", "", page.stem) == "Lab_frame"
        pages = sorted(p.name for p in (tree / "pages").glob("[0-9]*_*.py"))
        assert pages == sorted([p.name for p in (ROOT / "pages").glob("[0-9]*_*.py")] + ["99_Lab_frame.py"])
    assert not tree.exists()  # the copy goes with the run
