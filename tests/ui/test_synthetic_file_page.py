"""AppTest: the synthetic lab's file mode (a release you already have) shows no "Synthetic size m" control — the
release's size is the file's — and the one-game panel counts the original's records and the release's rows, not
the configuration's n and m."""
import io

import numpy as np
import pandas as pd

from apptest_helpers import open_page

PAGE = "pages/40_Synthetic_data.py"
ORIGINAL_ROWS, RELEASE_ROWS = 240, 130


def _csv(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode()


def _tables() -> tuple[bytes, bytes]:
    rng = np.random.default_rng(5)
    original = pd.DataFrame({"age": rng.choice(["18-29", "30-44", "45-64", "65+"], ORIGINAL_ROWS),
                             "region": rng.choice(["north", "south", "east", "west", "centre"], ORIGINAL_ROWS),
                             "sex": rng.choice(["f", "m"], ORIGINAL_ROWS),
                             "smoker": rng.choice(["no", "yes"], ORIGINAL_ROWS)})
    release = original.sample(RELEASE_ROWS, replace=True, random_state=3)  # a leaky release of another size
    return _csv(original), _csv(release)


def _sidebar_keys(at) -> set[str]:
    return {w.key for kind in ("number_input", "select_slider", "slider") for w in at.sidebar.get(kind)}


def test_file_mode_has_no_synthetic_size_and_the_example_counts_the_files():
    original, release = _tables()
    # a CSV first (nothing runs before the upload), small settings for the run on the lab's own generator
    at = open_page(PAGE, timeout=600, run=False, games=2, synth_size=100, n=100, attack="dcr", control_risk="false")
    at.session_state["synthetic.dataset"] = "csv"
    at.run()
    assert not at.exception, at.exception
    at.sidebar.file_uploader[0].set_value(("people.csv", original, "text/csv")).run()
    assert not at.exception, at.exception
    assert "synthetic.synth_size" in _sidebar_keys(at)  # a generator of the lab's: the size is a choice
    at.selectbox(key="synthetic.generator").set_value("file").run()
    at.sidebar.file_uploader[1].set_value(("release.csv", release, "text/csv")).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert "synthetic.synth_size" not in _sidebar_keys(at)  # the release's size is the file's
    intro = next(m.value for m in at.markdown if m.value.startswith("Game 1:"))
    assert f"among the {ORIGINAL_ROWS:,} records" in intro, intro  # the original's rows, not the config's n = 200
    assert f"{RELEASE_ROWS:,} synthetic rows" in intro, intro
