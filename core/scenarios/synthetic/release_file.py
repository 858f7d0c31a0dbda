"""``generator=file``: attack a synthetic release made elsewhere (SDV, MOSTLY AI, a statistics office's tool).

The original table is the CSV at ``data_path`` (``dataset=csv``), the release the CSV at ``release_path`` with the
same columns. Both are read by the lab's one CSV reader (:func:`core.data.dataset.read_table`); the release is then
coded with the *original's* domain (:func:`encode_like`): a numeric column the original cut into quantile ranges
is cut at the original's edges (values beyond them fall in the first or last range), every other value must be
one the original takes — a value the original never holds is refused (:class:`~core.errors.ReleaseMismatch`),
since the attacks compare values exactly and a silently dropped row would change the answer.

The game, with a fixed release (nothing is fitted): the records the attacker reasons about, ``D``, are every
record of the original (the release was made from all of them), the attacker knows every record's
quasi-identifiers, and game ``g`` targets one record whose quasi-identifiers are unique in the original — the
``g``-th of a seeded permutation of them, so games attack distinct people until every such record has been a
target. Its secret is the real one, not re-drawn: accuracy against chance is measured, but no ε can be audited
(the release claims none here). The synthetic sizes are prefixes of one seeded permutation of the release, up to
all of its rows. Adv_recon's query family and its LPs do not depend on the target, so they are solved once per
size and shared by every game.
"""
from __future__ import annotations

import os
from functools import lru_cache

import numpy as np
import pandas as pd

from ...basics.idle import on_idle
from ...data.dataset import MAX_CATEGORIES, MISSING, Dataset, read_table
from ...errors import ParameterError, ReleaseMismatch
from ...measure.utility import UtilityQueries
from ...runtime.lru import LRU
from .data import FILE_RELEASE, _rng, base_dataset, game_table, load_game_data

FILE = "file"
MAX_ORIGINAL_FOR_RECON = 5000  # Adv_recon solves one LP over every original record; the lab's n tops out here too
_LPS = LRU(16)


def is_file(config: dict) -> bool:
    return config.get("generator") == FILE


def _mtime(path: str, param: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        raise ParameterError(param, f"cannot open {os.path.basename(path)!r} (no such file; an uploaded file may "
                                    "have been cleared from the server: upload it again)") from None


def release_codes(config: dict) -> np.ndarray:
    """The release at ``release_path`` as codes in the game's column order (quasi-identifiers, then the secret)."""
    path = config.get("release_path", "")
    if not path:
        raise ParameterError("release_path", "generator=file needs release_path (the synthetic release to attack)")
    return _release(config["data_path"], _mtime(config["data_path"], "data_path"), path,
                    _mtime(path, "release_path"), config["secret"])


@lru_cache(maxsize=8)
def _release(data_path: str, data_mtime: float, path: str, mtime: float, secret: str) -> np.ndarray:
    """The release's codes; the two files' modification times are part of the cache key (a file saved again
    is read again)."""
    del data_mtime, mtime
    data, label = base_dataset("csv", data_path)
    original_raw = read_table(data_path, name=os.path.basename(data_path))
    release_raw = read_table(path, name=os.path.basename(path))
    encoded = encode_like(release_raw, original_raw, data, name=os.path.basename(path))
    return game_table(encoded, label, secret, release=True)[0]


on_idle(_release.cache_clear)  # a release read from a file, and the LPs built over its original
on_idle(_LPS.clear)


def encode_like(release: pd.DataFrame, original_raw: pd.DataFrame, data: Dataset, name: str = "release",
                numeric_bins: int = 8) -> Dataset:
    """The raw ``release`` coded with ``data``'s domain (``data`` = ``original_raw`` as :func:`load_csv` read it
    with missing cells as one more category)."""
    cols = list(data.columns)
    if release.empty:
        raise ReleaseMismatch(f"{name}: the release has no rows")
    missing = [c for c in cols if c not in release.columns]
    extra = [str(c) for c in release.columns if c not in cols]
    if missing or extra:
        parts = ([f"lacks {', '.join(map(str, missing))}"] if missing else []) + \
                ([f"has extra {', '.join(extra)}"] if extra else [])
        raise ReleaseMismatch(f"{name}: the release must have the original's columns; it {' and '.join(parts)}")
    out = {}
    for col in cols:
        domain = data.domain[col]
        values = release[col]
        gaps = values.isna()
        if gaps.any() and MISSING not in domain:
            raise ReleaseMismatch(f"{name}: column {col!r} has {int(gaps.sum()):,} empty cells; the original has "
                                  "none there")
        source = original_raw[col]
        if pd.api.types.is_numeric_dtype(source) and source.nunique() > MAX_CATEGORIES:
            # the original's column was cut into quantile ranges: cut the release at the same edges
            if not pd.api.types.is_numeric_dtype(values):
                raise ReleaseMismatch(f"{name}: column {col!r} is numeric in the original but holds text in the "
                                      "release")
            _, edges = pd.qcut(source, q=numeric_bins, duplicates="drop", retbins=True)
            ranges = np.asarray([v for v in domain if v != MISSING], dtype=object)
            at = np.searchsorted(edges[1:-1], values.fillna(edges[0]).to_numpy(dtype=float), side="left")
            out[col] = pd.Series(ranges[np.clip(at, 0, len(ranges) - 1)], index=values.index).where(~gaps, MISSING)
            continue
        coded = values.astype(object).where(~gaps, MISSING)
        known = set(domain)
        outside = ~coded.map(lambda v: v in known)
        if outside.any():
            bad = coded[outside].iloc[0]
            raise ReleaseMismatch(f"{name}: column {col!r} holds {str(bad)[:40]!r} in {int(outside.sum()):,} rows, "
                                  "a value the original never takes; recode the release with the original's values")
        out[col] = coded.map(lambda v: _same(v, domain))
    return Dataset(pd.DataFrame(out).reset_index(drop=True), dict(data.domain), name)


def _same(value, domain: tuple):
    """The domain's own object equal to ``value`` (a release's 3.0 is the original's 3)."""
    for v in domain:
        if v == value:
            return v
    return value


def original_rows(config: dict) -> int:
    return int(load_game_data(config)[0].shape[0])


def check_file(config: dict) -> None:
    """The configuration checks of ``generator=file`` (the scenario's ``check`` calls this)."""
    if config["dataset"] != "csv":
        raise ParameterError("dataset", "generator=file attacks a release of your own table: set dataset=csv and "
                                        "data_path to the original")
    if config["epsilon"] > 0:
        raise ParameterError("epsilon", "a release read from a file claims no ε in the lab: leave ε at 0")
    for param in ("audit_model", "bug"):
        if config.get(param) not in (False, "none", None):
            raise ParameterError(param, "applies to the lab's own generators, not to a release read from a file")
    rows = original_rows(config)
    if rows > MAX_ORIGINAL_FOR_RECON and config["attack"] in ("recon", "all"):
        raise ParameterError("attack", f"Adv_recon solves one LP over every original record; the original has "
                                       f"{rows:,} (at most {MAX_ORIGINAL_FOR_RECON:,}): choose attack dcr or infer")
    codes = release_codes(config)
    if codes.shape[0] < 10:
        raise ReleaseMismatch("the release has fewer than 10 rows")


def file_game(context: dict, config: dict, g: int) -> dict:
    """Game ``g`` of a fixed release: every original record, and the ``g``-th target of a seeded permutation of
    the records unique on their quasi-identifiers."""
    D = context["codes"]
    _, inv, cnt = np.unique(D[:, :-1], axis=0, return_inverse=True, return_counts=True)
    unique = np.nonzero(cnt[inv.ravel()] == 1)[0]
    if not unique.size:
        raise ReleaseMismatch("no record of the original is unique on its quasi-identifiers, so there is no target "
                              "the attacks could single out")
    order = _rng(context["entropy"], 0, 0).permutation(unique)
    u = int(order[g % order.size])
    truth = int(D[u, -1])
    util = UtilityQueries(D, context["cards"], _rng(context["entropy"], 0, 1))
    return {"D": D, "u": u, "row": u, "original": truth, "truth": truth, "utility": util,
            "unique_targets": int(unique.size)}


def file_synthetic(context: dict, config: dict) -> dict:
    """The release, rows in a seeded random order (its prefixes are uniform subsamples)."""
    S = release_codes(config)
    S = S[_rng(context["entropy"], 0, 3).permutation(S.shape[0])]
    return {"S": S, "fit_seconds": 0.0, "sample_seconds": 0.0, "epsilon": float("inf"), "delta": 0.0,
            "model": None}


def shared_lp(context: dict, config: dict, m: int, solve):
    """Adv_recon's LP at size ``m`` of a fixed release: the same for every target, solved once."""
    key = (config["data_path"], config["release_path"], config["secret"], config["query_k"],
           config["query_scaling"], config["query_ratio"], config["lp_method"], context["entropy"], m)
    return _LPS.get_or(key, solve)


FILE_RELEASE.update(game=file_game, synthetic=file_synthetic)
