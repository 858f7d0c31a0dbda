"""Who is exposed in the reconstruction game: per-person rows of the main trials, their generate-then-verify
certificates (:mod:`.generate_then_verify`) and the table (:mod:`core.measure.records`), for
:mod:`core.scenarios.reconstruction`, which plays the games. ``level`` is always the defence level in absolute
units (``Reconstruction.level(c)``). It lives beside the attack whose certificates it runs, above the scoring
layer (core/measure/) whose table it fills."""
from __future__ import annotations

import numpy as np

from ...data.healthcare import PUBLIC
from ...measure.records import RECORDS_MAX, build
from .generate_then_verify import IP_MAX_N, LP_MAX_N, certify_bits


def certification_bound(defense: str, level: float) -> tuple[float | None, str]:
    """The stated bound on each answer's error that certification can use, or None with the one-line reason."""
    if defense == "none" or (defense in ("gaussian", "rounding") and level == 0):
        return 0.0, "exact answers"
    if defense == "rounding":
        return level / 2.0, f"answers rounded to a multiple of {level:g} (error at most {level / 2:g})"
    if defense == "gaussian":
        return None, ("Gaussian noise is unbounded: every dataset is consistent with the answers under some noise "
                      "draw, so no bit can be certified.")
    return None, ("Subsampled answers come with no stated bound on each answer's error, so no bit can be "
                  "certified.")


def _person_rows(people, secret, guess, x_hat, queries, answers, defense, level, certify: bool = True) -> dict:
    """One row per person of a main trial: public attributes, truth, guess, confidence and the certificate."""
    n = secret.size
    public = people[list(PUBLIC)]
    k = public.groupby(list(PUBLIC))[PUBLIC[0]].transform("size").to_numpy()
    score = np.abs(np.clip(np.asarray(x_hat, dtype=float), 0.0, 1.0) - 0.5) * 2.0
    bound, _ = certification_bound(defense, level)
    certified, status, solves = np.zeros(n, dtype=bool), "none", 0
    if bound is not None and not certify:
        status = "not checked"
    elif bound is not None:
        cert = certify_bits(queries, answers, bound, guess=guess, max_solves=certify_budget(n))
        certified = cert.certified & (cert.value == guess)
        status, solves = cert.status, cert.solves
    return {"people": {"public": {c: public[c].tolist() for c in PUBLIC}, "k": k.tolist(),
                       "secret": secret.tolist(), "guess": guess.tolist(), "score": score.tolist(),
                       "certified": certified.tolist()},
            "cert_status": status, "cert_solves": solves}


# Certificates cost LP/IP solves (0.01–0.05 s each, measured with benchmarks/bench_records.py): at most
# certify_budget(n) per trial, for the first CERTIFY_TRIALS trials of a run; later trials' people get no certificate.
CERTIFY_TRIALS = 20
CERTIFY_MAX_SOLVES = 101


def certify_budget(n: int) -> int:
    """LP/IP solves one trial's certificate may spend: one per person and one to find a consistent point, at most
    ``CERTIFY_MAX_SOLVES``."""
    return min(n + 1, CERTIFY_MAX_SOLVES)


def certify_seconds(c: dict, level: float) -> float:
    """Estimated CPU seconds of a run's certificates: trials certified × budget × seconds per solve (integer
    programs up to n = 60, ≈ 0.02 s; LP relaxations up to n = 300, ≈ 0.004 + 1e-4·n s; nothing above, nor when
    the answers carry unbounded noise; exact answers with m ≥ n are settled by one rank computation). Measured
    2026-11-25 on the lab machine: n = 40, rounding R = 4, m = 40, 10 trials: 210 solves, 3.0 s for the whole run
    (estimate 8.2 s); n = 100, exact, m = 50: 500 solves, 3.6 s (estimate 14 s). The budget caps the solves, so
    the estimate is an upper bound of their number, not of a solver's worst case."""
    n = c["n"]
    m = max(1, round(c["query_ratio"] * n))
    bound, _ = certification_bound(c["defense"], level)
    if bound is None or n > LP_MAX_N:
        return 0.0
    if bound == 0 and m >= n:
        return 0.001 * min(c["trials"], CERTIFY_TRIALS)
    trials = min(c["trials"], CERTIFY_TRIALS, max(1, RECORDS_MAX // n))
    return trials * certify_budget(n) * (0.02 if n <= IP_MAX_N else 0.004 + 1e-4 * n)


def exposure_table(c: dict, records: list[dict], level: float):
    """Who is exposed in a reconstruction run: one row per person of the main trials that kept per-person rows.

    The attacker knows each person's public attributes (age, sex, blood type, admission) and the released answers;
    ``score`` is the decoder's confidence ``|2x̂_i − 1|``; ``k`` counts the people of the trial who share all four
    public attributes. A bit is *certified* when every 0/1 vector consistent with the answers and their stated error
    bound gives it the attack's value (:mod:`core.attacks.reconstruction.generate_then_verify`); *probable* when its
    confidence clears the threshold that at most 1% of the run's wrong guesses clear."""
    main = sorted((r for r in records if r["kind"] == "main"), key=lambda r: r.get("trial", 0))
    kept = [r for r in main if "people" in r]
    n = c["n"]
    bound, why = certification_bound(c["defense"], level)
    ids, secret, guess, score, cert, k = [], [], [], [], [], []
    known: dict[str, list] = {col: [] for col in PUBLIC}
    for t, r in enumerate(kept):
        p = r["people"]
        ids += [f"T{t + 1}-{i}" for i in range(n)]
        secret += p["secret"]
        guess += p["guess"]
        score += p["score"]
        cert += p["certified"]
        k += p["k"]
        for col in PUBLIC:
            known[col] += p["public"][col]
    solves = sum(r.get("cert_solves", 0) for r in kept)
    statuses = sorted({r.get("cert_status", "none") for r in kept})
    m = kept[0]["m"] if kept else 0
    if bound is None:
        certification = {"available": False, "why": why, "solves": 0}
        reason = ""
    else:
        open_note = ""
        if "too large" in statuses:
            open_note = (f" Above n = {IP_MAX_N} only the LP relaxation is checked (and above n = {LP_MAX_N} only a "
                         "full-rank exact release), so some settled bits may go uncertified.")
        elif "budget" in statuses:
            open_note = " Some bits were left open when a trial's solve budget ran out; they are not certified."
        if "not checked" in statuses:
            open_note += (f" Certificates are computed for the first {CERTIFY_TRIALS} trials only; later trials' "
                          "people are tiered by score alone.")
        certification = {"available": True, "solves": solves, "budget": certify_budget(n) * len(kept),
                         "why": f"Certified bits hold in every 0/1 dataset consistent with the {m} {why}; "
                                f"{solves:,} LP/IP solves (budget {certify_budget(n):,} per trial).{open_note}"}
        reason = (f"Every 0/1 dataset consistent with the {m} {why} gives this person the same bit, so the guess "
                  "is proven, not estimated.")
    notes = []
    if len(kept) < len(main):
        notes.append(f"Per-person rows kept for the first {len(kept)} of {len(main)} trials (records_max = "
                     f"{RECORDS_MAX:,} rows).")
    return build(ids, secret, guess, score, certified=cert, certified_reason=reason, known=known, k=k,
                 certification=certification, unit="person", notes=notes, negative_kind="wrong guesses")
