"""Figures of the synthetic-data lab (scenario ``synthetic``; Annamalai et al., USENIX Security 2024, Figs 1, 3,
5, 10/11, 15).

Every accuracy axis carries the 50% "random guess" line; every curve its 95% Clopper–Pearson band. The
privacy–utility scatter is the headline: x = utility error (MRE>10 or 3-TVD, lower is better), y = attack
accuracy (lower is safer), one point per generator × ε × synthetic size, the Pareto front of (error,
accuracy) drawn, and the paper's "good utility" (error < 0.2) and "high risk" (accuracy > 60%) regions shaded.
"""
from __future__ import annotations

import math

import plotly.graph_objects as go

from ..attacks.declaration import labels as attack_labels
from ..measure.compare import pareto_points
from ..measure.metrics import clopper_pearson
from .common import PALETTE, band, base_layout, roc_figure
from .deployments import add_deployment_ticks

SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star")
METRIC_LABELS = {"mre_gt10": "MRE>10 (mean relative error of 3-way counts > 10; lower = more useful)",
                 "tvd3": "3-TVD (total variation of 3-way marginals; lower = more useful)"}
BEST_LABEL = "Acc_max (best attack)"  # the best of the attacks played, per game (not an attack of its own)


def attack_label(attack: str) -> str:
    """An attack's legend label, from its declaration (core/attacks/synthetic/__init__.py); "max" is Acc_max."""
    return BEST_LABEL if attack == "max" else attack_labels("synthetic").get(attack, attack)


def _chance(fig: go.Figure) -> None:
    fig.add_hline(y=0.5, line=dict(color="grey", dash="dash"), annotation_text="random guess 50%",
                  annotation_position="bottom right")


def _size_label(m) -> str:
    m = int(m)
    k = round(math.log10(m)) if m > 0 else 0
    return f"10^{k}" if 10 ** k == m else f"{m:,}"


def roc(series: dict) -> go.Figure:
    """ROC of every attack at the chosen synthetic size (score: t_u for Adv_recon)."""
    gen = series.get("generator", {}).get("title", "")
    curves = {f"{attack_label(a)} · {gen}": (r["fpr"], r["tpr"], r["auc"])
              for a, r in series.get("roc", {}).items()}
    m = series["sizes"][-1] if series.get("sizes") else None
    return roc_figure(curves, title=f"ROC at m = {m:,} synthetic records" if m else "ROC")


def roc_per_generator(rows: list[dict], attack: str, m: int) -> go.Figure:
    """One ROC per compared release (generator, ε) for ``attack``, from sweep rows that keep their ROC."""
    curves = {}
    for row in rows:
        r = row.get("series", {}).get("roc", {}).get(attack)
        if r:
            curves[point_name(row)] = (r["fpr"], r["tpr"], r["auc"])
    label = attack_label(attack)
    return roc_figure(curves, title=f"ROC per generator · {label} at m = {m:,} synthetic records")


def _dp_cap(fig: go.Figure, bound: dict, xs) -> None:
    """The most any attack can reach on a DP generator's release, ``bound = {"accuracy", "epsilon", "delta"}``,
    with the region above it shaded (out of reach for every attack, at every size)."""
    acc = bound["accuracy"]
    x = [min(xs), max(xs)]
    fig.add_trace(go.Scatter(x=x + x[::-1], y=[acc, acc, 1.02, 1.02], fill="toself", mode="lines",
                             line=dict(width=0), fillcolor="rgba(68,68,68,0.10)", hoverinfo="skip",
                             name="out of reach for any attack (DP)", legendgroup="dp"))
    eps = f"ε = {bound['epsilon']:g}" + (f", δ = {bound['delta']:.0e}" if bound.get("delta") else "")
    fig.add_trace(go.Scatter(x=x, y=[acc, acc], mode="lines", name=f"DP bound ({eps}): at most {acc:.1%}",
                             line=dict(color="#444444", dash="dash", width=1.5), legendgroup="dp",
                             hovertemplate=f"no attack above {acc:.1%}<extra>DP bound</extra>"))


def accuracy_vs_size(lines: list[dict], title: str = "Attack accuracy vs synthetic data size",
                     bound: dict | None = None, sizes: list[int] | None = None) -> go.Figure:
    """``lines``: ``[{"name", "m": [...], "accuracy": [...], "low": [...], "high": [...]}]`` (log x); ``bound``
    (a DP generator's cap, see :func:`_dp_cap`) is drawn over ``sizes`` (default: the lines' sizes)."""
    fig = go.Figure()
    xs = sizes or sorted({m for line in lines for m in line["m"]})
    if bound is not None and xs:
        _dp_cap(fig, bound, xs)
    for i, line in enumerate(lines):
        color = PALETTE[i % len(PALETTE)]
        if line.get("low") is not None:
            band(fig, line["m"], line["low"], line["high"], color, line["name"])
        fig.add_trace(go.Scatter(x=line["m"], y=line["accuracy"], mode="lines+markers", name=line["name"],
                                 line=dict(color=color),
                                 hovertemplate="m = %{x:,}<br>accuracy %{y:.1%}<extra>" + line["name"] + "</extra>"))
    _chance(fig)
    base_layout(fig, title, "synthetic records m (log scale)", "accuracy")
    fig.update_xaxes(type="log")
    if xs:
        fig.update_xaxes(range=[math.log10(min(xs)) - 0.1, math.log10(max(xs)) + 0.1])
    fig.update_yaxes(range=[0.4, 1.02], tickformat=".0%")
    return fig


def dp_bound(preview_or_metrics: dict) -> dict | None:
    """``{"accuracy", "epsilon", "delta"}`` for :func:`accuracy_vs_size` from a data preview
    (:func:`core.scenarios.synthetic.data_preview`), or None for a generator without a DP guarantee."""
    p = preview_or_metrics
    if not p.get("bound"):
        return None
    return {"accuracy": p["bound"], "epsilon": p["epsilon"], "delta": p.get("delta") or 0.0}


PREVIEW_TITLE = "Before any game: who can be a target"


def uniqueness_bars(preview: dict) -> go.Figure:
    """Share of game 1's n records unique on the quasi-identifiers as the attacker learns them, most singling
    column first (:func:`core.scenarios.synthetic.greedy_uniqueness`); the last bar: the possible targets."""
    order, shares = preview["order"], preview["unique_share"]
    labels = [order[0]] + [f"+ {name}" for name in order[1:]]
    colors = [PALETTE[0]] * (len(order) - 1) + [PALETTE[1]]
    fig = go.Figure(go.Bar(x=labels, y=shares, marker_color=colors, text=[f"{v:.0%}" for v in shares],
                           textposition="outside", cliponaxis=False,
                           customdata=[preview["qis"][name] for name in order],
                           hovertemplate="%{x} (%{customdata} values): %{y:.1%} of the records unique"
                                         "<extra></extra>"))
    base_layout(fig, f"{PREVIEW_TITLE}<br><sup>records unique on the quasi-identifiers (game 1, "
                     f"n = {preview['n']:,})</sup>",
                "quasi-identifiers the attacker knows, added one by one", "records unique on them")
    fig.update_yaxes(range=[0, 1.12], tickformat=".0%")
    fig.update_xaxes(tickangle=-30)
    return fig


def size_lines(series: dict) -> list[dict]:
    """Lines for :func:`accuracy_vs_size` from one run's series (one per attack, plus Acc_max)."""
    gen = series.get("generator", {}).get("title", "")
    out = []
    for a, s in series.get("by_size", {}).items():
        out.append({"name": f"{attack_label(a)} · {gen}", "m": series["sizes"], "accuracy": s["accuracy"],
                    "low": s["accuracy_ci_low"], "high": s["accuracy_ci_high"]})
    return out


def rows_size_lines(rows: list[dict], sizes: list[int]) -> list[dict]:
    """Lines for :func:`accuracy_vs_size` from sweep rows (``accuracy_at_<m>`` and ``games_done``)."""
    out = []
    for row in rows:
        acc = [row.get(f"accuracy_at_{m}") for m in sizes]
        if any(a is None for a in acc):
            continue
        games = int(row.get("games_done") or 0)
        ci = [clopper_pearson(round(a * games), games) for a in acc]
        out.append({"name": point_name(row), "m": sizes, "accuracy": acc, "low": [c[0] for c in ci],
                    "high": [c[1] for c in ci]})
    return out


def point_name(row: dict) -> str:
    eps = row.get("epsilon") or row.get("claimed_epsilon")
    return f"{row['generator']} (ε = {eps:g})" if eps else row["generator"]


def accuracy_vs_queries(series: dict) -> go.Figure:
    """Adv_recon accuracy against the number of queries q at the chosen size (the last point: the run's q)."""
    curve = series.get("accuracy_vs_queries") or {}
    fig = go.Figure()
    if curve.get("q"):
        band(fig, curve["q"], curve["accuracy_ci_low"], curve["accuracy_ci_high"], PALETTE[0], "95% CI")
        fig.add_trace(go.Scatter(x=curve["q"], y=curve["accuracy"], mode="lines+markers", name="Adv_recon",
                                 line=dict(color=PALETTE[0]),
                                 hovertemplate="q = %{x:,.0f}<br>accuracy %{y:.1%}<extra></extra>"))
    _chance(fig)
    m = series["sizes"][-1] if series.get("sizes") else 0
    base_layout(fig, f"Accuracy vs number of queries (m = {m:,})", "queries q (log scale)", "accuracy")
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0.4, 1.02], tickformat=".0%")
    return fig


def accuracy_vs_epsilon(rows: list[dict], sizes: list[int], deployments: list | None = None) -> go.Figure:
    """Accuracy at the largest size against ε for every DP generator of a sweep (log x, CI band); real deployments
    (``core.studies.choosing_epsilon.deployment_registry.ticks()``) as ticks along the ε axis, within the sweep's range."""
    fig = go.Figure()
    m = sizes[-1]
    dp = [r for r in rows if r.get("epsilon")]
    names = sorted({r["generator"] for r in dp})
    for i, name in enumerate(names):
        pts = sorted((r for r in dp if r["generator"] == name), key=lambda r: r["epsilon"])
        xs = [r["epsilon"] for r in pts]
        ys = [r[f"accuracy_at_{m}"] for r in pts]
        ci = [clopper_pearson(round(y * r["games_done"]), int(r["games_done"])) for y, r in zip(ys, pts)]
        color = PALETTE[i % len(PALETTE)]
        band(fig, xs, [c[0] for c in ci], [c[1] for c in ci], color, name)
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines+markers", name=name, line=dict(color=color),
                                 hovertemplate="ε = %{x:g}<br>accuracy %{y:.1%}<extra>" + name + "</extra>"))
    _chance(fig)
    base_layout(fig, f"Attack accuracy vs ε (DP generators, m = {m:,})", "privacy budget ε (log scale)", "accuracy")
    fig.update_xaxes(type="log")
    fig.update_yaxes(range=[0.4, 1.02], tickformat=".0%")
    eps = [r["epsilon"] for r in dp]
    if eps:

        add_deployment_ticks(fig, deployments, (min(eps) / 3, max(eps) * 3))
    return fig


def points_from_rows(rows: list[dict], sizes: list[int]) -> list[dict]:
    """Scatter points (one per generator × ε × size) from sweep rows."""
    pts = []
    for row in rows:
        for m in sizes:
            if row.get(f"accuracy_at_{m}") is None:
                continue
            games = int(row.get("games_done") or 0)
            acc = row[f"accuracy_at_{m}"]
            lo, hi = clopper_pearson(round(acc * games), games)
            pts.append({"generator": row["generator"], "title": row["generator"],
                        "epsilon": row.get("epsilon") or None, "m": m, "accuracy": acc, "ci_low": lo, "ci_high": hi,
                        "mre_gt10": row.get(f"mre_gt10_at_{m}"), "tvd3": row.get(f"tvd3_at_{m}"), "games": games,
                        "attack": "best"})
    return pts


def privacy_utility(points: list[dict], metric: str = "mre_gt10", high_risk: float = 0.6,
                    good_utility: float = 0.2) -> go.Figure:
    """THE trade-off scatter: x = utility error, y = attack accuracy, Pareto front, paper's regions shaded."""
    fig = go.Figure()
    valid = [p for p in points if p.get(metric) is not None and not math.isnan(p[metric])]
    xmax = max([p[metric] for p in valid] + [good_utility * 2]) * 1.08
    # The regions and their edges in one layout update: the same shapes add_vline/add_hline make, at a fifth of
    # plotly's cost (each add_* call re-validates the whole layout; 10-15 ms of this chart, the Synthetic data
    # lab's first, before a new tab can draw it).
    fig.update_layout(
        shapes=[dict(type="rect", x0=0, x1=good_utility, y0=0.4, y1=high_risk, line=dict(width=0),
                     fillcolor="rgba(44,160,44,0.10)", layer="below"),
                dict(type="rect", x0=0, x1=xmax, y0=high_risk, y1=1.02, line=dict(width=0),
                     fillcolor="rgba(214,39,40,0.08)", layer="below"),
                dict(type="line", x0=good_utility, x1=good_utility, xref="x", y0=0, y1=1, yref="y domain",
                     line=dict(color="green", dash="dash")),
                dict(type="line", x0=0, x1=1, xref="x domain", y0=high_risk, y1=high_risk, yref="y",
                     line=dict(color="firebrick", dash="dash")),
                dict(type="line", x0=0, x1=1, xref="x domain", y0=0.5, y1=0.5, yref="y",
                     line=dict(color="grey", dash="dot"))],
        annotations=[dict(x=good_utility / 2, y=0.42, text="good utility (< 0.2)", showarrow=False,
                          font=dict(color="green")),
                     dict(x=xmax * 0.98, y=1.0, xanchor="right", text="high risk (accuracy > 60%)", showarrow=False,
                          font=dict(color="firebrick"))])
    groups: dict[str, list] = {}
    for p in valid:
        groups.setdefault(point_name(p), []).append(p)
    sizes = sorted({int(p["m"]) for p in valid})
    for i, (name, pts) in enumerate(groups.items()):
        pts = sorted(pts, key=lambda p: p["m"])
        fig.add_trace(go.Scatter(
            x=[p[metric] for p in pts], y=[p["accuracy"] for p in pts], mode="lines+markers", name=name,
            line=dict(color=PALETTE[i % len(PALETTE)], width=1, dash="dot"),
            marker=dict(size=12, color=PALETTE[i % len(PALETTE)],
                        symbol=[SYMBOLS[sizes.index(int(p["m"])) % len(SYMBOLS)] for p in pts],
                        line=dict(width=1, color="white")),
            customdata=[[_size_label(p["m"]), p.get("ci_low", float("nan")), p.get("ci_high", float("nan")),
                         p.get("mre_gt10"), p.get("tvd3"), p.get("games", 0), p.get("attack", "")] for p in pts],
            hovertemplate=("<b>" + name + "</b><br>m = %{customdata[0]} synthetic records<br>"
                           "attack accuracy %{y:.1%} (95% CI %{customdata[1]:.1%}–%{customdata[2]:.1%})<br>"
                           "MRE>10 %{customdata[3]:.3f} · 3-TVD %{customdata[4]:.3f}<br>"
                           "%{customdata[5]} games · attack %{customdata[6]}<extra></extra>")))
    front = pareto_points(valid, metric)
    if front:
        xs, ys = [], []
        for p in front:
            if xs:
                xs.append(p[metric])
                ys.append(ys[-1])
            xs.append(p[metric])
            ys.append(p["accuracy"])
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="Pareto front (best trade-offs)",
                                 line=dict(color="black", width=2), hoverinfo="skip"))
    for j, m in enumerate(sizes):  # legend entries for the size symbols
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=f"m = {_size_label(m)}",
                                 marker=dict(symbol=SYMBOLS[j % len(SYMBOLS)], color="grey", size=10),
                                 legendgroup="sizes"))
    base_layout(fig, "Privacy–utility trade-off: which release is useful without letting the attack win?",
                METRIC_LABELS.get(metric, metric), "attack accuracy on a target's secret", height=520)
    fig.update_xaxes(range=[0, xmax])
    fig.update_yaxes(range=[0.4, 1.02], tickformat=".0%")
    return fig


def utility_vs_size(series: dict) -> go.Figure:
    """MRE>10 and 3-TVD against m for one run (Fig. 4)."""
    fig = go.Figure()
    u = series.get("utility", {})
    for i, key in enumerate(("mre_gt10", "tvd3")):
        if u.get(key):
            fig.add_trace(go.Scatter(x=series["sizes"], y=u[key], mode="lines+markers",
                                     name={"mre_gt10": "MRE>10", "tvd3": "3-TVD"}[key],
                                     line=dict(color=PALETTE[i + 2]),
                                     error_y=dict(type="data", array=u.get(f"{key}_sd"), visible=True)))
    fig.add_hline(y=0.2, line=dict(color="green", dash="dash"), annotation_text="good utility < 0.2")
    base_layout(fig, "Utility error vs synthetic size (mean ± s.d. over games)", "synthetic records m (log scale)",
                "error (lower is better)")
    fig.update_xaxes(type="log")
    return fig
