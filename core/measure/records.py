"""Who is exposed: the per-record risk table every run returns beside its metrics.

A run's metrics say how often an attack wins on average; this table says *which* individuals (or secrets) it
settles. One row per attacked individual or secret:

``id`` (maps back to the row of the data the game drew or the user uploaded), the attributes the attacker knows
(``known``: quasi-identifiers where the game has them), ``secret`` (the truth), ``guess``, ``score`` (the attack's
confidence, oriented so that higher = more exposed), ``correct``, ``tier``, ``reason`` (one sentence) and, where
meaningful, ``k`` (how many records share the known attributes).

Tiers, strongest first:

* **certified** — the guess holds in every dataset consistent with the release and the attacker's knowledge; a
  proof, not an estimate (a scenario supplies the proof: an integer program's feasible set, DeSIA's deterministic
  module, a unique linkage match). A certified guess is never wrong.
* **probable** — the score clears a threshold calibrated on the game's own *negatives* (wrong guesses in an
  attribute game, non-members in a membership game) so that at most a fraction ``fpr`` (1 % by default) of those
  negatives clear it: "probable" carries a stated false-positive rate. With ``N`` negatives the rate can only be
  resolved to ``1/N``; the measured rate and its Clopper–Pearson upper bound are stated beside it.
* **guess** — the rest: the attack names a value, but no better supported than by the negatives themselves.

Runs that aggregate many games keep at most ``records_max`` rows (10,000 by default): the first rows in game
order, which is a seeded, unbiased sample; the tier counts, the calibration and the accuracy always cover every
row, and the table says when it was cut.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import ParameterError

TIERS = ("certified", "probable", "guess")
RECORDS_MAX = 10_000
DEFAULT_FPR = 0.01
# Columns of every table, in CSV order; the known attributes sit between ``id`` and ``secret``.
BASE_COLUMNS = ("id", "secret", "guess", "score", "correct", "tier", "reason", "k")


@dataclass
class Calibration:
    """The probable tier's threshold: scores strictly above ``threshold`` are called probable.

    ``negatives`` scores were calibrated on, ``false_positives`` of them clear the threshold (``rate``); at most
    ``fpr`` of them may. ``rate_high`` is the 95 % Clopper–Pearson upper bound of the rate on fresh negatives.
    """

    fpr: float
    threshold: float | None
    negatives: int
    false_positives: int
    negative_kind: str

    @property
    def rate(self) -> float | None:
        return self.false_positives / self.negatives if self.negatives else None

    @property
    def rate_high(self) -> float | None:
        if not self.negatives:
            return None
        from scipy.stats import beta

        k, n = self.false_positives, self.negatives
        return 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))

    def sentence(self) -> str:
        if self.threshold is None:
            return (f"No {self.negative_kind} to calibrate a threshold on, so nothing is called probable.")
        return (f"Probable: score above {self.threshold:.6g}, which {self.false_positives:,} of "
                f"{self.negatives:,} {self.negative_kind} cleared ({100 * (self.rate or 0):.2g}%, at most "
                f"{100 * self.fpr:g}% allowed; ≤ {100 * (self.rate_high or 0):.2g}% on fresh ones at 95%).")

    def to_dict(self) -> dict:
        return {"fpr": self.fpr, "threshold": self.threshold, "negatives": self.negatives,
                "false_positives": self.false_positives, "negative_kind": self.negative_kind,
                "rate": self.rate, "rate_high": self.rate_high, "sentence": self.sentence()}


def calibrate(negative_scores: Iterable[float], fpr: float = DEFAULT_FPR,
              negative_kind: str = "negatives") -> Calibration:
    """The lowest threshold ``t`` with at most ``fpr`` of ``negative_scores`` strictly above it.

    ``t`` is the ``(⌊fpr·N⌋+1)``-th largest negative score, so ``#{s > t} ≤ ⌊fpr·N⌋`` (ties only lower it).
    On fresh negatives from the same distribution the expected rate is at most ``fpr``.
    """
    if not 0 < fpr < 1:
        raise ParameterError("fpr", f"the probable tier's false-positive rate must be in (0, 1), got {fpr}")
    s = np.asarray(list(negative_scores) if not isinstance(negative_scores, np.ndarray) else negative_scores,
                   dtype=float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return Calibration(fpr, None, 0, 0, negative_kind)
    allowed = int(math.floor(fpr * s.size))
    desc = np.sort(s)[::-1]
    t = float(desc[min(allowed, s.size - 1)])
    return Calibration(fpr, t, int(s.size), int(np.sum(s > t)), negative_kind)


@dataclass
class RecordTable:
    """The per-record table of one run (columns as lists, so 10⁴ rows load into a DataFrame at once)."""

    columns: dict[str, list]
    known: list[str]
    total: int
    tier_counts: dict[str, int]
    accuracy: float | None
    calibration: dict
    certification: dict
    unit: str = "record"
    records_max: int = RECORDS_MAX
    notes: list[str] = field(default_factory=list)
    # chance of a right guess with no release at all, where the guesses are not values the secrets take (a name
    # for a person: 1/population); None = the share of records whose secret equals the guessed value
    baseline: float | None = None
    # a scenario's roll-up of the rows per group (e.g. per attacked user when every user plays many games):
    # {"unit", "columns": {name: list}, "x", "y", "y_low", "y_high", "sentences", "content"}; None = no groups
    groups: dict | None = None

    @property
    def truncated(self) -> bool:
        return self.total > len(self.columns.get("id", []))

    def __len__(self) -> int:
        return len(self.columns.get("id", []))

    def to_dict(self) -> dict:
        return {"columns": self.columns, "known": self.known, "total": self.total,
                "tier_counts": self.tier_counts, "accuracy": self.accuracy, "calibration": self.calibration,
                "certification": self.certification, "unit": self.unit, "records_max": self.records_max,
                "truncated": self.truncated, "notes": self.notes, "baseline": self.baseline,
                "groups": self.groups}

    @classmethod
    def from_dict(cls, data: dict | None) -> "RecordTable | None":
        if not data:
            return None
        keys = ("columns", "known", "total", "tier_counts", "accuracy", "calibration", "certification", "unit",
                "records_max", "notes", "baseline", "groups")
        return cls(**{k: data[k] for k in keys if k in data})

    def order(self) -> list[str]:
        """CSV column order: id, the known attributes, then the rest."""
        return ["id", *self.known, *[c for c in BASE_COLUMNS[1:] if c in self.columns]]

    def rows(self) -> list[dict]:
        cols = self.order()
        return [dict(zip(cols, vals)) for vals in zip(*(self.columns[c] for c in cols))]


def build(ids: Sequence, secret: Sequence, guess: Sequence, score: Sequence, *,
          certified: Sequence[bool] | None = None,
          certified_reason: Sequence[str] | str = "",
          negatives: Sequence[float] | None = None,
          negative_kind: str = "wrong guesses",
          known: dict[str, Sequence] | None = None,
          k: Sequence | None = None,
          correct: Sequence[bool] | None = None,
          fpr: float = DEFAULT_FPR,
          certification: dict | None = None,
          unit: str = "record",
          records_max: int = RECORDS_MAX,
          probable_ok: Sequence[bool] | None = None,
          notes: Sequence[str] = (),
          baseline: float | None = None) -> RecordTable:
    """Assign tiers and reasons, then cut to ``records_max`` rows (counts and calibration cover every row).

    ``negatives``: the scores the probable threshold is calibrated on; default: the scores of the wrong guesses
    (an attribute game). ``probable_ok``: rows that may be called probable at all (a membership game calls only
    rows it claims as members; default every row). ``certified_reason``: one sentence per certified row, or one
    for all.
    """
    if records_max < 1:
        raise ParameterError("records_max", f"expected an int >= 1, got {records_max}")
    n = len(ids)
    score_a = np.asarray(score, dtype=float).reshape(-1)
    secret_l, guess_l = list(secret), list(guess)
    if not (len(secret_l) == len(guess_l) == score_a.size == n):
        raise ParameterError("records", "ids, secret, guess and score must have one entry per record")
    if correct is None:
        correct_a = np.array([s == g for s, g in zip(secret_l, guess_l)], dtype=bool)
    else:
        correct_a = np.asarray(correct, dtype=bool).reshape(-1)
    cert = np.zeros(n, dtype=bool) if certified is None else np.asarray(certified, dtype=bool).reshape(-1)
    if negatives is None:
        negatives = score_a[~correct_a & ~cert]
    cal = calibrate(negatives, fpr, negative_kind)
    eligible = np.ones(n, dtype=bool) if probable_ok is None else np.asarray(probable_ok, dtype=bool)
    probable = ~cert & eligible & (score_a > cal.threshold) if cal.threshold is not None else np.zeros(n, bool)
    tier = np.where(cert, "certified", np.where(probable, "probable", "guess"))
    counts = {t: int(np.sum(tier == t)) for t in TIERS}
    keep = min(n, int(records_max))
    reasons = []
    per_row = not isinstance(certified_reason, str)
    for i in range(keep):
        if tier[i] == "certified":
            reasons.append(certified_reason[i] if per_row else certified_reason)
        elif tier[i] == "probable":
            reasons.append(f"Score {score_a[i]:.6g} clears the threshold {cal.threshold:.6g} that "
                           f"{100 * (cal.rate or 0):.2g}% of {cal.negative_kind} cleared.")
        elif cal.threshold is None:
            reasons.append(f"No {cal.negative_kind} to calibrate on, so the score cannot be called probable.")
        elif not eligible[i]:
            reasons.append("The attack does not claim this one, so it is only a guess.")
        else:
            reasons.append(f"Score {score_a[i]:.6g} does not clear the threshold {cal.threshold:.6g}, so "
                           f"{cal.negative_kind} score as high: only a guess.")
    columns: dict[str, list] = {"id": [_plain(v) for v in list(ids)[:keep]]}
    for name, values in (known or {}).items():
        columns[name] = [_plain(v) for v in list(values)[:keep]]
    columns.update({"secret": [_plain(v) for v in secret_l[:keep]], "guess": [_plain(v) for v in guess_l[:keep]],
                    "score": [float(v) for v in score_a[:keep]], "correct": [bool(v) for v in correct_a[:keep]],
                    "tier": [str(t) for t in tier[:keep]], "reason": reasons})
    if k is not None:
        columns["k"] = [_plain(v) for v in list(k)[:keep]]
    all_notes = list(notes)
    if keep < n:
        all_notes.append(f"Showing the first {keep:,} of {n:,} {plural(unit)} (records_max = {records_max:,}); tier "
                         "counts, calibration and accuracy cover all of them.")
    return RecordTable(columns=columns, known=list((known or {}).keys()), total=n, tier_counts=counts,
                       accuracy=float(correct_a.mean()) if n else None, calibration=cal.to_dict(),
                       certification=dict(certification or {"available": False, "why": ""}),
                       unit=unit, records_max=int(records_max), notes=all_notes, baseline=baseline)


def _plain(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v) if math.isfinite(float(v)) else None
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def to_frame(table: "RecordTable | dict"):
    """The table as a pandas DataFrame in CSV column order (write it with :func:`core.output.safe_csv.to_csv`,
    which keeps a stranger's text from turning into a spreadsheet formula)."""
    import pandas as pd

    t = RecordTable.from_dict(table) if isinstance(table, dict) else table
    return pd.DataFrame({c: t.columns[c] for c in t.order()})


def tier_changes(a: RecordTable | dict, b: RecordTable | dict) -> list[dict]:
    """Records present in both tables (matched by ``id``) whose tier differs: id, tier in a, tier in b."""
    ta = RecordTable.from_dict(a) if isinstance(a, dict) else a
    tb = RecordTable.from_dict(b) if isinstance(b, dict) else b
    if ta is None or tb is None:
        return []
    first = dict(zip(map(str, ta.columns["id"]), ta.columns["tier"]))
    out = []
    for rid, tier in zip(map(str, tb.columns["id"]), tb.columns["tier"]):
        if rid in first and first[rid] != tier:
            out.append({"id": rid, "before": first[rid], "after": tier})
    return out


def confidence(score, guess) -> np.ndarray:
    """An attack's score for "secret = 1" turned into its confidence in its own guess, in [0, 1], higher = more
    exposed: the score's rank among the run's scores for a guess of 1, one minus it for a guess of 0. Rank-based,
    so it works for probabilities and unbounded decision values alike, and keeps the ROC's order."""
    from scipy.stats import rankdata

    s = np.asarray(score, dtype=float)
    if s.size == 0:
        return s
    q = rankdata(s, method="average") / s.size
    return np.where(np.asarray(guess) == 1, q, 1.0 - q)


def counterfactual(epsilon: float, delta: float, prior: float) -> float:
    """The most an attack can be right about one record's secret under an (ε, δ)-DP release, from a ``prior``
    chance of being right with no release: ``e^ε·p / (e^ε·p + 1 − p) + δ`` (the posterior bound of ε-DP; δ
    added as the probability the guarantee fails), capped at 1."""
    if not (epsilon >= 0 and math.isfinite(epsilon)):
        raise ParameterError("epsilon", f"expected a finite number >= 0, got {epsilon}")
    p = min(1.0, max(0.0, float(prior)))
    odds = p * math.exp(epsilon)
    return min(1.0, (odds / (odds + 1.0 - p) if odds + 1.0 - p > 0 else 1.0) + max(0.0, float(delta)))


def plural(unit: str) -> str:
    """``unit`` in the plural, for labels ("person" → "people")."""
    return {"person": "people"}.get(unit, unit + "s")


TIER_RANK = {"certified": 0, "probable": 1, "guess": 2}


def top_frame(df, k: int = 50):
    """The ``k`` most exposed rows of :func:`to_frame`'s DataFrame: certified first, then probable, then guesses,
    each by descending score (ties keep the table's order)."""
    order = df.assign(_rank=df["tier"].map(TIER_RANK)).sort_values(["_rank", "score"], ascending=[True, False],
                                                                  kind="stable")
    return order.drop(columns="_rank").head(int(k))


# ----------------------------------------------------------------- the record card beside a DP release
def guess_prior(table: RecordTable, guess: Any) -> float:
    """The chance of the guess being right with no release at all: the table's ``baseline`` where guesses are not
    values the secrets take (a name for a person), else the share of its records whose secret is ``guess``."""
    if table.baseline is not None:
        return float(table.baseline)
    secrets = _value_keys(table.columns.get("secret", []))
    return secrets.count(_value_key(guess)) / len(secrets) if secrets else 0.5


def find_records(table: RecordTable, record_id: Any) -> list[dict]:
    """The rows whose ``id`` reads as ``record_id`` (ids compare as text: a CSV or JSON round trip keeps them);
    several when the run attacked the same record in several games."""
    key = str(record_id)
    cols = table.order()
    return [{c: table.columns[c][i] for c in cols} for i, v in enumerate(table.columns.get("id", [])) if str(v) == key]


def guess_hit_rate(table: RecordTable, guess: Any) -> tuple[float | None, int]:
    """(share right, how many) of the run's guesses equal to ``guess`` — the measured counterpart of the bound,
    which caps the chance that a guess of this value is right; for guesses that are not secret values (names),
    every guess of the run counts."""
    guesses = _value_keys(table.columns.get("guess", []))
    right = table.columns.get("correct", [])
    key = _value_key(guess)
    rows = range(len(guesses)) if table.baseline is not None else [i for i, g in enumerate(guesses) if g == key]
    n = len(rows)
    return (sum(bool(right[i]) for i in rows) / n if n else None), n


def _value_keys(values: Iterable) -> list[str]:
    """:func:`_value_key` of each value, each distinct value read as text once: a run's table holds up to tens of
    thousands of rows but few distinct secrets and guesses, and the record card reads them on every draw. Values
    are told apart by type as well (``True == 1``, yet they read differently)."""
    seen: dict = {}
    out = []
    for v in values:
        try:
            if (type(v), v) not in seen:
                seen[type(v), v] = _value_key(v)
            out.append(seen[type(v), v])
        except TypeError:  # an unhashable cell
            out.append(_value_key(v))
    return out


def _value_key(v: Any) -> str:
    """A cell as text that reads alike across tables (3, 3.0 and numpy's 3 are one value; missing is one)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)):
        return repr(float(v))
    return str(v)


def _parts_of(result: Any) -> tuple[str, dict, dict, dict | None]:
    if isinstance(result, dict):
        return (result.get("scenario", ""), result.get("config") or {}, result.get("metrics") or {},
                result.get("exposure"))
    return (getattr(result, "scenario", ""), getattr(result, "config", None) or {},
            getattr(result, "metrics", None) or {}, getattr(result, "exposure", None))


def dp_release(result: Any) -> tuple[float, float] | None:
    """``(ε, δ)`` per person when the run is a differentially private release (noise of a DP mechanism, a DP
    generator), else None: the claim the run itself reports (:func:`core.measure.audit.claim_of`), finite."""
    # lazy: start-up time (scipy only when used)
    from .audit import claim_of

    eps, delta = claim_of(result)
    return (float(eps), float(delta or 0.0)) if eps is not None and math.isfinite(eps) and eps >= 0 else None


def dp_comparisons(record: dict, current: Any, others: Sequence[Any] = (), labels: Sequence[str] = ()) -> list[dict]:
    """What the record card sets beside the bound: this record in every DP release at hand — the current run when
    it is one, then each of ``others`` (pinned runs, named by ``labels``) of the same lab that is one and holds the
    same record: same id, and the same truth and known attributes (another seed may draw other people under the
    same ids). Each entry: the run, its (ε, δ) per person, the record's guess, truth, score and tier there (in its
    highest-scoring game when the run attacked it in several: ``games``), the prior of that guess, the bound at
    that ε (:func:`counterfactual`) and how often the run's guesses of that value were right with its 95 % lower
    bound (the measured counterpart of the bound: for secrets drawn with that prior,
    a release at that ε keeps their expected share under the bound)."""
    # lazy: start-up time (scipy, sklearn, pandas only when used)
    from .metrics import clopper_pearson

    name, config, _, _ = _parts_of(current)
    out = []
    for result, label, this in [(current, "this run", True), *((o, lab, False) for o, lab in zip(others, labels))]:
        r_name, r_config, _, data = _parts_of(result)
        if not this and (r_name != name or r_config == config):
            continue  # another lab's people, or the current run pinned
        release = dp_release(result)
        table = RecordTable.from_dict(data) if isinstance(data, dict) else data
        if release is None or table is None:
            continue
        if this:  # the card's own row (a record attacked in several games has a row per game)
            rows = [{c: record.get(c) for c in ("guess", "secret", "correct", "score", "tier")}]
        else:
            rows = [r for r in find_records(table, record["id"])
                    if all(_value_key(r.get(c)) == _value_key(record.get(c)) for c in ("secret", *table.known))]
        if not rows:
            continue
        row = max(rows, key=lambda r: float(r["score"]))  # its most exposed game there
        eps, delta = release
        prior = guess_prior(table, row["guess"])
        rate, n = guess_hit_rate(table, row["guess"])
        low = clopper_pearson(round(rate * n), n)[0] if n else None  # its 95% lower bound
        out.append({"run": label, "this_run": this, "epsilon": eps, "delta": delta, "guess": row["guess"],
                    "secret": row["secret"], "correct": bool(row["correct"]), "score": float(row["score"]),
                    "tier": row["tier"], "prior": prior, "bound": counterfactual(eps, delta, prior),
                    "hit_rate": rate, "hit_n": n, "hit_low": low, "seed": r_config.get("seed"), "games": len(rows)})
    return out
