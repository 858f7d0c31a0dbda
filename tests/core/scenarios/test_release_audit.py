"""Attack a release you already have: ``generator=file`` on the command line and ``core.audit_release`` from a
notebook. Known answers: an exact copy of the original gives every target away to the closest-record attack, a copy
with every secret flipped makes it wrong every time; the two entry points give the same numbers for the same seed
(nothing is fitted, so nothing is random but the seeded targets and attacks); mismatched tables are refused with
one-line typed errors.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import core
from core.data.dataset import load_csv, read_table
from core.errors import ParameterError, ReleaseMismatch
from core.runtime.games import run
from core.scenarios.synthetic.release_file import encode_like


def people(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """A table of people: income has > 200 distinct values (the lab cuts it into quantile ranges)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(18, 90, n), "state": rng.choice(list("ABCDEFGHIJ"), n),
                       "race": rng.choice(["white", "black", "hispanic", "asian"], n),
                       "income": np.round(rng.lognormal(10, 1, n), 2)})
    df["vote"] = np.where(rng.random(n) < 0.8, (df["age"] > 50).astype(int), rng.integers(0, 2, n))
    return df


@pytest.fixture(scope="module")
def table():
    return people()


def test_exact_copy_gives_every_target_away(table):
    result = core.audit_release(table, table.copy(), "vote", known=["age", "state", "race"], attack="dcr",
                                games=30, seed=0)
    assert result.metrics["accuracy"] == 1.0 and result.metrics["games_done"] == 30
    main = [r for r in result.records if r["kind"] == "main"]
    # by hand: each target is a row of the original (unique on its known columns), its truth the real secret
    for r in main:
        assert r["truth"] == table["vote"].iloc[r["row"]] == r["sizes"][-1]["dcr_guess"]
        assert r["truth"] == r["original"]  # the secret is not re-drawn: the release is fixed
    assert len({r["row"] for r in main}) == 30  # thirty different people
    assert result.series["generator"]["name"] == "file" and result.metrics["claimed_epsilon"] is None


def test_a_release_with_every_secret_flipped_fools_the_closest_record(table):
    flipped = table.assign(vote=1 - table["vote"])
    result = core.audit_release(table, flipped, "vote", known=["age", "state", "race"], attack="dcr", games=20)
    assert result.metrics["accuracy"] == 0.0  # the attack reads the release, never the original


def test_all_attacks_on_a_copy_and_the_command_line_agree(table, tmp_path):
    via_function = core.audit_release(table, table, "vote", attack="all", games=8, seed=3)
    assert via_function.metrics["accuracy_recon"] >= 0.9 and via_function.metrics["accuracy_dcr"] == 1.0
    original, release = tmp_path / "original.csv", tmp_path / "release.csv"
    table.to_csv(original, index=False)
    table.sample(frac=1, random_state=1).to_csv(release, index=False)  # row order does not matter
    via_cli = run("synthetic", {"dataset": "csv", "data_path": str(original), "generator": "file",
                                "release_path": str(release), "secret": "vote", "attack": "all", "games": 8,
                                "query_sweep": False}, seed=3)
    assert via_cli.metrics["accuracy_dcr"] == via_function.metrics["accuracy_dcr"] == 1.0
    assert [r["row"] for r in via_cli.records] == [r["row"] for r in via_function.records]
    assert via_cli.series["sizes"] == [10, 100, len(table)]  # every size up to all the release's rows


def test_release_is_coded_with_the_originals_ranges(table, tmp_path):
    path = tmp_path / "o.csv"
    table.to_csv(path, index=False)
    data = load_csv(str(path), missing="category")
    raw = read_table(str(path))
    same = encode_like(raw, raw, data)
    assert np.array_equal(same.codes(), data.codes())  # the original coded like itself
    # an income beyond the original's range falls in its top range, not in a new one
    shifted = raw.assign(income=raw["income"] * 10)
    top = data.domain["income"][-1]
    assert (encode_like(shifted, raw, data).frame["income"] == top).mean() > 0.8


def test_mismatched_tables_are_refused_with_one_line(table, tmp_path):
    cases = [(lambda: core.audit_release(table, table.drop(columns=["race"]), "vote"), ReleaseMismatch),
             (lambda: core.audit_release(table, table.assign(state="Z"), "vote"), ReleaseMismatch),
             (lambda: core.audit_release(table, table.assign(state=None), "vote"), ReleaseMismatch),
             (lambda: core.audit_release(table, table, "party"), ParameterError),
             (lambda: core.audit_release(table, table, "vote", known=["vote", "age"]), ParameterError),
             (lambda: core.audit_release(table, table, "vote", known=["height"]), ParameterError),
             (lambda: core.audit_release(table.values, table, "vote"), ParameterError),
             (lambda: core.audit_release(table, table.iloc[:0], "vote"), ParameterError)]
    for call, kind in cases:
        with pytest.raises(kind) as info:
            call()
        assert "\n" not in str(info.value)
    original, release = tmp_path / "o.csv", tmp_path / "r.csv"
    table.to_csv(original, index=False)
    table.assign(extra=1).to_csv(release, index=False)
    base = {"dataset": "csv", "data_path": str(original), "generator": "file", "secret": "vote", "games": 2}
    with pytest.raises(ReleaseMismatch, match="extra"):
        run("synthetic", {**base, "release_path": str(release)})
    with pytest.raises(ParameterError, match="release_path"):
        run("synthetic", base)
    with pytest.raises(ParameterError, match="epsilon"):
        run("synthetic", {**base, "release_path": str(original), "epsilon": 1.0})
    with pytest.raises(ParameterError, match="dataset"):
        run("synthetic", {**base, "dataset": "cces16", "release_path": str(original)})
