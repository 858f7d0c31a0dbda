"""Numbers in words, the same way everywhere: a count with its noun (``count(3, "game")`` → '3 games'), a share
as a percentage that never reads as 0% or 100% when it is not, and a value cut to a length that says how long it
was. Nothing here knows about a result; :mod:`core.output.plain_language` builds the sentences."""
from __future__ import annotations

VALUE_LIMIT = 80  # characters of an untrusted value shown in a message


def count(n: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun in the right number: ``count(1, "game")`` → '1 game', ``count(1200, "game")``
    → '1,200 games'; ``plural`` for irregular nouns (``count(2, "query", "queries")``)."""
    n = int(n)
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def pct(x: float) -> str:
    """0.9812 → '98%'; near 0 and 100% as many decimals as it takes not to read as 0% or 100%
    (0.99966 → '99.97%', not '100.0%'), at most six."""
    v = 100.0 * float(x)
    if 99.0 < v < 100.0:
        for d in range(1, 7):
            text = f"{v:.{d}f}"
            if float(text) < 100.0:
                return f"{text}%"
        return "99.99999%"
    if 0.0 < v < 1.0:
        return f"{v:.1f}%"
    return f"{v:.0f}%"


def shorten(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was (a value, not yet made inert)."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"
