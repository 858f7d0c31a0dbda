"""One unit of work of the aggregate-statistics game: DeSIA on a batch of targets, a reconstruction baseline
(CIP or RAP) on every target of a block, or the RAP rows of the ablation table.

Every player takes ``(config, context, cell, key, kind, j, n_batches, rng)`` — the unit's cell of the release
grid, its cache key, its kind (the attack), its target batch j of n_batches — and returns one row per target.

Spec sections (§) refer to docs/specs/seed000_desia.md.
"""
from __future__ import annotations

import numpy as np

from ...cancel import checkpoint
from .data import _desia_fitted, _desia_mia_fitted, _release
from ...releases.aggregate_release import AggregateRelease
from ...attacks.aggregates.rap import RAP
from ...attacks.aggregates import neighbourhood_vote
from ...attacks.aggregates.cip import CIP


def _order_by_pattern(targets, D, masks, cardinalities, task):
    """Targets sorted so that those sharing a shadow model (same Δ / membership pattern) are adjacent.

    Batches are contiguous slices of this order, so a worker fits each shared model once.
    """
    if len(targets) == 0:
        return targets
    rel = AggregateRelease(tuple(f"a{i}" for i in range(len(cardinalities))), tuple(cardinalities), masks,
                           np.zeros(len(masks)), size=len(D))
    if task == "aia":
        rows = [rel.membership(np.column_stack([D[targets, :-1], np.full(len(targets), v)]))
                for v in range(cardinalities[-1])]
        keys = np.hstack([r ^ rows[0] for r in rows[1:]])
    else:
        keys = rel.membership(D[targets])
    packed = [k.tobytes() for k in np.packbits(keys, axis=1)]
    order = sorted(range(len(targets)), key=lambda i: (packed[i], targets[i]))
    return targets[np.array(order)]


def _batch(n: int, j: int, n_batches: int) -> np.ndarray:
    return np.array_split(np.arange(n), n_batches)[j]


def _mia_game(cell, t_pos, rng_seed):
    """(records of the game's D, label b) for the t_pos-th target."""
    D, targets = cell["D"], cell["targets"]
    b = int(cell["mia_bits"][t_pos])
    other = int(cell["mia_other"][t_pos])
    if b == 1 and other < 0:
        b = 0
    removed = targets[t_pos] if b == 0 else other
    return np.delete(D, removed, axis=0), b


def _play_desia(config, context, cell, key, kind, j, n_batches, rng):
    positions = _batch(len(cell["targets"]), j, n_batches)
    targets = cell["targets"][positions]
    if len(targets) == 0:
        return []
    rows = []
    if config["task"] == "aia":
        att = _desia_fitted(config, context, cell, key)
        for t in targets:
            checkpoint("DeSIA per-target solve")
            out = att.attack(cell["D"][t, :-1], rng)
            rows.append({**_row("desia", int(cell["D"][t, -1]), out, rng), "target": int(t)})
    else:
        att = _desia_mia_fitted(config, context, cell, key)
        for pos, t in zip(positions, targets):
            checkpoint("DeSIA per-target solve")
            recs, b = _mia_game(cell, pos, None)
            rel = _release(context, cell, recs, np.random.default_rng([cell["release_seed"], int(pos)]))
            out = att.attack(rel, cell["D"][t], rng)
            rows.append({**_row("desia", b, out, rng), "target": int(t)})
    return rows


def _row(attack, label, out, rng):
    return {"attack": attack, "label": int(label), "score": float(out.score), "prediction": int(out.prediction),
            "settled": bool(out.settled), "first_value": int(out.first_value), "md_status": out.md_status,
            "valid_auc": None if not np.isfinite(out.ms_valid_auc) else float(out.ms_valid_auc),
            "sec_md": float(out.seconds_md), "sec_ms": float(out.seconds_ms), "random": float(rng.random())}


def _reconstructor(config, kind, s, k=None):
    method, init = kind.split("-")
    k = config["reconstructions"] if k is None else k
    if method == "cip":
        return CIP(init=init, reconstructions=k, time_limit=config["time_limit"])
    return RAP(init=init, reconstructions=k, rows=max(1000, s), steps=config["rap_steps"], n_jobs=1)


def _play_baseline_aia(config, context, cell, key, kind, j, n_batches, rng):
    targets = cell["targets"]
    if len(targets) == 0:
        return []
    rel = _release(context, cell)
    recon = _reconstructor(config, kind, rel.size).reconstruct(rel, rng, aux_records=cell["aux"])
    scores, preds = neighbourhood_vote.aia_scores(recon, cell["D"][targets, :-1], rng,
                                                  n_values=rel.cardinalities[-1])
    return [{"attack": kind, "label": int(cell["D"][t, -1]), "score": float(s), "prediction": int(p),
             "random": float(rng.random()), "target": int(t)} for t, s, p in zip(targets, scores, preds)]


def _play_baseline_mia(config, context, cell, key, kind, j, n_batches, rng):
    positions = _batch(len(cell["targets"]), j, n_batches)
    rows = []
    for pos in positions:
        checkpoint("reconstruction per target")
        t = cell["targets"][pos]
        recs, b = _mia_game(cell, pos, None)
        rel = _release(context, cell, recs, np.random.default_rng([cell["release_seed"], int(pos)]))
        recon = _reconstructor(config, kind, rel.size).reconstruct(rel, rng, aux_records=cell["aux"])
        score = float(neighbourhood_vote.mia_scores(recon, cell["D"][t][None, :])[0])
        rows.append({"attack": kind, "label": b, "score": score, "prediction": int(score > 0.5),
                     "random": float(rng.random()), "target": int(t)})
    return rows


def _play_ablation_rap(config, context, cell, key, kind, j, n_batches, rng):
    """Table 3 rows 4–5 (spec §11.14): one RAP-rand reconstruction instead of the solver."""
    targets = cell["targets"]
    if len(targets) == 0:
        return []
    rel = _release(context, cell)
    recon = _reconstructor(config, "rap-rand", rel.size, k=1).reconstruct(rel, rng)
    _, majority = neighbourhood_vote.aia_scores(recon, cell["D"][targets, :-1], rng,
                                                n_values=rel.cardinalities[-1])
    rec = recon[0]
    rows = []
    for t, maj in zip(targets, majority):
        match = np.flatnonzero(np.all(rec[:, :-1] == cell["D"][t, :-1], axis=1))
        uniq_val = int(rec[rng.choice(match), -1]) if len(match) else int(maj)
        label = int(cell["D"][t, -1])
        rows.append({"attack": "ablation_rap_unique", "label": label, "score": float(uniq_val),
                     "prediction": uniq_val})
        rows.append({"attack": "ablation_rap_majority", "label": label, "score": float(maj),
                     "prediction": int(maj)})
    return rows


# ========================================================================= before any attack
