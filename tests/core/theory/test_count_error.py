"""The accuracy cost of noisy counts: closed forms against simulation, and the aggregates run's own cells."""
import math

import numpy as np
import pytest

from core.errors import ParameterError
from core.theory import count_error as ce


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 4.0])
def test_rounded_laplace_closed_form_matches_simulation(eps):
    rng = np.random.default_rng(0)
    k = np.round(rng.laplace(0, 1 / eps, 400_000))
    assert ce.expected_abs_error("laplace-rounded", eps) == pytest.approx(np.abs(k).mean(), rel=0.02)
    for t in (0, 1, 3):
        assert ce.prob_off_by_more("laplace-rounded", eps, t) == pytest.approx(np.mean(np.abs(k) > t), abs=0.004)


def test_known_answers():
    assert ce.expected_abs_error("laplace", 2.0) == pytest.approx(0.5)
    assert ce.prob_off_by_more("laplace", 1.0, 2.0) == pytest.approx(math.exp(-2))
    assert ce.expected_abs_error("gaussian", 1.0) == pytest.approx(math.sqrt(2 / math.pi))
    assert ce.prob_off_by_more("gaussian", 1.0, 1.96) == pytest.approx(0.05, abs=1e-3)
    # rounded Laplace: ≈ 1/ε for small ε, and exactly 1/(2 sinh(ε/2))
    assert ce.expected_abs_error("laplace-rounded", 0.01) == pytest.approx(100, rel=1e-4)
    assert ce.expected_relative_error("laplace", 1.0, [0, 1, 4]) == pytest.approx((1 + 0.25) / 2)
    assert ce.expected_relative_error("laplace", 1.0, [0, 0]) is None


def test_measured_errors_and_bad_input():
    m = ce.measured_errors([0, 2, 10], [1, 2, 13], tolerance=1)
    assert m == {"abs_error": pytest.approx(4 / 3), "relative_error": pytest.approx(0.15),
                 "share_off": pytest.approx(1 / 3), "cells": 3}
    with pytest.raises(ParameterError):
        ce.expected_abs_error("laplace", 0.0)
    with pytest.raises(ParameterError):
        ce.prob_off_by_more("uniform", 1.0, 1)
    with pytest.raises(ParameterError):
        ce.measured_errors([1, 2], [1])


def test_aggregates_run_reports_what_its_cells_lose():
    from core.runtime.games import run

    base = {"blocks": 1, "block_size": 100, "shadows": 200, "targets": 20, "query_ratio": 0.5}
    exact = run("aggregates", {**base, "epsilon": 0.0}, 0).metrics
    assert exact["count_error_measured"] == 0 and exact["cells_wrong_measured"] == 0
    noisy = run("aggregates", {**base, "epsilon": 0.5}, 0)
    m = noisy.metrics
    assert m["count_error_expected"] == pytest.approx(1 / (2 * math.sinh(0.25)))
    # 50 cells: the measured mean sits within a few standard errors of the closed form
    assert m["count_error_measured"] == pytest.approx(m["count_error_expected"], rel=0.5)
    assert m["utility_error"] == m["count_error_measured"]
    assert m["cells_per_person"] >= 1 and m["claimed_epsilon"] == pytest.approx(0.5 * m["cells_per_person"])
    cells = noisy.series["cells"]
    assert len(cells["true"]) == len(cells["published"]) == m["cells_released"] == 50
