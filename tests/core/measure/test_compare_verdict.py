"""Compare's verdict names only the differences its intervals support, and labels say what differs."""
from core.measure.compare import difference_labels, ranking_verdict as verdict


def _run(acc, lo, hi, generator="baynet", seed=0):
    return {"scenario": "synthetic", "config": {"generator": generator, "games": 10, "seed": seed},
            "metrics": {"accuracy": acc, "accuracy_ci_low": lo, "accuracy_ci_high": hi}}


def test_overlapping_intervals_are_not_ranked():
    runs = [_run(0.60, 0.30, 0.85, "baynet"), _run(0.70, 0.40, 0.90, "nonprivate")]
    text = verdict(runs, ["A", "B"])
    assert "too wide to say which leaks least" in text and "leaks least:" not in text
    assert "Clear differences" not in text


def test_separated_intervals_name_the_least_leaky_run():
    runs = [_run(0.52, 0.48, 0.56), _run(0.90, 0.86, 0.93, "nonprivate")]
    assert verdict(runs, ["A", "B"]).startswith("**A** leaks least")


def test_only_supported_pairs_are_named():
    runs = [_run(0.52, 0.48, 0.56), _run(0.60, 0.50, 0.95, "privbayes"), _run(0.90, 0.86, 0.93, "nonprivate")]
    text = verdict(runs, ["A", "B", "C"])
    assert "too wide" in text and "**A** leaks less than **C**" in text and "**B**" not in text


def test_labels_name_the_parameter_that_differs():
    labels = difference_labels([_run(0.5, 0.4, 0.6, "baynet"), _run(0.5, 0.4, 0.6, "nonprivate")])
    assert labels == ["#1 synthetic (generator=baynet)", "#2 synthetic (generator=nonprivate)"]
