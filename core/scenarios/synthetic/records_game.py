"""Every record attacked, training against control: the part of a synthetic-data game the field's audits report.

The paper's game (one target, its secret re-drawn by a coin) measures whether a release leaks *one* record's
secret; an audit asks how much it leaks about *the people in the data*. So every game also attacks, on the
largest release,

* the **training records**: the records of D' the generator was fitted on, with their own secrets (all but the
  coin-flipped target, or a seeded sample of ``attacked_records`` of them), and
* the **control records**: records of the same data set that were *not* used to fit the release (the game's
  control set, :func:`core.scenarios.synthetic.data._game`), as many or the same sample size;

with the inference attacks (Adv_recon solves its LP once for the training records' QIs and once for the control
records', on the same synthetic rows; Adv_dcr and Adv_infer read only S), and with singling out and linkability
(:mod:`core.attacks.synthetic.singling_out`, :mod:`core.attacks.synthetic.linkability`). What the attacks achieve
on control records, the population's patterns give away to anyone; only the excess on training records is a leak
(:mod:`core.measure.synthetic_risk`). SDMetrics' proxy scores are computed on the same release beside them
(:mod:`core.measure.proxy_scores`, on the last :data:`PROXY_GAMES` games).

Random draws: ``SeedSequence(entropy, spawn_key=(game, component))`` with components 7–12 (the paper's game
uses 0–6), so adding this part changed none of the paper game's numbers.
"""
from __future__ import annotations

import numpy as np

from ...attacks.declaration import attack_of
from ...attacks.synthetic.infer import infer_attack_many
from ...attacks.synthetic.linear_reconstruction import ReconMatrix, solve_recon_lp
from ...attacks.synthetic.linkability import linkability_successes
from ...attacks.synthetic.singling_out import singles_out, singling_out_queries
from ...cancel import checkpoint
from ...measure.proxy_scores import proxy_scores
from ...releases.kway_queries import MAX_4WAY, KWayQueries
from .data import _rng
from .risk_summary import risk_summary

# Synthetic rows singling out and linkability read (the first rows of the randomly ordered release: a uniform
# subsample); their cost grows with targets × rows.
LINK_ROWS_MAX = 10_000
SINGLING_OUT_QUERIES = 500
PROXY_GAMES = 1


def _pick(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of a seeded sample of ``k`` of ``n`` (all when k is 0 or at least n)."""
    if k <= 0 or k >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=k, replace=False))


def _play_many(player, S, X, rng):
    """(guesses, scores) of a declared attack for every row of ``X``: its batch form ``player.many`` when it has
    one, else one call per record."""
    many = getattr(player, "many", None)
    if many is not None:
        return many(S, X, rng)
    out = [player(S, x, rng) for x in X]
    return np.array([g for g, _ in out], dtype=np.int64), np.array([s for _, s in out], dtype=float)


def _recon_guesses(S, X, config, cards, rng):
    """Adv_recon's guesses and LP values for the records with QIs ``X`` (the paper's query family, built on X)."""
    q = max(1, int(round(config["query_ratio"] * X.shape[0]))) if config["query_ratio"] > 0 else None
    cap = min(MAX_4WAY, q) if (q is not None and config["query_k"] == "4") else MAX_4WAY
    fam = KWayQueries.build(X, cards[:-1], config["query_k"], rng, max_4way=cap)
    if q is not None:
        fam = fam.subset(q, rng)
    t = solve_recon_lp(ReconMatrix.from_queries(fam), fam.answers(S, config["query_scaling"]),
                       config["lp_method"]).t
    return (t >= 0.5).astype(np.int64), t


def infer_scores(S: np.ndarray, x_u, D: np.ndarray, C: np.ndarray, rng: np.random.Generator):
    """One Adv_infer forest on ``S`` for the target (``x_u``, may be None), every record of D' and of the control
    set: ((guess, score) of the target or None, P̂(y=1) on D', P̂(y=1) on C). Same forest and draws as
    :func:`core.attacks.synthetic.infer.infer_attack` for the target alone."""
    parts = ([] if x_u is None else [np.asarray(x_u).reshape(1, -1)]) + [D[:, :-1], C[:, :-1]]
    guesses, p = infer_attack_many(S, np.vstack(parts), rng)
    start = 0 if x_u is None else 1
    target = None if x_u is None else (int(guesses[0]), float(p[0]))
    return target, p[start:start + len(D)], p[start + len(D):]


def attack_records(config: dict, context: dict, g: int, game: dict, S: np.ndarray, attacks: list[str],
                   recon_t: np.ndarray | None = None, infer_p: tuple | None = None) -> dict:
    """Game g's training-versus-control record: per inference attack the guesses and scores on both sets,
    singling-out and linkability successes on both sets, and (last games) SDMetrics' proxy scores.

    ``recon_t``: Adv_recon's LP values for all n records of D', when the paper's game already solved them on
    the same release; ``infer_p``: Adv_infer's P̂(y=1) for all of D' and of the control set, from the forest the
    paper's game trained on the same release (:func:`infer_scores`)."""
    D, u, C = game["D"], game["u"], game["control"]
    cards = context["cards"]
    k = int(config.get("attacked_records", 0))
    train_idx = np.arange(D.shape[0])
    train_idx = train_idx[train_idx != u]  # the target's secret was re-drawn by a coin: not the person's own
    train_idx = train_idx[_pick(train_idx.size, k, _rng(context["entropy"], g, 7))]
    ctrl_idx = _pick(C.shape[0], k, _rng(context["entropy"], g, 8))
    T, Cs = D[train_idx], C[ctrl_idx]
    out = {"kind": "records", "game": g, "train_rows": [int(game["rows"][i]) for i in train_idx],
           "control_rows": [int(r) for r in np.asarray(game["control_rows"])[ctrl_idx]],
           "train_truth": T[:, -1].tolist(), "control_truth": Cs[:, -1].tolist(), "attacks": {}}
    arng = _rng(context["entropy"], g, 9)
    for name in attacks:
        checkpoint("synthetic: attacking every record")
        if name == "recon":  # the LP reads all the records' QIs of a set, as the paper's attacker does
            if recon_t is None:
                recon_t = _recon_guesses(S, D[:, :-1], config, cards, _rng(context["entropy"], g, 10))[1]
            t_c = _recon_guesses(S, C[:, :-1], config, cards, _rng(context["entropy"], g, 10))[1]
            st, sc = np.asarray(recon_t, dtype=float)[train_idx], t_c[ctrl_idx]
            gt, gc = (st >= 0.5).astype(np.int64), (sc >= 0.5).astype(np.int64)
        elif name == "infer":
            p_d, p_c = infer_p if infer_p is not None else infer_scores(S, None, D, C, arng)[1:]
            st, sc = np.asarray(p_d)[train_idx], np.asarray(p_c)[ctrl_idx]
            gt, gc = (st >= 0.5).astype(np.int64), (sc >= 0.5).astype(np.int64)
        elif name == "model":
            continue  # Adv_model reads the released network for one target only
        else:  # a declared attack through its batch form, or record by record
            player = attack_of("synthetic", name).player
            if player is None:
                continue
            gt, st = _play_many(player, S, T[:, :-1], arng)
            gc, sc = _play_many(player, S, Cs[:, :-1], arng)
        out["attacks"][name] = {"train_guess": np.asarray(gt).astype(int).tolist(),
                                "train_score": np.round(np.asarray(st, dtype=float), 6).tolist(),
                                "control_guess": np.asarray(gc).astype(int).tolist(),
                                "control_score": np.round(np.asarray(sc, dtype=float), 6).tolist()}
    if config.get("three_risks", True):  # the release risks declared under RELEASE_RISKS
        checkpoint("synthetic: singling out and linkability")
        S_link = S[:LINK_ROWS_MAX]
        srng = _rng(context["entropy"], g, 11)
        # queries are read off as many synthetic rows as the data hold: a release of 10 × n rows repeats
        # every pattern, so none is unique in all of it, but a sample of its size keeps the data's uniques
        queries = singling_out_queries(S[:D.shape[0]], srng, SINGLING_OUT_QUERIES)
        size = min(len(T), len(Cs))  # a query isolates a person more easily in a smaller table: equal sizes
        T_so = T[_pick(len(T), size, srng)]
        C_so = Cs[_pick(len(Cs), size, srng)]
        out["singling_out"] = {"queries": len(queries), "train": singles_out(T_so, queries).astype(int).tolist(),
                               "control": singles_out(C_so, queries).astype(int).tolist()}
        nn = int(config.get("n_neighbors", 10))
        out["linkability"] = {"train": linkability_successes(S_link[:, :-1], T[:, :-1], nn).astype(int).tolist(),
                              "control": linkability_successes(S_link[:, :-1], Cs[:, :-1], nn).astype(int).tolist()}
    # the last games' releases: the first game, which a page waits on for its first chart, stays quick
    if config.get("proxy_scores", True) and g >= int(config.get("games", 1)) - PROXY_GAMES:
        checkpoint("synthetic: SDMetrics proxy scores")
        out["proxies"] = proxy_scores(T, S, Cs, list(context["domain"]), _rng(context["entropy"], g, 12))
    return out


def release_risks(S: np.ndarray, train: np.ndarray, control: np.ndarray, names: list[str], *,
                  attacks: tuple[str, ...] = ("recon", "dcr", "infer"), seed: int = 0, query_k: str = "3",
                  query_scaling: str = "conditional", lp_method: str = "auto", n_neighbors: int = 10,
                  three_risks: bool = True, proxy_scores: bool = False) -> tuple[dict, dict, dict]:
    """The risk of one release made elsewhere, for code that has the tables themselves (a notebook, an audit of
    an uploaded release): ``S`` the synthetic rows, ``train`` the records it was fitted on, ``control`` records
    of the same population it never saw — integer codes over the same domains, secret last, ``names`` the
    columns. Every training and control record is attacked, as in a game of the lab (seeded by ``seed``).

    Returns (metrics, risk series, the per-record record) — the metrics and ``series["risk"]`` a run of the lab
    reports (:func:`core.scenarios.synthetic.risk_summary.risk_summary`)."""
    S, train, control = (np.asarray(a, dtype=np.int64) for a in (S, train, control))
    cards = tuple(int(max(S[:, j].max(), train[:, j].max(), control[:, j].max())) + 1 for j in range(S.shape[1]))
    config = {"games": 1, "attacked_records": 0, "query_ratio": 0.0, "query_k": query_k, "query_scaling": query_scaling,
              "lp_method": lp_method, "three_risks": three_risks, "n_neighbors": n_neighbors,
              "proxy_scores": proxy_scores}
    context = {"cards": cards, "entropy": int(seed), "domain": {name: () for name in names}}
    game = {"D": train, "u": -1, "control": control, "rows": np.arange(len(train)),
            "control_rows": np.arange(len(control))}
    record = attack_records(config, context, 0, game, S, list(attacks))
    metrics, series = risk_summary([{"game": 0, "records": record}])
    return metrics, series, record
