"""Class mode's typed errors (every one a message a student or teacher can act on)."""
from __future__ import annotations

from ..errors import LabError


class ClassError(LabError, ValueError):
    """A class cannot be used as asked: unknown, closed or deleted class, wrong teacher key, a name or PIN refused,
    a full or locked roster, a limit reached."""


class SlowDown(ClassError):
    """Too many tries from this visitor in a short time: ``retry_after`` seconds until the next one counts."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = float(retry_after)
