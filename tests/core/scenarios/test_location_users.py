"""Several attacked users in the location game: distinct users drawn among those with k observations, a headline
that does not move when users are added, per-user numbers that are exactly those of the users' games, a probable
tier whose per-user false-positive rate holds on fresh games, and the lesson itself — under the auxiliary attacker
users of sparse cells (small λ) are easier, under the informed attacker users differ only by noise."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from core.data.traces import generate_traces
from core.errors import DataError
from core.measure.records import RecordTable
from core.runtime.games import run
from core.scenario import get, prepare_rng

SMALL = {"games": 2000, "shadow_sweep_max": 0, "observations": 20, "target_users": 4, "user_games": 600}
AUX = {**SMALL, "attacker": "auxiliary", "users": 3000, "group_size": 1000, "train_shadows": 1000}


def _rows_by_user(table: RecordTable) -> dict:
    out: dict = {}
    for user, secret, guess, score, correct, tier in zip(*(table.columns[c] for c in (
            "user", "secret", "guess", "score", "correct", "tier"))):
        out.setdefault(user, []).append((secret, guess, score, correct, tier))
    return {u: np.array(v, dtype=object) for u, v in out.items()}


def test_attacked_users_are_distinct_and_each_has_k_observations_and_its_own_cells():
    sc = get("location")
    config = sc.resolve({**AUX, "target_users": 6})
    ctx = sc.prepare(config, prepare_rng(5))
    traces = generate_traces(prepare_rng(5), n_users=config["users"], activity_median=config["activity_median"],
                             site_zipf=config["site_zipf"])  # the same draws as prepare's first step
    obs = traces.observations_per_user()
    users = [ctx["target"]] + [u["target"] for u in ctx["users"]]
    ids = [u["index"] for u in users]
    assert len(set(ids)) == 6 == len(ids)
    for u in users:
        assert obs[u["index"]] >= config["observations"] and u["observations"] == obs[u["index"]]
        sites, epochs = traces.user_cells(u["index"])
        assert u["sites"] == sites[:20].tolist() and u["epochs"] == epochs[:20].tolist()
    res = run("location", {**AUX, "target_users": 6}, seed=5)
    assert res.exposure["groups"]["columns"]["user"] == ids  # the view names the very users the game attacked


def test_adding_users_leaves_the_headline_unchanged_and_the_same_seed_repeats():
    one = run("location", {**SMALL, "target_users": 1}, seed=3)
    four = run("location", SMALL, seed=3)
    again = run("location", SMALL, seed=3)
    for key in ("accuracy", "auc", "tpr_at_fpr_0.01", "empirical_epsilon_low"):
        assert four.metrics[key] == one.metrics[key]
    assert four.series["roc"] == one.series["roc"]
    assert one.metrics["users_attacked"] == 1 and four.metrics["users_attacked"] == 4
    assert again.metrics == four.metrics and again.exposure == four.exposure


@pytest.mark.parametrize("params", [SMALL, AUX])
def test_per_user_numbers_are_those_of_the_users_games(params):
    res = run("location", params, seed=7)
    table = RecordTable.from_dict(res.exposure)
    assert len(table) == table.total == 2000 + 3 * 600  # nothing cut: every game is a row
    groups = table.groups["columns"]
    rows = _rows_by_user(table)
    assert list(rows) == groups["user"]  # users take turns, first target first
    assert groups["headline"] == [True, False, False, False]
    for i, user in enumerate(groups["user"]):
        r = rows[user]
        secret, score, correct, tier = r[:, 0].astype(int), r[:, 2].astype(float), r[:, 3].astype(bool), r[:, 4]
        assert len(r) == groups["games"][i] == (2000 if i == 0 else 600)
        assert secret.sum() == len(r) // 2
        assert correct.mean() == pytest.approx(groups["accuracy"][i], abs=1e-12)
        assert roc_auc_score(secret, score) == pytest.approx(groups["AUC"][i], abs=1e-9)
        assert groups["AUC low"][i] <= groups["AUC"][i] <= groups["AUC high"][i]
        flagged = (tier == "probable")
        assert flagged[secret == 1].mean() == pytest.approx(groups["member games called probable"][i])
        assert flagged[secret == 0].mean() == pytest.approx(groups["non-member games called probable"][i])
        assert flagged[secret == 0].mean() <= 0.01  # calibrated on this user's own non-member games
        assert (score[flagged] > groups["probable threshold"][i]).all()
        assert not (score[~flagged] > groups["probable threshold"][i]).any()
    assert res.metrics["accuracy"] == pytest.approx(groups["accuracy"][0], abs=1e-12)  # the headline: user 1
    assert np.mean(table.columns["correct"]) == pytest.approx(res.metrics["users_accuracy"], abs=1e-12)
    assert table.tier_counts["certified"] == 0 and "unbounded" in table.certification["why"]
    assert len({i.split(" · ")[0] for i in table.columns["id"]}) == 4


def test_probable_keeps_its_per_user_rate_on_fresh_games_of_the_same_users():
    """Thresholds calibrated on one run's non-member games, applied to fresh games of the same users (same
    context, other noise and groups): the share of fresh non-members that clears their user's threshold agrees
    with the stated share (two-proportion test at 0.1%), and stays near 1% for every user."""
    sc = get("location")
    params = {**AUX, "target_users": 5, "user_games": 4000, "games": 4000}
    config = sc.resolve(params)
    res = run("location", params, seed=11)
    cal = res.exposure["calibration"]
    thresholds = cal["thresholds"]
    ctx = sc.prepare(config, prepare_rng(11))
    fresh_rng = np.random.default_rng(12345)
    hits = fresh = 0
    for user, index in enumerate([0] + [i for i, t in enumerate(ctx["tasks"]) if t[0] == "user"]):
        rec = sc.play(config, ctx, index, fresh_rng)
        t = RecordTable.from_dict(rec["exposure"])
        neg = np.array([s for s, sec in zip(t.columns["score"], t.columns["secret"]) if sec == 0])
        h = int(np.sum(neg > thresholds[user]))
        assert h / neg.size < 0.03, (user, h, neg.size)
        hits, fresh = hits + h, fresh + neg.size
    p1, p2 = cal["false_positives"] / cal["negatives"], hits / fresh
    pooled = (cal["false_positives"] + hits) / (cal["negatives"] + fresh)
    se = np.sqrt(pooled * (1 - pooled) * (1 / cal["negatives"] + 1 / fresh))
    assert abs(p1 - p2) <= stats.norm.ppf(0.9995) * se, (p1, p2)


@pytest.mark.parametrize("seed", [0, 3])
def test_auxiliary_attacker_finds_users_of_sparse_cells_easier(seed):
    params = {**AUX, "users": 6000, "group_size": 2500, "target_users": 20, "user_games": 1000}
    res = run("location", params, seed=seed)
    groups = res.exposure["groups"]
    rho = stats.spearmanr(groups["columns"]["mean clean count λ"], groups["columns"]["AUC"]).statistic
    assert rho < -0.4, rho
    assert res.metrics["users_homogeneity_p"] < 1e-4 and "differ by more" in groups["sentences"][0]
    assert groups["x"] == "mean clean count λ" and groups["content"] == ["location", "users-auxiliary"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_informed_attacker_users_differ_only_by_noise(seed):
    res = run("location", {**SMALL, "target_users": 12, "user_games": 1000}, seed=seed)
    groups = res.exposure["groups"]
    assert res.metrics["users_homogeneity_p"] > 1e-3 and "consistent with one common" in groups["sentences"][0]
    assert groups["columns"]["user"] == [f"target {i}" for i in range(1, 13)]
    best = next(r["value"] for r in groups["references"] if r["label"].startswith("Best"))
    # every user's AUC interval is a sample of the same game: nearly all cover the informed optimum's AUC
    covered = sum(lo <= best <= hi for lo, hi in zip(groups["columns"]["AUC low"], groups["columns"]["AUC high"]))
    assert covered >= 9


def test_users_of_an_uploaded_file_keep_the_files_user_values(tmp_path):
    """A user value is written by a stranger: the view names it, the report and the chart escape it."""
    from core.output.report import html_report
    from core.plots.records import group_chart

    rng = np.random.default_rng(0)
    names = [f"<b>rider-{i:02d}</b>" for i in range(60)]
    lines = ["user,timestamp,site"]
    for name in names:
        hours = rng.choice(400, size=int(rng.integers(8, 30)), replace=False)
        lines += [f"{name},{1385654400 + 3600 * int(h)},{int(rng.integers(0, 6))}" for h in hours]
    path = tmp_path / "checkins.csv"
    path.write_text("\n".join(lines) + "\n")
    res = run("location", {**SMALL, "attacker": "auxiliary", "trace_file": str(path), "observations": 8,
                           "group_size": 20, "train_shadows": 400, "target_users": 5, "user_games": 400}, seed=2)
    users = res.exposure["groups"]["columns"]["user"]
    assert len(set(users)) == 5 and set(users) <= set(names)
    assert {i.split(" · ")[0] for i in res.exposure["columns"]["id"]} == set(users)
    assert set(res.exposure["columns"]["user"]) == set(users)
    report = html_report([res])
    assert "Per user" in report and "&lt;b&gt;rider-" in report and "<b>rider-" not in report
    assert all("<b>" not in t for t in group_chart(res.exposure["groups"]).data[0].text)


def test_too_few_users_with_k_observations_is_a_clear_error():
    with pytest.raises(DataError, match="lower `target_users`"):
        run("location", {**AUX, "observations": 60, "target_users": 100}, seed=0)


def test_cost_grows_with_the_attacked_users_and_their_games():
    sc = get("location")
    for base in (SMALL, AUX):
        cost = [sc.estimate_cost(sc.resolve({**base, "target_users": n, "user_games": g})).seconds
                for n, g in ((1, 600), (10, 600), (10, 6000))]
        assert cost[0] < cost[1] < cost[2]
    assert {"target_users", "user_games"} <= set(sc.estimate_cost(sc.resolve(SMALL)).drivers)


def test_per_user_view_on_the_page():
    from apptest_helpers import chart_titles, open_page

    at = open_page("pages/20_Location_membership.py", **SMALL)
    assert not at.exception, at.exception
    assert any("Per user: AUC" in t for t in chart_titles(at))
    text = " ".join(m.value for m in at.markdown)
    assert "Per user" in text and "χ² test" in text
    assert "Attacked users" in [w.label for w in at.sidebar.slider] + [w.label for w in at.sidebar.number_input]


def test_many_users_share_the_row_bound_and_every_user_keeps_rows():
    res = run("location", {**SMALL, "target_users": 30, "user_games": 1000}, seed=1)
    table = RecordTable.from_dict(res.exposure)
    assert table.total == 2000 + 29 * 1000 and len(table) == 10_000 and table.truncated
    kept = [len(r["exposure"]["columns"]["id"]) for r in res.records if "exposure" in r]
    assert max(kept[1:]) == 334 and sum(kept) <= 10_000 + 30  # each unit keeps only its share
    per_user = {u: n for u, n in zip(*np.unique(table.columns["user"], return_counts=True))}
    assert len(per_user) == 30 and min(per_user.values()) >= 300  # users take turns: none is cut out
    assert sum(table.tier_counts.values()) == table.total
    assert table.accuracy == pytest.approx(res.metrics["users_accuracy"], abs=1e-12)


def test_page_says_in_one_line_when_too_few_users_can_be_attacked():
    from apptest_helpers import open_page

    at = open_page("pages/20_Location_membership.py", **{**AUX, "observations": 60, "target_users": 100})
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert any("fewer than the 100 attacked users" in e and "target_users" in e for e in errors), errors
    assert all("\n" not in e for e in errors)
