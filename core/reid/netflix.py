"""Narayanan–Shmatikov de-anonymisation of sparse data (CS208 lecture 2, slides "Netflix Challenge
Re-identification", "Narayanan-Shmatikov Set-Up/Algorithm/Results" [Narayanan & Shmatikov '08]).

Set-up (slides). A dataset ``x`` of records ``r`` (a subscriber's ratings); the adversary gets
``x̂`` — a subset of the records, possibly slightly distorted — and ``aux``, a few (noisy) ratings
of one person ``r`` (e.g. from their public IMDb profile). It outputs a record ``r'`` close to
``r``, or ``⊥``.

Algorithm (slides):

1. compute ``score(aux, r')`` for every ``r' ∈ x̂`` and the standard deviation ``σ`` of the scores;
2. let ``r'_1``, ``r'_2`` be the records with the largest and second-largest score;
3. if ``score(aux, r'_1) − score(aux, r'_2) > φ · σ`` output ``r'_1``, else ``⊥``. The slide's
   eccentricity threshold is ``φ = 1.5``.

Instantiation: ``score(aux, r') = Σ_{a ∈ supp(aux)} w_a · sim(aux_a, r'_a)`` where, following NS08
(external to the slides, which only say "similarity of rating & date" and "downweight movies
watched by many"), ``w_a = 1 / log|supp(a)|`` (``|supp(a)|`` = number of records that rated movie
``a``) and ``sim = exp(−|Δrating|/ρ₀) + exp(−|Δdays|/d₀)`` if ``r'`` rated ``a`` (0 otherwise),
with ``ρ₀ = 1.5`` and ``d₀ = 30`` days.

The data here are synthetic (the Netflix Prize data are not redistributable): users rate a
lognormal number of movies drawn with Zipf(α) popularity — a long tail in which most movies are
rare, which is what makes records unique; ratings mix user and movie effects; dates fall in a
per-user active window over six years. Results on the slide (real data, not reproduced here):
two of 50 sampled IMDb users stood out with eccentricities 28 and 15.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from ..errors import ParameterError

DAYS = 6 * 365


@dataclass
class Ratings:
    """Users × movies sparse matrices of ratings (1–5) and dates (days since the start, ≥ 1)."""

    rating: sparse.csr_matrix
    date: sparse.csr_matrix

    @property
    def n_users(self) -> int:
        return self.rating.shape[0]

    @property
    def n_movies(self) -> int:
        return self.rating.shape[1]

    def support(self) -> np.ndarray:
        """``|supp(a)|`` for every movie."""
        return np.diff(self.rating.tocsc().indptr)


def synthetic_ratings(n_users: int = 4000, n_movies: int = 2000, mean_ratings: float = 40.0,
                      popularity_exponent: float = 1.0, seed: int = 0) -> Ratings:
    """Long-tailed synthetic ratings (see module docstring)."""
    if not 20 <= int(n_users) <= 100_000:
        raise ParameterError("n_users", "must be between 20 and 100,000")
    if not 20 <= int(n_movies) <= 20_000:
        raise ParameterError("n_movies", "must be between 20 and 20,000")
    if not 1 <= float(mean_ratings) <= n_movies / 4:
        raise ParameterError("mean_ratings", "must be between 1 and a quarter of the movies")
    rng = np.random.default_rng(seed)
    n_users, n_movies = int(n_users), int(n_movies)
    pop = 1.0 / np.arange(1, n_movies + 1) ** float(popularity_exponent)
    pop /= pop.sum()
    counts = np.clip(np.round(rng.lognormal(np.log(mean_ratings) - 0.5, 1.0, n_users)), 1, n_movies // 2).astype(int)
    quality = rng.normal(0, 0.7, n_movies)
    bias = rng.normal(0, 0.5, n_users)
    start = rng.integers(0, DAYS - 60, n_users)
    length = rng.integers(30, DAYS, n_users)
    # Gumbel top-k: each user's movies are drawn without replacement proportionally to popularity
    logp = np.log(pop)
    kmax = int(counts.max())
    rows, cols = [], []
    for lo in range(0, n_users, 512):
        hi = min(lo + 512, n_users)
        keys = logp[None, :] + rng.gumbel(size=(hi - lo, n_movies))
        top = np.argpartition(-keys, kmax - 1, axis=1)[:, :kmax]
        order = np.argsort(-np.take_along_axis(keys, top, axis=1), axis=1)
        top = np.take_along_axis(top, order, axis=1)
        keep = np.arange(kmax)[None, :] < counts[lo:hi, None]
        rows.append(np.nonzero(keep)[0] + lo)
        cols.append(top[keep])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    vals = np.clip(np.round(3.5 + bias[rows] + quality[cols] + rng.normal(0, 0.8, len(rows))), 1, 5)
    days = np.minimum(start[rows] + (rng.random(len(rows)) * length[rows]).astype(int), DAYS - 1) + 1
    shape = (n_users, n_movies)
    rating = sparse.csr_matrix((vals, (rows, cols)), shape=shape)
    date = sparse.csr_matrix((days.astype(float), (rows, cols)), shape=shape)
    return Ratings(rating, date)


def release(data: Ratings, release_fraction: float, perturb_fraction: float, rng: np.random.Generator):
    """``x̂``: a random ``release_fraction`` of the users; in a ``perturb_fraction`` of them, each rating
    is moved by ±1 with probability ½ and each date shifted by up to ±14 days. Returns (released user ids,
    Ratings restricted to them)."""
    for name, f in (("release_fraction", release_fraction), ("perturb_fraction", perturb_fraction)):
        if not 0.0 <= float(f) <= 1.0:
            raise ParameterError(name, "must be in [0, 1]")
    if release_fraction <= 0:
        raise ParameterError("release_fraction", "must be positive")
    ids = np.sort(rng.choice(data.n_users, max(2, int(round(release_fraction * data.n_users))), replace=False))
    rat, dat = data.rating[ids].tocsr().copy(), data.date[ids].tocsr().copy()
    pert_rows = rng.random(len(ids)) < perturb_fraction
    row_of = np.repeat(np.arange(len(ids)), np.diff(rat.indptr))
    hit = pert_rows[row_of]
    move = hit & (rng.random(len(rat.data)) < 0.5)
    rat.data[move] = np.clip(rat.data[move] + rng.choice([-1.0, 1.0], move.sum()), 1, 5)
    dat.data[hit] = np.maximum(dat.data[hit] + rng.integers(-14, 15, hit.sum()), 1)
    return ids, Ratings(rat, dat)


@dataclass
class Aux:
    """The adversary's auxiliary ratings of one person."""

    movie: np.ndarray
    rating: np.ndarray
    day: np.ndarray

    def table(self) -> pd.DataFrame:
        return pd.DataFrame({"movie": self.movie, "rating": self.rating, "day": self.day})


def make_aux(data: Ratings, target: int, n_aux: int, rating_noise: float, date_noise: int,
             rng: np.random.Generator) -> Aux:
    """``aux``: ``n_aux`` of the target's movies (all if fewer), each rating moved by ±1 with probability
    ``rating_noise`` and each date shifted uniformly within ±``date_noise`` days."""
    lo, hi = data.rating.indptr[target], data.rating.indptr[target + 1]
    movies = data.rating.indices[lo:hi]
    if len(movies) == 0:
        raise ParameterError("target", "the target rated no movie")
    pick = rng.choice(len(movies), min(int(n_aux), len(movies)), replace=False)
    m = movies[pick]
    r = data.rating.data[lo:hi][pick].copy()
    flip = rng.random(len(r)) < rating_noise
    r[flip] = np.clip(r[flip] + rng.choice([-1.0, 1.0], flip.sum()), 1, 5)
    d = data.date.data[lo:hi][pick] + rng.integers(-int(date_noise), int(date_noise) + 1, len(m))
    return Aux(m, r, d.astype(float))


class Scorer:
    """``score(aux, r')`` for every released record ``r'`` (column-compressed once, reused for every aux)."""

    def __init__(self, released: Ratings, rho0: float = 1.5, d0: float = 30.0):
        self.rc, self.dc = released.rating.tocsc(), released.date.tocsc()
        self.weight = 1.0 / np.log(np.maximum(np.diff(self.rc.indptr), 2))
        self.rho0, self.d0, self.n = float(rho0), float(d0), released.n_users

    def __call__(self, aux: Aux) -> np.ndarray:
        ptr = self.rc.indptr
        parts = [np.arange(ptr[a], ptr[a + 1]) for a in aux.movie]
        sizes = np.array([len(p) for p in parts])
        if sizes.sum() == 0:
            return np.zeros(self.n)
        idx = np.concatenate(parts)
        ra, da, w = (np.repeat(v, sizes) for v in (aux.rating, aux.day, self.weight[aux.movie]))
        sim = np.exp(-np.abs(self.rc.data[idx] - ra) / self.rho0) + np.exp(-np.abs(self.dc.data[idx] - da) / self.d0)
        return np.bincount(self.rc.indices[idx], weights=w * sim, minlength=self.n)


def scores(aux: Aux, released: Ratings, rho0: float = 1.5, d0: float = 30.0) -> np.ndarray:
    """``score(aux, r')`` for every released record ``r'``."""
    return Scorer(released, rho0, d0)(aux)


@dataclass
class Match:
    scores: np.ndarray
    best: int                 # index into the released records
    second: int
    eccentricity: float       # (s1 − s2) / σ
    matched: bool             # eccentricity > φ
    target_released_index: int  # -1 when the target is not in x̂
    correct: bool             # matched and best is the target

    @property
    def false_match(self) -> bool:
        return self.matched and not self.correct


def eccentricity_match(s: np.ndarray, phi: float, target_index: int = -1) -> Match:
    """Steps 2–3 of the algorithm on a score vector."""
    if len(s) < 2:
        raise ParameterError("release_fraction", "x̂ needs at least two records")
    top2 = np.argpartition(-s, 1)[:2]
    best, second = (top2 if s[top2[0]] >= s[top2[1]] else top2[::-1])
    sd = float(s.std())
    ecc = (s[best] - s[second]) / sd if sd > 0 else 0.0
    matched = ecc > phi
    return Match(s, int(best), int(second), float(ecc), bool(matched), target_index,
                 bool(matched and best == target_index))


@dataclass
class NetflixDemo:
    aux: Aux
    match: Match
    target: int
    curves: pd.DataFrame | None

    def metrics(self) -> dict:
        return {"eccentricity": self.match.eccentricity, "matched": int(self.match.matched),
                "correct": int(self.match.correct), "target_in_release": int(self.match.target_released_index >= 0)}


PHIS = (0.5, 1.0, 1.5, 3.0, 5.0)
AUX_SIZES = (1, 2, 3, 4, 6, 8, 10, 15, 20)


def reidentification_curves(data: Ratings, ids: np.ndarray, released: Ratings, n_targets: int, rating_noise: float,
                            date_noise: int, rng: np.random.Generator, aux_sizes=AUX_SIZES, phis=PHIS) -> pd.DataFrame:
    """Re-identification rate (correct matches / targets) and false-match rate (wrong outputs / targets)
    against the number of aux ratings, for each φ. Targets are drawn from all users, so some are not in x̂."""
    pos = np.full(data.n_users, -1)
    pos[ids] = np.arange(len(ids))
    targets = rng.choice(data.n_users, min(int(n_targets), data.n_users), replace=False)
    score = Scorer(released)
    rows = []
    for k in aux_sizes:
        ecc, best_ok = [], []
        for t in targets:
            m = eccentricity_match(score(make_aux(data, t, k, rating_noise, date_noise, rng)), 0.0, pos[t])
            ecc.append(m.eccentricity)
            best_ok.append(pos[t] >= 0 and m.best == pos[t])
        ecc, best_ok = np.asarray(ecc), np.asarray(best_ok)
        for phi in phis:
            out = ecc > phi
            rows.append({"n_aux": k, "phi": phi, "reidentification_rate": float((out & best_ok).mean()),
                         "false_match_rate": float((out & ~best_ok).mean())})
    return pd.DataFrame(rows)


def netflix_demo(n_users: int = 4000, n_movies: int = 2000, n_aux: int = 8, rating_noise: float = 0.2,
                 date_noise: int = 14, release_fraction: float = 1.0, perturb_fraction: float = 0.2,
                 phi: float = 1.5, curves: bool = False, n_targets: int = 100, seed: int = 0) -> NetflixDemo:
    """One de-anonymisation of a random target, and optionally the rate curves (the page's one call)."""
    if not 1 <= int(n_aux) <= 50:
        raise ParameterError("n_aux", "must be between 1 and 50")
    if not 0.0 <= float(rating_noise) <= 1.0:
        raise ParameterError("rating_noise", "must be in [0, 1]")
    if not 0 <= int(date_noise) <= 365:
        raise ParameterError("date_noise", "must be between 0 and 365 days")
    if float(phi) < 0:
        raise ParameterError("phi", "must be non-negative")
    rng = np.random.default_rng(seed)
    data = synthetic_ratings(n_users, n_movies, seed=seed)
    ids, released = release(data, release_fraction, perturb_fraction, rng)
    target = int(rng.integers(data.n_users))  # drawn from everyone: absent from x̂ w.p. 1 − release_fraction
    pos = np.searchsorted(ids, target)
    pos = int(pos) if pos < len(ids) and ids[pos] == target else -1
    aux = make_aux(data, target, n_aux, rating_noise, date_noise, rng)
    match = eccentricity_match(scores(aux, released), phi, pos)
    cur = reidentification_curves(data, ids, released, n_targets, rating_noise, date_noise, rng) if curves else None
    return NetflixDemo(aux, match, target, cur)
