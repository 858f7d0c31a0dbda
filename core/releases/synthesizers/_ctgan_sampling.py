"""CTGAN's sampler with categorical columns, drawn straight to integer codes: the records sdv's
``CTGANSynthesizer.sample`` returns for the same seed, at about half the CPU.

Source: Xu et al., "Modeling Tabular Data using Conditional GAN" (NeurIPS 2019), §4.2–4.3 (the generator's
output activation and the conditional vector drawn from the data's frequencies at sampling time), as implemented
by the ``ctgan`` package that sdv wraps; used by the linear-reconstruction paper's CTGAN (Annamalai, Gadotti &
Rocher, USENIX Security 2024, §5.2).

What the library does, one batch of ``B = 500`` rows at a time (``ctgan.CTGAN.sample``):

1. ``z ~ N(0, I_128)`` per row (``torch.normal``), a conditional one-hot vector per row drawn from the training
   data's category frequencies (``numpy``), and the generator ``G([z, cond])`` — in *training* mode, so its
   batch normalisation uses the statistics of each batch of ``B`` rows (rows of one batch are not independent;
   that is why the batch size is kept).
2. For each categorical column with generator outputs ``ℓ`` (its span), the Gumbel-softmax
   ``y = softmax((ℓ + g) / τ)`` with ``g = −log E``, ``E ~ Exp(1)`` drawn per entry and ``τ = 0.2``.
3. The data transformer's inverse: the category is ``argmax y`` of each span, mapped through the one-hot
   encoder's category order, then to the column's label by sdv.

Here the same random numbers are drawn in the same order from the same generators (the model's own numpy and
torch states, set and advanced as the library's ``random_state`` decorator does), the generator runs under
``torch.no_grad()`` (the library builds an autograd graph it never uses), and step 2–3 collapse to
``argmax(ℓ + g)``: softmax is strictly increasing and dividing by ``τ > 0`` keeps the order, so
``argmax softmax((ℓ + g)/τ) = argmax(ℓ + g)``. The codes therefore equal the library's for the same seed
(up to two entries of one span that round to the same float after the softmax, where the library takes the
first and this the larger — far rarer than one row in 10⁶); no pandas frame of 10⁶ string labels is built.
The library redraws a batch's Gumbel noise when the softmax returns NaN, which only non-finite generator outputs
can cause; then this returns ``None`` and the caller uses the library.
"""
from __future__ import annotations

import numpy as np


def spans(ctgan_model, columns: list[str], label_codes: list[dict]) -> list[tuple[int, int, int, np.ndarray]] | None:
    """Per generator output span, in the transformer's order: ``(start, width, column index j, code of each
    one-hot position)``; ``None`` when a column is not a single categorical span (numerical columns, or an
    encoder with categories this table does not know) — the caller then samples through the library."""
    out, start = [], 0
    for info in ctgan_model._transformer._column_transform_info_list:
        if info.column_type != "discrete" or len(info.output_info) != 1 or info.column_name not in columns:
            return None
        j = columns.index(info.column_name)
        dummies = list(info.transform.dummies)
        if len(dummies) != info.output_dimensions or any(d not in label_codes[j] for d in dummies):
            return None
        out.append((start, info.output_dimensions, j, np.asarray([label_codes[j][d] for d in dummies],
                                                                   dtype=np.int64)))
        start += info.output_dimensions
    return out if sorted(s[2] for s in out) == list(range(len(columns))) else None


def sample_codes(ctgan_model, m: int, span_list) -> np.ndarray | None:
    """``m`` records as integer codes (columns in table order), or ``None`` if the generator produced a
    non-finite output (see the module docstring). Reads and advances ``ctgan_model``'s random states exactly
    as ``ctgan_model.sample(m)`` would."""
    # lazy: torch loads only where it is used (start-up time: +809 modules)
    import torch
    # lazy: ctgan loads only where it is used (start-up time: +902 modules)
    from ctgan.synthesizers.base import set_random_states

    batch, width = ctgan_model._batch_size, ctgan_model._embedding_dim
    steps = m // batch + 1          # the library draws one batch more than it needs, and so does this
    out = np.empty((steps * batch, len(span_list)), dtype=np.int64)
    sampler, generator = ctgan_model._data_sampler, ctgan_model._generator
    with set_random_states(ctgan_model.random_states, ctgan_model.set_random_state), torch.no_grad():
        for i in range(steps):
            mean = torch.zeros(batch, width)
            fakez = torch.normal(mean=mean, std=mean + 1)
            condvec = sampler.sample_original_condvec(batch)
            if condvec is not None:
                fakez = torch.cat([fakez, torch.from_numpy(condvec)], dim=1)
            fake = generator(fakez)
            if not bool(torch.isfinite(fake).all()):
                return None
            rows = slice(i * batch, (i + 1) * batch)
            for start, size, j, codes in span_list:
                logits = fake[:, start:start + size]
                gumbel = -torch.empty_like(logits, memory_format=torch.legacy_contiguous_format).exponential_().log()
                out[rows, j] = codes[torch.argmax(logits + gumbel, dim=1).numpy()]
    return out[:m]
