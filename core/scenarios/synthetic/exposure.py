"""Who is exposed by a synthetic release: every attacked training record, traced to its row and shown with the
person's own values.

One row per (game, training record) attacked by the headline attack (the inference attack with the largest risk
against the control set) on the game's largest release: the id names the game and the record's row in the data
(``G<game>-row<i>``, row 1 = the first data row under the file's header), the known columns and the secret show
the person's values *as written in the file* (not the bins or codes the generators see, and the real secret, not
the coin-flipped one of the paper's target), the guess is the attack's value, and the score its confidence.
For a secret binarised as ``column=value`` the secret column shows the column's value in the file and the guess
reads "value" or "not value".
"""
from __future__ import annotations

import os

import numpy as np

from ...attacks.declaration import labels
from ...data.file_rows import row_numbers
from ...measure.records import build, confidence
from .data import read_csv_rows


def _file_rows(config: dict):
    """The uploaded file's rows as written, or None for a built-in data set."""
    if config["dataset"] != "csv" or not config.get("data_path"):
        return None
    path = config["data_path"]
    return read_csv_rows(path, os.path.getmtime(path))


def exposure_from_records(config: dict, context: dict, main: list[dict], head: str):
    """The exposure table (:func:`core.measure.records.build`) of the ``head`` attack's guesses on every
    attacked training record of every game."""
    recs = [r["records"] for r in main if r.get("records") and head in r["records"]["attacks"]]
    if not recs:
        return None
    domain, secret = context["domain"], context["secret"]
    names = list(domain)
    qis = names[:-1]
    binarised = "=" in secret and tuple(domain[secret]) == (0, 1)
    column = secret.split("=", 1)[0].strip() if "=" in secret else secret
    shown_value = secret.split("=", 1)[1].strip() if "=" in secret else ""
    raw = _file_rows(config)
    codes = context["codes"]
    ids, truth_shown, guess_shown, correct, scores, guesses = [], [], [], [], [], []
    known: dict[str, list] = {q: [] for q in qis}
    # the user's row of each position: blank lines and the rows the import step dropped are counted
    numbers = None
    if raw is not None:
        positions = sorted({int(row) for r in recs for row in r["train_rows"]})
        numbers = dict(zip(positions, row_numbers(config["data_path"], positions)))
    for r in recs:
        x = r["attacks"][head]
        for row, t, gs, sc in zip(r["train_rows"], r["train_truth"], x["train_guess"], x["train_score"]):
            ids.append(f"G{r['game'] + 1}-row{row + 1 if numbers is None else numbers[int(row)]}")
            correct.append(int(gs) == int(t))
            scores.append(float(sc))
            guesses.append(int(gs))
            if raw is not None:
                file_row = raw.iloc[row]
                for q in qis:
                    known[q].append(_cell(file_row.get(q)))
                truth_shown.append(_cell(file_row.get(column)))
            else:
                for j, q in enumerate(qis):
                    known[q].append(_cell(domain[q][int(codes[row, j])]))
                truth_shown.append(_cell(domain[secret][int(t)]) if not binarised else
                                   (shown_value if int(t) else f"not {shown_value}"))
            guess_shown.append((shown_value if int(gs) else f"not {shown_value}") if binarised
                               else _cell(domain[secret][int(gs)]))
    why = ("A synthetic sample is consistent with either value of any one record's secret, so no guess can be "
           "certified.")
    where = ("row = the record's data row in your file (1 = the first row under the header); the known columns "
             "and the secret are shown as written there" if raw is not None else
             "row = the record's row in the data set (1 = its first row)")
    note = (f"Guesses of {labels('synthetic', 'long').get(head, head)} on every attacked training record (their own secrets, not the "
            f"coin-flipped target's) from a synthetic sample of {context['sizes'][-1]:,} rows; id = "
            f"G<game>-row<row>: {where}.")
    if binarised:
        note += f" The secret is {secret}: the {column} column shows the person's value, the guess \"{shown_value}\" or not."
    return build(ids, truth_shown, guess_shown, confidence(np.array(scores), np.array(guesses)), known=known,
                 correct=correct, certification={"available": False, "why": why}, unit="record", notes=[note])


def _cell(v):
    """A value as a table cell: text stays text, numbers stay numbers, a missing cell is empty."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v if isinstance(v, (int, float, str)) else str(v)
