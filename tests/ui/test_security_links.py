"""Links are untrusted input: what a shared address can make the server do (tests of the lab's link handling).

Every page with hostile values in each parameter it reads (no traceback, a note for each dropped value), Compare's
pinned-run links (no server file, no engine-only parameter, the server's limits and pool), the caches link values
key, one long run per visitor, and — in Chromium — Markdown in every parameter making no link and no request.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lab_paths import ROOT


# ------------------------------------------------------------------ no traceback, whatever the link says
BAD_LINK_VALUES = {"inf": "inf", "-inf": "-inf", "1e309": "1e309", "nan": "nan", "-1": "-1",
                   "1MB": "7" * (1 << 20), "10kB": "7" * 10_000, "control": "1\x00\x1b[2J\r\nX\u202e"}
_LINK_EXTRAS = ("pins", "preset", "ladder_scenario", "ladder_eps", "seed")


def _page_files():
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("[0-9]*_*.py"))


def _bound_names(page: str, at=None) -> list[str]:
    """Every query parameter a page may read: its widgets' keys (drawn now in ``at``, or written in its
    source), the parameters of the scenarios it shows, and the hand-read ones."""
    from core.scenario import all_scenarios

    scenarios = all_scenarios()
    keys = {k for k in at.session_state.keys() if not k.startswith(("_", "$$", "dl-"))} if at is not None else set()
    keys |= set(re.findall(r'key="([\w.\-]+)"', (ROOT / page).read_text(encoding="utf-8")))
    names = set(keys) | set(_LINK_EXTRAS)
    for key in keys:
        head, _, tail = key.partition(".")
        if head in scenarios and tail:
            names.add(tail)
    for name in re.findall(r'get\("([\w-]+)"\)', (ROOT / page).read_text(encoding="utf-8")):
        if name in scenarios:
            names |= {p.name for p in scenarios[name].params}
    return sorted(names)


@pytest.mark.parametrize("page", _page_files())
def test_no_link_value_puts_a_traceback_on_any_page(page):
    from apptest_helpers import open_page

    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    names = _bound_names(page, at)
    assert len(names) >= len(_LINK_EXTRAS) + 1
    for label, value in BAD_LINK_VALUES.items():
        at = open_page(page, **{name: value for name in names})
        problems = [e.value[:300] for e in at.exception]
        problems += [e.value[:300] for e in at.error if "Unexpected error" in e.value]
        assert not problems, f"{page} with every parameter = {label}: {problems}"
        # a value no widget can take is dropped, and the page says so (Streamlit itself ignores a query string
        # over 512 kB, so the 1 MB one never reaches the page — nor 10 kB in each of a page's 56 parameters:
        # nothing to say)
        if label != "-1" and len(names) * len(value) <= 512 * 1024:
            toasts = " ".join(t.value for t in at.toast)
            assert "Ignored the link's value" in toasts, (page, label)
            assert len(toasts) < 20_000  # a 1 MB value is never echoed whole


# ------------------------------------------------------------------ Compare runs: a link is not a command
def _token(runs) -> str:
    import base64

    raw = json.dumps(runs, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _page_text(at) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error] + [w.value for w in at.warning]
    parts += [i.value for i in at.info] + [c.value for c in at.caption]
    return "\n".join(parts)


def test_a_compare_link_cannot_name_a_server_file_or_an_engine_only_parameter(tmp_path):
    from apptest_helpers import open_page

    secret_file = tmp_path / "server-secret.csv"
    secret_file.write_text("password,hunter2\n")
    token = _token([["synthetic", {"dataset": "csv", "data_path": str(secret_file), "secret": "password"}, 0],
                    ["aggregates", {"batch": 999, "time_limit": 1.0, "md_noise": "bounded"}, 3]])
    before = secret_file.stat().st_atime_ns
    at = open_page("pages/60_Compare_runs.py", pins=token)
    assert not at.exception, [e.value for e in at.exception]
    text = _page_text(at)
    assert str(secret_file) not in text and "hunter2" not in text
    assert "upload the file again" in text
    assert "dropped from the link" in text and "`batch`" in text and "`time_limit`" in text
    # the upload run cannot be rerun from the link; the other one can (with its engine-only values dropped)
    assert [b.label for b in at.button if b.key == "compare.restore"] == ["Rerun the 1 linked run(s)"]
    assert secret_file.stat().st_atime_ns == before  # never opened


def test_a_compare_link_over_the_server_limits_is_refused_and_the_error_stays(monkeypatch):
    from apptest_helpers import open_page

    token = _token([["reconstruction", {"n": 2000, "trials": 1000}, 0]])
    at = open_page("pages/60_Compare_runs.py", pins=token)
    assert not at.exception
    at.button(key="compare.restore").click().run()
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(e.value for e in at.error)
    assert "failed" in errors and "server allows" in errors, errors  # shown after the page's own rerun
    assert not at.session_state["_pins"]


def test_a_compare_link_reruns_through_the_worker_pool():
    from apptest_helpers import open_page
    import ui.runs.page_runs as runs

    seed = 271828  # a configuration no other test stores
    token = _token([["reconstruction", {"n": 20, "trials": 2}, seed]])
    at = open_page("pages/60_Compare_runs.py", pins=token)
    at.button(key="compare.restore").click().run()
    assert not at.exception, [e.value for e in at.exception]
    pins = at.session_state["_pins"]
    assert len(pins) == 1 and pins[0]["config"]["seed"] == seed and pins[0]["config"]["n"] == 20
    assert runs._POOL is not None  # the run went to the pool's worker processes, not the page's thread


@pytest.mark.parametrize("token", ["!!!", _token({"a": 1}), _token([["reconstruction", {}, 1e400]]),
                                   _token([["reconstruction", {"n": "Infinity"}, 0]]),
                                   "W1sicmVjb25zdHJ1Y3Rpb24iLHt9LEluZmluaXR5XV0",  # [["reconstruction",{},Infinity]]
                                   _token([["nope", {}, 0]]), _token([["reconstruction", {"n": 10**6}, 0]]),
                                   _token([["reconstruction", {"n": "[x](http://example.org)"}, 0]])])
def test_damaged_or_hostile_compare_tokens_give_one_line(token):
    from apptest_helpers import open_page

    at = open_page("pages/60_Compare_runs.py", pins=token)
    assert not at.exception, [e.value for e in at.exception]
    assert not re.search(r"(?<!\\)\]\(http", _page_text(at))  # no live Markdown link (an escaped one is text)


# ------------------------------------------------------------------ caches a link can grow are bounded
def _resource_cache(name: str):
    from streamlit.runtime.caching.cache_resource_api import _resource_caches

    found = [c for c in _resource_caches._function_caches.get(None, {}).values()
             if c.display_name.endswith(f".{name}") or c.display_name == name]
    assert len(found) == 1, [c.display_name for c in _resource_caches._function_caches.get(None, {}).values()]
    return found[0]


def test_a_hundred_seeds_from_links_do_not_grow_the_lecture_cache():
    from apptest_helpers import open_page

    at = open_page("pages/11_Reidentification_lecture.py", **{"reid.source": "synthetic"})
    assert not at.exception, [e.value for e in at.exception]
    for seed in range(1, 101):
        at.number_input(key="reid.seed").set_value(seed).run()
        assert not at.exception, [e.value for e in at.exception]
    cache = _resource_cache("load")
    assert cache.max_entries == 6 and len(cache._mem_cache) <= 6
    assert cache.fresh_ttl_seconds is not None and cache.fresh_ttl_seconds <= 3600


def test_every_streamlit_cache_in_the_app_is_bounded():
    # arguments of a cached function may come from the address bar: each cache needs max_entries
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
    unbounded = []
    for path in files:
        for match in re.finditer(r"@st\.cache_(data|resource)(\([^)]*\))?", path.read_text(encoding="utf-8")):
            if "max_entries" not in (match.group(2) or ""):
                unbounded.append(f"{path.name}: {match.group(0)}")
    assert not unbounded, unbounded


# ------------------------------------------------------------------ in a real browser
class _Listener:
    """A local HTTP server that records every request (an attacker's tracking pixel or phishing page)."""

    def __init__(self):
        import http.server
        import threading

        hits = self.hits = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# Watches the page from its first node: every element that ever links to or loads from the listener (a toast's
# link would be gone again a few seconds later), whether the hostile text ever showed, and the time of the
# page's last change.
_WATCH = """(here) => {
  window.__hostile = {links: [], shown: false, last: performance.now()};
  const look = () => {
    const w = window.__hostile;
    w.last = performance.now();
    for (const el of document.querySelectorAll(`[href*="${here}"], [src*="${here}"], [srcset*="${here}"]`))
      w.links.push(el.outerHTML.slice(0, 300));
    if (document.body && document.body.textContent.includes("Click here")) w.shown = true;
  };
  new MutationObserver(look).observe(document, {subtree: true, childList: true, characterData: true,
                                                 attributes: true});
}"""


@pytest.mark.browser
def test_markdown_in_any_link_parameter_makes_no_link_and_fetches_nothing(server, browser):
    from urllib.parse import urlencode

    listener = _Listener()
    here = f"127.0.0.1:{listener.port}"
    value = f"[Click here](http://{here}/phish) ![x](http://{here}/p.png) <img src=http://{here}/h.png>"
    shown, pages = 0, {}
    try:
        # every page at once, each in its own tab: what a link's values do shows in the first seconds of the
        # page's script, and the tabs wait side by side instead of one after another
        for page_file in _page_files():
            slug = re.sub(r"^\d+_", "", Path(page_file).stem)
            query = urlencode({name: value for name in _bound_names(page_file)})
            page = pages[slug] = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.add_init_script(f"({_WATCH})({json.dumps(here)})")
            page.goto(f"{server}/{slug}?{query}", wait_until="domcontentloaded")
        for slug, page in pages.items():
            page.wait_for_selector('[data-testid="stSidebar"], [data-testid="stMain"]', timeout=60_000)
            # watch until the page has been still for 2 s (a toast has come and gone), for 25 s at most
            page.wait_for_function("() => performance.now() - window.__hostile.last > 2000 || "
                                   "performance.now() > 25000", polling=250, timeout=60_000)
            seen = page.evaluate("() => window.__hostile")
            assert seen["links"] == [], f"{slug}: {seen['links'][0]}"
            shown += seen["shown"]
            assert page.locator('[data-testid="stException"]').count() == 0, slug
    finally:
        for page in pages.values():
            page.close()
        listener.close()
    assert listener.hits == [], listener.hits
    assert shown > 0  # the hostile value did reach messages, as text


@pytest.mark.browser
def test_an_infinite_link_value_is_a_toast_not_a_traceback(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    # a toast stays for a few seconds only, and may come and go before the chart on a loaded machine: the page
    # is watched from its first node for the toast's text
    page.add_init_script("""window.__toasted = false;
      new MutationObserver(() => { if (document.body && document.body.textContent.includes(
          "Ignored the link's value")) window.__toasted = true; }).observe(document, {subtree: true,
          childList: true, characterData: true});""")
    page.goto(f"{server}/Epsilon_explorer?eps.n=inf&eps.k=1e309&eps.ratio=nan", wait_until="domcontentloaded")
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    page.wait_for_function("() => window.__toasted", polling=250, timeout=15_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Traceback" not in page.locator("body").inner_text()
    page.close()


def test_the_browser_never_gets_a_traceback():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] in ("type", "none")  # "full" (the default) shows server paths


# ------------------------------------------------------------------ one long run per visitor
class _Bar:
    def __init__(self):
        self.texts = []

    def progress(self, value, text=""):
        self.texts.append(text)


def _session(job_name: str, gate, key: str):
    import threading

    import pool_jobs
    from core.runtime.workers import Job
    from ui.runs.page_runs import _in_worker

    out = {"cancel": threading.Event(), "bar": _Bar()}
    job = Job(pool_jobs.blocker, {"gate": str(gate), "name": job_name})
    job.estimate = 10_000.0  # a long run: it would hold a regular worker
    out["job"] = job
    thread = threading.Thread(target=lambda: out.update(box=_in_worker(job, lambda r: (0, None), out["bar"], "steps",
                                                                          key=key, cancel=out["cancel"])),
                              daemon=True)
    thread.start()
    return thread, out


def _until(check, seconds=60):
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.mark.parametrize("policy", ["wait", "replace"])
def test_one_visitor_holds_at_most_one_long_run(tmp_path, monkeypatch, policy):
    import dataclasses

    import ui.runs.page_runs as runs
    import ui.runs.visitors as visitors
    from core.errors import Cancelled
    from core.basics.settings import settings

    limits = dataclasses.replace(settings(), heavy_runs_per_visitor=1, heavy_run_policy=policy)
    monkeypatch.setattr(visitors, "settings", lambda: limits)
    who = {"visitor": "browser-a"}
    monkeypatch.setattr(visitors, "_visitor", lambda: who["visitor"])
    gate = tmp_path / "go"
    ta, a = _session("first", gate, f"long-a-{policy}")
    _until(lambda: runs.watchers(f"long-a-{policy}") == 1)
    tb, b = _session("second", gate, f"long-b-{policy}")  # the same browser, another tab
    who["visitor"] = "browser-b"
    tc, c = _session("other", tmp_path / "go-c", f"long-c-{policy}")  # another visitor is not held
    _until(lambda: runs.watchers(f"long-c-{policy}") == 1)
    if policy == "wait":
        _until(lambda: any("Waiting for your other run" in t for t in b["bar"].texts))
        assert runs.watchers(f"long-b-{policy}") == 0 and b["job"].started_at is None  # not even queued
        gate.touch()
        ta.join(60), tb.join(60)
        assert a["box"] == {"value": "first"} and b["box"] == {"value": "second"}
    else:
        ta.join(60)
        assert isinstance(a["box"]["error"], Cancelled)  # the newer run replaced it
        _until(lambda: runs.watchers(f"long-b-{policy}") == 1)
        gate.touch()
        tb.join(60)
        assert b["box"] == {"value": "second"}
    (tmp_path / "go-c").touch()
    tc.join(60)
    assert c["box"] == {"value": "other"}
    assert not visitors._VISITORS


# ------------------------------------------------------------------ what a link may carry, known answers
def test_a_link_never_carries_a_server_path_and_drops_engine_only_parameters():
    from core.errors import ParameterError
    from core.studies.link_rules import UPLOADED, for_link, from_link

    carried = for_link("synthetic", {"dataset": "csv", "data_path": "/srv/uploads/synthetic-ab12.csv",
                                     "secret": "smoker"})
    assert carried["data_path"] == UPLOADED and "/srv" not in json.dumps(carried)
    assert "data_path" not in for_link("synthetic", {"dataset": "adult", "data_path": ""})
    back = from_link("synthetic", carried, 4)
    assert back.needs_upload and back.uploads == ["data_path"] and "data_path" not in back.params
    linked = from_link("aggregates", {"batch": 999, "md_noise": "bounded", "classifier": "lr", "no_such": 1,
                                      "blocks": 2}, 0)
    assert sorted(linked.dropped) == ["batch", "md_noise", "no_such"]  # classifier=lr is its default
    assert linked.params == {"blocks": 2} and not linked.needs_upload
    for scenario, params, seed in [("reconstruction", {"n": 10**6}, 0), ("reconstruction", {"n": True}, 0),
                                   ("reconstruction", {}, -1), ("reconstruction", {}, 2**31),
                                   ("reconstruction", [], 0), ("nope", {}, 0)]:
        with pytest.raises(ParameterError):
            from_link(scenario, params, seed)
