"""Pinned runs: up to six per browser session, kept across pages (``st.session_state``), for the Compare page."""
from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import streamlit as st

from core.runtime.games import Result

MAX_PINS = 6
# The labs whose runs can be pinned (their pages end with ui.report.run_tools), linked from an empty Compare page.
PINNABLE_LABS = (("pages/10_Reconstruction_attack.py", "Reconstruction attack"),
                 ("pages/20_Location_membership.py", "Location membership"),
                 ("pages/30_Aggregate_statistics.py", "Aggregate statistics"),
                 ("pages/40_Synthetic_data.py", "Synthetic data"),
                 ("pages/50_ML_models.py", "ML models"))
_KEY = "_pins"


def _as_dict(result: Result | dict) -> dict:
    data = result.to_dict(records=False) if isinstance(result, Result) else dict(result)
    data.pop("records", None)
    return data


def pin_id(result: Result | dict) -> str:
    d = _as_dict(result)
    return hashlib.sha1(f"{d['scenario']}|{json.dumps(d['config'], sort_keys=True)}".encode()).hexdigest()[:12]


def pinned() -> list[dict]:
    """The pinned runs (result dicts without per-game records), oldest first."""
    return st.session_state.setdefault(_KEY, [])


def add_pin(result: Result | dict) -> bool:
    """Pin a run; False when it is already pinned or six runs are pinned."""
    pins = pinned()
    data = _as_dict(result)
    pid = pin_id(data)
    if any(p["pin_id"] == pid for p in pins) or len(pins) >= MAX_PINS:
        return False
    pins.append({**data, "pin_id": pid})
    return True


def remove_pin(pid: str) -> None:
    st.session_state[_KEY] = [p for p in pinned() if p["pin_id"] != pid]


def clear_pins() -> None:
    st.session_state[_KEY] = []


def pin_button(result: Result | None) -> None:
    """"Pin this run" for the Compare page (disabled for partial runs, when pinned, or when six are pinned)."""
    if result is None:
        return
    pins = pinned()
    pid = pin_id(result)
    done = any(p["pin_id"] == pid for p in pins)
    full = len(pins) >= MAX_PINS
    partial = isinstance(result, Result) and not result.completed
    cols = st.columns([1, 3])
    if done:
        cols[0].button("Pinned", key=f"pin-{pid}", disabled=True, help="This run is pinned", icon=":material/check:")
    else:
        help_text = ("Six runs are pinned: remove one on the Compare page first" if full else
                     "A stopped run cannot be pinned; run it to the end" if partial else
                     "Keep this run for the Compare page (up to six, across all labs)")
        if cols[0].button("Pin this run", key=f"pin-{pid}", disabled=full or partial, help=help_text,
                          icon=":material/push_pin:"):
            add_pin(result)
            st.rerun()
    if pins:
        cols[1].page_link("pages/60_Compare_runs.py", label=f"Compare {len(pins)} pinned run(s) →",
                          icon=":material/compare_arrows:")


# ------------------------------------------------------------- link state
def encode_pins(pins: list[dict]) -> str:
    """A compact URL-safe token of the pinned runs' configurations (scenario, parameters, seed).

    Only what a link may carry (:mod:`core.studies.links`): an upload's server path becomes a marker that asks
    the receiver to upload the file again, and engine-only parameters at their defaults are left out."""
    from core.output.report import run_config
    from core.studies.links import for_link

    payload = [[c["scenario"], for_link(c["scenario"], c["params"]), c["seed"]] for c in (run_config(p) for p in pins)]
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a value a link can carry")


def decode_pins(token: str) -> list[dict[str, Any]]:
    """Inverse of :func:`encode_pins`: ``[{"scenario", "params", "seed"}]`` as the link wrote them (ValueError on a
    damaged token). The values are a stranger's: :func:`core.studies.links.from_link` checks each run."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, TypeError, RecursionError) as exc:
        raise ValueError("not a list of runs") from exc
    if not isinstance(data, list) or not all(isinstance(x, list) and len(x) == 3 for x in data):
        raise ValueError("not a list of runs")
    out = []
    for scenario, params, seed in data[:MAX_PINS]:
        if not isinstance(scenario, str) or not isinstance(params, dict) or isinstance(seed, bool) \
                or not isinstance(seed, int):
            raise ValueError("not a list of runs")
        out.append({"scenario": scenario, "params": params, "seed": seed})
    return out
