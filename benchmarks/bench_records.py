"""Who is exposed: seconds to draw the panel for 10⁴ records, per scenario, on a warm server.

For each scenario a small seeded run gives a real per-record table; its rows are repeated (ids made unique) up to
``--records`` rows (10,000 by default, the table's bound) and the panel is drawn by Streamlit's AppTest twice: the
first draw fills the caches, the second is the warm one the goal (≤ 1 s) is about. Also prints the seconds the
engine spends building the table (core.measure.records.build) for the same number of rows. The location runs
attack several users, so their panel also draws the per-user view (chart and table: 10 informed users, 40
auxiliary ones).

    python benchmarks/bench_records.py [--records 10000] [--only location location-auxiliary]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.measure.records import RecordTable, build  # noqa: E402
from core.runtime.games import run  # noqa: E402

SMALL = {
    "reconstruction": {"n": 40, "query_ratio": 0.6, "trials": 3, "sweeps": False},
    "location": {"games": 2000, "shadow_sweep_max": 0, "observations": 20},  # 10 attacked users: the per-user view
    "location-auxiliary": {"games": 2000, "shadow_sweep_max": 0, "observations": 20, "attacker": "auxiliary",
                           "target_users": 40, "user_games": 400},
    "synthetic": {"n": 200, "games": 4, "synth_size": 100, "dataset": "acs-like"},
    "aggregates": {"block_size": 120, "blocks": 2, "shadows": 200, "query_ratio": 0.5, "time_limit": 20},
    "ml-models": {"groups": 6, "n_per_group": 200, "model": "forest", "targeting": "none"},
}

SCRIPT = """
import json, sys
import streamlit as st
sys.path.insert(0, {root!r})
from ui.results.exposure_panel import exposure_panel
exposure_panel(json.load(open({path!r})))
"""


def enlarge(table: dict, rows: int) -> dict:
    """The table's rows repeated to ``rows`` (ids suffixed so they stay unique), re-tiered by the same rules."""
    t = RecordTable.from_dict(table)
    reps = -(-rows // len(t))
    cols = {c: (v * reps)[:rows] for c, v in t.columns.items()}
    ids = [f"{i}#{j // len(t)}" for j, i in enumerate(cols["id"])]
    big = build(ids, cols["secret"], cols["guess"], np.array(cols["score"]),
                certified=np.array(cols["tier"]) == "certified", certified_reason="certified (repeated row).",
                known={k: cols[k] for k in t.known}, k=cols.get("k"), certification=t.certification, unit=t.unit,
                records_max=rows)
    big.groups = t.groups  # the scenario's per-user summary (location), drawn above the histogram
    return big.to_dict()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--only", nargs="*", default=None, help="scenarios to time (default: all)")
    args = ap.parse_args()
    from streamlit.testing.v1 import AppTest

    print(f"{'scenario':20s} {'rows':>7s} {'build s':>8s} {'first draw s':>13s} {'warm draw s':>12s}")
    for name, params in SMALL.items():
        if args.only and name not in args.only:
            continue
        res = run(name.split("-auxiliary")[0], params, seed=0)
        t0 = time.perf_counter()
        big = enlarge(res.exposure, args.records)
        build_s = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "result.json"
            data.write_text(json.dumps({"scenario": name.split("-auxiliary")[0], "metrics": res.metrics,
                                        "config": res.config, "exposure": big}))
            script = Path(tmp) / "page.py"
            script.write_text(SCRIPT.format(root=str(ROOT), path=str(data)))
            at = AppTest.from_file(str(script), default_timeout=120)
            t0 = time.perf_counter()
            at.run()
            first = time.perf_counter() - t0
            assert not at.exception, at.exception
            t0 = time.perf_counter()
            at.run()
            warm = time.perf_counter() - t0
        print(f"{name:20s} {len(big['columns']['id']):7,d} {build_s:8.3f} {first:13.3f} {warm:12.3f}")


if __name__ == "__main__":
    main()
