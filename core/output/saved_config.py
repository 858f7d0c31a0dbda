"""Saved runs read back: ``python -m core run --config FILE`` (``--preset NAME`` is read with the presets,
:func:`core.studies.presets.resolve_saved_run`).

A configuration file comes from anywhere — a colleague's HTML report, a hand-edited export, another tool's
encoding — so :func:`load_config` checks every shape and turns each problem into one line
(:class:`~core.errors.DataError`): text that is not UTF-8, JSON that does not parse (also the copy embedded in a
report), ``params``/``config`` that are not an object of names to values, a seed that is not a whole number >= 0.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from ..errors import DataError

_EMBED_RE = re.compile(r'<script type="application/json" id="lab-runs">(.*?)</script>', re.S)

MAX_CONFIG_BYTES = 64_000_000  # an HTML report with plotly.js inlined is a few MB; a config is a few hundred bytes


def _config_text(path: str | Path) -> str:
    """The text of a saved configuration: UTF-8 (a byte-order mark is tolerated), else a one-line refusal."""
    p = Path(path)
    try:
        if p.is_dir():
            raise DataError(f"{path} is a directory; give the JSON or HTML file of one run")
        with open(p, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise DataError(f"{path} is larger than {MAX_CONFIG_BYTES // 1_000_000} MB; not a run configuration")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(raw) > 1 and (raw[0] == 0) != (raw[1] == 0)):
        raise DataError(f"{path} is UTF-16 text; save it as UTF-8 (the encoding this lab writes) and try again")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path} is not UTF-8 text (byte {exc.start}); give the JSON or HTML file this lab "
                        "wrote") from None


def _seed_of(path, value: Any) -> int:
    """A saved seed: a whole number >= 0, exactly as ``--seed`` accepts (1.7 or "abc" is refused, not rounded)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"{path}: 'seed' must be a whole number >= 0, got {json.dumps(value)[:40]}")
    if value < 0:
        raise DataError(f"{path}: 'seed' must be a whole number >= 0, got {value}")
    return value


def load_config(path: str | Path) -> tuple[str, dict, int]:
    """``(scenario, params, seed)`` from a run-config JSON, a full result JSON or an HTML report of one run.

    The file comes from anywhere (a colleague's report, a hand-edited export), so every shape is checked and
    each problem is a one-line :class:`DataError`: text that is not UTF-8, JSON that does not parse (also the
    copy embedded in a report), ``params``/``config`` that are not an object of names to values, a seed that
    is not a whole number >= 0. The parameter values themselves are checked by the scenario afterwards.
    """
    p = Path(path)
    text = _config_text(path)
    if p.suffix.lower() in (".html", ".htm") or text.lstrip().startswith("<"):
        m = _EMBED_RE.search(text)
        if not m:
            raise DataError(f"{path}: no embedded run configuration (not a report written by this lab)")
        try:
            runs = json.loads(html.unescape(m.group(1)))
        except (json.JSONDecodeError, RecursionError) as exc:
            raise DataError(f"{path}: the run configuration embedded in the report is not valid JSON "
                            f"({getattr(exc, 'msg', 'nested too deeply')})") from None
        if not isinstance(runs, list):
            runs = [runs]
        if len(runs) != 1:
            raise DataError(f"{path} is a comparison of {len(runs)} runs; export one run's JSON to rerun it")
        data = runs[0]
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
        except RecursionError:
            raise DataError(f"{path}: not a run configuration (JSON nested too deeply)") from None
    if isinstance(data, list):
        if len(data) != 1:
            raise DataError(f"{path} holds {len(data)} runs; rerun them one at a time")
        data = data[0]
    if not isinstance(data, dict) or "scenario" not in data:
        raise DataError(f"{path}: expected a run configuration with a 'scenario' key")
    if not isinstance(data["scenario"], str) or not data["scenario"]:
        raise DataError(f"{path}: 'scenario' must be a scenario name, got {json.dumps(data['scenario'])[:40]}")
    if "params" in data:
        key, params, seed = "params", data["params"], data.get("seed", 0)
    elif "config" in data:  # a full result (ui download or CLI --json)
        key, params = "config", data["config"]
        seed = params.get("seed", 0) if isinstance(params, dict) else 0
    else:
        raise DataError(f"{path}: expected 'params' (run configuration) or 'config' (result)")
    if not isinstance(params, dict):
        raise DataError(f"{path}: '{key}' must be an object of parameter names to values, got "
                        f"{json.dumps(params)[:40]}")
    params = {str(k): v for k, v in params.items() if not (key == "config" and k == "seed")}
    return data["scenario"], params, _seed_of(path, seed)
