"""Lab settings: server limits, the run pool, the engine's polling interval, the result store, the records database
and class mode's bounds.

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


# Each TOML section and the prefix its keys carry as fields of Settings (``[store] path`` is ``store_path``).
_PREFIX = {"server": "", "engine": "", "store": "store_", "uploads": "upload_", "classes": "class_",
           "database": "database_", "cluster": "cluster_", "memory": "memory_"}
# The first field of each section: a field belongs to the section of the nearest start at or above it, so a new
# key is one line in Settings, under its section's comment.
_STARTS = {"slots": "server", "poll_seconds": "engine", "store_path": "store", "upload_max_columns": "uploads",
           "class_expiry_hours": "classes", "database_url": "database", "cluster_scheduler": "cluster",
           "memory_idle_release_seconds": "memory"}


@dataclass(frozen=True)
class Settings:
    # [server]
    slots: int = 2
    max_run_seconds: float = 600.0
    max_run_bytes: int = 1_000_000_000
    abandoned_grace_seconds: float = 5.0
    worker_nice: int = 2
    long_run_nice: int = 19
    stop_timeout_seconds: float = 10.0
    express_slots: int = 2
    express_max_seconds: float = 60.0
    heavy_runs_per_visitor: int = 1
    heavy_run_policy: str = "wait"
    heavy_runs_per_address: int = 3
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
    class_retention_days: float = 30.0
    class_max_students: int = 500
    class_max_bytes_per_class: int = 5_000_000
    class_max_bytes_total: int = 1_000_000_000
    class_creations_per_visitor_per_day: int = 5
    class_creations_per_server_per_day: int = 200
    class_joins_per_visitor_per_hour: int = 3
    class_joins_per_address_per_hour: int = 60
    class_code_tries_per_visitor_per_minute: int = 5
    class_pin_tries_per_seat: int = 5
    # [database]
    database_url: str = ""
    database_path: str = "~/.local/share/privacy-lab/lab.sqlite3"
    # [cluster]
    cluster_scheduler: str = ""
    # [memory]
    memory_idle_release_seconds: float = 120.0
    source: str = "defaults"

    @property
    def store_dir(self) -> Path | None:
        """The store's folder, or None when the store is off."""
        return Path(self.store_path).expanduser() if self.store_path else None


_KINDS = {"int": int, "float": float, "str": str}  # a field's annotation is text (``from __future__``)


def _sections() -> dict[str, dict[str, type]]:
    """{section: {key as the file writes it: its type}}, in the order of Settings' fields (errors list them so)."""
    out: dict[str, dict[str, type]] = {}
    section = None
    for f in fields(Settings):
        if f.name == "source":  # where the values came from, not a key of the file
            continue
        section = _STARTS.get(f.name, section)
        assert section is not None and f.name.startswith(_PREFIX[section]), f.name
        out.setdefault(section, {})[f.name.removeprefix(_PREFIX[section])] = _KINDS[f.type]
    return out


_SECTIONS = _sections()


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
                raise ParameterError(f"{source}: {section}.{key}", f"expected {kind.__name__}"
                                     f"{'' if kind is str else ' >= 0'}, got {value!r}")
            values[_PREFIX[section] + key] = kind(value)
    if values.get("slots", 1) < 1:
        raise ParameterError(f"{source}: server.slots", "at least 1")
    if not 0 < values.get("memory_guard_fraction", 0.8) <= 1:
        raise ParameterError(f"{source}: engine.memory_guard_fraction", "expected a share in (0, 1]")
    if values.get("class_expiry_hours", 12.0) <= 0:
        raise ParameterError(f"{source}: classes.expiry_hours", "expected a positive number of hours")
    if values.get("class_max_students", 1) < 1:
        raise ParameterError(f"{source}: classes.max_students", "at least 1")
    if values.get("class_pin_tries_per_seat", 1) < 1:
        raise ParameterError(f"{source}: classes.pin_tries_per_seat", "at least 1 (a PIN needs one try)")
    url = values.get("database_url", "")
    if url and not url.startswith(("postgresql://", "postgres://")):
        raise ParameterError(f"{source}: database.url", "a postgresql:// address, or empty for the SQLite file at "
                                                        "database.path")
    if values.get("heavy_run_policy", "wait") not in ("wait", "replace"):
        raise ParameterError(f"{source}: server.heavy_run_policy", "expected \"wait\" or \"replace\"")
    if values.get("upload_max_columns", 1) < 1 or values.get("upload_max_cells", 1) < 1:
        raise ParameterError(f"{source}: uploads", "max_columns and max_cells must be at least 1")
    scheduler = values.get("cluster_scheduler", "")
    if scheduler and not scheduler.startswith(("tcp://", "tls://", "inproc://")):
        raise ParameterError(f"{source}: cluster.scheduler",
                             f"expected a Dask scheduler address such as tcp://HOST:8786, got {scheduler!r}")
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
    """The current settings (re-read when ``LAB_SETTINGS``/``LAB_STORE``/``LAB_SCHEDULER`` change; cached
    otherwise). ``LAB_SCHEDULER`` names a Dask scheduler for page runs, as ``[cluster] scheduler`` does."""
    return _with_scheduler(_load(os.environ.get("LAB_SETTINGS") or str(DEFAULT_FILE), os.environ.get("LAB_STORE")),
                           os.environ.get("LAB_SCHEDULER"))


@functools.lru_cache(maxsize=8)
def _with_scheduler(base: Settings, scheduler_env: str | None) -> Settings:
    if scheduler_env is None:
        return base
    values = {f.name: getattr(base, f.name) for f in fields(Settings)}
    values.update(cluster_scheduler=scheduler_env, source=base.source)
    checked = parse({"cluster": {"scheduler": scheduler_env}}, source="LAB_SCHEDULER")
    values["cluster_scheduler"] = checked.cluster_scheduler
    return Settings(**values)
