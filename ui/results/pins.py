"""Pinned runs: up to six per browser session, kept across pages (``st.session_state``), for the Compare page.

Pins also survive a reload and travel to a new tab: the address bar carries them (``?pins=``, the same token
the Compare page shares, :func:`encode_pins`), and a session that opens such an address takes back every
pinned run the shared result store holds (:func:`restore_from_link`) — no rerun needed.

A run on an uploaded file too: the link carries the SHA-256 of the file the engine read (never its server path),
and pinning such a run keeps the pinned result in the shared store under a key made of the run's link and that
hash (:func:`upload_pin_key`), where a reload or another tab finds it. If the store no longer holds it, the
Compare page offers the rerun as soon as this session holds a file with the same hash (the same file uploaded
again on the lab's page).
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from typing import Any

import streamlit as st

from core.runtime.games import Result, _jsonable

MAX_PINS = 6
_HASHED = " sha256:"  # a link's upload marker followed by this and the file's content hash
# The labs whose runs can be pinned (their pages end with ui.results.run_tools.run_tools), linked from an empty Compare page.
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


def add_pin(result: Result | dict, uploads: dict[str, str] | None = None) -> bool:
    """Pin a run; False when it is already pinned or six runs are pinned. ``uploads``: the content hash of each
    file parameter's file (default: read from the files); a run on an upload is also kept in the shared store
    for a reload or another tab (:func:`upload_pin_key`)."""
    pins = pinned()
    data = _as_dict(result)
    pid = pin_id(data)
    if any(p["pin_id"] == pid for p in pins) or len(pins) >= MAX_PINS:
        return False
    hashes = _upload_hashes(data) if uploads is None else dict(uploads)
    pins.append({**data, "pin_id": pid, "uploads": hashes})
    if hashes and uploads is None:
        _keep_upload_pin(pins[-1])
    return True


def _upload_hashes(data: dict) -> dict[str, str]:
    """``{file parameter: SHA-256 of its file}`` for the file parameters of a run whose file is still here."""
    from core.scenario import all_scenarios
    from core.studies.link_rules import is_file_param

    sc = all_scenarios().get(data.get("scenario"))
    out = {}
    for name, value in (data.get("config") or {}).items():
        if sc is not None and value and is_file_param(sc, name):
            try:
                with open(str(value), "rb") as fh:
                    out[name] = hashlib.file_digest(fh, "sha256").hexdigest()
            except OSError:
                continue
    return out


def _link_entry(pin: dict) -> list:
    """``[scenario, parameters as a link carries them, seed]``; an upload's marker names its content hash."""
    from core.output.report import run_config
    from core.studies.link_rules import UPLOADED, for_link

    c = run_config(pin)
    params = for_link(c["scenario"], c["params"])
    for name, digest in (pin.get("uploads") or {}).items():
        if params.get(name) == UPLOADED:
            params[name] = f"{UPLOADED}{_HASHED}{digest}"
    return json.loads(json.dumps([c["scenario"], params, c["seed"]]))  # as a decoded link holds it


def upload_pin_key(scenario: str, params: dict, seed: int) -> str | None:
    """The shared store's key of a pinned run on uploaded files, from the run's link entry (None when a file
    parameter's marker carries no well-formed content hash)."""
    from core.studies.link_rules import UPLOADED

    hashed = [v for v in params.values() if isinstance(v, str) and v.startswith(UPLOADED)]
    if not hashed or not all(re.fullmatch(re.escape(UPLOADED + _HASHED) + "[0-9a-f]{64}", v) for v in hashed):
        return None
    doc = json.dumps([scenario, params, seed], sort_keys=True, separators=(",", ":"))
    return "pins/upload/" + hashlib.sha256(doc.encode()).hexdigest()


def _keep_upload_pin(pin: dict) -> None:
    from core.runtime.store import default_store

    scenario, params, seed = _link_entry(pin)
    key, store = upload_pin_key(scenario, params, seed), default_store()
    if key is not None and store is not None:
        # kept with the file's own name, never the server's folder: a restored pin may outlive this process, whose
        # private upload folder is the only one reports know to hide
        config = {k: os.path.basename(str(v)) if k in pin["uploads"] else v for k, v in pin["config"].items()}
        store.put(key, {**{k: v for k, v in pin.items() if k != "pin_id"}, "config": config})


def _stored_upload_pin(c: dict) -> dict | None:
    from core.runtime.store import default_store

    key, store = upload_pin_key(c["scenario"], c["params"], c["seed"]), default_store()
    data = store.get(key) if key is not None and store is not None else None
    return data if isinstance(data, dict) and data.get("scenario") == c["scenario"] else None


def upload_hash(params: dict, name: str) -> str | None:
    """The content hash a link's upload marker for ``name`` carries (None without one)."""
    value = params.get(name)
    return value.rsplit(_HASHED, 1)[1] if isinstance(value, str) and _HASHED in value else None


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
    from core.studies.link_rules import from_link

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
            if run.needs_upload:  # kept in the store when it was pinned, under the file's content hash
                have = {json.dumps(_link_entry(p), sort_keys=True) for p in pinned()}
                if json.dumps([c["scenario"], c["params"], c["seed"]], sort_keys=True) in have:
                    continue  # pinned in this session already (its own address names it)
                data = _stored_upload_pin(c)
                if data is not None and add_pin(data, uploads=data.get("uploads") or {}):
                    added += 1
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

    Only what a link may carry (:mod:`core.studies.link_rules`): an upload's server path becomes a marker with the
    file's content hash (the pinned result is found by it, or the receiver uploads the same file again), and
    engine-only parameters at their defaults are left out."""
    payload = [_link_entry(p) for p in pins]
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a value a link can carry")


def decode_pins(token: str) -> list[dict[str, Any]]:
    """Inverse of :func:`encode_pins`: ``[{"scenario", "params", "seed"}]`` as the link wrote them (ValueError on a
    damaged token). The values are a stranger's: :func:`core.studies.link_rules.from_link` checks each run."""
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
