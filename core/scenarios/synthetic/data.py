"""The synthetic-data game's data and per-game state: the data sets and their secrets, the size ladder, and the
in-process caches that let the main games, the query sweep and a generator comparison share one D', target
and synthetic sample per game (common random numbers)."""
from __future__ import annotations

import inspect
import os
import re
import time
from functools import lru_cache

import numpy as np
import pandas as pd

from ...basics.idle import on_idle
from ...cancel import checkpoint
from ...data.dataset import Dataset, load_csv, read_table
from ...data.sdg_surrogates import SURROGATES, surrogate
from ...data.surveys import SURVEYS, survey
from ...errors import DataError, ParameterError
from ...measure.utility import UtilityQueries
from ...releases.kway_queries import MAX_4WAY, KWayQueries, available_count
from ...releases.synthesizers import SYNTHESIZERS, get_synthesizer
from ...runtime.lru import LRU

DATASETS = ("cces16", "acs-like", "fire-like", "csv")
DEFAULT_SECRET = {"cces16": "votetrump", "acs-like": "SEX", "fire-like": "ALS Unit"}
GENERATORS = tuple(sorted(SYNTHESIZERS, key=lambda k: (k != "nonprivate", k)))
DP_GENERATORS = tuple(k for k in GENERATORS if SYNTHESIZERS[k].dp)
EPOCH_GENERATORS = tuple(k for k in GENERATORS
                         if "epochs" in inspect.signature(SYNTHESIZERS[k].__init__).parameters)
# Generators whose release includes a Bayesian network the auditor can read (DataSynthesizer's description file).
NETWORK_GENERATORS = tuple(k for k in GENERATORS if hasattr(SYNTHESIZERS[k], "network"))
Q_GRID = (10, 100, 1000, 10_000, 100_000)
MAX_SIZE = 1_000_000
CACHE_ENTRIES = 32
# Synthetic rows kept across games: a 10⁶-row sample of CCES16 holds 88 MB, so 32 of them (a 30-game preset at
# m = 10⁶) grew a run by ~3 GB, far beyond the run's memory estimate. Past this many bytes (four such samples,
# within that estimate) the least recently used samples go, the newest always stays; a game whose sample went is
# drawn again from the same seeds, so only time, never a number, changes.
SAMPLE_CACHE_BYTES = 400_000_000
HIGH_RISK = 0.6      # the paper's "high attack accuracy" line (Acc_max > 60%)
GOOD_UTILITY = 0.2   # the paper's "good utility" line (MRE>10 and 3-TVD < 0.2)


def size_ladder(synth_size: int) -> list[int]:
    """10, 100, … up to ``synth_size`` (which is always the last rung)."""
    sizes = [10 ** k for k in range(1, 7) if 10 ** k < synth_size]
    return sizes + [int(synth_size)]


# ----------------------------------------------------------------------------- data
@lru_cache(maxsize=8)
def _csv(path: str, mtime: float, identifiers: str = "") -> Dataset:
    # a missing answer is one more category, not a reason to drop the person: survey tables have gaps in most
    # rows, and dropping them left 783 of acs12's 2,000 people (fewer than the page's n)
    raw = read_csv_rows(path, mtime)
    ignored = set(identifier_columns(raw, identifiers))
    return load_csv(path, name=os.path.basename(path), missing="category",
                    columns=[c for c in raw.columns if c not in ignored])


@lru_cache(maxsize=8)
def read_csv_rows(path: str, mtime: float):
    """The file's rows as written (every cell text, as :func:`core.data.dataset.read_table` reads them): what an
    exposure row shows as the person's values. Row i (0-based) here is row i + 1 of the file's data."""
    return read_table(path, name=os.path.basename(path))


_ID_NAME = re.compile(r"^(id|.*[_\s.-]id|identifier|.*serial.*|.*_?number|.*_?nr|row|index|unnamed: ?0)$",
                      re.IGNORECASE)
_CAMEL_ID = re.compile(r"^.*[a-z]ID$")  # personID, caseID (case-sensitive: "paid" is no identifier)
MIN_CONTROL = 20  # fewer control records than this cannot tell a leak from the population's patterns


def identifier_columns(frame, identifiers: str = "") -> list[str]:
    """Columns that identify a row rather than describe a person, never attributes of the game.

    ``identifiers``: a comma-separated list of columns (what the import step marked "identifier — ignored"),
    ``"none"`` to keep every column, or empty to detect them: a column whose every present value is distinct
    and that is named like an identifier (``id``, ``ID``, ``person_id``, ``serialno``…), is text (a code or name:
    a text column with a value per person is no attribute), or counts the rows (1, 2, 3…)."""
    if identifiers.strip().lower() == "none":
        return []
    if identifiers.strip():
        named = [c.strip() for c in identifiers.split(",") if c.strip()]
        unknown = [c for c in named if c not in frame.columns]
        if unknown:
            raise ParameterError("identifiers", f"no column {', '.join(map(repr, unknown))}; the file has "
                                                f"{', '.join(frame.columns)}")
        return named
    out = []
    for col in frame.columns:
        values = frame[col].dropna()
        if len(values) < 2 or values.nunique() != len(values):
            continue
        numbers = pd.to_numeric(values, errors="coerce")
        counter = numbers.notna().all() and (numbers.diff().dropna() == 1).all()
        name = str(col).strip()
        if _ID_NAME.match(name) or _CAMEL_ID.match(name) or numbers.isna().any() or counter:
            out.append(col)
    return out


def base_dataset(dataset: str, data_path: str = "", identifiers: str = "") -> tuple[Dataset, str]:
    """(Dataset, label) for a dataset name (CSV read through :func:`core.data.dataset.load_csv`)."""
    if dataset == "cces16":
        data = survey("cces16")
        return data, SURVEYS["cces16"]
    if dataset in SURROGATES:
        return surrogate(dataset), SURROGATES[dataset]["label"]
    if dataset == "csv":
        if not data_path:
            raise ParameterError("data_path", "dataset=csv needs data_path (the CSV file to attack)")
        try:
            mtime = os.path.getmtime(data_path)
        except OSError:
            raise ParameterError("data_path", f"cannot open {os.path.basename(data_path)!r} (no such file; an "
                                              "uploaded file may have been cleared from the server: upload it "
                                              "again)") from None
        data = _csv(data_path, mtime, identifiers)
        return data, f"your CSV ({os.path.basename(data_path)}, {len(data):,} rows)"
    raise ParameterError("dataset", f"expected one of {'|'.join(DATASETS)}, got {dataset!r}")


@lru_cache(maxsize=8)
def _prepared(dataset: str, data_path: str, secret: str, mtime: float,
              identifiers: str = "") -> tuple[np.ndarray, dict, str, str]:
    data, label = base_dataset(dataset, data_path, identifiers)
    return game_table(data, label, secret or DEFAULT_SECRET.get(dataset, ""))


def game_table(data: Dataset, label: str, secret: str, release: bool = False) -> tuple[np.ndarray, dict, str, str]:
    """(codes with the quasi-identifiers first and the binary secret last, domain, label, secret name) of a table;
    ``secret`` names a two-valued column or binarises one as ``column=value``. ``release``: the table is a
    synthetic release encoded with the original's domain, where a secret taking one value is a fact, not an
    error."""
    if not secret:
        raise ParameterError("secret", f"name the secret column; the file has {', '.join(data.columns)}")
    frame = data.frame
    if "=" in secret and secret not in data.columns:
        col, value = secret.split("=", 1)
        col = col.strip()
        if col not in data.columns:
            raise ParameterError("secret", f"no column {col!r}; the data have {', '.join(data.columns)}")
        values = [str(v) for v in data.domain[col]]
        if value.strip() not in values:
            raise ParameterError("secret", f"column {col!r} never takes the value {value.strip()!r}; its values: "
                                           f"{', '.join(values[:20])}")
        bit = frame[col].astype(str).eq(value.strip()).astype(int)
        frame = frame.drop(columns=[col]).assign(**{secret: bit})
        domain = {k: v for k, v in data.domain.items() if k != col}
        domain[secret] = (0, 1)
    else:
        if secret not in data.columns:
            raise ParameterError("secret", f"no column {secret!r}; the data have {', '.join(data.columns)}")
        k = len(data.domain[secret])
        if k != 2:
            raise DataError(f"the secret column {secret!r} has {k} distinct values; the attack needs a binary "
                            f"secret: choose a two-valued column or binarise it as '{secret}=<value>'")
        domain = dict(data.domain)
    qis = [col for col in frame.columns if col != secret]
    if len(qis) < 2:
        raise DataError("the data need at least two quasi-identifier columns besides the secret")
    frame = frame[qis + [secret]]
    domain = {col: domain[col] for col in qis + [secret]}
    ds = Dataset(frame.reset_index(drop=True), domain, name=label)
    codes = ds.codes()
    if not release and codes[:, -1].min() == codes[:, -1].max():
        raise DataError(f"the secret column {secret!r} takes a single value in the data")
    return codes, domain, label, secret


def load_game_data(config: dict) -> tuple[np.ndarray, dict, str, str]:
    """(codes with the secret last, domain, label, secret name) for a config."""
    mtime = os.path.getmtime(config["data_path"]) if config["dataset"] == "csv" and config["data_path"] and \
        os.path.exists(config["data_path"]) else 0.0
    path = config["data_path"] if config["dataset"] == "csv" else ""
    return _prepared(config["dataset"], path, config["secret"], mtime, config.get("identifiers", ""))


# ----------------------------------------------------------------------------- caches
_GAMES = LRU(CACHE_ENTRIES)
# A release read from a file (release_file.py, generator=file) plays its own games and has one release for all of
# them: that module builds on this one and registers its two functions here when it is imported (the scenario
# imports it), so this module never imports the one above it.
FILE_RELEASE: dict = {}
_SAMPLES = LRU(CACHE_ENTRIES)


def clear_caches() -> None:
    _GAMES.clear()
    _SAMPLES.clear()


def _clear_when_idle() -> None:
    """The fitted games, samples and the files' prepared tables (an upload's among them) go when the server is
    idle."""
    clear_caches()
    for cached in (_csv, read_csv_rows, _prepared):
        cached.cache_clear()


on_idle(_clear_when_idle)


def _rng(entropy: int, game: int, component: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(game, component)))


def _data_key(config: dict) -> tuple:
    return (config["dataset"], config["data_path"], config["secret"], config["n"], config.get("identifiers", ""),
            config.get("control_size", 0), config.get("control_risk", True))


def control_size(config: dict, records: int) -> int:
    """Records of the game's control set: ``control_size`` (0 = as many as the training records n), capped at
    the records the data hold besides the n."""
    if not config.get("control_risk", True):
        return 0
    want = int(config.get("control_size", 0)) or int(config["n"])
    return max(0, min(want, records - int(config["n"])))


def _game(context: dict, config: dict, g: int) -> dict:
    """D', target u and the utility queries of game g (cached)."""

    def make():
        if config["generator"] == "file":  # a release read from a file: every original record, one target
            return FILE_RELEASE["game"](context, config, g)
        codes = context["codes"]
        rng = _rng(context["entropy"], g, 0)
        n = config["n"]
        for _ in range(100):
            rows = rng.choice(codes.shape[0], size=n, replace=False)
            D = codes[rows].copy()
            _, inv, cnt = np.unique(D[:, :-1], axis=0, return_inverse=True, return_counts=True)
            unique = np.nonzero(cnt[inv.ravel()] == 1)[0]
            if unique.size:
                break
        else:
            raise DataError("no sample of n records had a record with unique quasi-identifiers; "
                            "use more QI columns or a smaller n")
        u = int(rng.choice(unique))
        original = int(D[u, -1])
        D[u, -1] = int(rng.integers(0, 2))
        util = UtilityQueries(D, context["cards"], _rng(context["entropy"], g, 1))
        # the control set: records of the data set the generator never sees (own random stream, component 13,
        # so the training sample and target are those of the paper's game)
        outside = np.setdiff1d(np.arange(codes.shape[0]), rows)
        crng = _rng(context["entropy"], g, 13)
        control_rows = np.sort(crng.choice(outside, size=control_size(config, codes.shape[0]), replace=False))
        return {"D": D, "u": u, "row": int(rows[u]), "original": original, "truth": int(D[u, -1]),
                "utility": util, "unique_targets": int(unique.size), "rows": rows,
                "control": codes[control_rows], "control_rows": control_rows}

    return _GAMES.get_or((_data_key(config), context["entropy"], g), make)


def _synthetic(context: dict, config: dict, g: int) -> dict:
    """The generator fitted on game g's D' and its largest sample, permuted (cached)."""
    epochs = config["epochs"] if config["generator"] in EPOCH_GENERATORS else None
    key = (_data_key(config), config["generator"], config["epsilon"], epochs,
           config["synth_size"], context["entropy"], g, config.get("bug", "none"))
    if config["generator"] == "file":  # one release for every game
        return _SAMPLES.get_or((_data_key(config), config["release_path"], context["entropy"]),
                               lambda: FILE_RELEASE["synthetic"](context, config))

    def make():
        game = _game(context, config, g)
        synth = make_generator(config)
        data = Dataset.from_codes(game["D"], context["domain"], name="D'")
        start = time.perf_counter()
        synth.fit(data, _rng(context["entropy"], g, 2))
        fit_seconds = time.perf_counter() - start
        checkpoint("synthetic: generator fitted")
        start = time.perf_counter()
        srng = _rng(context["entropy"], g, 3)
        big = synth.sample(config["synth_size"], srng)
        big = big[srng.permutation(big.shape[0])]  # prefixes are uniform subsamples without replacement
        sample_seconds = time.perf_counter() - start
        eps, delta = synth.privacy
        return {"S": big, "fit_seconds": fit_seconds, "sample_seconds": sample_seconds,
                "epsilon": eps, "delta": delta, "model": synth}

    out = _SAMPLES.get_or(key, make)
    _trim_samples()
    return out


def _trim_samples() -> None:
    """Evict the least recently used samples until the cached rows fit ``SAMPLE_CACHE_BYTES``."""
    total = sum(v["S"].nbytes for v in _SAMPLES.values())
    while total > SAMPLE_CACHE_BYTES and len(_SAMPLES) > 1:
        _, old = _SAMPLES.popitem(last=False)
        total -= old["S"].nbytes


def make_generator(config: dict):
    cls = SYNTHESIZERS[config["generator"]]
    kwargs = {}
    accepted = inspect.signature(cls.__init__).parameters
    if cls.dp:
        kwargs["epsilon"] = config["epsilon"]
        if "delta" in accepted:
            kwargs["delta"] = 1.0 / config["n"] ** 2  # the paper's δ = 1/n² (RAP^softmax)
    if "epochs" in accepted:
        kwargs["epochs"] = config["epochs"]
    if config.get("bug") == "privbayes-probability-sensitivity":  # known-bug gallery only (DataSynthesizer issue 34)
        kwargs["count_sensitivity"] = "probability"
    return get_synthesizer(config["generator"], **kwargs)


def _queries(context: dict, config: dict, g: int, D: np.ndarray) -> tuple[KWayQueries, int]:
    """Game g's query family (q of the available queries, the same for every generator and size; with a release
    read from a file, the same for every game, as every game shares D)."""
    rng = _rng(context["entropy"], 0 if config["generator"] == "file" else g, 4)
    q = max(1, int(round(config["query_ratio"] * config["n"]))) if config["query_ratio"] > 0 else None
    # k = 4 alone: draw the q cells directly (the same uniform sample as drawing 100k and keeping q)
    cap = min(MAX_4WAY, q) if (q is not None and config["query_k"] == "4") else MAX_4WAY
    fam = KWayQueries.build(D[:, :-1], context["cards"][:-1], config["query_k"], rng, max_4way=cap)
    available = fam.n_queries if cap == MAX_4WAY else available_count(context["cards"][:-1], "4")
    if q is not None:
        fam = fam.subset(q, rng)
    return fam, available


def _plain(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v if isinstance(v, (int, float, str)) else str(v)


