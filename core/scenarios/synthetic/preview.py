"""Before any game: the data under attack (how unique its records are, how many targets a game can pick).

Spec sections (§) refer to docs/specs/seed002_linear_recon_sdg.md.
"""
from __future__ import annotations

import math

import numpy as np

from ...releases.synthesizers import SYNTHESIZERS
from ...scenario import prepare_rng
from .data import _game, load_game_data, make_generator, size_ladder
from ...theory.fdp import accuracy_bound


def greedy_uniqueness(X: np.ndarray, names) -> tuple[list[str], list[float]]:
    """Quasi-identifiers in the order that singles out the most records, and the share of records unique after
    each: step j adds the column that makes the most rows of ``X`` unique together with the j−1 before it (ties:
    the earlier column). The last share is that of records unique on every column."""
    X = np.asarray(X, dtype=np.int64)
    X = X - X.min(axis=0)  # non-negative codes, so a column extends a key as one more mixed-radix digit
    radix = X.max(axis=0) + 1
    order: list[int] = []
    shares: list[float] = []
    left = list(range(X.shape[1]))
    prefix = np.zeros(X.shape[0], dtype=np.int64)  # dense id of each row's values on the chosen columns
    while left:
        best, best_share, best_ids = left[0], -1.0, prefix
        for j in left:
            _, inv, cnt = np.unique(prefix * radix[j] + X[:, j], return_inverse=True, return_counts=True)
            share = float(np.mean(cnt[inv] == 1))
            if share > best_share:
                best, best_share, best_ids = j, share, inv
        order.append(best)
        shares.append(best_share)
        left.remove(best)
        prefix = best_ids.astype(np.int64)
    return [names[j] for j in order], shares


def data_preview(config: dict, seed: int) -> dict:
    """The data under attack, for the page's first plot (no generator fitted): spec §2 game, step 1–3.

    * the data set, its size, the secret column and its share of 1s (the population the n records come from);
    * the quasi-identifiers the attacker knows (every column but the secret, with their numbers of values) and,
      on game 1's own sample of n records (the run's generator: same prepare seed, same game-0 draws), how
      quickly they single people out (:func:`greedy_uniqueness`) — the records unique on all of them are the
      possible targets;
    * the guarantee: the target's secret is re-drawn uniformly, so guessing wins 50%; a generator that is
      (ε, δ)-DP on its training records caps *any* attack on every synthetic size at ``(e^ε + δ)/(1 + e^ε)``
      (:func:`core.theory.fdp.accuracy_bound`; the generated sample is post-processing of the fitted model).
    """
    codes, domain, label, secret = load_game_data(config)
    cards = tuple(len(v) for v in domain.values())
    ctx = {"codes": codes, "cards": cards, "entropy": int(prepare_rng(seed).integers(0, 2**62))}  # = prepare's
    game = _game(ctx, config, 0)
    names = list(domain)[:-1]
    order, shares = greedy_uniqueness(game["D"][:, :-1], names)
    if config["generator"] == "file":  # a release read from a file: no generator, no claim, all its rows
        from .release_file import release_codes  # lazy: only a file release needs it

        title, eps, delta, dp = "your release (file)", math.inf, 0.0, False
        sizes = size_ladder(int(release_codes(config).shape[0]))
    else:
        gen = SYNTHESIZERS[config["generator"]]
        title, sizes = gen.title, size_ladder(config["synth_size"])
        eps, delta = make_generator(config).privacy
        dp = bool(gen.dp) and math.isfinite(eps)
    values = list(domain[secret])
    return {"label": label, "records": int(codes.shape[0]), "n": int(game["D"].shape[0]), "secret": secret,
            "secret_values": [str(v) for v in values], "secret_share": float(np.mean(codes[:, -1] == 1)),
            "qis": {k: len(domain[k]) for k in names}, "order": order, "unique_share": shares,
            "targets": int(game["unique_targets"]), "sizes": sizes,
            "generator": title, "dp": dp, "epsilon": float(eps) if dp else None,
            "delta": float(delta) if dp else None, "bound": accuracy_bound(eps, delta) if dp else None}
