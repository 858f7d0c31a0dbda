"""Benchmarks of the ml-models scenario (Kabir, Craig & Mehnaz, arXiv 2504.04033).

0. ``default``: the page's default (51 states × 1,000 records, MLP 20 epochs): seconds to the population preview
   (the page's first plot), then every stage of the default run, then BCorr on top of it (cached target model)
   with ASRD, its noise floor and model accuracy before/after.
1. ``paper-size``: the full Census19-sized synthetic run (51 states × 1,000 records, MLP (32, 16, 8), CSMIA, single
   targeting, BCorr) through the engine, with the time of every stage (data, training, attack, disparity,
   targeting, BCorr resample + retrain + re-attack).
2. ``adult PATH``: realism check on the authors' Adult split (``Adult_35222.csv`` / ``Adult_10000.csv`` in PATH,
   not shipped, not in CI; skipped cleanly when absent): our single-attribute targeted accuracies (CSMIA, LOMIA,
   ImpI, ImpP by κ) printed beside the paper's Table 2 Adult row.

    python benchmarks/bench_ml_models.py default
    python benchmarks/bench_ml_models.py paper-size [--epochs 200]
    python benchmarks/bench_ml_models.py adult ../shared/data/adult [--epochs 200]

Timings on a shared machine are noisy; compare ratios, not absolute seconds.

Spec sections (§) refer to docs/specs/seed003_004_disparate_and_cs208.md.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PAPER_ADULT = {  # Table 2, Adult, accuracy (%) by κ
    "CSMIA": {1: 69.96, 0.75: 69.14, 0.5: 72.37, 0.25: 74.83, 0.1: 81.61},
    "LOMIA": {1: 70.61, 0.75: 69.79, 0.5: 73.36, 0.25: 74.86, 0.1: 81.68},
    "ImpI": {1: 74.46, 0.75: 76.96, 0.5: 77.72, 0.25: 79.82, 0.1: 81.52},
    "ImpP": {1: 65.05, 0.75: 68.31, 0.5: 69.70, 0.25: 63.94, 0.1: 65.21},
}
KAPPAS = (1, 0.75, 0.5, 0.25, 0.1)


STAGES = ("data_seconds", "train_seconds", "attack_seconds", "disparity_seconds", "targeting_seconds",
          "bcorr_seconds")


def default(seed: int) -> None:
    import os

    from core.runtime.games import run
    from core.scenario import get
    from core.scenarios.ml_models import population_preview

    sc = get("ml-models")
    config = sc.resolve({})
    t = time.perf_counter()
    preview = population_preview({**config, "seed": seed}, seed)
    first = time.perf_counter() - t
    print(f"page default: {preview['info']['train']:,} training records in {preview['info']['groups']} groups, "
          f"MLP (32,16,8), {config['epochs']} epochs, seed {seed}")
    print(f"  population preview (the page's first plot): {first:.2f} s")
    t = time.perf_counter()
    r = run("ml-models", {}, seed=seed)
    whole = time.perf_counter() - t
    for k in STAGES[:-1]:
        print(f"  {k:<20} {r.timings.get(k, float('nan')):8.2f} s")
    print(f"  {'default run (wall)':<20} {whole:8.2f} s   (goal: first result plot ≤ 10 s; cached afterwards)")
    t = time.perf_counter()
    b = run("ml-models", {"defense": "bcorr"}, seed=seed)
    print(f"  + BCorr (target model cached: {b.series['info']['cache_hit']}): {b.timings['bcorr_seconds']:.2f} s "
          f"retrain + re-attack, {time.perf_counter() - t:.2f} s wall")
    m = b.metrics
    print(f"  CSMIA accuracy {100 * m['accuracy']:.2f}%, Spearman(AD, group accuracy) {m['spearman_disparity']:.3f}")
    print(f"  ASRD {100 * m['asrd']:.2f} (noise floor {100 * m['asrd_noise_floor']:.2f}) → "
          f"{100 * m['asrd_bcorr']:.2f} (noise floor {100 * m['asrd_noise_floor_bcorr']:.2f}) points with BCorr; "
          f"model accuracy {100 * m['model_accuracy']:.2f}% → {100 * m['model_accuracy_bcorr']:.2f}%")
    print(f"  os.getloadavg() = {', '.join(f'{x:.1f}' for x in os.getloadavg())} (2 cores; noisy under load)")


def paper_size(epochs: int, seed: int) -> None:
    from core.runtime.games import run

    params = {"n_per_group": 1000, "groups": 51, "epochs": epochs, "defense": "bcorr", "targeting": "single"}
    t = time.perf_counter()
    r = run("ml-models", params, seed=seed)
    total = time.perf_counter() - t
    info = r.series["info"]
    print(f"paper-size synthetic run: {info['train']:,} training records, {info['groups']} groups, MLP (32,16,8), "
          f"{epochs} epochs max ({info['epochs']} run), seed {seed}")
    for k in STAGES:
        print(f"  {k:<20} {r.timings.get(k, float('nan')):8.1f} s")
    print(f"  {'total (wall)':<20} {total:8.1f} s   (spec §A15 measured 65 s for training alone, 200 epochs)")
    m = r.metrics
    print(f"  CSMIA accuracy {100 * m['accuracy']:.2f}%  (spec §A15: 63.13%; paper Census19: 62.56%)")
    print(f"  Spearman(AD, group accuracy) {m['spearman_disparity']:.3f}, Kendall {m['kendall_disparity']:.3f}"
          f"  (spec §A15: |0.77| / |0.58|; paper Census19: 0.8767 / 0.6914)")
    sweep = {round(s["kappa"], 3): s["accuracy"] for s in r.series["kappa_sweep"]}
    print("  single-targeted CSMIA by κ: " + ", ".join(f"{k}: {100 * v:.2f}" for k, v in sorted(sweep.items(),
                                                                                              reverse=True)))
    print("  spec §A15:                  1: 63.13, 0.75: 64.73, 0.5: 67.72, 0.375: 68.82, 0.25: 70.61, 0.1: 71.52, "
          "0.05: 72.27")
    print(f"  ASRD {100 * m['asrd']:.2f} (noise floor {100 * m['asrd_noise_floor']:.2f}) → "
          f"{100 * m['asrd_bcorr']:.2f} (noise floor {100 * m['asrd_noise_floor_bcorr']:.2f}) points with BCorr; model accuracy "
          f"{100 * m['model_accuracy']:.2f}% → {100 * m['model_accuracy_bcorr']:.2f}%; EOD {m['eod']:.3f} → "
          f"{m['eod_bcorr']:.3f}; DPD {m['dpd']:.3f} → {m['dpd_bcorr']:.3f}")
    print("  paper Table 5 Census19 ST: ASRD 22.94 → 10.93, EOD 0.4 → 0.4, DPD 0.2401 → 0.1923, MA 73.19 → 74.02")


def adult(path: Path, epochs: int, seed: int) -> None:
    train_csv, test_csv = path / "Adult_35222.csv", path / "Adult_10000.csv"
    if not (train_csv.exists() and test_csv.exists()):
        print(f"adult: {path} has no Adult_35222.csv / Adult_10000.csv; skipped")
        return
    from core.attacks.ml_models.csmia import csmia
    from core.attacks.ml_models.imputation import ImputationAttack
    from core.attacks.ml_models.lomia import lomia
    from core.attacks.ml_models.targeted import attribute_ranges, best_attribute, single_selection
    from core.defenses.bcorr import fairness
    from core.models.target_model import Encoder, train_target, with_s

    tr, te = pd.read_csv(train_csv), pd.read_csv(test_csv)
    cat = ["work", "education", "occupation", "sex", "race"]
    num = ["fnlwgt", "capitalgain", "capitalloss", "hoursperweek"]
    s, s_te = (tr["marital"] == "Single").astype(int).to_numpy(), (te["marital"] == "Single").astype(int).to_numpy()
    y, y_te = (tr["income"] == ">50K").astype(int).to_numpy(), (te["income"] == ">50K").astype(int).to_numpy()
    enc = Encoder(cat, num).fit(tr, te)
    X, X_te = enc.transform(tr), enc.transform(te)
    print(f"Adult split: {len(tr):,} train (Single prior {s.mean():.2f}), {len(te):,} test; MLP (32,16,8), "
          f"{epochs} epochs max, seed {seed}")
    times = {}
    t = time.perf_counter()
    model = train_target(with_s(X, s), y, "mlp", epochs, seed=42)
    times["training"] = time.perf_counter() - t
    groups_te = pd.factorize(te["occupation"])[0]
    fair = fairness(y_te, model.predict(X_te, s_te), groups_te)
    rng = np.random.default_rng(seed)
    t = time.perf_counter()
    cs = csmia(model, X, y, rng)
    times["CSMIA"] = time.perf_counter() - t
    t = time.perf_counter()
    lo_pred, _, _ = lomia(cs.labels, X, y, rng, seed=42)
    times["LOMIA"] = time.perf_counter() - t
    t = time.perf_counter()
    ideal = rng.choice(len(y), 5000, replace=False)
    imp_i = ImputationAttack(42).fit(X[ideal], y[ideal], s[ideal]).predict(X, y)
    # practical aux ([C] Adult): 5,000 test records with 15 % Single
    pos, neg = np.flatnonzero(s_te == 1), np.flatnonzero(s_te == 0)
    aux = np.concatenate([rng.choice(pos, 750, replace=False), rng.choice(neg, 4250, replace=False)])
    imp_p = ImputationAttack(42).fit(X_te[aux], y_te[aux], s_te[aux]).predict(X, y)
    times["imputation (both)"] = time.perf_counter() - t
    t = time.perf_counter()
    attrs = {c: pd.factorize(tr[c])[0] for c in cat}
    ranges = attribute_ranges(attrs, cs.confidence, cs.labels, y, "ascending")  # paper: Adult ascending
    best = best_attribute(ranges)
    times["disparity + targeting"] = time.perf_counter() - t
    preds = {"CSMIA": cs.prediction, "LOMIA": lo_pred, "ImpI": imp_i, "ImpP": imp_p}
    print(f"model test accuracy {100 * fair['model_accuracy']:.2f}% (paper MA ≈ 72–78%); best attribute by AD range: "
          f"{best} (paper: occupation); AD ranges " +
          ", ".join(f"{a} {r['range']:.2f}" for a, r in ranges.items()))
    for attribute in dict.fromkeys([best, "occupation"]):
        print(f"\nsingle-attribute targeted accuracy (%) on {attribute}, ours | paper Table 2 Adult:")
        print("  attack  " + "  ".join(f"κ={k:<5}" for k in KAPPAS))
        for name, pred in preds.items():
            correct = pred == s
            ours = []
            for k in KAPPAS:
                mask, _ = single_selection(attrs[attribute], ranges[attribute]["order"], k)
                ours.append(100 * correct[mask].mean())
            print(f"  {name:<6} " + "  ".join(f"{o:5.2f}  " for o in ours) + " | " +
                  "  ".join(f"{PAPER_ADULT[name][k]:5.2f}" for k in KAPPAS))
    print("\nstage times: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("default", "paper-size", "adult"))
    ap.add_argument("path", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "adult"))
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        if args.what == "default":
            default(args.seed)
        elif args.what == "paper-size":
            paper_size(args.epochs, args.seed)
        else:
            adult(Path(args.path), args.epochs, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
