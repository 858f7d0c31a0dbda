"""The real-browser tests' shared pieces: Debian's Chromium and how it is launched, and the two fixtures every
browser test uses — one lab server (``serve.py``, as ``run.sh app`` starts it) and one headless Chromium.

The fixtures are registered by conftest.py. Each pytest worker process has one server for the whole session:
the lab's caches and the worker's result store fill once (a lab's default run is computed on the first visit
and drawn from the store on every later one), instead of once per test module. Under
``-n 2 --dist loadgroup`` every test that uses them runs in the same worker (conftest.py groups them).
A test module must not import ``server`` or ``browser`` itself: the imported name would register a fixture of
that module's own, with a server of its own."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from lab_paths import ROOT

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
SHOTS = ROOT / "artifacts" / "screenshots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    """The lab served on a free port of 127.0.0.1 for the whole session; its log goes to a file (a pipe nobody
    reads would fill up over a session's worth of runs and stall the server's writes)."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail("CI needs /usr/bin/chromium for the browser test (run.sh installs it)")
        pytest.skip("no /usr/bin/chromium")
    port = free_port()
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    log = tempfile.NamedTemporaryFile(prefix="lab-test-server-", suffix=".log", delete=False)
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"),
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline, up = time.time() + 60, False
    while not up and time.time() < deadline and proc.poll() is None:
        try:
            up = urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok"
        except OSError:
            time.sleep(0.5)
    if not up:
        proc.kill()
        log.close()
        pytest.fail("streamlit did not start: " + Path(log.name).read_text(errors="replace")[-2000:])
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()
    os.unlink(log.name)


@pytest.fixture(scope="module")
def browser():
    """Chromium, for one test module at a time: Playwright's sync API holds an asyncio loop open while it runs, and
    a later module that runs its own loop (tests/browser/test_stclient.py) or its own Playwright (the PDF report test)
    could not while a session-long browser held it. Launching it takes a second; the server is what is shared."""
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def printed_pages(path: Path) -> list[str]:
    """The text of each A4 page of the HTML file ``path`` as Chromium prints it once its Plotly chart is drawn
    (whitespace collapsed, ligatures such as ﬀ unfolded), for the report tests. Skips without Chromium."""
    import io
    import re
    import unicodedata

    pypdf = pytest.importorskip("pypdf")
    playwright = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip("no /usr/bin/chromium")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = b.new_page()
            page.goto(Path(path).as_uri())
            page.wait_for_selector(".plotly-graph-div .main-svg")
            pdf = page.pdf(format="A4", print_background=True)
        finally:
            b.close()
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [re.sub(r"\s+", " ", unicodedata.normalize("NFKC", pg.extract_text())) for pg in reader.pages]
