"""Who is exposed when a model is published: the per-record table of the ML-models lab.

The attacker of the disparate attribute-inference game (Kabir, Craig & Mehnaz, arXiv 2504.04033, §3–§5) queries
the published model with each training record's non-sensitive attributes and label and infers its binary
sensitive attribute. One row per training record: its subgroup and label (what the attacker knows besides the
model), the sensitive attribute as the secret, the attack's guess and its confidence in that guess.
"""
from __future__ import annotations

import numpy as np

from ..data.file_rows import file_cells, row_numbers, text_frame
from .records import build, confidence

WHY_NOT_CERTIFIED = ("A trained model's outputs are consistent with either value of the sensitive attribute, so no "
                     "guess can be certified.")


def exposure_table(d, pred, score, path: str | None = None) -> dict:
    """The records table of one attack on the training records of ``d`` (a ``DisparityData``).

    ``score`` is the attack's score for s = 1; the table's score is its rank turned into confidence in the guess
    (:func:`core.measure.records.confidence`). Probable: above the confidence that at most 1 % of the wrong guesses
    reach. Nothing is certified. ``id`` is the record's row in its source table (``d.row_meaning`` says how it
    is counted: for an upload, the data row of the user's file), so the same person keeps the same id across
    seeds of the data split and across runs that compare settings."""

    pred = np.asarray(pred).astype(int)
    groups = [d.group_names[int(g)] for g in d.g]
    rows = d.train_rows if d.train_rows is not None else np.arange(1, len(pred) + 1)
    meaning = d.row_meaning or "id = the record's position in the training split (1 = the first)"
    # values as the data write them (the user's own words for the sensitive attribute and the label), not codes
    sv, lv = d.sensitive_values, d.label_values
    roles = f"secret = {d.sensitive_col}; subgroup = {d.group_col}; label = {d.label_col} (the model's output)."
    known = {"subgroup": groups, "label": [lv[int(v)] for v in d.y]}
    secret, guess = [sv[int(v)] for v in d.s], [sv[int(v)] for v in pred]
    if path and d.train_rows is not None:
        known, secret, guess, rows = _as_in_file(path, d, (np.asarray(rows) - 1).tolist(), pred)
        roles = (f"secret = {d.sensitive_col}, as your file writes it; the other columns are what the attacker "
                 f"knows (the model's output {d.label_col} among them), as your file writes them.")
    table = build(np.asarray(rows).tolist(), secret, guess, confidence(score, pred), known=known,
                  certification={"available": False, "why": WHY_NOT_CERTIFIED}, unit="training record",
                  notes=[meaning + ".", roles])
    return table.to_dict()


def _as_in_file(path: str, d, positions: list[int], pred) -> tuple[dict, list, list, list]:
    """The training records' own cells, read from the user's file by position: every column but the secret (what
    the attacker knows), the secret, the guess written the way the file writes that value, and each record's row
    in the user's file (blank lines and rows the import step dropped counted)."""
    columns = [c for c in text_frame(path).columns if c != d.sensitive_col]
    cells = file_cells(path, positions, [*columns, d.sensitive_col])
    secret = cells.pop(d.sensitive_col)
    words = {int(code): text for code, text in zip(np.asarray(d.s).tolist(), secret)}
    for code in (0, 1):  # a value no training record holds: its reading in the data
        words.setdefault(code, str(d.sensitive_values[code]))
    return cells, secret, [words[int(v)] for v in pred], row_numbers(path, positions)
