"""CTGAN, TVAE and GaussianCopula from sdv 2.0, on categorical columns.

Source: Annamalai, Gadotti & Rocher (USENIX Security 2024), §5.2 and App. A: CTGAN (Xu et al., NeurIPS 2019),
``sdv.tabular.CTGAN()`` of sdv 0.16 with all defaults (300 epochs, batch 500, embedding 128, G/D (256, 256),
lr 2e-4, pac 10). TVAE and GaussianCopula (same sdv family) were available in the paper's code but not
evaluated, so they are marked ``in_paper = False``. Spec ``docs/specs/seed002_linear_recon_sdg.md`` §5, §11-A5, §12.

Math (what the libraries fit, for orientation):

* CTGAN: a conditional GAN; each categorical column is one-hot encoded, the generator ``G(z, cond)`` is
  trained against a PacGAN critic with WGAN-GP loss, conditioning on a column/value drawn by log-frequency
  ("training-by-sampling") so rare categories are learnt.
* TVAE: a variational auto-encoder on the same encoding, maximising the ELBO
  ``E_q[log p(x | z)] − KL(q(z | x) ‖ N(0, I))``.
* GaussianCopula: each column mapped to a standard normal through its (categorical → uniform-interval)
  CDF, the dependence modelled by the normal's correlation matrix, sampled and mapped back.

Decisions:

* Every column is declared ``sdtype = "categorical"`` with string labels (spec §11-A5: sdv 0.16 inferred
  integer codes as *numerical*, which the paper's CTGAN therefore modelled as continuous; modern sdv with
  categorical metadata gives CTGAN a fair chance). Samples are mapped back to codes. ``CTGAN(numeric_codes=
  True)`` reproduces the paper's behaviour instead.
* ``epochs`` defaults to 30 for a responsive page; ``epochs=300`` is the paper's setting. On this machine
  CTGAN costs ≈ 0.08 s per epoch at n = 1000 plus a ≈ 4 s torch warm-up on the first fit of a process, and
  ``import sdv`` alone ≈ 4 s (done lazily, inside ``fit``).
* Reproducibility: torch, numpy's and Python's global generators are seeded from ``rng`` inside ``fit`` and
  ``sample`` and restored afterwards, and the model's own sampling seed is set from ``rng`` (sdv's
  ``_set_random_state``); ``torch.set_num_threads(1)`` during the work (robust on a shared CPU).
* CTGAN with categorical columns samples through :mod:`._ctgan_sampling`: the same random numbers, generator
  outputs and argmax as sdv's ``sample()``, straight to integer codes (≈ 9 s instead of ≈ 16 s of CPU for 10⁶
  rows on CCES16); its fit one-hot encodes in this process rather than in joblib workers.
* No network: sdv's demo downloaders are never called.
"""
from __future__ import annotations

import contextlib
import random
import warnings

import joblib
import numpy as np

from ...cancel import checkpoint
from ...errors import ParameterError
from .base import Synthesizer, _integer, register_synthesizer
from ._ctgan_sampling import sample_codes, spans

TABLE = "t"


@contextlib.contextmanager
def _seeded(rng: np.random.Generator):
    """Seed torch, numpy's and Python's global RNGs from ``rng``; restore them (and torch's threads) after."""
    import torch

    seed = int(rng.integers(2 ** 31 - 1))
    np_state, py_state = np.random.get_state(), random.getstate()
    threads = torch.get_num_threads()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        np.random.seed(seed)
        random.seed(seed)
        torch.set_num_threads(1)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
        finally:
            torch.set_num_threads(threads)
            np.random.set_state(np_state)
            random.setstate(py_state)


class _SDVSynthesizer(Synthesizer):
    slow = True
    _sdv_class = ""
    _has_epochs = True
    numeric_codes = False

    def __init__(self, epochs: int = 30, **privacy):
        super().__init__(**privacy)   # refuses an ε: these models give no DP guarantee
        self.epochs = _integer("epochs", epochs, 1, 5000) if self._has_epochs else None

    def _params(self):
        return {"epochs": self.epochs} if self._has_epochs else {}

    def _labels(self, j: int) -> np.ndarray:
        return np.asarray([f"v{v}" for v in range(self.cardinalities_[j])], dtype=object)

    def _frame(self, codes: np.ndarray):
        import pandas as pd

        if self.numeric_codes:
            return pd.DataFrame({f"a{j}": codes[:, j] for j in range(codes.shape[1])})
        return pd.DataFrame({f"a{j}": self._labels(j)[codes[:, j]] for j in range(codes.shape[1])})

    def _build(self, metadata):
        import sdv.single_table as st

        cls = getattr(st, self._sdv_class)
        if self._has_epochs:
            return cls(metadata, epochs=self.epochs)
        return cls(metadata)

    def _fit(self, codes, rng):
        checkpoint(f"fitting {self.title}")
        from sdv.metadata import Metadata

        frame = self._frame(codes)
        with _seeded(rng):
            metadata = Metadata.detect_from_dataframes({TABLE: frame})
            for col in frame.columns:
                if self.numeric_codes:
                    metadata.update_column(column_name=col, sdtype="numerical", table_name=TABLE)
                else:
                    metadata.update_column(column_name=col, sdtype="categorical", table_name=TABLE)
            self._model = self._build(metadata)
            # ctgan one-hot encodes the columns of ≥ 500 rows in worker processes (joblib, n_jobs = -1): seconds
            # of start-up and pickling for a few milliseconds of work, and workers whose global numpy state the
            # seeding above does not reach. In this process the encoding is the same and the fit reproducible.
            with joblib.parallel_config(backend="sequential"):
                self._model.fit({TABLE: frame})
        checkpoint(f"fitting {self.title}")

    def _fast_codes(self, m):
        """Codes drawn without sdv's frame of labels (CTGAN only, see ``_ctgan_sampling``); None = use sdv."""
        return None

    def _sample(self, m, rng):
        with _seeded(rng):
            # sdv fixes its sampling seed (73251) on the first sample() and then advances it, so the same
            # rng would not give the same records twice; re-seed the model from rng instead.
            seed = int(rng.integers(2 ** 31 - 1))
            self._model._set_random_state(seed)
            codes = self._fast_codes(int(m))
            if codes is not None:
                return codes
            self._model._set_random_state(seed)
            out = self._model.sample(num_rows=int(m))
        frame = out[TABLE] if isinstance(out, dict) else out
        codes = np.empty((m, len(self.cardinalities_)), dtype=np.int64)
        for j, k in enumerate(self.cardinalities_):
            if self.numeric_codes:   # continuous model of the codes: round and clip back into the domain
                values = np.rint(frame[f"a{j}"].to_numpy(dtype=np.float64))
                codes[:, j] = np.clip(values, 0, k - 1).astype(np.int64)
                continue
            lookup = {label: v for v, label in enumerate(self._labels(j))}
            mapped = frame[f"a{j}"].map(lookup)
            if mapped.isna().any():
                raise RuntimeError(f"{self.name}: sdv produced a value outside column {j}'s domain")
            codes[:, j] = mapped.to_numpy(dtype=np.int64)
        return codes


@register_synthesizer
class CTGAN(_SDVSynthesizer):
    """``numeric_codes=True`` reproduces the paper's run (spec §11-A5): integer codes declared *numerical*,
    so CTGAN models them as continuous (mode-specific normalisation) and samples are rounded and clipped
    back into each domain."""

    name = "ctgan"
    title = "CTGAN (conditional GAN, sdv)"
    _sdv_class = "CTGANSynthesizer"

    def __init__(self, epochs: int = 30, numeric_codes: bool = False, **privacy):
        super().__init__(epochs=epochs, **privacy)
        if not isinstance(numeric_codes, (bool, np.bool_)):
            raise ParameterError("numeric_codes", f"expected True or False, got {numeric_codes!r}")
        self.numeric_codes = bool(numeric_codes)

    def _params(self):
        return {**super()._params(), "numeric_codes": self.numeric_codes}

    def _fast_codes(self, m):
        if self.numeric_codes:   # continuous spans: the library's inverse transform draws more noise
            return None

        columns = [f"a{j}" for j in range(len(self.cardinalities_))]
        labels = [{label: v for v, label in enumerate(self._labels(j))} for j in range(len(columns))]
        layout = spans(self._model._model, columns, labels)
        return None if layout is None else sample_codes(self._model._model, m, layout)


@register_synthesizer
class TVAE(_SDVSynthesizer):
    name = "tvae"
    title = "TVAE (variational auto-encoder, sdv)"
    in_paper = False
    _sdv_class = "TVAESynthesizer"


@register_synthesizer
class GaussianCopula(_SDVSynthesizer):
    name = "gaussiancopula"
    title = "GaussianCopula (sdv)"
    in_paper = False
    _sdv_class = "GaussianCopulaSynthesizer"
    _has_epochs = False

    def __init__(self, **privacy):
        super().__init__(**privacy)
