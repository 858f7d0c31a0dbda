"""A k-anonymiser whose choices leak, downcoding [Cohen '21], and a composition attack on two k-anonymous releases."""
import pandas as pd
import streamlit as st

from core.errors import LabError
from core.plots import reid_more as plots
from core.reid import composition, downcoding, privacy_is_relational
from ui.common import download_table, figure, metric_row, page_header, show_error

page_header("More reidentification demos: k-anonymity's blind spots",
            "Three slides from the end of the reidentification lecture: a k-anonymiser whose *choices* leak, "
            "undoing generalisation from the anonymiser's own minimality, and two k-anonymous releases that "
            "are not k-anonymous together.",
            "CS208 (Harvard, 2025) lecture 2 slides, “Reidentification & Reconstruction Attacks”; "
            "A. Cohen, “Attacks on deidentification's defenses” (USENIX Security ’22); "
            "Ganti, Kasiviswanathan & Smith, KDD ’08")


@st.cache_data(show_spinner="Enumerating every table the release could have come from…", max_entries=16)
def run_downcoding(table, preset, k, knowledge, anonymiser):
    return downcoding.downcode(table, downcoding.PRESETS[preset][1]()[1], k, knowledge, anonymiser=anonymiser)


@st.cache_data(show_spinner="Anonymising the two releases…", max_entries=16)
def run_composition(n_learners, n_courses, k, course, seed):
    return composition.composition_attack(n_learners, n_courses, k, course, seed)


t_rel, t_down, t_comp = st.tabs([":material/swap_horiz: Privacy is relational", ":material/zoom_in: Downcoding",
                                 ":material/join_inner: Composition"])

# ------------------------------------------------------------------------------------------------ relational
with t_rel:
    st.markdown(
        "**Slide “k-anonymity across all attributes?” (privacy concerns).** Take the mechanism *A(x): if Salil is "
        "in x and has tuberculosis, generalise starting with the rightmost attribute; else start on the left.* "
        "Every output it produces is k-anonymous across all attributes (names dropped). But anyone who knows A "
        "reads Salil's diagnosis from *which* columns were generalised. **Privacy is a property of the "
        "input–output relationship, not of one output.**")
    c1, c2 = st.columns(2)
    k_rel = c1.number_input("k", 1, 8, 2, key="rm.k_rel")
    tb = c2.toggle("Salil has tuberculosis (the world that is released)", True, key="rm.tb")
    try:
        W = privacy_is_relational.two_worlds(k=int(k_rel))
    except LabError as exc:
        show_error(exc)
    else:
        out = W.worlds[tb]
        guess = privacy_is_relational.decode(out.heights, out.tops)
        said = {True: "Salil has TB", False: "Salil has no TB", None: "cannot tell"}[guess]
        (st.success if out.report.passes else st.error)(
            f"The release is {'' if out.report.passes else 'NOT '}{W.k}-anonymous (smallest class: "
            f"{out.report.min_class_size}); so is the other world's ({W.worlds[not tb].report.min_class_size}).",
            icon=":material/verified_user:")
        (st.warning if guess is not None else st.info)(
            f"An observer who knows A looks only at the release and concludes: **{said}**"
            + (" — correct." if guess is tb else "." if guess is None else " — wrong."), icon=":material/visibility:")
        a, b = st.columns(2)
        with a:
            st.markdown("**Input x** (the clinic's table)")
            st.dataframe(W.inputs[tb], hide_index=True)
        with b:
            st.markdown(f"**Release A(x)**, walk order: {' → '.join(out.order)}")
            st.dataframe(out.table, hide_index=True)
            download_table(out.table, f"reid-more-tb-release-{'tb' if tb else 'no-tb'}")
        figure(plots.relational_heights(W.heights_table(), W.columns, out.tops), "reid-more-tb-heights")
        st.dataframe(W.heights_table(), hide_index=True)
        st.caption("Heights: 0 = exact, top = *. Raise k and both worlds suppress everything: then, and only "
                   "then, the two outputs coincide and nothing leaks.")

# ------------------------------------------------------------------------------------------------ downcoding
with t_down:
    st.markdown(
        "**Slide “Downcoding Attacks [Cohen ’21]”.** X is the data, Y a k-anonymised version; a *downcoding* Z "
        "generalises X and refines Y. A **minimal** anonymiser never generalises more than it must — and that "
        "is information. Here the attacker sees only Y and knows the anonymiser is minimal; by brute force they "
        "list every table X′ that Y could have come from (each cell a leaf under Y's cell, and Y still minimal "
        "for X′). Records of one class are interchangeable, so Z is a multiset per class that matches every "
        "possible X′ (Cohen's definition up to re-ordering). Hierarchies: leaf → group → *.")
    st.info(downcoding.THEOREM, icon=":material/menu_book:")
    c1, c2, c3 = st.columns(3)
    preset = c1.radio("Data", list(downcoding.PRESETS), format_func=lambda p: downcoding.PRESETS[p][0],
                      key="rm.preset")
    k_dc = c1.number_input("k", 2, 4, 3 if preset == "slide" else 2, key=f"rm.k_dc.{preset}")
    knowledge = c2.radio("The attacker knows that", list(downcoding.KNOWLEDGE), format_func=downcoding.KNOWLEDGE.get,
                         key="rm.knowledge")
    anonymiser = c3.radio("Anonymiser producing Y", list(downcoding.ANONYMISERS),
                          format_func=downcoding.ANONYMISERS.get, key="rm.anon")
    base, hier = downcoding.PRESETS[preset][1]()
    c3.caption("Hierarchy: " + "; ".join(
        f"{col}: " + ", ".join(f"{g} = {{{', '.join(v for v, gg in h.items() if gg == g)}}}"
                               for g in dict.fromkeys(h.values())) for col, h in hier.items()))
    x = st.data_editor(base, num_rows="dynamic", key=f"rm.x.{preset}", hide_index=True)
    try:
        D = run_downcoding(pd.DataFrame(x).dropna().reset_index(drop=True), preset, int(k_dc), knowledge, anonymiser)
    except LabError as exc:
        show_error(exc)
    else:
        m = D.metrics()
        metric_row(m, {"n_candidates": "Tables X′ tried", "n_consistent": "X′ consistent with Y",
                       "n_cells_exact": "Cells downcoded to exact", "n_cells_refined": "Cells refined",
                       "pct_records_refined": "% records refined"}, fmt="{:,.0f}")
        figure(plots.downcoding_cells(D.status_matrix(), D.y, D.z), "reid-more-downcoding-cells")
        a, b, c = st.columns(3)
        for col, title, df in ((a, "**X** (true)", D.x), (b, "**Y** (published)", D.y), (c, "**Z** (downcoded)", D.z)):
            col.markdown(title)
            col.dataframe(df, hide_index=True)
        st.dataframe(D.classes, hide_index=True)
        download_table(D.cells, "reid-more-downcoding-cells")
        st.caption("Z's rows are shown next to the true record they match; the attacker knows Z per class, not "
                   "which record in the class is which. The theorem's percentages are for large N and its own "
                   "distribution; this toy only shows the mechanism.")

# ------------------------------------------------------------------------------------------------ composition
with t_comp:
    st.markdown(
        "**Slides “Composition Attacks” and “Failure of Composition”.** [Ganti–Kasiviswanathan–Smith ’08]: two "
        "k-anonymous generalisations of the same data can combine into one that is not k-anonymous. In the "
        "Harvard-MIT edX release [Daries et al. ’14], 5-anonymity was enforced separately on (a) the course "
        "combination and (b) demographics + one course. Here: a synthetic edX-like table, release A = the 0/1 "
        "enrolment in every course, release B = year of birth, gender, country, one course's enrolment and "
        "posts; each k-anonymised on its own; both keep the learner's pseudonymous ID, so they join.")
    st.info(f"**Paper's figures (Cohen ’21 on the real edX data, not computed here):** combining the QIs gives "
            f"**{composition.EDX_PCT_UNIQUE}% uniques ({composition.EDX_N_UNIQUE:,} learners)** and "
            f"**{composition.EDX_PCT_NOT_K}% not {composition.EDX_K}-anonymous**; re-identification used LinkedIn "
            "profiles and the dataset was then heavily redacted.", icon=":material/menu_book:")
    c1, c2, c3 = st.columns(3)
    n_learners = c1.select_slider("Learners", [2_000, 5_000, 10_000, 20_000], 10_000, key="rm.n")
    n_courses = c1.slider("Courses", 2, 16, 16, key="rm.courses")
    k_c = c2.number_input("k", 2, 20, composition.EDX_K, key="rm.k_c")
    course = c2.number_input("Course in release B", 1, int(n_courses), 1, key=f"rm.course.{n_courses}")
    seed = c3.number_input("Seed", 0, 2**31 - 1, 0, key="rm.seed")
    try:
        C = run_composition(n_learners, n_courses, int(k_c), int(course), int(seed))
    except LabError as exc:
        show_error(exc)
    else:
        m = C.metrics()
        metric_row(m, {"pct_unique_a": "% unique in A", "pct_unique_b": "% unique in B",
                       "pct_unique_joined": "% unique in A ⋈ B", "pct_not_k_anonymous_joined":
                       f"% not {C.k}-anonymous in A ⋈ B"}, fmt="{:.1f}")
        paper = {"pct_unique": composition.EDX_PCT_UNIQUE, "pct_not_k": composition.EDX_PCT_NOT_K,
                 "k": composition.EDX_K}
        a, b = st.columns([3, 2])
        with a:
            figure(plots.composition_bars(C.summary, C.k, paper), "reid-more-composition-bars")
        with b:
            figure(plots.joined_class_sizes(C.class_sizes), "reid-more-composition-classes")
        st.dataframe(C.summary, hide_index=True)
        download_table(C.summary, "reid-more-composition-summary")
        st.markdown("**The join** (first 200 learners)")
        st.dataframe(C.joined.head(200), hide_index=True, height=240)
        download_table(C.joined, "reid-more-composition-join")
        st.caption("A class of the join is the intersection of a class of A with a class of B, so it can be "
                   "much smaller than k. Synthetic data: our percentages are not the paper's edX numbers.")
