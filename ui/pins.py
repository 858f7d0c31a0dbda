"""Pinned runs: up to six per browser session, kept across pages (``st.session_state``), for the Compare page.

Pins also survive a reload and travel to a new tab: the address bar carries them (``?pins=``, the same token
the Compare page shares, :func:`encode_pins`), and a session that opens such an address takes back every
pinned run the shared result store holds (:func:`restore_from_link`) — no rerun needed.
"""
from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import streamlit as st

from core.runtime.games import Result, _jsonable

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
    """A run's name among the pins: its scenario and configuration. Read from those two fields alone, never by
    converting the whole result (a run's per-record table made that about a second on every draw of a lab)."""
    if isinstance(result, Result):
        scenario, config = result.scenario, _jsonable(result.config)
    else:
        scenario, config = result["scenario"], result["config"]
    return hashlib.sha1(f"{scenario}|{json.dumps(config, sort_keys=True)}".encode()).hexdigest()[:12]


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
    sync_link()


def clear_pins() -> None:
    st.session_state[_KEY] = []
    sync_link()


def sync_link() -> None:
    """Write this session's pins into the address bar (or remove them), so a reload or a copied address keeps
    them."""
    pins = st.session_state.get(_KEY, [])
    if pins:
        st.query_params["pins"] = encode_pins(pins)
    elif "pins" in st.query_params:
        del st.query_params["pins"]


def restore_from_link() -> int:
    """Pin the runs the address bar names (``?pins=``) whose results the shared store holds; once per token and
    session. Returns how many were pinned. Runs on an uploaded file, runs the store no longer holds and
    values a widget would refuse are left to the Compare page, which lists them with a Rerun button."""
    from core.errors import LabError
    from core.runtime.store import lookup
    from core.studies.links import from_link

    token = st.query_params.get("pins")
    if not token or st.session_state.get("_pins.restored") == token:
        return 0
    st.session_state["_pins.restored"] = token
    try:
        linked = decode_pins(token)
    except ValueError:
        return 0
    added = 0
    for c in linked:
        try:
            run = from_link(c["scenario"], c["params"], c["seed"])
            if run.needs_upload:
                continue
            _, result = lookup(run.scenario, run.params, run.seed)
        except LabError:
            continue
        if result is not None and result.completed and add_pin(result):
            added += 1
    return added


def pin_button(result: Result | None) -> None:
    """"Pin this run" for the Compare page (disabled for partial runs, when pinned, or when six are pinned)."""
    if result is None:
        return
    restore_from_link()
    pins = pinned()
    if pins:
        sync_link()  # the lab's address keeps the pins: a reload or a copied link brings them back
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
            sync_link()
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
