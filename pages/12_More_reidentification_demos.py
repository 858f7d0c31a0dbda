"""A k-anonymiser whose choices leak, downcoding [Cohen '21], and a composition attack on two k-anonymous releases."""
import pandas as pd
import streamlit as st

from core.output import plain_language as say
from core.errors import LabError
from core.plots import reid_more as plots
from core.reid import composition, downcoding, privacy_is_relational
from ui.widgets.page_widgets import content, download_table, figure, kept_editor, lazy_tabs, metric_row, number_field, page_header, \
    plain, show_error

B = {"bind": "query-params"}  # every control is mirrored in the address bar: a link reproduces the view
# Each demo's controls sit in the sidebar, as on the lecture's page and every lab: the main column reads as the
# slide and then its result (the downcoding demo's table stays there: it is the data the student edits).
sb = st.sidebar

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


@st.cache_data(show_spinner=False, max_entries=32)
def downcode_k_range(table, preset, anonymiser):
    return downcoding.k_range(table, downcoding.PRESETS[preset][1]()[1], anonymiser)


@st.cache_data(show_spinner="Anonymising the two releases…", max_entries=16)
def run_composition(n_learners, n_courses, k, course, seed):
    return composition.composition_attack(n_learners, n_courses, k, course, seed)


@st.cache_data(show_spinner=False, max_entries=8)
def relational_worlds(k):
    """The slide's two worlds at ``k`` (0.1-0.2 s to compute, and the tab a new tab opens on)."""
    return privacy_is_relational.two_worlds(k=k)


# --------------------------------------------------------------------------------------------------- relational
def relational_demo():
    st.markdown(content("reid_more", "relational"))
    sb.header("Privacy is relational")
    k_rel = number_field(sb, "k", key="rm.k_rel", kind="int", default=2, low=1, high=8, **B)
    tb = sb.toggle("Salil has tuberculosis (the world that is released)", True, key="rm.tb", **B)
    try:
        W = relational_worlds(int(k_rel))
    except LabError as exc:
        show_error(exc)
    else:
        out = W.worlds[tb]
        guess = privacy_is_relational.decode(out.heights, out.tops)
        said = {True: "Salil has TB", False: "Salil has no TB", None: "cannot tell"}[guess]
        plain(say.relational(out.report.passes, guess, tb))
        (st.success if out.report.passes else st.error)(
            say.relational_status(W.k, out.report.passes, out.report.min_class_size,
                                  W.worlds[not tb].report.passes, W.worlds[not tb].report.min_class_size,
                                  "Salil has TB" if tb else "Salil has no TB",
                                  "he has none" if tb else "he has TB"),
            icon=":material/verified_user:")
        (st.warning if guess is not None else st.info)(
            f"An observer who knows A looks only at the release and concludes: **{said}**"
            + (" — correct." if guess is tb else "." if guess is None else " — wrong."),
            icon=":material/visibility:")
        # the picture first: its chart is what a student looks at, the tables below are the detail
        figure(plots.relational_heights(W.heights_table(), W.columns, out.tops), "reid-more-tb-heights")
        st.dataframe(W.heights_table(), hide_index=True)
        st.caption("Heights: 0 = exact, top = *. Raise k and both worlds suppress everything: then, and only "
                   "then, the two outputs coincide and nothing leaks.")
        a, b = st.columns(2)
        with a:
            st.markdown("**Input x** (the clinic's table)")
            st.dataframe(W.inputs[tb], hide_index=True)
        with b:
            st.markdown(f"**Release A(x)**, walk order: {' → '.join(out.order)}")
            st.dataframe(out.table, hide_index=True)
            download_table(out.table, f"reid-more-tb-release-{'tb' if tb else 'no-tb'}")


# --------------------------------------------------------------------------------------------------- downcoding
def downcoding_demo():
    st.markdown(content("reid_more", "downcoding"))
    st.info(downcoding.THEOREM, icon=":material/menu_book:")
    sb.header("Downcoding")
    preset = sb.radio("Data", list(downcoding.PRESETS), format_func=lambda p: downcoding.PRESETS[p][0],
                      key="rm.preset", **B)
    knowledge = sb.radio("The attacker knows that", list(downcoding.KNOWLEDGE), format_func=downcoding.KNOWLEDGE.get,
                         key="rm.knowledge", **B)
    anonymiser = sb.radio("Anonymiser producing Y", list(downcoding.ANONYMISERS),
                          format_func=downcoding.ANONYMISERS.get, key="rm.anon", **B)
    base, hier = downcoding.PRESETS[preset][1]()
    sb.caption("Hierarchy: " + "; ".join(
        f"{col}: " + ", ".join(f"{g} = {{{', '.join(v for v, gg in h.items() if gg == g)}}}"
                               for g in dict.fromkeys(h.values())) for col, h in hier.items()))
    x = kept_editor(base, key=f"rm.x.{preset}", num_rows="dynamic", hide_index=True)
    x = pd.DataFrame(x).dropna().reset_index(drop=True)
    # Only the k the brute force can finish for this table (the engine refuses the others).
    k_lo, k_hi = downcode_k_range(x, preset, anonymiser)
    k_dc = number_field(sb, "k", key=f"rm.k_dc.{preset}", kind="int", default=min(max(3 if preset == "slide" else 2,
                        k_lo), k_hi), low=k_lo, high=k_hi, help="Larger k: more tables X′ to try", **B)
    try:
        D = run_downcoding(x, preset, int(k_dc), knowledge, anonymiser)
    except LabError as exc:
        show_error(exc)
    else:
        m = D.metrics()
        plain(say.downcoding(m["n_cells_exact"], m["pct_records_refined"]))
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


# -------------------------------------------------------------------------------------------------- composition
def composition_demo():
    st.markdown(content("reid_more", "composition"))
    st.info(f"**Paper's figures (Cohen ’21 on the real edX data, not computed here):** combining the QIs gives "
            f"**{composition.EDX_PCT_UNIQUE}% uniques ({composition.EDX_N_UNIQUE:,} learners)** and "
            f"**{composition.EDX_PCT_NOT_K}% not {composition.EDX_K}-anonymous**; re-identification used LinkedIn "
            "profiles and the dataset was then heavily redacted.", icon=":material/menu_book:")
    sb.header("Composition")
    n_learners = sb.select_slider("Learners", [2_000, 5_000, 10_000, 20_000], 10_000, key="rm.n", **B)
    n_courses = sb.slider("Courses", 2, 16, 16, key="rm.courses", **B)
    k_c = number_field(sb, "k", key="rm.k_c", kind="int", default=composition.EDX_K, low=2, high=20, **B)
    course = number_field(sb, "Course in release B", key="rm.course", kind="int", default=1, low=1,
                          high=int(n_courses), **B)
    seed = number_field(sb, "Seed", key="rm.seed", kind="int", default=0, low=0, high=2**31 - 1, **B)
    try:
        C = run_composition(n_learners, n_courses, int(k_c), int(course), int(seed))
    except LabError as exc:
        show_error(exc)
    else:
        m = C.metrics()
        plain(say.composition(m["pct_unique_joined"], m["pct_not_k_anonymous_joined"], C.k))
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


# Lazy tabs, for a fast first view: only the open demo runs and is sent to the browser.
lazy_tabs({"1 · Privacy is relational": relational_demo, "2 · Downcoding": downcoding_demo,
           "3 · Composition": composition_demo}, key="rm.tab")
