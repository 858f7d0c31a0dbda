"""Lab settings: server limits, the run pool, the engine's polling interval, the result store and class expiry.

All limits live in ONE file, ``lab_settings.toml`` at the repository root, whose comments document every key
and its default. ``LAB_SETTINGS=/path/to/file.toml`` reads another file instead; keys it leaves out keep the
defaults below (which equal the shipped file). ``LAB_STORE`` overrides only the store's path (tests point it
at a temporary folder; an empty value turns the store off).
"""
from __future__ import annotations

import functools
import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from ..errors import ParameterError

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_FILE = ROOT / "lab_settings.toml"


@dataclass(frozen=True)
class Settings:
    # [server]
    slots: int = 2
    max_run_seconds: float = 600.0
    max_run_bytes: int = 1_000_000_000
    abandoned_grace_seconds: float = 5.0
    worker_nice: int = 10
    stop_timeout_seconds: float = 10.0
    express_slots: int = 1
    express_max_seconds: float = 60.0
    heavy_runs_per_visitor: int = 1
    heavy_run_policy: str = "wait"
    # [engine]
    poll_seconds: float = 0.5
    memory_guard_fraction: float = 0.8
    # [store]
    store_path: str = "~/.cache/privacy-lab/results"
    store_size_limit_bytes: int = 1_000_000_000
    # [uploads]
    upload_max_columns: int = 500
    upload_max_cells: int = 10_000_000
    # [classes]
    class_expiry_hours: float = 12.0
    source: str = "defaults"

    @property
    def store_dir(self) -> Path | None:
        """The store's folder, or None when the store is off."""
        return Path(self.store_path).expanduser() if self.store_path else None


_SECTIONS = {
    "server": {"slots": int, "max_run_seconds": float, "max_run_bytes": int, "abandoned_grace_seconds": float,
               "worker_nice": int, "stop_timeout_seconds": float, "express_slots": int,
               "express_max_seconds": float, "heavy_runs_per_visitor": int, "heavy_run_policy": str},
    "engine": {"poll_seconds": float, "memory_guard_fraction": float},
    "store": {"path": str, "size_limit_bytes": int},
    "uploads": {"max_columns": int, "max_cells": int},
    "classes": {"expiry_hours": float},
}


def parse(data: dict, source: str = "settings") -> Settings:
    """Settings from a parsed TOML document; unknown sections/keys and bad values raise ParameterError."""
    values: dict = {}
    for section, body in data.items():
        if section not in _SECTIONS or not isinstance(body, dict):
            raise ParameterError(f"{source}: [{section}]", f"unknown section; known: {', '.join(_SECTIONS)}")
        for key, value in body.items():
            kind = _SECTIONS[section].get(key)
            if kind is None:
                raise ParameterError(f"{source}: {section}.{key}",
                                     f"unknown key; known: {', '.join(_SECTIONS[section])}")
            if kind is str:
                ok = isinstance(value, str)
            else:
                ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
                if kind is int:
                    ok = ok and float(value) == int(value)
            if not ok:
                raise ParameterError(f"{source}: {section}.{key}", f"expected {kind.__name__} >= 0, got {value!r}")
            name = {"store": f"store_{key}", "uploads": f"upload_{key}", "classes": f"class_{key}"}.get(section, key)
            values[name] = kind(value)
    if values.get("slots", 1) < 1:
        raise ParameterError(f"{source}: server.slots", "at least 1")
    if not 0 < values.get("memory_guard_fraction", 0.8) <= 1:
        raise ParameterError(f"{source}: engine.memory_guard_fraction", "expected a share in (0, 1]")
    if values.get("class_expiry_hours", 12.0) <= 0:
        raise ParameterError(f"{source}: classes.expiry_hours", "expected a positive number of hours")
    if values.get("heavy_run_policy", "wait") not in ("wait", "replace"):
        raise ParameterError(f"{source}: server.heavy_run_policy", "expected \"wait\" or \"replace\"")
    if values.get("upload_max_columns", 1) < 1 or values.get("upload_max_cells", 1) < 1:
        raise ParameterError(f"{source}: uploads", "max_columns and max_cells must be at least 1")
    if values.get("poll_seconds", 0.5) <= 0:
        raise ParameterError(f"{source}: engine.poll_seconds", "expected a positive number of seconds")
    return Settings(**values, source=source)


@functools.lru_cache(maxsize=8)
def _load(path: str, store_env: str | None) -> Settings:
    file = Path(path)
    if file.is_file():
        with open(file, "rb") as fh:
            try:
                data = tomllib.load(fh)
            except tomllib.TOMLDecodeError as exc:
                raise ParameterError(str(file), f"not valid TOML: {exc}") from None
        settings = parse(data, source=str(file))
    elif os.environ.get("LAB_SETTINGS"):
        raise ParameterError("LAB_SETTINGS", f"no settings file at {file}")
    else:
        settings = Settings()
    if store_env is not None:
        settings = Settings(**{f.name: getattr(settings, f.name) for f in fields(Settings)
                               if f.name != "store_path"}, store_path=store_env)
    return settings


def settings() -> Settings:
    """The current settings (re-read when ``LAB_SETTINGS``/``LAB_STORE`` change; cached otherwise)."""
    return _load(os.environ.get("LAB_SETTINGS") or str(DEFAULT_FILE), os.environ.get("LAB_STORE"))
