"""Location traces: sites × hourly epochs, clipped to C = 1 site per user and hour.

Liu, Shilov, Guepin & de Montjoye (spec seed001 §1). A user's trace is a binary
``|L| × |E|`` matrix with ``x_le = 1`` iff the user was seen at site ``l`` during
hour ``e``. Per-epoch clipping (Sec. 2.2.2) keeps at most ``C`` ones per column,
chosen uniformly at random, so the per-epoch L1/L2 sensitivity of the aggregate
``A = Σ_i x^i`` is ``C``.

Traces are stored sparsely (one row per positive cell). This module provides

* :func:`generate_traces` — the offline default: a synthetic tweet-like population
  (the paper's Milano data cannot be downloaded at run time) with a heavy-tailed
  (lognormal) number of check-ins per user, a Zipf site popularity mixed with a
  per-user home site, and a diurnal × weekly epoch profile. The knobs control
  the mean clean count λ at a target's cells, which decides whether the one- or
  the two-threshold attack wins for the auxiliary attacker (spec §1.2).
* :func:`load_trace_csv` — a user's own check-ins (user, timestamp, lat/lon or
  site id) → gridded, hourly, clipped traces, validated (spec §1.1–1.2).
* :func:`load_social_pulse_geojson` — the paper's ``social-pulse-milano.geojson``.
* :func:`clip_per_epoch` — the clipping rule itself.

Spec sections (§) refer to docs/specs/seed001_location_mia.md.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError
from .dataset import read_table
from .dataset import decode_text, read_bytes

# ZK-MIA's Milano box (spec §1.2): lon ∈ [9.0795, 9.2790], lat ∈ [45.3943, 45.5415].
MILANO_BOX = (9.07954122975, 9.27899377165, 45.394252415050005, 45.541507186800004)
MILANO_GRID = (12, 8)  # columns along longitude × rows along latitude = 96 sites
TRACE_MAX_BYTES = 200 * 2**20  # check-in files (CSV or GeoJSON) larger than this are refused before parsing
TRACE_MAX_ROWS = 5_000_000


@dataclass
class Traces:
    """Sparse binary traces: one entry ``(user, site, epoch)`` per positive cell."""

    user: np.ndarray
    site: np.ndarray
    epoch: np.ndarray
    n_users: int
    n_sites: int
    n_epochs: int
    source: str = "synthetic"
    # each user's value in an uploaded file's user column (index = user id), so a result names the file's user;
    # None for synthetic traces, whose user id is the name
    labels: list | None = None
    # an uploaded file's check-ins as read (``frame``, its user column ``user_column``), and for each check-in
    # that became a cell, the cell's key (``row_key``, sorted) and the check-in's position in ``frame``
    # (``row_pos``): which rows of the file a user's attacked cells come from (:meth:`rows_of`)
    frame: pd.DataFrame | None = None
    user_column: str | None = None
    row_key: np.ndarray | None = None
    row_pos: np.ndarray | None = None

    def __post_init__(self):
        self.user = np.asarray(self.user, dtype=np.int64)
        self.site = np.asarray(self.site, dtype=np.int64)
        self.epoch = np.asarray(self.epoch, dtype=np.int64)
        if not (self.user.shape == self.site.shape == self.epoch.shape):
            raise DataError("user, site and epoch arrays must have the same length")
        if self.user.size and (self.user.min() < 0 or self.user.max() >= self.n_users
                               or self.site.min() < 0 or self.site.max() >= self.n_sites
                               or self.epoch.min() < 0 or self.epoch.max() >= self.n_epochs):
            raise DataError("trace entries out of range")

    @property
    def cell(self) -> np.ndarray:
        """Cell id ``site · |E| + epoch`` of every entry."""
        return self.site * self.n_epochs + self.epoch

    def observations_per_user(self) -> np.ndarray:
        return np.bincount(self.user, minlength=self.n_users)

    def max_per_epoch(self) -> int:
        """Largest number of sites one user has in one epoch (≤ C after clipping)."""
        if not self.user.size:
            return 0
        key = self.user * self.n_epochs + self.epoch
        return int(np.unique(key, return_counts=True)[1].max())

    def user_cells(self, u: int) -> tuple[np.ndarray, np.ndarray]:
        """Sites and epochs of user ``u`` in chronological order."""
        sel = self.user == u
        order = np.argsort(self.epoch[sel], kind="stable")
        return self.site[sel][order], self.epoch[sel][order]

    def dense(self, u: int) -> np.ndarray:
        """User ``u``'s trace as a dense ``|L| × |E|`` uint8 matrix."""
        x = np.zeros((self.n_sites, self.n_epochs), dtype=np.uint8)
        sel = self.user == u
        x[self.site[sel], self.epoch[sel]] = 1
        return x

    def cell_matrix(self, cells: np.ndarray, users: np.ndarray) -> np.ndarray:
        """Bool matrix ``[len(users), len(cells)]``: user has a one at cell."""
        cells = np.asarray(cells, dtype=np.int64)
        users = np.asarray(users, dtype=np.int64)
        row_of = np.full(self.n_users, -1, dtype=np.int64)
        row_of[users] = np.arange(users.size)
        col_of = {int(c): j for j, c in enumerate(cells)}
        out = np.zeros((users.size, cells.size), dtype=bool)
        hit = np.isin(self.cell, cells) & (row_of[self.user] >= 0)
        rows = row_of[self.user[hit]]
        cols = np.fromiter((col_of[int(c)] for c in self.cell[hit]), dtype=np.int64, count=int(hit.sum()))
        out[rows, cols] = True
        return out

    def rows_of(self, u: int, sites, epochs) -> list[int] | None:
        """Positions in ``frame`` (0 = the first check-in read) of user ``u``'s check-ins behind the cells
        (``sites[i]``, ``epochs[i]``), ascending; several check-ins of one hour at one site make one cell, and all
        of them are named. None for traces not read from a file."""
        if self.row_key is None:
            return None
        keys = (int(u) * self.n_sites + np.asarray(sites, dtype=np.int64)) * self.n_epochs + np.asarray(epochs, dtype=np.int64)
        lo = np.searchsorted(self.row_key, keys, side="left")
        hi = np.searchsorted(self.row_key, keys, side="right")
        return sorted({int(p) for a, b in zip(lo, hi) for p in self.row_pos[a:b]})

    def summary(self) -> dict:
        obs = self.observations_per_user()
        return {"users": self.n_users, "sites": self.n_sites, "epochs": self.n_epochs,
                "positive_cells": int(self.user.size),
                "median_observations": float(np.median(obs)) if obs.size else 0.0,
                "mean_observations": float(obs.mean()) if obs.size else 0.0,
                "max_observations": int(obs.max()) if obs.size else 0,
                "source": self.source}


def clip_per_epoch(user, site, epoch, rng: np.random.Generator, clip: int = 1):
    """Keep at most ``clip`` distinct sites per (user, epoch), chosen uniformly at random.

    Duplicate (user, site, epoch) entries are first merged (the trace is binary).
    """
    if clip < 1:
        raise ParameterError("clip", f"must be >= 1, got {clip}")
    user, site, epoch = (np.asarray(a, dtype=np.int64) for a in (user, site, epoch))
    if user.size == 0:
        return user, site, epoch
    n_e, n_s = int(epoch.max()) + 1, int(site.max()) + 1
    full = np.unique((user * n_e + epoch) * n_s + site)  # merge duplicate ones
    full = full[rng.permutation(full.size)]
    key = full // n_s
    trip = np.stack([key // n_e, key % n_e, full % n_s], axis=1)
    order = np.argsort(key, kind="stable")  # random order within each (user, epoch)
    trip, key = trip[order], key[order]
    start = np.r_[0, np.flatnonzero(np.diff(key)) + 1]
    rank = np.arange(len(key)) - np.repeat(start, np.diff(np.r_[start, len(key)]))
    keep = trip[rank < clip]
    return keep[:, 0], keep[:, 2], keep[:, 1]


def epoch_profile(n_epochs: int, start_hour: int = 16, start_weekday: int = 3) -> np.ndarray:
    """Diurnal × weekly activity profile over hourly epochs (sums to 1).

    Night hours are quiet, two daytime peaks (lunch, evening), weekends a bit more
    active — the shape of tweet activity; the default window starts on a
    Thursday 16:00 like the paper's last 800 hours of 2013.
    """
    h = (np.arange(n_epochs) + start_hour) % 24
    d = ((np.arange(n_epochs) + start_hour) // 24 + start_weekday) % 7
    diurnal = 0.15 + np.exp(-0.5 * ((h - 13) / 2.5) ** 2) + 1.3 * np.exp(-0.5 * ((h - 21) / 2.0) ** 2)
    weekly = np.where(d >= 5, 1.2, 1.0)
    w = diurnal * weekly
    return w / w.sum()


def generate_traces(rng: np.random.Generator, n_users: int = 15793, n_sites: int = 96,
                    n_epochs: int = 800, activity_median: float = 3.0, activity_sigma: float = 1.5,
                    site_zipf: float = 0.9, home_weight: float = 0.5, clip: int = 1) -> Traces:
    """Synthetic sparse check-in traces with the paper's shapes (spec §1.2 (b)).

    * check-ins per user ~ ⌈LogNormal(ln activity_median, activity_sigma)⌉, capped at |E|;
    * each check-in's hour ~ :func:`epoch_profile`;
    * its site is the user's home site with probability ``home_weight`` (home ~ popularity),
      otherwise a site ~ popularity ∝ rank^(−site_zipf) over a random ranking of the sites;
    * then clipping keeps one site per (user, hour).

    The mean clean count at a cell (site l, hour e) of an aggregate of G users is
    about ``G · E[#check-ins]/|E| · profile_e·|E| · P(site l)``; the defaults give
    λ well below 1 at most target cells (sparse, tweet-like), where the two-threshold
    attack beats the one-threshold one (spec §1.2 table).
    """
    for name, v, lo in (("n_users", n_users, 2), ("n_sites", n_sites, 1), ("n_epochs", n_epochs, 1)):
        if int(v) != v or v < lo:
            raise ParameterError(name, f"must be an integer >= {lo}, got {v}")
    if not activity_median > 0 or not activity_sigma >= 0:
        raise ParameterError("activity_median", "activity median must be > 0 and sigma >= 0")
    if not (0 <= home_weight <= 1):
        raise ParameterError("home_weight", f"must be in [0, 1], got {home_weight}")
    if site_zipf < 0:
        raise ParameterError("site_zipf", f"must be >= 0, got {site_zipf}")
    n_users, n_sites, n_epochs = int(n_users), int(n_sites), int(n_epochs)
    pop = (np.arange(1, n_sites + 1, dtype=float)) ** (-site_zipf)
    pop = pop[rng.permutation(n_sites)]
    pop /= pop.sum()
    n_checkins = np.ceil(rng.lognormal(math.log(activity_median), activity_sigma, n_users))
    n_checkins = np.clip(n_checkins, 1, n_epochs).astype(np.int64)
    user = np.repeat(np.arange(n_users), n_checkins)
    epoch = rng.choice(n_epochs, size=user.size, p=epoch_profile(n_epochs))
    home = rng.choice(n_sites, size=n_users, p=pop)
    site = np.where(rng.random(user.size) < home_weight, home[user],
                    rng.choice(n_sites, size=user.size, p=pop))
    u, s, e = clip_per_epoch(user, site, epoch, rng, clip)
    return Traces(u, s, e, n_users, n_sites, n_epochs, source="synthetic")


# ------------------------------------------------------------------ loaders
_USER = ("user", "user_id", "userid", "uid", "id")
_TIME = ("timestamp", "time", "datetime", "date", "ts", "created_at")
_SITE = ("site", "site_id", "location", "location_id", "cell", "venue", "venue_id")
_LAT = ("lat", "latitude")
_LON = ("lon", "lng", "long", "longitude")


def _pick(columns, names, what: str, required: bool = True):
    low = {c.lower().strip(): c for c in columns}
    for n in names:
        if n in low:
            return low[n]
    if required:
        raise DataError(f"no {what} column: expected one of {', '.join(names)}; "
                        f"found {', '.join(map(str, columns)) or 'none'}")
    return None


def _to_hours(col: pd.Series) -> np.ndarray:
    """Timestamps (unix s/ms or date-time text) → integer hours since the epoch (UTC)."""
    num = pd.to_numeric(col, errors="coerce")
    if num.notna().all():
        sec = num.to_numpy(float)
        if np.nanmax(np.abs(sec)) > 1e11:  # milliseconds
            sec = sec / 1000.0
    else:
        ts = pd.to_datetime(col, errors="coerce", utc=True, format="mixed")
        bad = int(ts.isna().sum())
        if bad:
            example = col[ts.isna()].iloc[0]
            raise DataError(f"{bad} timestamp(s) cannot be parsed, e.g. {example!r} "
                            "(use unix seconds or ISO 8601)")
        sec = (ts - pd.Timestamp(0, tz="UTC")).dt.total_seconds().to_numpy(float)
    if not np.isfinite(sec).all():
        raise DataError("timestamps contain missing values")
    return np.floor(sec / 3600.0).astype(np.int64)


def traces_from_frame(df: pd.DataFrame, rng: np.random.Generator, n_epochs: int = 800,
                      grid: tuple[int, int] = MILANO_GRID, bbox=None, clip: int = 1,
                      source: str = "uploaded") -> Traces:
    """Check-ins → traces: hourly epochs (last ``n_epochs`` hours), sites, clipping.

    Sites come from a site-id column if present, else from lat/lon on a
    ``grid = (columns along lon, rows along lat)`` equal-angle grid over ``bbox =
    (lon_min, lon_max, lat_min, lat_max)`` (default: the data's extent); points
    outside the box are dropped. Users are kept if they have at least one
    in-window, in-box point (spec §1.2).
    """
    if df is None or len(df) == 0:
        raise DataError("the trace file has no rows")
    if int(n_epochs) < 1:
        raise ParameterError("n_epochs", f"must be >= 1, got {n_epochs}")
    ucol = _pick(df.columns, _USER, "user")
    tcol = _pick(df.columns, _TIME, "timestamp")
    scol = _pick(df.columns, _SITE, "site", required=False)
    if df[ucol].isna().any():
        raise DataError(f"{int(df[ucol].isna().sum())} row(s) have no user")
    hours = _to_hours(df[tcol])
    if scol is not None:
        if df[scol].isna().any():
            raise DataError(f"{int(df[scol].isna().sum())} row(s) have no site")
        site_codes, site_names = pd.factorize(df[scol], sort=True)
        n_sites = len(site_names)
        inbox = np.ones(len(df), dtype=bool)
    else:
        try:
            latc = _pick(df.columns, _LAT, "latitude")
            lonc = _pick(df.columns, _LON, "longitude")
        except DataError:
            raise DataError("need either a site column (" + ", ".join(_SITE) +
                            ") or latitude and longitude columns") from None
        lat = pd.to_numeric(df[latc], errors="coerce").to_numpy(float)
        lon = pd.to_numeric(df[lonc], errors="coerce").to_numpy(float)
        if np.isnan(lat).any() or np.isnan(lon).any():
            raise DataError("latitude/longitude must be numbers (some are missing or not numeric)")
        if (np.abs(lat) > 90).any() or (np.abs(lon) > 180).any():
            raise DataError("latitude must be in [-90, 90] and longitude in [-180, 180]")
        nx, ny = int(grid[0]), int(grid[1])
        if nx < 1 or ny < 1:
            raise ParameterError("grid", f"needs at least one column and one row, got {grid}")
        x0, x1, y0, y1 = bbox if bbox is not None else (lon.min(), lon.max(), lat.min(), lat.max())
        if not (x1 > x0 and y1 > y0):
            x1, y1 = (x0 + 1e-9 if x1 <= x0 else x1), (y0 + 1e-9 if y1 <= y0 else y1)
        inbox = (lon >= x0) & (lon <= x1) & (lat >= y0) & (lat <= y1)
        cx = np.minimum(((lon - x0) / (x1 - x0) * nx).astype(np.int64), nx - 1)
        cy = np.minimum(((lat - y0) / (y1 - y0) * ny).astype(np.int64), ny - 1)
        site_codes = np.where(inbox, cy * nx + cx, 0)
        n_sites = nx * ny
    last = hours[inbox].max() if inbox.any() else 0
    epoch = hours - (last - int(n_epochs) + 1)
    keep = inbox & (epoch >= 0)
    if not keep.any():
        raise DataError("no check-in falls inside the grid box and the time window")
    users, names = pd.factorize(df[ucol][keep])
    u, s, e = clip_per_epoch(users, np.asarray(site_codes)[keep], epoch[keep], rng, clip)
    key = (users.astype(np.int64) * int(n_sites) + np.asarray(site_codes, dtype=np.int64)[keep]) * int(n_epochs) \
        + epoch[keep]
    order = np.argsort(key, kind="stable")
    return Traces(u, s, e, int(users.max()) + 1, int(n_sites), int(n_epochs), source=source,
                  labels=[_plain_label(v) for v in names], frame=df, user_column=str(ucol), row_key=key[order],
                  row_pos=np.flatnonzero(keep)[order])


def _plain_label(value):
    """A user column's value as JSON can carry it: an int stays an int, anything else becomes its text."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    return str(value)


def load_trace_csv(source, rng: np.random.Generator, n_epochs: int = 800,
                   grid: tuple[int, int] = MILANO_GRID, bbox=None, clip: int = 1) -> Traces:
    """Read a check-in CSV (path, bytes or file object) into validated traces.

    Columns (case-insensitive): a user column (``user``/``user_id``/``uid``), a
    timestamp (``timestamp``/``time``/``datetime``; unix seconds, ms or ISO 8601) and
    either a ``site`` id or ``lat``/``lon``.
    """
    # the lab's one CSV reader: regular files only (an endless device file is refused), byte and row caps
    df = read_table(source, name="trace file", max_bytes=TRACE_MAX_BYTES, max_rows=TRACE_MAX_ROWS)
    return traces_from_frame(df, rng, n_epochs=n_epochs, grid=grid, bbox=bbox, clip=clip,
                             source="csv")


def load_social_pulse_geojson(source, rng: np.random.Generator, n_epochs: int = 800) -> Traces:
    """The paper's Social Pulse – Milano tweets (``social-pulse-milano.geojson``), §1.1–1.2:
    fields ``user``, ``timestamp`` (unix) and ``geomPoint.geom.coordinates = [lon, lat]``,
    gridded 12 × 8 over the ZK-MIA Milano box, last ``n_epochs`` hours."""
    raw = read_bytes(source, name="GeoJSON file", max_bytes=TRACE_MAX_BYTES)
    try:
        data = json.loads(decode_text(raw, "GeoJSON file"))
    except (ValueError, RecursionError) as exc:
        raise DataError(f"cannot read the GeoJSON file: {exc}") from None
    feats = data.get("features") if isinstance(data, dict) else None
    if not feats:
        raise DataError("GeoJSON has no 'features'")
    rows = []
    for f in feats:
        try:
            lon, lat = f["geomPoint.geom"]["coordinates"][:2]
            rows.append((f["user"], f["timestamp"], lat, lon))
        except (KeyError, TypeError, ValueError):
            continue
    if not rows:
        raise DataError("no feature has user, timestamp and geomPoint.geom coordinates")
    df = pd.DataFrame(rows, columns=["user", "timestamp", "lat", "lon"])
    return traces_from_frame(df, rng, n_epochs=n_epochs, grid=MILANO_GRID, bbox=MILANO_BOX,
                             source="social-pulse-milano")
