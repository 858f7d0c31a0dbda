"""Scenarios and their registry.

A *scenario* is one privacy game from one source paper (dataset → release →
attack → score). It declares its typed :class:`~core.params.Param` list and how
one unit of work is played; the shared runner (:mod:`core.runtime.games`) does the rest:
seeding, parallelism, progress, cancellation and the serialisable result.

Subclass :class:`Scenario`, decorate with :func:`register`, and put the module in
``core/scenarios/``: it is discovered automatically by the CLI, the pages and
the tests.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import numpy as np

from .basics.words import count
from .errors import ParameterError
from .params import Param
from .cost import Cost

_REGISTRY: dict[str, "Scenario"] = {}


# The seeding rule every run follows: ``prepare`` draws from ``prepare_rng(seed)``; unit i of the run draws from
# ``SeedSequence(seed, spawn_key=(i,))`` (core.runtime.games.game_rng). The prepare stream's spawn key lies beyond
# any unit index, so the two never overlap, and a preview that calls ``prepare_rng(seed)`` sees exactly the data
# the run with that seed will attack.
PREPARE_KEY = 2**32 - 1


def prepare_rng(seed: int) -> np.random.Generator:
    """The generator ``prepare`` receives in a run with ``seed`` (shared by the runner, sweeps and previews)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(PREPARE_KEY,)))


class Scenario:
    """Base class of a privacy game.

    Life cycle of one run with seed ``s`` (see :func:`core.runtime.games.run`):

    1. ``config = scenario.resolve(params)`` – defaults filled in, every value
       validated, then :meth:`check` for cross-parameter rules.
    2. ``context = scenario.prepare(config, rng)`` – once, in the parent
       process (data generation, shadow training, anything shared by games).
       Must be picklable; it is shipped to worker processes.
    3. ``records = [scenario.play(config, context, i, rng_i) for i < n_games]``
       – independent units of work, each with its own generator derived from
       ``(s, i)`` so results never depend on the number of workers. A unit may
       be a single game or a vectorised batch of games. Each record is a
       JSON-serialisable ``dict``.
    4. ``metrics, series = scenario.summarize(config, context, records)`` – also
       called on partial record lists while the run is live, so it must cope
       with any non-empty prefix.
    """

    name: str = ""
    title: str = ""
    summary: str = ""
    paper: str = ""
    params: tuple[Param, ...] = ()
    blas_threads: int | None = 1  # BLAS threads inside play(); None = library default
    # Small series a parameter sweep keeps in each of its rows (e.g. ("roc",), so a comparison of
    # generators can draw one ROC per grid point); by default rows carry metrics only.
    sweep_series: tuple[str, ...] = ()
    # The lab page's starting values where they differ from the parameters' defaults (a small, fast first run;
    # the sidebar scales up to the paper's setting). The page seeds its widgets from them; the cost tests and
    # benchmarks/bench_cost.py read them to check that a page's default run takes the express lane.
    page_defaults: dict[str, Any] = {}
    # What one unit of work (what ``n_games`` counts and progress reports) is called on the page: a game, or
    # for scenarios whose unit plays a batch of games, that batch ("sweep point"), so "Done: 17 sweep points"
    # does not read as 17 games beside a caption of 50,000 test games.
    unit: tuple[str, str] = ("game", "games")

    # ----------------------------------------------------------- config
    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def resolve(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """Defaults + overrides, every value validated; unknown names rejected."""
        overrides = dict(overrides or {})
        known = {p.name for p in self.params}
        for key in overrides:
            if key not in known:  # a name from a link or a file: shown on one line, quoted when it is not plain
                shown = key if isinstance(key, str) and key.isprintable() and len(key) <= 60 else repr(key)[:60]
                raise ParameterError(shown, f"unknown parameter for scenario {self.name!r}; "
                                            f"known: {', '.join(sorted(known))}")
        config = {}
        for p in self.params:
            config[p.name] = p.validate(overrides[p.name]) if p.name in overrides else p.default
        self.check(config)
        return config

    def check(self, config: dict[str, Any]) -> None:
        """Cross-parameter rules; raise :class:`ParameterError`."""

    def inactive(self, config: dict[str, Any]) -> dict[str, str]:
        """Parameters that have no effect under ``config``, with the reason (see ``Param.active_when``)."""
        out = {}
        for p in self.params:
            reason = p.inactive_reason(config)
            if reason:
                out[p.name] = reason
        return out

    # ------------------------------------------------------------- games
    def n_games(self, config: dict[str, Any]) -> int:
        raise NotImplementedError

    def work_done(self, config: dict[str, Any], done: int) -> str:
        """The units of work ``done`` in words, for a run's status line ("Done: 25 games in 3.1 s"). A scenario
        whose ``n_games`` counts more than one kind of game says which, so the status line agrees with a
        headline that counts only one kind."""
        return count(done, *self.unit)

    def prepare(self, config: dict[str, Any], rng: np.random.Generator) -> Any:
        return None

    def play(self, config: dict[str, Any], context: Any, index: int,
             rng: np.random.Generator) -> dict:
        raise NotImplementedError

    def summarize(self, config: dict[str, Any], context: Any,
                  records: list[dict]) -> tuple[dict[str, float], dict[str, Any]]:
        raise NotImplementedError

    def exposure(self, config: dict[str, Any], context: Any, records: list[dict]):
        """Who is exposed: the per-record risk table (:class:`core.measure.records.RecordTable`) of a finished or
        stopped run — one row per attacked individual or secret with its tier — or None for a scenario that has
        no per-record rows. Built from the unit records alone, so it never changes a metric."""
        return None

    def estimate_cost(self, config: dict[str, Any]):
        """Estimated :class:`~core.cost.Cost` (seconds, peak bytes) of a run, before it starts.

        Used by the memory guard and a shared server's limits (:mod:`core.cost`). The default is deliberately
        generous — 0.05 s per game and 300 MB — so scenarios with heavier games should override it with
        ``games × per-game work`` and the memory of their largest arrays.
        """
        return Cost(seconds=0.05 * self.n_games(config), bytes=300e6, basis="default: 0.05 s per game, 300 MB")

    def describe(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "summary": self.summary,
            "paper": self.paper,
            "params": [p.to_dict() for p in self.params],
        }


def register(cls: type[Scenario]) -> type[Scenario]:
    """Class decorator: add a scenario to the registry under ``cls.name``."""
    if not cls.name:
        raise ValueError("a scenario needs a name")
    _REGISTRY[cls.name] = cls()
    return cls


def _discover() -> None:
    # The registry loads the scenarios as plug-ins, by name: it sits below them in the layer order (a scenario
    # imports this module), so it never imports core.scenarios statically.
    scenarios = importlib.import_module(f"{__package__}.scenarios")
    for info in pkgutil.iter_modules(scenarios.__path__):
        importlib.import_module(f"{scenarios.__name__}.{info.name}")


def all_scenarios() -> dict[str, Scenario]:
    _discover()
    return dict(sorted(_REGISTRY.items()))


def get(name: str) -> Scenario:
    scenarios = all_scenarios()
    if name not in scenarios:
        raise ParameterError("scenario", f"unknown scenario {name!r}; known: {', '.join(scenarios)}")
    return scenarios[name]
