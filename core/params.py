"""Typed scenario parameters with defaults and allowed ranges.

A :class:`Param` is the single source of truth for one knob: the CLI parses
``--set name=value`` with it, the UI builds its widget from it, and the runner
validates every configuration through it before a game is played.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .errors import ParameterError

_KINDS = {"int": int, "float": float, "str": str, "bool": bool}


@dataclass(frozen=True)
class Param:
    """One scenario parameter.

    ``kind`` is one of ``"int"``, ``"float"``, ``"str"``, ``"bool"``. Numbers may
    carry ``low``/``high`` bounds (inclusive unless ``low_open``/``high_open``);
    strings usually carry ``choices``. ``label`` and ``help`` are what the UI
    shows; ``step`` and ``log`` are hints for sliders.
    """

    name: str
    kind: str
    default: Any
    help: str = ""
    label: str | None = None
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    step: float | None = None
    log: bool = False
    ui: bool = True  # False: CLI/engine only (hidden from the sidebar)
    choice_labels: dict = field(default_factory=dict)
    # ("other_param", (values…)): this parameter only matters when other_param takes one of the values;
    # otherwise it is *inactive* (the UI disables its widget, the CLI warns that a set value is ignored).
    active_when: tuple | None = None

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"unknown parameter kind {self.kind!r}")
        # The default must itself be valid: a registry bug should fail at import.
        self.validate(self.default)

    # ------------------------------------------------------------------ text
    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()

    def range_text(self) -> str:
        """Human description of the allowed values, e.g. ``float in (0, 20]``."""
        if self.choices is not None:
            return "one of " + "|".join(str(c) for c in self.choices)
        if self.kind == "bool":
            return "true|false"
        if self.low is None and self.high is None:
            return f"any {self.kind}"
        lo = "-inf" if self.low is None else _fmt(self.low)
        hi = "inf" if self.high is None else _fmt(self.high)
        lb = "(" if (self.low_open or self.low is None) else "["
        rb = ")" if (self.high_open or self.high is None) else "]"
        return f"{self.kind} in {lb}{lo}, {hi}{rb}"

    def describe(self) -> str:
        return f"{self.name} ({self.range_text()}, default {self.default!r}): {self.help}"

    def inactive_reason(self, config: dict) -> str | None:
        """Why this parameter has no effect under ``config`` (None when it is active)."""
        if self.active_when is None:
            return None
        other, values = self.active_when
        if other in config and config[other] not in values:
            shown = "|".join(str(v) for v in values)
            return f"only used when {other} is {shown} (it is {config[other]!r})"
        return None

    # ------------------------------------------------------------ parsing
    def parse(self, text: str) -> Any:
        """Parse a CLI string into a validated value."""
        text = text.strip()
        if self.kind == "bool":
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ParameterError(self.name, f"expected {self.range_text()}, got {text!r}")
        if self.kind == "int":
            try:
                value = float(text)
            except ValueError:  # repr: text with a newline must not break the one-line message
                raise ParameterError(self.name, f"expected {self.range_text()}, got {text!r}") from None
            return self.validate(value)
        if self.kind == "float":
            try:
                return self.validate(float(text))
            except ValueError as exc:
                if isinstance(exc, ParameterError):
                    raise
                raise ParameterError(self.name, f"expected {self.range_text()}, got {text!r}") from None
        return self.validate(text)

    def validate(self, value: Any) -> Any:
        """Coerce ``value`` to this parameter's type and check its range."""
        bad = ParameterError(self.name, f"expected {self.range_text()}, got {value!r}")
        if self.kind == "bool":
            if isinstance(value, (bool, int)) and value in (0, 1):
                return bool(value)
            raise bad
        if self.kind in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
                raise bad
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise bad from None
            if not math.isfinite(number):
                raise bad
            if self.kind == "int":
                if number != round(number):
                    raise bad
                number = int(round(number))
            if self.low is not None and (number < self.low or (self.low_open and number == self.low)):
                raise bad
            if self.high is not None and (number > self.high or (self.high_open and number == self.high)):
                raise bad
            return number
        # str
        if not isinstance(value, str):
            raise bad
        if self.choices is not None and value not in self.choices:
            raise bad
        return value

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "type": self.kind,
            "default": self.default,
            "allowed": self.range_text(),
            "help": self.help,
        }


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))
