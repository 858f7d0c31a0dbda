"""Audit a synthetic release you already have, from a notebook: two DataFrames in, the lab's result out.

    >>> import core
    >>> result = core.audit_release(original, synthetic, secret="votetrump", known=["age", "state", "race"])
    >>> result.metrics["accuracy"], result.metrics["accuracy_ci_low"], result.metrics["accuracy_ci_high"]

It plays the synthetic-data lab's games with ``generator=file`` (:mod:`core.scenarios.synthetic.release_file`):
the attacker knows every original record's ``known`` columns and the release, and guesses a target's ``secret``
with Adv_recon (linear reconstruction from the release's 3-way marginals), Adv_dcr (closest synthetic record) and
Adv_infer (a random forest trained on the release), each game a different original record unique on its known
columns. The result is the same :class:`core.runtime.games.Result` the command line and the pages get (metrics,
series, per-game records, the exposure table through the scenario).
"""
from __future__ import annotations

import os
import tempfile

import pandas as pd

from ...errors import ParameterError, ReleaseMismatch
from ...runtime.games import run

ATTACKS = ("recon", "dcr", "infer", "all")


def audit_release(original, synthetic, secret: str, known: list[str] | None = None, *, attack: str = "all",
                  games: int = 100, seed: int = 0, query_k: str = "3", n_jobs: int = 1):
    """Attack ``synthetic`` (a release made from ``original``) for the ``secret`` of ``original``'s records.

    * ``original``, ``synthetic``: pandas DataFrames; ``synthetic`` must hold every column used (``known`` and
      the secret's column), with values the original takes (numeric columns with many values are cut at the
      original's quantile edges, as the lab reads any CSV);
    * ``secret``: a two-valued column, or ``"column=value"`` to ask "is this person's column equal to value?";
    * ``known``: the columns the attacker knows about everyone (default: every other column of ``original``);
    * ``attack``: ``recon``, ``dcr``, ``infer`` or ``all`` (every attack on the same games; the headline is the
      strongest); ``games``: targets attacked, each a different record unique on ``known``; ``seed``: fixes the
      targets, the order of the release's rows and the attacks' randomness.

    Raises :class:`~core.errors.ParameterError` for a bad argument and :class:`~core.errors.ReleaseMismatch`
    when the two tables do not fit together (one-line messages). The run's recorded ``data_path`` and
    ``release_path`` name temporary copies deleted on return.
    """
    for name, frame in (("original", original), ("synthetic", synthetic)):
        if not isinstance(frame, pd.DataFrame):
            raise ParameterError(name, f"expected a pandas DataFrame, got {type(frame).__name__}")
        if frame.empty:
            raise ParameterError(name, "the table has no rows")
    if not isinstance(secret, str) or not secret:
        raise ParameterError("secret", "name the secret column (or column=value)")
    base = secret if secret in original.columns else secret.split("=", 1)[0].strip()
    if base not in original.columns:
        raise ParameterError("secret", f"no column {base!r} in the original")
    known = [c for c in original.columns if c != base] if known is None else list(known)
    unknown = [str(c) for c in known if c not in original.columns]
    if unknown:
        raise ParameterError("known", f"no column(s) {', '.join(unknown)} in the original")
    if base in known:
        raise ParameterError("known", f"the secret's column {base!r} cannot also be known to the attacker")
    if len(set(known)) != len(known):
        raise ParameterError("known", "a column is named twice")
    if attack not in ATTACKS:
        raise ParameterError("attack", f"expected one of {'|'.join(ATTACKS)}, got {attack!r}")
    cols = known + [base]
    missing = [str(c) for c in cols if c not in synthetic.columns]
    if missing:
        raise ReleaseMismatch(f"the synthetic release lacks column(s) {', '.join(missing)} of the original")
    with tempfile.TemporaryDirectory(prefix="lab-audit-") as tmp:
        data_path, release_path = os.path.join(tmp, "original.csv"), os.path.join(tmp, "synthetic.csv")
        original[cols].to_csv(data_path, index=False)
        synthetic[cols].to_csv(release_path, index=False)
        return run("synthetic", {"dataset": "csv", "data_path": data_path, "generator": "file",
                                 "release_path": release_path, "secret": secret, "attack": attack,
                                 "games": int(games), "query_k": query_k, "query_sweep": False},
                   seed=seed, n_jobs=n_jobs)
