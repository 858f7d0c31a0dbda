"""A lesson step's plot: one of the labs' own figures, named in the lesson file (``plot = "accuracy_vs_level"``).

``PLOTS[runner][name](result)`` builds it from a finished run (a :class:`~core.runtime.games.Result` or its dict),
so the page, the handout and the ``--check`` draw the same picture. Closed-form curves a figure needs beside the
run (the reconstruction and location theory) are computed here from the run's own configuration.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from ...scenario import get


def _parts(result: Any) -> tuple[dict, dict, dict]:
    if isinstance(result, dict):
        return result["config"], result["metrics"], result["series"]
    return result.config, result.metrics, result.series


def _recon_level(result):
    # lazy: start-up time (plotly only when used)
    from ...plots import reconstruction as plots
    # lazy: start-up time (scipy, sklearn only when used)
    from ...scenarios.reconstruction import theory_curves

    config, m, s = _parts(result)
    params = {k: v for k, v in config.items() if k != "seed"}
    theory = theory_curves(params)
    swept = s.get("sweep_defense")
    chosen = (get("reconstruction").level(params) if swept == config.get("defense") else
              0.0 if config.get("defense") == "none" and swept == "gaussian" else None)
    return plots.accuracy_vs_level(s, m, chosen=chosen, theory=theory)


def _recon_ratio(result):
    # lazy: start-up time (plotly only when used)
    from ...plots import reconstruction as plots
    # lazy: start-up time (scipy, sklearn only when used)
    from ...scenarios.reconstruction import theory_curves

    config, m, s = _parts(result)
    theory = theory_curves({k: v for k, v in config.items() if k != "seed"})
    return plots.accuracy_vs_ratio(s, m, chosen=config["query_ratio"], theory=theory)


def _recon_trials(result):
    # lazy: start-up time (plotly only when used)
    from ...plots import reconstruction as plots

    return plots.trials_histogram(_parts(result)[2])


def _location_k(result):
    # lazy: start-up time (plotly only when used)
    from ...plots import location as plots
    # lazy: start-up time (scipy, sklearn only when used)
    from ...scenarios.location import theory_curves

    config, _, s = _parts(result)
    return plots.accuracy_vs_observations(theory_curves(config), s)


def _without(fig: go.Figure, *words: str) -> go.Figure:
    """``fig`` without the curves whose name holds one of ``words``: a step's chart must not draw a curve a later
    step asks the student to predict (the DP bound, another attack's theory)."""
    fig.data = [t for t in fig.data if not any(w.lower() in (t.name or "").lower() for w in words)]
    return fig


def _location_k_measured(result):
    """The attacks measured against k, without the DP bound and the one-threshold attack (a later step of lesson
    4 asks for each)."""
    return _without(_location_k(result), "DP bound", "theory", "one-threshold")


def _location_k_bound(result):
    """As above, with the DP bound (the step that asks for it has been committed)."""
    return _without(_location_k(result), "theory", "one-threshold")


def _location_roc(result):
    # lazy: start-up time (plotly only when used)
    from ...plots import location as plots

    return plots.roc_curves(_parts(result)[2])


def _aggregates_roc(result):
    # lazy: start-up time (plotly only when used)
    from ...plots import aggregates as plots

    return plots.roc_all(_parts(result)[2])


def _aggregates_sweep(result):
    # lazy: start-up time (plotly only when used)
    from ...plots import aggregates as plots

    return plots.sweep_figure(_parts(result)[2]) or plots.roc_all(_parts(result)[2])


def _synthetic_size(result):
    # lazy: start-up time (scipy, sklearn, plotly only when used)
    from ...plots import synthetic as plots

    s = _parts(result)[2]
    return plots.accuracy_vs_size(plots.size_lines(s), bound=plots.dp_bound(_parts(result)[1]))


def _synthetic_roc(result):
    # lazy: start-up time (scipy, sklearn, plotly only when used)
    from ...plots import synthetic as plots

    return plots.roc(_parts(result)[2])


def _ml_groups(result):
    # lazy: start-up time (scipy, sklearn, plotly only when used)
    from ...plots import ml_models as plots

    return plots.group_bars(_parts(result)[2])


def _ml_kappa(result):
    # lazy: start-up time (scipy, sklearn, plotly only when used)
    from ...plots import ml_models as plots

    return plots.kappa_curve(_parts(result)[2])


def _ml_bcorr(result):
    # lazy: start-up time (scipy, sklearn, plotly only when used)
    from ...plots import ml_models as plots

    return plots.bcorr_bars(_parts(result)[2])


def _eps_bound(result):
    # lazy: start-up time (plotly only when used)
    from ...plots.epsilon import accuracy_bound_figure

    fig = accuracy_bound_figure(_parts(result)[2]["explain"])
    return fig


def _eps_posterior(result):
    # lazy: start-up time (plotly only when used)
    from ...plots.epsilon import posterior_figure

    _, m, s = _parts(result)
    fig = posterior_figure(s["explain"])
    fig.add_trace(go.Scatter(x=[m["prior"]], y=[m["max_posterior"]], mode="markers", name="this step",
                             marker=dict(size=12, color="black")))
    return fig


def _linkage(result):
    # lazy: start-up time (plotly only when used)
    from ...plots.reid import linkage_funnel

    return linkage_funnel(_parts(result)[2]["linkage"])


def _linkage_unique(result):
    """The funnel's first two stages only (released → unique): a step about uniqueness must not print the share
    the join names, which the next step asks the student to predict."""
    fig = _linkage(result)
    trace = fig.data[0]
    trace.update(y=trace.y[:2], x=trace.x[:2], marker_color=list(trace.marker.color)[:2])
    fig.update_layout(title=dict(text="Released records unique on the quasi-identifiers"))
    return fig


def _kanon_classes(result):
    # lazy: start-up time (plotly only when used)
    from ...plots.reid import class_sizes_vs_k

    s = _parts(result)[2]
    return class_sizes_vs_k(pd.DataFrame(s["classes"]), s["k"], s["qis"])


def _kanon_diversity(result):
    # lazy: start-up time (plotly only when used)
    from ...plots.reid import distinct_sensitive

    s = _parts(result)[2]
    fig = distinct_sensitive(pd.DataFrame(s["classes"]), s["qis"])
    fig.update_layout(title=dict(text=f"Distinct {s['sensitive']} values per class (orange: one value — "
                                      "disclosed to anyone who finds the person's class)"))
    return fig


def _downcoding(result):
    # lazy: start-up time (plotly only when used)
    from ...plots.reid_more import downcoding_cells

    s = _parts(result)[2]
    frame = lambda d: pd.DataFrame(d["data"], index=d["index"], columns=d["columns"])
    return downcoding_cells(frame(s["status"]), frame(s["y"]), frame(s["z"]))


PLOTS: dict[str, dict[str, Callable[[Any], go.Figure]]] = {
    "reconstruction": {"accuracy_vs_level": _recon_level, "accuracy_vs_ratio": _recon_ratio,
                       "trials": _recon_trials},
    "location": {"accuracy_vs_observations": _location_k, "roc": _location_roc,
                 "measured_vs_observations": _location_k_measured, "bound_vs_observations": _location_k_bound},
    "aggregates": {"roc": _aggregates_roc, "sweep": _aggregates_sweep},
    "synthetic": {"accuracy_vs_size": _synthetic_size, "roc": _synthetic_roc},
    "ml-models": {"groups": _ml_groups, "kappa": _ml_kappa, "bcorr": _ml_bcorr},
    "epsilon": {"accuracy_bound": _eps_bound, "posterior": _eps_posterior},
    "linkage": {"funnel": _linkage, "unique": _linkage_unique},
    "k-anonymity": {"classes": _kanon_classes, "diversity": _kanon_diversity},
    "downcoding": {"cells": _downcoding},
}


def step_figure(step, result) -> go.Figure:
    """The figure the lesson file names for ``step``, built from its finished run."""
    return PLOTS[step.runner][step.plot](result)


