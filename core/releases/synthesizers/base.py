"""Base class and registry of synthetic-data generators.

Source: Annamalai, Gadotti & Rocher, "A Linear Reconstruction Approach for Attribute Inference Attacks
against Synthetic Data" (USENIX Security 2024), §5.2 and App. A; ``docs/specs/seed002_linear_recon_sdg.md`` §5.

Contract (scikit-learn style, numpy arrays for speed):

* ``__init__(**params)`` only stores validated parameters (``epsilon``/``delta`` for DP generators);
  a bad value raises :class:`~core.errors.ParameterError` naming it.
* ``fit(data, rng)`` learns from a :class:`~core.data.dataset.Dataset` (every column categorical with
  an explicit domain) and returns ``self``. The generator keeps ``self.cardinalities_`` and
  ``self.columns_``.
* ``sample(m, rng)`` returns an ``(m, d)`` ``int64`` array of codes, column ``j`` in
  ``range(cardinalities_[j])``. It must cope with ``m`` up to 10⁶ in seconds (generate in batches,
  never a Python loop over rows).
* ``on_progress``: optional callable ``f(fraction_done)``; long fits (RAP, RAP^softmax) call it every few
  dozen steps so a page can show progress (``core.cancel.checkpoint()`` is called at the same points).
* ``privacy`` is the ``(ε, δ)`` the generator claims: ``(inf, 0.0)`` when it gives no differential-privacy
  guarantee.
* ``sample_dataset(m, rng)`` wraps :meth:`sample` into a :class:`Dataset` for display.
* ``params()`` returns the constructor parameters as a plain dict (``epsilon`` for DP generators, ``delta``
  where it is a parameter, plus each generator's own, e.g. ``k``, ``steps``, ``epochs``), so a run can record its full
  configuration; ``get_synthesizer(name, **gen.params())`` rebuilds the same generator.

Class attributes: ``name`` (registry key, the paper's name in lower case), ``title`` (the one label of the UI, the
plots and the run's record; the registry sets it to ``name`` where a generator gives none), ``dp`` (whether
``epsilon`` is a parameter), ``in_paper`` (False for generators the paper did not test, so the UI can label
them), ``slow`` (neural generators that need progress and caching).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ...cancel import checkpoint
from ...data.dataset import Dataset
from ...errors import ParameterError

SYNTHESIZERS: dict[str, type["Synthesizer"]] = {}


def register_synthesizer(cls: type["Synthesizer"]) -> type["Synthesizer"]:
    """Class decorator: add a generator to the registry under ``cls.name``."""
    if not cls.name:
        raise ValueError("a synthesizer needs a name")
    if not cls.__dict__.get("title"):  # the UI, the CLI and the plots all show ``title``: never empty
        cls.title = cls.name
    SYNTHESIZERS[cls.name] = cls
    return cls


def get_synthesizer(name: str, **params: Any) -> "Synthesizer":
    """Build the generator called ``name`` with ``params`` (validated by its constructor)."""
    if name not in SYNTHESIZERS:
        raise ParameterError("generator", f"unknown generator {name!r}; known: {', '.join(sorted(SYNTHESIZERS))}")
    return SYNTHESIZERS[name](**params)


class Synthesizer:
    name: str = ""
    title: str = ""
    dp: bool = False
    in_paper: bool = True
    slow: bool = False

    def __init__(self, epsilon: float | None = None, delta: float | None = None):
        if self.dp:
            self.epsilon = _positive("epsilon", epsilon if epsilon is not None else 1.0)
            self.delta = 0.0 if delta is None else _probability("delta", delta)
        else:
            if epsilon is not None and math.isfinite(float(epsilon)):
                raise ParameterError("epsilon", f"generator {self.name!r} is not differentially private and "
                                                "takes no ε; choose a DP generator to set ε")
            self.epsilon, self.delta = math.inf, 0.0
        self.on_progress: Callable[[float], None] | None = None
        self.columns_: list[str] = []
        self.cardinalities_: tuple[int, ...] = ()
        self._domain: dict[str, tuple] = {}

    # ------------------------------------------------------------------ API
    @property
    def privacy(self) -> tuple[float, float]:
        return (self.epsilon, self.delta) if self.dp else (math.inf, 0.0)

    def fit(self, data: Dataset, rng: np.random.Generator) -> "Synthesizer":
        self._remember(data)
        self._fit(data.codes(), rng)
        if self.on_progress is not None:
            self.on_progress(1.0)
        return self

    def sample(self, m: int, rng: np.random.Generator) -> np.ndarray:
        if not self.cardinalities_:
            raise RuntimeError(f"{self.name}: call fit() before sample()")
        m = int(m)
        if m < 1:
            raise ParameterError("synth_size", f"expected at least 1 synthetic record, got {m}")
        out = np.asarray(self._sample(m, rng), dtype=np.int64)
        assert out.shape == (m, len(self.cardinalities_)), out.shape
        return out

    def sample_dataset(self, m: int, rng: np.random.Generator) -> Dataset:
        return Dataset.from_codes(self.sample(m, rng), self._domain, name=f"{self.name} synthetic data")

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"epsilon": self.epsilon} if self.dp else {}   # δ: in _params() if settable
        out.update(self._params())
        return out

    def describe(self) -> str:
        eps, delta = self.privacy
        if math.isinf(eps):
            return f"{self.title}: no DP guarantee"
        return f"{self.title}: ({eps:g}, {delta:g})-DP"

    # ------------------------------------------------------- for subclasses
    def _progress(self, fraction: float, what: str) -> None:
        """Report progress of a long fit and honour a Stop request (``core.cancel.checkpoint``)."""
        checkpoint(what)
        if self.on_progress is not None:
            self.on_progress(min(1.0, max(0.0, float(fraction))))

    def _params(self) -> dict[str, Any]:
        """The generator's own constructor parameters (besides ε, δ)."""
        return {}

    def _fit(self, codes: np.ndarray, rng: np.random.Generator) -> None:
        raise NotImplementedError

    def _sample(self, m: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def _remember(self, data: Dataset) -> None:
        self.columns_ = list(data.columns)
        self.cardinalities_ = tuple(int(k) for k in data.cardinalities)
        self._domain = dict(data.domain)


class DeltaOneOverNSquared:
    """For a DP generator whose δ, left unset, is ``1/n²`` of the table it is fitted on (the papers' choice for MST,
    AIM and RAP^softmax): ``delta`` stays ``None`` until ``fit`` knows ``n``, so ``privacy`` reads ``(ε, nan)`` and
    ``describe`` says "1/n²" before it. Listed before the generator's base class; the constructor calls
    :meth:`_take_delta` after the base's ``__init__`` (which it gives ``delta=0``), and ``_fit`` calls
    :meth:`_fit_delta` with the number of records before it spends any budget."""

    def _take_delta(self, delta: float | None, claim: str) -> None:
        """Validate a given δ (``claim``: the error's words, ending "needs δ > 0"); ``None`` keeps the default."""
        if delta is not None:
            delta = _probability("delta", delta)
            if delta <= 0:
                raise ParameterError("delta", f"{claim} (default 1/n²)")
        self._delta_param = delta
        self.delta = delta  # None until fit when left at the default 1/n²

    def _fit_delta(self, n: int) -> None:
        if self._delta_param is None:
            self.delta = 1.0 / n ** 2

    def _params(self) -> dict[str, Any]:
        return {**super()._params(), "delta": self._delta_param}

    @property
    def privacy(self) -> tuple[float, float]:
        """``(ε, δ)``; with the default δ it is ``1/n²`` once fitted (``nan`` before, as n is not known)."""
        return (self.epsilon, self.delta if self.delta is not None else math.nan)

    def describe(self) -> str:
        if self.delta is None:
            return f"{self.title}: ({self.epsilon:g}, 1/n²)-DP"
        return super().describe()


def _positive(name: str, value) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, f"expected a number > 0, got {value!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise ParameterError(name, f"expected a finite number > 0, got {value!r}")
    return value


def _probability(name: str, value) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, f"expected a number in [0, 1), got {value!r}") from None
    if not 0 <= value < 1:
        raise ParameterError(name, f"expected a number in [0, 1), got {value!r}")
    return value


def _integer(name: str, value, low: int, high: int | None = None) -> int:
    """Validate an integer parameter in ``[low, high]`` (``high=None``: no upper bound)."""
    if isinstance(value, bool):
        raise ParameterError(name, f"expected an integer, got {value!r}")
    try:
        as_float = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, f"expected an integer, got {value!r}") from None
    if not math.isfinite(as_float) or as_float != int(as_float):
        raise ParameterError(name, f"expected an integer, got {value!r}")
    value = int(as_float)
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ParameterError(name, f"expected an integer {bound}, got {value}")
    return value
