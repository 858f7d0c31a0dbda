"""Several attacked users in the location membership game, and who among them is exposed.

The game of Liu, Shilov, Guepin & de Montjoye (Definition 3) attacks one target user: the noisy aggregate
``Ã = A_θ + b·x^target + X`` at the target's first k positive cells. How exposed a user is depends on the user:

* the **auxiliary** attacker (θ = 0) only knows the distribution of the other G traces, so at cell c the clean
  count is ≈ Poisson(λ_c) with λ_c = G·(share of the pool that visits c). A member adds 1 to a count of mean
  λ_c: the signal-to-noise ratio of cell c falls as λ_c grows, so a user whose first k check-ins fall in sparse
  site-hour cells (small mean clean count λ = (1/k)·Σ_c λ_c) is easier to detect;
* the **informed** attacker (θ = 1, the DP adversary) subtracts the other traces: it sees ``b·z + X`` whoever the
  target is, so users differ only by the noise of their games — the DP bound treats everybody alike.

The run plays the requested first target (its games give the headline numbers) and then ``target_users − 1``
more users, each drawn without replacement among the users with at least k observations, each with its own
cells, its own target/auxiliary pools (a fresh split of everybody else) and ``user_games`` balanced test games.

Who is exposed (one row per test game, unit "test game"): the row of game i of user u says whether u's trace was
in that aggregate (secret), the headline attack's call (guess) and its membership score. "Probable" is
calibrated per user: the score clears the threshold that at most 1% of *the same user's* non-member games clear,
so the stated false-positive rate holds for every user, not only on average over users (a pooled threshold would
flag the users of crowded cells more often than stated and the users of sparse cells less). Nothing is certified:
the noise is unbounded. Beside the rows, a per-user summary — games, accuracy with its Clopper–Pearson interval,
AUC with its DeLong interval, the share of the user's member games called probable, λ — and a χ² test of whether
the users' accuracies differ more than their games' sampling noise explains.
"""
from __future__ import annotations

import numpy as np

from ...attacks.location.location_common import CellPool
from ...cancel import checkpoint
from ...data.file_rows import in_file, row_numbers
from ...errors import DataError
from ...measure import metrics as M
from ...measure.records import RECORDS_MAX, Calibration, RecordTable, build, plural
from ...attacks.location.likelihood_ratio import LikelihoodRatioAttack
from ...attacks.location.one_threshold import OneThresholdAttack
from ...attacks.location.two_threshold import TwoThresholdAttack
from ...theory import dp_accuracy as T


#: The exposure tables' column naming the rows of an uploaded check-in file behind a user's attacked cells.
ROWS = "rows in your file"


# ------------------------------------------------------------------ choosing the users
def user_label(traces, user: int) -> str | int:
    """The user's value in the uploaded trace file (its ``user`` column), else its index in the synthetic data."""
    labels = getattr(traces, "labels", None)
    return labels[user] if labels is not None else int(user)


def target_context(traces, user: int, obs: np.ndarray, config: dict, rng: np.random.Generator) -> dict:
    """One target user's cells (its first k observations, chronologically), a fresh split of every other user
    into the target pool (the G traces of the test aggregates), the auxiliary pool (the attacker's shadows) and,
    for the MLP, its training and validation pools; and λ_c = G·hits_c/|pool| at each of its cells."""
    K, G = config["observations"], config["group_size"]
    sites, epochs = traces.user_cells(user)
    sites, epochs = sites[:K], epochs[:K]
    cells = sites * traces.n_epochs + epochs
    others = rng.permutation(np.delete(np.arange(traces.n_users), user))
    half = others.size // 2
    split = {"target": others[:half], "aux": others[half:],
             "train": others[half:half + (others.size - half) // 2],
             "val": others[half + (others.size - half) // 2:]}
    needed = ("target", "aux", "train", "val") if config["attack"] == "mlp" else ("target", "aux")
    for name in needed:
        if split[name].size < G:
            raise DataError(f"the {name} pool has {split[name].size} traces, fewer than G = {G}; "
                            "use more users or a smaller group size")
    pools = {}
    for name, users in split.items():
        checkpoint("location: trace pools")
        rows = traces.cell_matrix(cells, users)
        pools[name] = CellPool(int(users.size), rows[rows.any(axis=1)].astype(np.uint8))
    lam = G * pools["target"].cell_hits() / pools["target"].size
    target = {"user": user_label(traces, user), "index": int(user), "observations": int(obs[user]),
              "sites": sites.tolist(), "epochs": epochs.tolist()}
    target.update(file_checkins(traces, user, sites, epochs, config.get("trace_file")))
    return {"pools": pools, "mean_clean_count": lam.tolist(), "target": target}


def file_checkins(traces, user: int, sites, epochs, path: str | None) -> dict:
    """For a user of an uploaded check-in file: ``rows``, the file's rows (1 = the first data row under the
    header, blank lines counted) of the check-ins behind the attacked cells, and ``cells``, those check-ins'
    values of every column but the user's, as the file holds them (a row for each; {} for synthetic traces)."""
    positions = traces.rows_of(user, sites, epochs)
    if not positions or traces.frame is None or not path:
        return {}
    frame = traces.frame
    columns = [c for c in frame.columns if c != traces.user_column]
    return {"rows": row_numbers(path, positions, rows=len(frame)),
            "cells": {str(c): [_plain(v) for v in frame[c].to_numpy()[positions]] for c in columns}}


def _plain(value):
    """A cell as JSON carries it: a number stays a number, a missing cell is empty, anything else is text."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return str(value)


def row_ranges(rows) -> str:
    """Row numbers as a short text: runs of consecutive rows as ``first–last`` (``"12–71, 90"``)."""
    rows = sorted(int(r) for r in rows)
    parts, start = [], None
    for i, r in enumerate(rows):
        start = r if start is None else start
        if i + 1 == len(rows) or rows[i + 1] != r + 1:
            parts.append(str(r) if r == start else f"{start}–{r}")
            start = None
    return ", ".join(parts)


def extra_users(traces, obs: np.ndarray, candidates: np.ndarray, first: int, config: dict,
                rng: np.random.Generator) -> list[dict]:
    """The ``target_users − 1`` further targets, drawn without replacement among ``candidates`` (users with ≥ k
    observations) other than the first target, each with its own cells and pools (:func:`target_context`)."""
    extra = int(config.get("target_users", 1)) - 1
    if extra <= 0:
        return []
    rest = candidates[candidates != first]
    if rest.size < extra:
        raise DataError(f"only {rest.size + 1} users have at least {config['observations']} positive observations, "
                        f"fewer than the {extra + 1} attacked users asked for; lower `target_users` or "
                        "`observations`")
    picks = rng.choice(rest, size=extra, replace=False)
    out = []
    for u in picks:
        checkpoint("location: attacked users")
        out.append(target_context(traces, int(u), obs, config, rng))
    return out


def nominal_users(config: dict) -> list[dict]:
    """The informed game needs no data (Ã − A_θ = b·z + X): its further targets are nominal users with k
    observations, told apart only by their games' noise."""
    return [{"target": {"user": f"target {j + 1}"}} for j in range(1, int(config.get("target_users", 1)))]


def user_tasks(config: dict) -> list[tuple[str, int, int]]:
    """One unit of ``user_games`` test games for each further user, after the sweeps (so adding users leaves the
    seeds, and therefore the numbers, of the headline and its sweeps unchanged)."""
    return [("user", config["observations"], config["train_shadows"])] * (int(config.get("target_users", 1)) - 1)


# ------------------------------------------------------------------ one further user's games
def play_user(scenario, config: dict, context: dict, index: int, rng: np.random.Generator, clip: float) -> dict:
    """The games of further user j (``index`` is the unit; j counts the user units before it, from 1): shadow
    aggregates from the user's auxiliary pool fit the headline attack only, then ``user_games`` balanced test
    aggregates are scored by it. ``clip`` is C, the per-epoch sensitivity the likelihood ratio needs."""
    tasks = context["tasks"]
    j = sum(1 for t in tasks[:index] if t[0] == "user") + 1
    user = context["users"][j - 1]
    ctx = {**context, "pools": user.get("pools")}
    _kind, k, m = tasks[index]
    name = config["attack"]
    n = int(config["user_games"])
    if name == "lrt":
        att = LikelihoodRatioAttack(config["mechanism"], context["scale"], clip)
        if context["informed"]:
            att.fit_informed(k)
        else:
            aux = ctx["pools"]["aux"]
            att.fit_pool(aux.restrict(k).size, aux.cell_hits()[:k], config["group_size"])
    elif name == "mlp":
        att = scenario._fit_mlp(config, ctx, k, m, rng)
    else:
        Xs, ys = scenario._aggregates(config, ctx, "aux", k, m, rng)
        att = (OneThresholdAttack() if name == "one-threshold" else TwoThresholdAttack()).fit(Xs, ys)
    checkpoint("location: shadow aggregates")
    Xt, yt = scenario._aggregates(config, ctx, "target", k, n, rng)
    checkpoint("location: scoring")
    scores, pred = score(att, name, Xt, rng)
    return {"kind": "user", "user": j, "k": k, "shadows": m, "games": int(yt.size),
            **headline(config, user, name, yt, pred, scores)}


def score(att, name: str, X, rng) -> tuple[np.ndarray, np.ndarray]:
    """The attack's membership scores (higher = member) and its calls on the aggregates ``X``."""
    if name == "mlp":
        s = att.decision_function(X)
        return s, (s >= 0).astype(np.int8)
    s = att.score(X)
    if name == "lrt":
        return s, att.predict(X, rng)
    return s, (s > att.threshold_).astype(np.int8)


def headline(config: dict, user: dict, attack: str, y, pred, scores, first: bool = False) -> dict:
    """What the per-user view keeps of one user's games: right calls, accuracy, AUC with its DeLong interval,
    and the user's per-game exposure rows (``first``: the user whose games give the headline)."""
    y, pred, scores = np.asarray(y), np.asarray(pred), np.asarray(scores, dtype=float)
    auc = M.roc(y, scores)["auc"]
    lo, hi = M.auc_ci(y, scores)
    return {"attack": attack, "correct": int((pred == y).sum()), "accuracy": float((pred == y).mean()),
            "auc": auc, "auc_ci": [lo, hi], "exposure": exposure_rows(config, user, attack, y, pred, scores, first)}


def kept_rows(config: dict, first: bool) -> int:
    """How many of one user's rows its unit keeps, so that all users together hold about ``RECORDS_MAX`` rows
    (memory stays bounded however many users are attacked): each further user keeps its share
    q = ⌈RECORDS_MAX / users⌉ (all of its games if fewer), the first user q or whatever the others leave."""
    users = max(1, int(config.get("target_users", 1)))
    share = -(-RECORDS_MAX // users)
    others = (users - 1) * min(int(config.get("user_games", 0)), share)
    return max(share, RECORDS_MAX - others) if first else share


def user_lambda(user: dict) -> float | None:
    lam = user.get("mean_clean_count")
    return float(np.mean(lam)) if lam else None


def exposure_rows(config: dict, user: dict, attack: str, y, pred, scores, first: bool = False) -> dict:
    """One user's rows: one per test game, i.e. one noisy aggregate in which the user's trace was (secret 1) or
    was not (0) included; ``score`` is the headline attack's membership score. Probable: the score clears the
    threshold that at most 1% of this user's own non-member games clear. Nothing is certified: the counts carry
    unbounded noise."""
    y = np.asarray(y)
    target = user.get("target") or {}
    label = target.get("user", "target 1")
    scores = np.asarray(scores, dtype=float)
    why = (f"The counts carry {config['mechanism']} noise, which is unbounded: any membership bit is consistent "
           "with the release under some noise draw, so nothing can be certified.")
    # members come first in the game order: interleave them with non-members so a cut keeps both
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    k = min(pos.size, neg.size)
    order = np.r_[np.column_stack([pos[:k], neg[:k]]).ravel(), pos[k:], neg[k:]].astype(int)
    y, pred, scores = y[order], np.asarray(pred)[order], scores[order]
    known = {"user": [label] * y.size, "observations k": [config["observations"]] * y.size}
    if target.get("rows"):  # an uploaded file: where the attacked check-ins are in it
        known[ROWS] = [row_ranges(target["rows"])] * y.size
    lam = user_lambda(user)
    if lam is not None:
        known["user's observations"] = [target.get("observations")] * y.size
        known["mean clean count λ"] = [round(lam, 4)] * y.size
    ids = [f"game {i}" for i in order] if config.get("target_users", 1) <= 1 else \
        [f"{label} · game {i}" for i in order]
    notes = [f"Scores of the {attack} attack; the user's trace is in the aggregate in half the games."]
    if target.get("rows"):
        notes.append(f"{ROWS}: the rows of your check-in file (1 = the first data row under the header) behind "
                     "the user's attacked cells; the per-user table lists those check-ins as your file holds them.")
    table = build(ids, y.tolist(), pred.tolist(), scores, negatives=scores[y == 0],
                  negative_kind="non-member games" if config.get("target_users", 1) <= 1 else
                  "non-member games of this user", probable_ok=None, known=known,
                  certification={"available": False, "why": why}, unit="test game",
                  records_max=kept_rows(config, first), notes=notes)
    return table.to_dict()


# ------------------------------------------------------------------ the whole run
def attacked(records: list[dict]) -> list[dict]:
    """The records that carry exposure rows, first target first, then the further users in order."""
    main = [r for r in records if "exposure" in r and r.get("kind") != "user"]
    return main[:1] + sorted((r for r in records if r.get("kind") == "user"), key=lambda r: r["user"])


def homogeneity(correct, games) -> float:
    """p-value of Pearson's χ² test that every user has the same accuracy (the users × right/wrong table): a
    small p says the users differ by more than their games' sampling noise. 1 when there is nothing to test."""
    # lazy: start-up time (scipy adds 0 modules; only this path needs it)
    from scipy.stats import chi2_contingency

    c, g = np.asarray(correct, dtype=float), np.asarray(games, dtype=float)
    table = np.column_stack([c, g - c])
    if c.size < 2 or (table.sum(axis=0) == 0).any():
        return 1.0
    return float(chi2_contingency(table, correction=False).pvalue)


def user_metrics(records: list[dict]) -> dict:
    """Aggregate metrics over every attacked user's games (the mean of the exposure table's ``correct``)."""
    rows = attacked(records)
    if not rows:
        return {}
    correct = [r["headline"]["correct"] if "headline" in r else r["correct"] for r in rows]
    games = [r["games"] for r in rows]
    aucs = [r["headline"]["auc"] if "headline" in r else r["auc"] for r in rows]
    return {"users_attacked": len(rows), "users_accuracy": float(sum(correct) / sum(games)),
            "users_auc_min": float(np.nanmin(aucs)), "users_auc_max": float(np.nanmax(aucs)),
            "users_homogeneity_p": homogeneity(correct, games)}


def merged_exposure(config: dict, context: dict, records: list[dict]) -> RecordTable | None:
    """Every attacked user's rows in one table: users taken in turn (row i of every user before row i + 1 of
    any), so a cut at ``records_max`` keeps a balanced share of every user; counts, accuracy and calibration
    cover every row; ``groups`` holds the per-user summary."""
    rows = attacked(records)
    if not rows:
        return None
    users = [context_user(context, r) for r in rows]
    tables = [RecordTable.from_dict(r["exposure"]) for r in rows]
    first = tables[0]
    lengths = np.array([len(t) for t in tables])
    pos = np.concatenate([np.arange(n) for n in lengths])
    who = np.repeat(np.arange(len(tables)), lengths)
    order = np.lexsort((who, pos))[:RECORDS_MAX]
    columns = {c: [v for t in tables for v in t.columns[c]] for c in first.columns}
    columns = {c: [v[i] for i in order] for c, v in columns.items()}
    total = sum(t.total for t in tables)
    counts = {tier: sum(t.tier_counts.get(tier, 0) for t in tables) for tier in first.tier_counts}
    correct = sum(round((t.accuracy or 0.0) * t.total) for t in tables)  # each user's right calls, all rows
    cal = _calibration(tables)
    notes = [first.notes[0]] if first.notes else []
    if len(tables) > 1:
        notes.append("One row per test game of each attacked user; the users take turns in the table, so every "
                     "user is in it.")
    if len(order) < total:
        notes.append(f"Showing {len(order):,} of {total:,} {plural(first.unit)} (records_max = "
                     f"{RECORDS_MAX:,}, shared among the users); tier counts, calibration and accuracy cover all "
                     "of them.")
    return RecordTable(columns=columns, known=first.known, total=total, tier_counts=counts,
                       accuracy=correct / total if total else None, calibration=cal,
                       certification=first.certification, unit=first.unit, records_max=RECORDS_MAX,
                       notes=notes, baseline=first.baseline,
                       groups=per_user(config, users, rows, tables, references(config, context)))


def references(config: dict, context: dict) -> list[dict]:
    """The AUC no attack can beat under the release's guarantee (k observations at ε per observation), and the
    best any attack reaches against this very noise (the informed likelihood-ratio test)."""
    k, eps = config["observations"], config["epsilon"]
    delta = config["delta"] if config["mechanism"] == "gaussian" else 0.0
    return [{"value": T.dp_auc_bound(k, eps, delta), "label": "DP bound on the AUC"},
            {"value": T.optimal_informed_auc(k, config["mechanism"], context["scale"], context.get("clip", 1.0)),
             "label": "Best possible AUC (informed)"}]


def context_user(context: dict, record: dict) -> dict:
    if record.get("kind") == "user":
        return context["users"][record["user"] - 1]
    return {"target": context.get("target") or {"user": "target 1"},
            "mean_clean_count": context.get("mean_clean_count")}


def _calibration(tables: list[RecordTable]) -> dict:
    """One user: its own calibration. Several: each user's threshold at 1% of its own non-member games, and the
    share of all non-member games that cleared their user's threshold (with its upper bound on fresh ones)."""
    if len(tables) == 1:
        return tables[0].calibration
    cals = [t.calibration for t in tables]
    fpr = cals[0]["fpr"]
    neg = sum(c["negatives"] for c in cals)
    fp = sum(c["false_positives"] for c in cals)
    pooled = Calibration(fpr, 0.0, neg, fp, "non-member games")
    sentence = (f"Probable: for each user, a score above the threshold that at most {100 * fpr:g}% of the same "
                f"user's non-member games clear; {fp:,} of {neg:,} non-member games cleared their user's threshold "
                f"({100 * (pooled.rate or 0):.2g}%; ≤ {100 * (pooled.rate_high or 0):.2g}% on fresh ones at 95%).")
    return {"fpr": fpr, "threshold": None, "thresholds": [c["threshold"] for c in cals], "negatives": neg,
            "false_positives": fp, "negative_kind": "non-member games of the same user", "rate": pooled.rate,
            "rate_high": pooled.rate_high, "per_user": True, "sentence": sentence}


def per_user(config: dict, users: list[dict], rows: list[dict], tables: list[RecordTable],
             refs: list[dict] | None = None) -> dict:
    """The per-user summary: one row per attacked user (whether its games give the headline, its games, accuracy
    and AUC with intervals, the share of its member and non-member games called probable and its threshold, and
    for the auxiliary attacker its observations and λ)."""
    names = ("user", "headline", "user's observations", "mean clean count λ", "games", "accuracy", "accuracy low",
             "accuracy high", "AUC", "AUC low", "AUC high", "member games called probable",
             "non-member games called probable", "probable threshold")
    cols: dict[str, list] = {name: [] for name in names}
    for i, (user, r, t) in enumerate(zip(users, rows, tables)):
        h = r.get("headline", r)
        target = user.get("target") or {}
        members = r["games"] // 2  # balanced games: the first half are members
        nonmembers = t.total - members
        fp = t.calibration["false_positives"]
        lo, hi = M.clopper_pearson(h["correct"], r["games"])
        cols["user"].append(target.get("user"))
        cols["headline"].append(i == 0)  # the first user's games give the headline numbers
        cols["user's observations"].append(target.get("observations"))
        cols["mean clean count λ"].append(user_lambda(user))
        cols["games"].append(r["games"])
        cols["accuracy"].append(h["accuracy"])
        cols["accuracy low"].append(lo)
        cols["accuracy high"].append(hi)
        cols["AUC"].append(h["auc"])
        cols["AUC low"].append(h["auc_ci"][0])
        cols["AUC high"].append(h["auc_ci"][1])
        cols["member games called probable"].append((t.tier_counts["probable"] - fp) / max(1, members))
        cols["non-member games called probable"].append(fp / max(1, nonmembers))
        cols["probable threshold"].append(t.calibration["threshold"])
    files = [(u.get("target") or {}) for u in users]
    if any(t.get("rows") for t in files):  # an uploaded file: each user's attacked check-ins, as the file holds them
        cols[ROWS] = [row_ranges(t.get("rows", [])) for t in files]
        names_in_file = [c for t in files for c in t.get("cells", {})]
        for c in dict.fromkeys(names_in_file):
            cols[in_file(c)] = ["; ".join(str(v) for v in t.get("cells", {}).get(c, [])) for t in files]
    informed = cols["mean clean count λ"][0] is None
    if informed:
        cols.pop("mean clean count λ")
        cols.pop("user's observations")
    p = homogeneity([h.get("headline", h)["correct"] for h in rows], [r["games"] for r in rows])
    n = len(rows)
    if n < 2:
        verdict = "Only one user was attacked: raise the number of attacked users to compare them."
    elif p < 0.01:
        verdict = (f"The {n} users' accuracies differ by more than their games' sampling noise explains "
                   f"(χ² test, p = {p:.2g}): some users are more exposed than others.")
    else:
        verdict = (f"The {n} users' accuracies are consistent with one common accuracy (χ² test, p = {p:.2g}): "
                   "they differ only by the noise of their games.")
    return {"unit": "user", "columns": cols, "x": "user" if informed else "mean clean count λ", "y": "AUC",
            "y_low": "AUC low", "y_high": "AUC high", "homogeneity_p": p, "sentences": [verdict],
            "references": refs or [],
            "content": ["location", "users-informed" if informed else "users-auxiliary"],
            "title": "Per user: AUC of the attack on each attacked user"}
