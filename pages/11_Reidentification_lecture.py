"""Linkage with a voter list, k-anonymity and its homogeneity failure, Netflix, differencing, the n = 5 example (CS208 lecture 2)."""
import streamlit as st

from core.errors import LabError
from core.output.inert import inert_text
from core.plots import reid as plots
from core.reid import differencing, exact_example, k_anonymity, lecture
from ui.lab_parts.reid_people import BIND, CACHE_TTL, people_controls
from ui.results.exposure_panel import exposure_panel
from ui.widgets.page_widgets import content, download_table, figure as _figure, lazy_tabs, metric_row, number_field, page_header, \
    plain, show_error

B = BIND  # every control is mirrored in the address bar: a link reproduces the view

page_header("Reidentification & reconstruction: the lecture's demos",
            "Removing names does not make data anonymous. Five small experiments from the lecture, run on real "
            "survey records shipped offline (or a synthetic town, or your own CSV).",
            "CS208 (Harvard, 2025) lecture 2 slides, “Reidentification & Reconstruction Attacks”")


# The demos' caches are bounded as the people's (ui/lab_parts/reid_people.py): their arguments come from the
# address bar. A
# default linkage view pickles to about 55 kB, an uploaded file's to more; max_size bounds each cache in bytes too.
@st.cache_data(show_spinner="Linking…", max_entries=32, ttl=CACHE_TTL, max_size="32MB")
def link(pkey, levels, rel, vot, seed, _P):
    return lecture.linkage_view(_P, levels, rel, vot, seed)


@st.cache_data(show_spinner="Generalising…", max_entries=32, ttl=CACHE_TTL, max_size="32MB")
def anonymise(pkey, data, qis, k, method, supp, _P):
    return lecture.kanon_view(_P, data, qis, k, method, supp)


@st.cache_data(show_spinner="Scoring every record…", max_entries=16, ttl=CACHE_TTL, max_size="32MB")
def ns08(**kw):
    return lecture.netflix_view(**kw)


def figure(fig, name):
    _figure(fig, f"reid-{name}")


sb = st.sidebar
people = people_controls(sb)
P, pkey, seed = people.P, people.key, people.seed
st.caption(content("reid_lecture"))


# Each demo's controls sit in the sidebar under the people they run on, as on every other lab: the main column reads
# as the slide and then its result, with nothing to scroll past, and a new tab's first view draws the result's chart
# before any control (ui/charts/first_view.py holds the sidebar back until that chart is drawn).
# ------------------------------------------------------------------------------------------------------ linkage
def linkage_demo():
    st.markdown(content("reid_lecture", "link"))
    sb.header("Linkage")
    qis = sb.multiselect("Quasi-identifiers the attacker can link on", P.quasi_identifiers, P.default_qis,
                         key=f"reid.qis.{P.source}", **B)
    levels = {}
    for q in qis:
        h = P.hierarchies[q]  # its top level ("suppressed") would just drop the QI; yes/no columns stay exact
        levels[q] = sb.select_slider(f"Generalise {inert_text(q)}", list(range(h.height)), 0,
                                     format_func=h.describe, key=f"reid.lvl.{P.source}.{q}", **B) \
            if h.height > 1 else 0
    rel = sb.slider("Share of people in the de-identified release", 0.05, 1.0, 0.3, 0.05, key="reid.rel", **B)
    vot = sb.slider("Share of people on the voter list", 0.05, 1.0, 0.5, 0.05, key="reid.vot", **B)
    try:
        L = link(pkey, levels, rel, vot, seed, P)
    except LabError as exc:
        show_error(exc)
    else:
        plain(L.sentence)  # the numbers in words, then their charts, then the tiles that detail them
        a, b = st.columns(2)
        with a:
            figure(plots.uniqueness_by_combination(L.result.combos), "uniqueness-by-combination")
        with b:
            figure(plots.class_size_histogram(L.result.population.size_histogram), "class-sizes")
            figure(plots.linkage_funnel(L.metrics), "linkage-funnel")
        metric_row(L.shown, lecture.LINKAGE_LABELS)
        st.caption(content("reid_lecture", "link-claims"))
        st.subheader("The join (released records with the name the attacker attaches)")
        st.dataframe(L.join.head(500), hide_index=True, height=260)
        download_table(L.result.join, "reid-linkage-join")
        exposure_panel({"scenario": "reid-linkage", "exposure": L.exposure}, key="-linkage")


# -------------------------------------------------------------------------------------------------- k-anonymity
def k_anonymity_demo():
    st.markdown(content("reid_lecture", "kanon"))
    sb.header("k-anonymity")
    data = sb.radio("Table", list(lecture.KANON_DATA), key="reid.kdata", **B,
                    format_func=lambda v: lecture.kanon_label(v, people.label))
    method = sb.radio("Generaliser", list(k_anonymity.METHODS), format_func=k_anonymity.METHODS.get,
                      key="reid.method", **B)
    setup = lecture.kanon_setup(P, data)
    if setup.fixed is None:
        kq = sb.multiselect("QIs to generalise", setup.choices, setup.qis, key=f"reid.kq.{P.source}", **B)
    else:
        kq = setup.qis
        sb.caption(setup.fixed)
    k = number_field(sb, "k", key=f"reid.k.{data}", kind="int", default=setup.k, low=1, high=1000, **B)
    supp = sb.slider("Max share of records suppressed (full-domain)", 0.0, 0.2, 0.0, 0.01, key="reid.supp", **B) \
        if method == "full_domain" else 0.0
    try:
        G = anonymise(pkey, data, kq, int(k), method, supp, P)
    except LabError as exc:
        show_error(exc)
    else:
        plain(G.sentence)
        if G.homogeneous:  # the leaking class first, before anything that needs scrolling
            st.markdown("**The equivalence classes** (homogeneous ones first: everyone in them shares one "
                        f"{G.sensitive})")
            st.dataframe(G.classes, hide_index=True)
        (st.success if G.passes else st.error)(G.status)
        if G.homogeneity is not None:
            (st.warning if G.homogeneous else st.info)(G.homogeneity)
        st.caption(content("reid_lecture", "kanon-bars"))
        if data == "covid":
            st.caption(content("reid_lecture", "kanon-covid"))
        a, b = st.columns(2)
        with a:
            st.markdown(G.original_title)
            st.dataframe(G.original, hide_index=True, height=250)
        with b:
            st.markdown("**Generalised release**")
            st.dataframe(G.generalised.head(lecture.PREVIEW_ROWS), hide_index=True, height=250)
            download_table(G.generalised, f"reid-generalised-{data}")
        a, b = st.columns(2)
        with a:
            figure(plots.class_sizes_vs_k(G.classes, G.report.k, kq), f"classes-{data}")
        if G.sensitive is not None:
            with b:
                figure(plots.distinct_sensitive(G.classes, kq), f"l-diversity-{data}")
        if not G.homogeneous:
            st.dataframe(G.classes, hide_index=True, height=220)
        download_table(G.classes, f"reid-classes-{data}")
        exposure_panel({"scenario": "reid-kanon", "exposure": G.exposure}, key=f"-kanon-{data}")


# ------------------------------------------------------------------------------------------------------ Netflix
def netflix_demo():
    st.markdown(content("reid_lecture", "netflix"))
    sb.header("Netflix")
    kw = dict(n_aux=sb.slider("Ratings in aux", 1, 20, 8, key="reid.nf.aux", **B),
              phi=sb.slider("φ (eccentricity threshold)", 0.0, 5.0, 1.5, key="reid.nf.phi", **B),
              rating_noise=sb.slider("aux: chance a rating is off by one", 0.0, 1.0, 0.2, key="reid.nf.rnoise", **B),
              date_noise=sb.slider("aux: date error (± days)", 0, 120, 14, key="reid.nf.dnoise", **B),
              release_fraction=sb.slider("Share of users in x̂ (target may be absent)", 0.1, 1.0, 1.0,
                                         key="reid.nf.release", **B),
              perturb_fraction=sb.slider("Share of x̂ records perturbed", 0.0, 1.0, 0.2, key="reid.nf.perturb", **B),
              seed=seed)
    curves = sb.toggle("Also compute rates over 100 random targets for every aux size and φ (≈ 2–5 s)",
                       key="reid.nf.curves", **B)
    try:
        N = ns08(**kw, curves=curves)
    except LabError as exc:
        show_error(exc)
    else:
        m = N.result.match
        plain(N.sentence)
        st.info(N.outcome)
        figure(plots.netflix_scores(m.scores, m.best, m.second, m.eccentricity, kw["phi"], m.target_released_index),
               "netflix-scores")
        st.dataframe(N.aux, hide_index=True, height=180)
        if N.curves is not None:
            figure(plots.netflix_curves(N.curves), "netflix-curves")
            download_table(N.curves, "reid-netflix-curves")


# ------------------------------------------------------------------------------------------------- differencing
def differencing_demo():
    st.markdown(content("reid_lecture", "diff"))
    sb.header("Differencing")
    bit_labels = lecture.bit_choices(P)
    bit_src = sb.radio("Secret bits", list(bit_labels), format_func=bit_labels.get, key="reid.diff.bits", **B)
    n_max, n_default = lecture.differencing_range(P)
    n = sb.slider("n (people queried)", 10, n_max, n_default, key="reid.diff.n", **B)
    floor = sb.slider("Curator's minimum query size (fraction of n)", 0.0, 0.5, 0.1, 0.05, key="reid.diff.floor", **B)
    meth = sb.radio("Attack", list(differencing.METHODS), format_func=differencing.METHODS.get,
                    key="reid.diff.method", **B)
    try:
        D = lecture.differencing_view(P, bit_src, n, floor, meth, seed)
    except LabError as exc:
        show_error(exc)
    else:
        plain(D.sentence)
        metric_row(D.metrics, lecture.DIFFERENCING_LABELS, fmt="{:,.4g}")
        st.caption(D.caption)
        i = number_field(st, "Show the attack on person i", key="reid.diff.i", kind="int", default=1, low=1, high=n,
                         **B)
        st.code(lecture.differencing_person(D.result, i), language=None)
        figure(plots.differencing_bits(D.bits), "differencing")
        st.dataframe(D.bits, hide_index=True, height=220)
        download_table(D.bits, "reid-differencing")


# ---------------------------------------------------------------------------------------------------- exact n=5
def exact_demo():
    st.markdown(content("reid_lecture", "exact"))
    text = st.text_area("Queries and exact answers (one per line: {set} = answer)",
                        exact_example.slide_system_text(), height=140, key="reid.exact.system", **B)
    try:
        E = lecture.exact_view(text)
    except LabError as exc:
        show_error(exc)
    else:
        plain(E.sentence)
        a, b = st.columns([2, 3])
        with a:
            st.code(E.equations, language=None)
            st.markdown(E.summary)
        with b:
            figure(plots.query_matrix_heatmap(E.result.matrix, E.result.answers, E.solution), "query-matrix")
        figure(plots.brute_force_violations(E.candidates, E.n_equations), "brute-force")
    st.subheader("Random releases: why m = n queries suffice")
    nr = st.slider("n (random secret bits)", 4, 14, 12, key="reid.exact.n", **B)
    S = exact_example.solutions_vs_queries(nr, seed=seed)
    st.caption(content("reid_lecture", "exact-random"))
    figure(plots.solutions_vs_queries(S, nr), "solutions-vs-queries")
    download_table(S, "reid-solutions-vs-queries")


# Lazy tabs, for a fast first view: only the open demo runs and is sent to the browser.
lazy_tabs({"1 · Linkage": linkage_demo, "2 · k-anonymity": k_anonymity_demo, "3 · Netflix (no QIs)": netflix_demo,
           "4 · Differencing": differencing_demo, "5 · Exact reconstruction (n = 5)": exact_demo}, key="reid.tab")
