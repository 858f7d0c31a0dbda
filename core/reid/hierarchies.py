"""Generalisation hierarchies (CS208 lecture 2, slides "Deidentification via Generalization" and "K-Anonymity").

A generalisation mechanism replaces each value ``x_ij`` by a set ``T_ij ∋ x_ij``. Here the
allowed sets form a *hierarchy* (a tree) per attribute: height ``h = 0`` is the exact value,
height ``h = height`` is the root ``*`` (the whole domain), and every node at height ``h``
lies inside exactly one node at height ``h + 1``. Examples from the slides:

* ZIP digit suppression: ``91010 → 9101* → 910** → … → *****``;
* income bands: ``$125k → $75–150k → *``;
* age bands: ``37 → 35–39 → 30–39 → *`` (the slide writes ``3*``);
* any attribute can be suppressed outright: ``value → *``.

Each hierarchy maps a column of raw values to the labels of their nodes at a given height,
vectorised over pandas Series. Nesting (a node has a single parent) is what makes the
k-anonymity search in :mod:`core.reid.k_anonymity` monotone: generalising further can only
merge equivalence classes, never split them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError

STAR = "*"


class Hierarchy:
    """Base class: ``generalise(values, h)`` returns the node labels at height ``h``."""

    height: int = 1
    kind: str = "suppression"

    def describe(self, h: int) -> str:
        return "exact" if h == 0 else ("suppressed (*)" if h >= self.height else f"level {h}")

    def generalise(self, values: pd.Series, h: int) -> np.ndarray:
        raise NotImplementedError

    def _check(self, h: int) -> int:
        if not 0 <= int(h) <= self.height:
            raise ParameterError("height", f"must be between 0 and {self.height}, got {h}")
        return int(h)

    def codes(self, values: pd.Series) -> list[np.ndarray]:
        """Integer codes of the node of every value, one array per height 0..height."""
        return [pd.factorize(pd.Series(self.generalise(values, h)), sort=False)[0]
                for h in range(self.height + 1)]


@dataclass
class SuppressionHierarchy(Hierarchy):
    """``value → group → *``. Without ``groups`` it is plain suppression (``value → *``)."""

    groups: dict | None = None
    kind: str = "suppression"

    def __post_init__(self):
        self.height = 2 if self.groups else 1

    def describe(self, h: int) -> str:
        if h == 0:
            return "exact"
        if self.groups and h == 1:
            return "grouped"
        return "suppressed (*)"

    def generalise(self, values, h):
        h = self._check(h)
        s = pd.Series(values).astype(str)
        if h == 0:
            return s.to_numpy(dtype=object)
        if self.groups and h == 1:
            return s.map(lambda v: str(self.groups.get(v, v))).to_numpy(dtype=object)
        return np.full(len(s), STAR, dtype=object)


@dataclass
class ZipHierarchy(Hierarchy):
    """ZIP digit suppression: height ``h`` replaces the last ``h`` digits by ``*``."""

    digits: int = 5
    kind: str = "zip"

    def __post_init__(self):
        self.height = int(self.digits)

    def describe(self, h):
        return f"first {self.digits - h} digit(s)" if h < self.digits else "suppressed (*)"

    def generalise(self, values, h):
        h = self._check(h)
        s = pd.Series(values).astype(str).str.strip()
        s = s.str.replace(r"\.0$", "", regex=True).str.zfill(self.digits)
        if (s.str.len() != self.digits).any():
            bad = s[s.str.len() != self.digits].iloc[0]
            raise DataError(f"ZIP value {bad!r} does not have {self.digits} digits")
        keep = self.digits - h
        return (s.str[:keep] + STAR * h).to_numpy(dtype=object)


def _fmt_plain(v: float) -> str:
    return f"{v:g}"


def _fmt_money(v: float) -> str:
    return f"{v / 1000:g}k"


@dataclass
class IntervalHierarchy(Hierarchy):
    """Numeric bands. ``cuts[l]`` are the breakpoints of height ``l + 1`` (finest first).

    A value ``v`` at a height with breakpoints ``c_0 < … < c_r`` falls into ``[c_j, c_{j+1})``,
    or ``< c_0`` / ``≥ c_r`` outside them. Coarser breakpoints must be a subset of finer ones,
    so that the bands nest. ``money=True`` labels bands like the slide (``$75–150k``).
    """

    cuts: list = field(default_factory=list)
    money: bool = False
    kind: str = "interval"

    def __post_init__(self):
        self.cuts = [sorted(float(c) for c in level) for level in self.cuts]
        if not self.cuts or any(len(c) < 1 for c in self.cuts):
            raise ParameterError("cuts", "an interval hierarchy needs at least one level of breakpoints")
        for fine, coarse in zip(self.cuts, self.cuts[1:]):
            if not set(coarse) <= set(fine):
                raise ParameterError("cuts", "coarser breakpoints must be a subset of finer ones (bands must nest)")
        self.height = len(self.cuts) + 1

    @classmethod
    def uniform(cls, widths, lo: float, hi: float, money: bool = False) -> "IntervalHierarchy":
        """Bands of the given widths (each a multiple of the previous) aligned at multiples of the width.

        Breakpoints are built as integer multiples of the finest width, and each coarser level takes every
        k-th of them, so levels nest exactly even for widths such as 0.01 (``np.arange`` on floats does not
        give a coarse level's points exactly: 0.3 is not 3 × 0.1 in binary)."""
        widths = [float(w) for w in widths]
        ratios = [b / a for a, b in zip(widths, widths[1:])]
        if any(w <= 0 for w in widths) or any(abs(r - round(r)) > 1e-9 or round(r) < 1 for r in ratios):
            raise ParameterError("widths", "each band width must be a multiple of the previous one")
        steps = [1]
        for r in ratios:
            steps.append(steps[-1] * int(round(r)))
        fine, top = widths[0], steps[-1]
        first = int(np.floor(lo / (fine * top))) * top
        last = int(np.ceil((hi + 1e-9) / (fine * top))) * top
        digits = max(0, int(-np.floor(np.log10(fine))) + 6)
        points = [round(i * fine, digits) for i in range(first, last + 1)]
        levels = [[p for i, p in zip(range(first, last + 1), points) if i % k == 0] for k in steps]
        return cls(levels, money=money)

    def describe(self, h):
        if h == 0:
            return "exact"
        if h >= self.height:
            return "suppressed (*)"
        c = self.cuts[h - 1]
        widths = np.diff(c)
        if len(widths) and np.allclose(widths, widths[0]):
            return f"bands of {(_fmt_money if self.money else _fmt_plain)(widths[0])}"
        return f"{len(c) + 1} bands"

    def generalise(self, values, h):
        h = self._check(h)
        v = pd.to_numeric(pd.Series(values), errors="coerce")
        if v.isna().any():
            raise DataError("an interval hierarchy needs numeric values without gaps")
        fmt = _fmt_money if self.money else _fmt_plain
        pre = "$" if self.money else ""
        if h == 0:
            return np.array([pre + fmt(x) for x in v], dtype=object)
        if h == self.height:
            return np.full(len(v), STAR, dtype=object)
        c = np.asarray(self.cuts[h - 1])
        idx = np.searchsorted(c, v.to_numpy(), side="right")  # 0: below c0, len(c): ≥ last
        labels = [f"<{pre}{fmt(c[0])}"]
        for a, b in zip(c[:-1], c[1:]):
            labels.append(f"${a / 1000:g}–{b / 1000:g}k" if self.money
                          else f"{fmt(a)}–{fmt(b - 1) if _is_int(a, b) else fmt(b)}")
        labels.append(f"≥{pre}{fmt(c[-1])}")
        return np.asarray(labels, dtype=object)[idx]


def _is_int(a, b) -> bool:
    return float(a).is_integer() and float(b).is_integer()


@dataclass
class DateHierarchy(Hierarchy):
    """Birth date: ``1961-07-31 → 1961-07 → 1961 → 1960–1964 → 1960s → *``."""

    kind: str = "date"

    def __post_init__(self):
        self.height = 5

    _NAMES = ("full date", "month and year", "year", "5-year band", "decade", "suppressed (*)")

    def describe(self, h):
        return self._NAMES[h]

    def generalise(self, values, h):
        h = self._check(h)
        d = pd.to_datetime(pd.Series(values), errors="coerce")
        if d.isna().any():
            raise DataError("a date hierarchy needs parseable dates without gaps")
        y = d.dt.year
        if h == 0:
            out = d.dt.strftime("%Y-%m-%d")
        elif h == 1:
            out = d.dt.strftime("%Y-%m")
        elif h == 2:
            out = y.astype(str)
        elif h == 3:
            lo = (y // 5) * 5
            out = lo.astype(str) + "–" + (lo + 4).astype(str)
        elif h == 4:
            out = ((y // 10) * 10).astype(str) + "s"
        else:
            return np.full(len(d), STAR, dtype=object)
        return out.to_numpy(dtype=object)


def default_hierarchy(name: str, values: pd.Series) -> Hierarchy:
    """A sensible hierarchy for a column: ZIP-like → digits, dates → date, numbers → bands, else suppression."""
    s = pd.Series(values)
    lname = str(name).lower()
    if "zip" in lname or "postcode" in lname:
        digits = int(s.astype(str).str.replace(r"\.0$", "", regex=True).str.len().max())
        return ZipHierarchy(digits=max(digits, 1))
    if pd.api.types.is_datetime64_any_dtype(s) or "date" in lname:
        return DateHierarchy()
    num = pd.to_numeric(s, errors="coerce")
    if pd.api.types.is_numeric_dtype(s) and num.notna().all() and num.nunique() > 8:
        lo, hi = float(num.min()), float(num.max())
        span = max(hi - lo, 1.0)
        w = 10 ** np.floor(np.log10(span / 10))  # about 10–100 bands at the finest level
        w = w * (5 if span / w > 50 else 1)
        money = "income" in lname or "wage" in lname or "salary" in lname
        return IntervalHierarchy.uniform([w, 2 * w, 4 * w], lo, hi, money=money)
    return SuppressionHierarchy()
