"""The shipped Caddyfile in front of several lab servers: sticky sessions, failover, and the hardening an IT review
asks for (body limit, metrics hidden, loopback-only trial, optional access log and password, HSTS only over TLS).

The lab servers here are two small HTTP servers in this process that answer like Streamlit's health route and say
which of them answered, so the proxy's own behaviour is measured in seconds; tests/house/test_security.py runs the same
Caddyfile in front of a real lab server (headers and the websocket).
"""
from __future__ import annotations

import base64
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from lab_paths import ROOT

CADDYFILE = ROOT / "deploy" / "Caddyfile"


def _caddy() -> str:
    caddy = shutil.which("caddy")
    if caddy is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs caddy for the proxy tests (run.sh installs it)")
        pytest.skip("caddy is not installed (apt-get install caddy)")
    return caddy


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Upstream:
    """A stand-in lab server: 200 on /_stcore/health, its own name on every other path."""

    def __init__(self, name: str):
        self.name = name
        upstream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                body = b"ok" if self.path == "/_stcore/health" else upstream.name.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args) -> None:  # keep the test's output clean
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _env(tmp_path: Path, port: int, upstreams: list[_Upstream], **extra: str) -> dict[str, str]:
    return {**os.environ, "LAB_SITE": f":{port}", "LAB_UPSTREAM": " ".join(u.address for u in upstreams),
            "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), **extra}


class _Proxy:
    def __init__(self, tmp_path: Path, upstreams: list[_Upstream], **extra: str):
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([_caddy(), "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
                                     cwd=tmp_path, env=_env(tmp_path, self.port, upstreams, **extra),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError("caddy did not start")
                time.sleep(0.1)

    def get(self, path: str, headers: dict | None = None, data: bytes | None = None):
        req = urllib.request.Request(self.base + path, headers=headers or {}, data=data)
        try:
            with urllib.request.urlopen(req, timeout=15) as resp:
                return resp.status, dict(resp.headers), resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read().decode(errors="replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def two_servers():
    servers = [_Upstream("server-a"), _Upstream("server-b")]
    yield servers
    for s in servers:
        s.stop()


def _cookie(headers: dict) -> str:
    match = re.search(r"lab_server=([^;]+)", headers.get("Set-Cookie", ""))
    assert match, f"no sticky-session cookie in {headers}"
    return f"lab_server={match.group(1)}"


def test_each_browser_stays_on_one_server_and_moves_when_it_dies(tmp_path, two_servers):
    proxy = _Proxy(tmp_path, two_servers)
    try:
        first = [proxy.get("/") for _ in range(24)]
        # browsers without a cookie are spread over both servers (random choice: both are seen with
        # probability 1 - 2^-23)
        assert {body for _, _, body in first} == {"server-a", "server-b"}
        status, headers, body = first[0]
        cookie = _cookie(headers)
        # a browser with its cookie always reaches the server that holds its session
        assert {proxy.get("/", {"Cookie": cookie})[2] for _ in range(10)} == {body}
        # that server dies: the same browser is sent to the other one at once, not given an error
        dead = next(s for s in two_servers if s.name == body)
        dead.stop()
        status, _, moved = proxy.get("/", {"Cookie": cookie})
        assert status == 200 and moved != body
    finally:
        proxy.stop()


def test_metrics_hidden_and_an_oversized_body_refused_at_the_proxy(tmp_path, two_servers):
    proxy = _Proxy(tmp_path, two_servers, LAB_MAX_BODY="1000000")
    try:
        assert proxy.get("/_stcore/metrics")[0] == 404
        assert proxy.get("/_stcore/health")[0] == 200
        status, _, body = proxy.get("/upload", data=b"x" * 1000)
        assert status == 200 and body in {"server-a", "server-b"}
        # a browser announces an upload's size first: the proxy answers 413 before a byte of it is sent
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as s:
            s.sendall(f"POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n\r\n".encode())
            assert s.recv(4096).decode(errors="replace").startswith("HTTP/1.1 413"), "not refused"
        # over plain HTTP no HSTS (a trial must stay reachable), but the anti-framing headers are there
        _, headers, _ = proxy.get("/")
        assert "Strict-Transport-Security" not in headers
        assert headers["X-Frame-Options"] == "DENY"
    finally:
        proxy.stop()


def test_the_default_body_limit_is_the_labs_upload_cap():
    text = CADDYFILE.read_text()
    caddy_bytes = {int(v) for v in re.findall(r"\{\$LAB_MAX_BODY:(\d+)\}", text)}
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    # Streamlit's maxUploadSize is in MiB
    assert caddy_bytes == {config["server"]["maxUploadSize"] * 1024 * 1024}


def _adapted(tmp_path: Path, **extra: str) -> dict:
    out = subprocess.run([_caddy(), "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
                         env=_env(tmp_path, 8080, [], LAB_UPSTREAM="127.0.0.1:8501", **extra),
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    return json.loads(out.stdout)


def test_trial_mode_listens_on_loopback_only_and_hsts_is_sent_only_over_tls(tmp_path):
    config = _adapted(tmp_path)
    server = config["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == ["127.0.0.1:8080"]
    assert _adapted(tmp_path, LAB_BIND="0.0.0.0")["apps"]["http"]["servers"]["srv0"]["listen"] == ["0.0.0.0:8080"]
    hsts = [r for r in server["routes"]
            if "Strict-Transport-Security" in json.dumps(r)]
    assert len(hsts) == 1 and hsts[0]["match"] == [{"protocol": "https"}]
    # no access log unless asked for
    assert "logging" not in config


def test_access_log_and_password_when_asked_for(tmp_path, two_servers):
    hashed = subprocess.run([_caddy(), "hash-password", "--plaintext", "course-secret"], capture_output=True,
                            text=True, check=True).stdout.strip()
    log = tmp_path / "access.log"
    proxy = _Proxy(tmp_path, two_servers, LAB_ACCESS_LOG="on", LAB_ACCESS_LOG_FILE=str(log),
                   LAB_BASIC_AUTH="on", LAB_AUTH_USER="class", LAB_AUTH_HASH=hashed)
    try:
        assert proxy.get("/")[0] == 401
        good = "Basic " + base64.b64encode(b"class:course-secret").decode()
        wrong = "Basic " + base64.b64encode(b"class:guess").decode()
        assert proxy.get("/", {"Authorization": wrong})[0] == 401
        status, _, body = proxy.get("/Lessons", {"Authorization": good})
        assert status == 200 and body in {"server-a", "server-b"}
    finally:
        proxy.stop()
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert any(entry["request"]["uri"] == "/Lessons" and entry["status"] == 200 for entry in lines)
