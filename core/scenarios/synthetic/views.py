"""What the synthetic-data lab page shows: sidebar choices, the result and example views, and the generator
comparison (privacy–utility points and the best release under the paper's high-risk line)."""
from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field

import pandas as pd

from ...attacks.declaration import attacks_of, metric_labels
from ...basics.words import count
from ...data.dataset import load_csv, read_table
from ...errors import DataError, ParameterError
from ...releases.synthesizers import SYNTHESIZERS
from .release_file import FILE
from .risk_views import proxies_table, risk_sentence, risks_table
from .data import (
    DEFAULT_SECRET,
    DP_GENERATORS,
    EPOCH_GENERATORS,
    GENERATORS,
    HIGH_RISK,
    base_dataset,
    identifier_columns,
    load_game_data,
    size_ladder,
)
from ...measure.compare import pareto_points
from ...plots.synthetic import point_name, points_from_rows

# The page (pages/40_Synthetic_data.py) is widgets → one engine call → plots; its choice lists and the tables
# and sentences it prints come from here, so they are testable without Streamlit.
UTILITY_METRICS = {"mre_gt10": "MRE>10", "tvd3": "3-TVD"}  # x axis of the privacy–utility scatter
EPSILON_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)  # ε slider of a DP generator (plus its own default)
COMPARE_EPSILONS = (1.0, 10.0, 100.0)  # the paper's ε values
# Generators quick enough to compare by default; RAP-style ones (2,000 optimisation steps) and the neural ones
# (CTGAN, TVAE) take minutes per game on two cores.
FAST_GENERATORS = ("nonprivate", "baynet", "indhist", "privbayes")
PAGE_PARAMS = ("dataset", "data_path", "release_path", "secret", "generator", "epsilon")  # set by the page's own sidebar widgets


def attack_metric_names() -> dict[str, str]:
    """Each declared attack's accuracy metric and its short label (``accuracy_dcr`` → Adv_dcr), then Acc_max."""
    return {**metric_labels("synthetic", "accuracy"), "accuracy_max": "Acc_max"}


def result_sentence(metrics: dict, series: dict) -> str:
    """Synthetic data: how often the attacker guesses a target's re-drawn secret, and whether the release is
    still useful (MRE>10 below the paper's 0.2)."""
    m = metrics
    acc, size = m["accuracy"], series["sizes"][-1]
    gen = series["generator"]["title"]
    secret = series.get("secret", "secret")
    useful = "useful (MRE>10 < 0.2)" if m["mre_gt10"] < 0.2 else "of limited use (MRE>10 ≥ 0.2)"
    risk = "well above" if m["accuracy_ci_low"] > 0.5 else "not clearly above"
    return (f"**With these settings, an attacker who knows everyone's quasi-identifiers guesses a target's "
            f"`{secret}` right {acc:.0%} of the time** from {size:,} synthetic records made by {gen} — "
            f"{risk} the 50% of a coin flip (95% CI {m['accuracy_ci_low']:.0%}–{m['accuracy_ci_high']:.0%}, "
            f"{count(m['games_done'], 'game')}). The same release is {useful}.")


def best_release_sentence(name: str | None, best: dict | None, metric_label: str, metric: str, limit: float) -> str:
    """Synthetic data, compared generators: the most useful release that keeps the attack at or below
    ``limit`` accuracy (``best`` is its scatter point, ``name`` its generator and ε), or that none does."""
    if best is None:
        return f"**No compared release keeps the attack at or below {limit:.0%}.**"
    return (f"**Best release that keeps the attack at or below {limit:.0%}:** {name} with m = {best['m']:,} "
            f"synthetic records ({metric_label} {best[metric]:.2f}, attack accuracy {best['accuracy']:.0%}).")


def records_cap(dataset: str, data_path: str, secret: str) -> tuple[int, str] | None:
    """``(largest n, why)`` for a user's table: the generator is fitted on n of its records, so n cannot pass the
    records the table holds (in steps of n's own 50). None for the built-in data, which hold more than n's range."""
    if dataset != "csv" or not data_path:
        return None
    rows = load_game_data({"dataset": dataset, "data_path": data_path, "secret": secret})[0].shape[0]
    step = 50
    half = max(step, rows // 2 // step * step)
    return half, (f"Your table has {rows:,} records: the generator is fitted on at most {half:,} of them, so that "
                  "as many records the release never saw are left as the control set its risk is measured "
                  "against.")


def secret_choices(dataset: str, data_path: str = "", name: str = "") -> list[str]:
    """Secret-column choices for a data set: its default secret first, the other two-valued columns, then
    ``column=value`` (binarised by the game) for the first 12 values of every wider column.

    ``name`` is the uploaded file's name, used in error messages about a CSV (``dataset="csv"``)."""
    if dataset == "csv":
        if not data_path:
            raise ParameterError("data_path", "dataset=csv needs data_path (the CSV file to attack)")
        # read as the games read it (missing answers as a category), named as the visitor's file
        label = name or os.path.basename(data_path)
        raw = read_table(data_path, name=label)
        ignored = set(identifier_columns(raw))  # a row id is no attribute (and would be refused as one)
        table = load_csv(data_path, name=label, missing="category",
                         columns=[c for c in raw.columns if c not in ignored])
    else:
        table, _ = base_dataset(dataset)
    default = DEFAULT_SECRET.get(dataset)
    options = ([default] if default else []) + \
        [c for c in table.columns if len(table.domain[c]) == 2 and c != default]
    options += [f"{c}={v}" for c in table.columns if len(table.domain[c]) > 2 for v in table.domain[c][:12]]
    if not options:
        raise DataError("The file has no column to use as the secret.")
    return options


def secret_param(dataset: str, choice: str) -> str:
    """The ``secret`` parameter for a sidebar choice: empty for a built-in data set's default secret, so the
    config (and the stored result's key) is the default one."""
    return "" if dataset != "csv" and choice == DEFAULT_SECRET.get(dataset) else choice


def epsilon_choices(generator: str) -> tuple[list[float], float]:
    """(ε values offered, default ε) for a DP generator: the grid plus the generator's own default budget
    (10 when its constructor names none)."""
    own = inspect.signature(SYNTHESIZERS[generator].__init__).parameters.get("epsilon")
    default = float(own.default) if own is not None and isinstance(own.default, (int, float)) else 10.0
    return sorted({*EPSILON_GRID, default}), default


def page_params(generator: str) -> tuple[str, ...]:
    """Parameters the page does not draw as generated widgets: its own sidebar choices, ``epochs`` unless
    the generator is a neural one (the only ones it matters for), and ``synth_size`` for a release from a file
    (its size is the file's: a control there could only mislead)."""
    return PAGE_PARAMS + (() if generator in EPOCH_GENERATORS else ("epochs",)) + \
        (("synth_size",) if generator == FILE else ())


def games_table(records: list[dict]) -> pd.DataFrame:
    """One row per (main game, synthetic size): the per-game records the page shows and offers for download."""
    return pd.DataFrame([{"game": r["game"], "truth": r["truth"], **row}
                         for r in records if r["kind"] == "main" for row in r["sizes"]])


@dataclass(frozen=True)
class ExampleView:
    """The "one game, step by step" panel."""
    intro: str                 # Markdown written by the lab (no user text): the game in one paragraph
    target: pd.DataFrame       # the target's quasi-identifiers, one row
    guesses: pd.DataFrame      # attack, score, guess, truth, won
    recon: str | None          # the LP's story for Adv_recon (None when it did not run)


@dataclass(frozen=True)
class ResultView:
    """Everything the page prints about one run besides its plots."""
    label: str                 # the data set's caption
    surrogate: bool            # a schema surrogate (compare shapes, not values)
    sentence: str              # the plain-language verdict
    metrics: dict              # the run's metrics as they are
    eps_metrics: dict          # the same with ε shown as "none (not DP)" for a generator without a guarantee
    per_attack: bool           # several attacks ran: show each one's accuracy
    example: ExampleView | None
    headline: dict = field(default_factory=dict)  # target accuracy with its interval, all-records accuracy
    risk_sentence: str = ""    # the risk against the control set in words (empty before any record game)
    risks: pd.DataFrame | None = None    # inference (each attack), singling out, linkability: risk and rates
    proxies: pd.DataFrame | None = None  # SDMetrics' proxy scores on the same release


@dataclass(frozen=True)
class CompareSetup:
    """The "Compare generators" section before it runs: the sweep's base config and the choices offered."""
    base: dict
    plain: list
    plain_default: list
    dp: list
    dp_default: list
    epsilons: list
    epsilons_default: list


@dataclass(frozen=True)
class CompareView:
    """The compared releases: scatter points, the best release under the risk line, the ROC attack, the table."""
    sizes: list
    points: list
    best: dict | None
    sentence: str
    roc_attack: str | None
    by_epsilon: bool
    table: pd.DataFrame


def example_view(series: dict) -> ExampleView | None:
    """The "one game, step by step" panel: what the attacker saw in the first game and what each attack said."""
    ex = series.get("example")
    if not ex:
        return None
    intro = (f"Game {ex['game'] + 1}: among the {ex['n']:,} records, {ex['unique_targets']:,} have a unique "
             "combination of quasi-identifiers; one of them is the target. Its true secret was "
             f"**{ex['original']}**, and the coin re-drew it as **{ex['truth']}** before the generator "
             f"saw the data. The attacker sees these quasi-identifiers and {ex['m']:,} synthetic rows:")
    guesses = pd.DataFrame([{"attack": a, "score": round(float(ex["scores"][a]), 4), "guess": g,
                             "truth": ex["truth"], "won": "yes" if g == ex["truth"] else "no"}
                            for a, g in ex["guesses"].items()])
    recon = None
    rec = ex.get("recon")
    if rec:
        by_size = ", ".join(f"m={m:,}: {t:.2f}" for m, t in zip(series["sizes"], ex["t_u_by_size"]) if t is not None)
        recon = (f"Adv_recon asked **{rec['queries']:,}** queries ({rec['lp_rows']:,} cover at least one "
                 f"record); the LP's value for the target is **t_u = {rec['t_u']:.3f}** (guess 1 if ≥ 0.5); "
                 f"total error of the best fit ‖A t − r̂‖₁ = {rec['objective']:.1f}. "
                 "t_u at every size: " + by_size)
    return ExampleView(intro=intro, target=pd.DataFrame([ex["target"]]), guesses=guesses, recon=recon)


def result_view(metrics: dict, series: dict) -> ResultView | None:
    """Everything the page prints about one run besides its plots: the data set's caption, the plain-language
    sentence, the metric rows (ε shown as "none (not DP)" for a generator without a guarantee, per-attack
    accuracies when several attacks ran) and the one-game panel. None before the first game."""
    if not metrics:
        return None
    label = series.get("dataset_label", "")
    eps = dict(metrics)
    if eps.get("claimed_epsilon") is None:
        eps["claimed_epsilon"] = "none (not DP)"
    return ResultView(label=label, surrogate="surrogate" in label, sentence=result_sentence(metrics, series),
                      metrics=metrics, eps_metrics=eps, per_attack=len(series.get("attacks", [])) > 1,
                      example=example_view(series), headline=headline_tiles(metrics),
                      risk_sentence=risk_sentence(metrics, series), risks=risks_table(metrics, series),
                      proxies=proxies_table(metrics, series))


def headline_tiles(metrics: dict) -> dict:
    """The run's headline as printed: the target accuracy with its 95% interval (one target per game, so a run of
    25 games is only good to about ±0.16), and beside it the reconstruction's accuracy over every record of the
    same games — thousands of guesses per game instead of one, so it barely moves from seed to seed."""
    tiles = {}
    if metrics.get("risk") is not None:  # many records attacked: the audit's numbers lead
        tiles["risk"] = f"{metrics['risk']:.2f} [{metrics['risk_ci_low']:.2f}, {metrics['risk_ci_high']:.2f}]"
        tiles["train_control"] = (f"{metrics['success_train']:.1%} vs {metrics['success_control']:.1%}")
        tiles["baseline"] = f"{metrics['baseline_train']:.1%}"
    tiles.update({"target": f"{metrics['accuracy']:.1%} [{metrics['accuracy_ci_low']:.1%}, "
                            f"{metrics['accuracy_ci_high']:.1%}]",
                  "half_width": f"±{(metrics['accuracy_ci_high'] - metrics['accuracy_ci_low']) / 2:.3f}"})
    if metrics.get("accuracy_baseline") is not None:
        tiles["target_baseline"] = f"{metrics['accuracy_baseline']:.1%}"
    if metrics.get("recon_all_records_accuracy") is not None:
        tiles["all_records"] = f"{metrics['recon_all_records_accuracy']:.1%}"
    return tiles


def compare_setup(config: dict) -> CompareSetup:
    """The "Compare generators" section before it runs: the sweep's base config (the run's settings without
    seed, generator and ε, size ladder only) and the generator and ε choices with their defaults."""
    base = {k: v for k, v in config.items() if k not in ("seed", "generator", "epsilon")}
    base["query_sweep"] = False  # only the size ladder enters the comparison
    fast = [g for g in FAST_GENERATORS if g in GENERATORS]
    return CompareSetup(base=base, plain=[g for g in GENERATORS if g not in DP_GENERATORS],
                        plain_default=[g for g in fast if g not in DP_GENERATORS], dp=list(DP_GENERATORS),
                        dp_default=[g for g in DP_GENERATORS if g in fast], epsilons=list(COMPARE_EPSILONS),
                        epsilons_default=list(COMPARE_EPSILONS))


def compare_view(rows: list[dict], synth_size: int, metric: str = "mre_gt10") -> CompareView:
    """The compared releases from sweep rows: scatter points (generator × ε × size), the best release that keeps
    the attack at or below the paper's high-risk line (the lowest utility error on the Pareto front), the
    attack whose ROC curves are drawn, and the comparison table."""
    sizes = size_ladder(synth_size)
    points = points_from_rows(rows, sizes)
    front = pareto_points([p for p in points if p["accuracy"] <= HIGH_RISK], metric)
    best = front[0] if front else None
    sentence = best_release_sentence(point_name(best) if best else None, best, UTILITY_METRICS[metric], metric,
                                  HIGH_RISK)
    roc_attack = next((a.key for a in attacks_of("synthetic")
                       if any(a.key in r.get("series", {}).get("roc", {}) for r in rows)), None)
    table = pd.DataFrame([{"generator": r["generator"], "ε": r.get("epsilon") or "—", "accuracy": r.get("accuracy"),
                           "AUC": r.get("auc"), "MRE>10": r.get("mre_gt10"), "3-TVD": r.get("tvd3"),
                           "empirical ε ≥": r.get("empirical_epsilon_low")} for r in rows])
    return CompareView(sizes=sizes, points=points, best=best, sentence=sentence, roc_attack=roc_attack,
                       by_epsilon=any(r.get("epsilon") for r in rows), table=table)




def noise_warning(metrics: dict, games: int) -> str | None:
    """A caution when the accuracy's 95% interval is too wide to tell the attack from a coin flip (it holds
    50%) or spans more than 30 points — e.g. "Attack accuracy 1.000" after one game — else None."""
    lo, hi, acc = metrics.get("accuracy_ci_low"), metrics.get("accuracy_ci_high"), metrics.get("accuracy")
    if lo is None or hi is None or acc is None or lo != lo or hi != hi:
        return None
    head = (f"Only **{games} game{'s' if games != 1 else ''}**: the attack accuracy of {acc:.3f} has a 95% "
            f"confidence interval of **{lo:.2f} – {hi:.2f}**")
    # with every record attacked, the risk above is the finding; the target accuracy's games only sharpen itself
    many = (" The risk against the control set above attacks every record of every game: it does not wait for "
            "more games." if metrics.get("risk") is not None else "")
    if lo <= 0.5 <= hi:
        return head + (", too wide to say how well the attack works on its one target per game (it includes the "
                       "50% of a coin flip). Play more games for a finding." + many)
    if hi - lo > 0.3:  # clear of a coin flip, but not how far
        side = "beats" if lo > 0.5 else "does worse than"
        return head + (f": the attack clearly {side} a coin flip, but the interval is too wide to say by how much. "
                       "Play more games to pin it down." + many)
    return None
