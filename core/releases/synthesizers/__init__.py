"""Synthetic-data generators (SDGs): one file per generator, picked from a small registry.

Every generator follows :class:`~core.releases.synthesizers.base.Synthesizer`:
``fit(data, rng)`` on a categorical :class:`~core.data.dataset.Dataset` (integer codes with explicit
domains), then ``sample(m, rng)`` returns an ``(m, d)`` integer code array over the same domains. Each
states the privacy it claims through ``privacy`` = ``(ε, δ)`` (``(inf, 0)`` when it claims none).

``get_synthesizer(name, **params)`` builds one by name; ``SYNTHESIZERS`` lists the registered classes.
"""
from __future__ import annotations

import importlib
import pkgutil

from .base import SYNTHESIZERS, Synthesizer, get_synthesizer, register_synthesizer


def _discover() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base":
            importlib.import_module(f"{__name__}.{info.name}")


_discover()

__all__ = ["SYNTHESIZERS", "Synthesizer", "get_synthesizer", "register_synthesizer"]
