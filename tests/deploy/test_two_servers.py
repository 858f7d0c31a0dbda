"""Two lab servers on one PostgreSQL database (docs/SERVING.md): a run computed through one server is served by
the other from the shared results, each server with its own local store. Real servers (serve.py), a throwaway
PostgreSQL cluster, and the load test's protocol client (benchmarks/stclient.py) as the visitor."""
from __future__ import annotations

import asyncio
import itertools
import os
import sys

import pytest
from lab_paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from labserver import serve  # noqa: E402
from stclient import open_page  # noqa: E402

pytestmark = pytest.mark.browser  # end-to-end: real servers (no Chromium needed)
_NUMBER = itertools.count(1)


@pytest.fixture
def shared_database(postgres_cluster):
    import psycopg

    name = f"two_servers_{os.getpid()}_{next(_NUMBER)}"
    with psycopg.connect(f"{postgres_cluster}/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield f"{postgres_cluster}/{name}"


def test_a_run_computed_through_one_server_is_served_by_the_other(shared_database, tmp_path):
    page = "Reconstruction_attack?n=40&trials=3&seed=777"
    first_env = {"LAB_DATABASE": shared_database, "LAB_STORE": str(tmp_path / "store-a")}
    second_env = {"LAB_DATABASE": shared_database, "LAB_STORE": str(tmp_path / "store-b")}
    with serve(env=first_env) as first:
        computed = asyncio.run(open_page(first.url, page, timeout=300, needs_plot=True))
    assert computed.error is None and computed.done_text == "Done:", (computed.error, computed.done_text)
    with serve(env=second_env) as second:
        served = asyncio.run(open_page(second.url, page, timeout=300, needs_plot=True))
    assert served.error is None and served.done_text == "Stored result", (served.error, served.done_text)
