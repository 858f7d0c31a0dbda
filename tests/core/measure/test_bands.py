"""95% bands: the AUC interval in core.measure.metrics and the bands drawn on the location sweep plots."""
import pytest

from core.measure.metrics import auc_ci_from_counts
from core.plots import location as plots


def test_auc_ci_hanley_mcneil_known_value():
    lo, hi = auc_ci_from_counts(0.75, 100, 100)  # SE = 0.03443 (Hanley & McNeil eq. 2)
    assert lo == pytest.approx(0.75 - 1.959964 * 0.034432, abs=2e-5)
    assert hi == pytest.approx(0.75 + 1.959964 * 0.034432, abs=2e-5)
    narrow = auc_ci_from_counts(0.75, 10_000, 10_000)
    assert narrow[1] - narrow[0] < (hi - lo) / 5  # shrinks like 1/√n
    assert auc_ci_from_counts(1.0, 50, 50) == (1.0, 1.0)
    assert auc_ci_from_counts(0.5, 0, 10) != auc_ci_from_counts(0.5, 0, 10)  # nan without both classes


def _series():
    curve = {"x": [1, 5, 10], "accuracy": [0.6, 0.7, 0.8], "auc": [0.65, 0.75, 0.85],
             "ci_low": [0.55, 0.66, 0.77], "ci_high": [0.65, 0.74, 0.83],
             "auc_ci_low": [0.6, 0.71, 0.82], "auc_ci_high": [0.7, 0.79, 0.88]}
    return {"observations": {"two-threshold": curve}, "shadows": {"two-threshold": curve},
            "info": {"attacker": "informed", "mechanism": "laplace", "k": 10}}


THEORY = {"k": [1, 5, 10], "dp_bound": [0.62] * 3, "optimal": [0.6] * 3, "one_threshold": [0.6] * 3,
          "two_threshold": [0.6] * 3, "dp_bound_auc": [0.7] * 3, "optimal_auc": [0.7] * 3}


@pytest.mark.parametrize("metric,lo,hi", [("accuracy", "ci_low", "ci_high"), ("auc", "auc_ci_low", "auc_ci_high")])
def test_location_sweeps_draw_their_band(metric, lo, hi):
    s = _series()
    for fig in (plots.accuracy_vs_observations(THEORY, s, metric=metric), plots.accuracy_vs_shadows(s, metric)):
        bands = [t for t in fig.data if t.fill == "toself"]
        assert len(bands) == 1
        c = s["observations"]["two-threshold"]
        assert list(bands[0].y) == c[hi] + c[lo][::-1]
