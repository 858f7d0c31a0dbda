"""Defaults that fit a check-in file: what an uploaded trace file can support, and one line for each cap.

The location game (auxiliary attacker) asks three things of the data that a user's check-in file may not have:

* **k observations** — every attacked user needs at least ``k`` positive cells (site-hours); the default
  ``k = 60`` is the paper's, for Milano's most active tweeters. A file whose users have fewer is played at the
  largest ``k`` that ``target_users`` of its users reach.
* **attacked users** — ``target_users`` users with ``k`` cells each; a file with fewer users than that is played
  with all of them.
* **group size** — every aggregate sums ``G`` other users' traces drawn from a pool of half the others (a quarter
  for the MLP, which needs training and validation pools too); the default ``G = 1,999`` is the paper's. A file
  with fewer users gets ``G`` = the pool's size.

The run's configuration keeps what was asked; the notes (in the run's series, ``fit_notes``, on the page and
printed by the command line before the estimate) say what was played, as for the aggregate-statistics lab
(:mod:`core.scenarios.aggregates.fit`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...basics.idle import on_idle
from ...data.traces import load_trace_csv
from ...errors import DataError

MIN_GROUP = 10  # the group_size parameter's lower bound


@dataclass(frozen=True)
class Fit:
    """The values a run plays (``observations``, ``group_size``, ``target_users``) and one sentence per cap."""

    observations: int
    group_size: int
    target_users: int
    notes: tuple[str, ...] = ()

    def played(self, config: dict) -> dict:
        """``config`` with the values the file supports."""
        return {**config, "observations": self.observations, "group_size": self.group_size,
                "target_users": self.target_users}


@lru_cache(maxsize=8)
def _cells_per_user(path: str, _stamp: tuple) -> np.ndarray:
    # the number of a user's cells after clipping is one per hour with a check-in, whichever site is kept: the
    # seed of the clipping does not change it
    return load_trace_csv(path, np.random.default_rng(0)).observations_per_user()


on_idle(_cells_per_user.cache_clear)


def cells_per_user(path: str) -> np.ndarray:
    try:
        st = os.stat(path)
    except OSError:  # the reader says what is wrong in its own words ("file not found … upload it again")
        return load_trace_csv(path, np.random.default_rng(0)).observations_per_user()
    return _cells_per_user(str(path), (st.st_mtime_ns, st.st_size))


def fit(config: dict) -> Fit:
    """What a run on ``config["trace_file"]`` plays (the configuration itself for synthetic traces or the
    informed attacker, who needs no data)."""
    asked = Fit(int(config["observations"]), int(config["group_size"]), int(config["target_users"]))
    if config["attacker"] != "auxiliary" or not config["trace_file"]:
        return asked
    obs = np.sort(cells_per_user(config["trace_file"]))[::-1]  # most active first
    users = int(obs.size)
    k, g, t = asked.observations, asked.group_size, asked.target_users
    notes = []
    if users < t:
        notes.append(f"target_users = {t}: your file has {users:,} users, so all of them are attacked.")
        t = users
    if obs[t - 1] < k:  # the t-th most active user: the largest k that t users reach
        notes.append(f"observations = {k}: {'no user' if obs[0] < k else f'fewer than {t} users'} of your file "
                     f"{'has' if obs[0] < k else 'have'} {k} check-in hours (the most is {int(obs[0]):,}), so "
                     f"k = {int(obs[t - 1])} is played (the {t} most active users reach it).")
        k = int(obs[t - 1])
    pool = (users - 1) // (4 if config["attack"] == "mlp" else 2)
    if pool < MIN_GROUP:
        raise DataError(f"your file has {users:,} users: an aggregate needs at least {MIN_GROUP} other users' traces "
                        f"in each pool (target and auxiliary), so at least {2 * MIN_GROUP + 1} users")
    if g > pool:
        notes.append(f"group_size = {g:,}: the aggregates draw G other users from a pool of {pool:,} of your "
                     f"file's {users:,} users, so G = {pool:,} is played.")
        g = pool
    return Fit(k, g, t, tuple(notes))
