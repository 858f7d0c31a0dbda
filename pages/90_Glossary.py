"""Glossary: the privacy words the labs use (AUC, ε, DP bound, shadow model, k-anonymity, …), in plain language."""
import streamlit as st

from core.output import plain_language as say
from ui.widgets.page_widgets import page_header

page_header("Glossary", "Short, plain definitions of the terms used in the labs. Each lab links a term's first "
                        "use here; the address of a term is `/Glossary#<term>`, e.g. `/Glossary#auc`.")

entries = say.glossary()
query = st.text_input("Find a term", key="glossary.q", placeholder="e.g. AUC, shadow, k-anonymity",
                      bind="query-params").strip().lower()
shown = [e for e in entries if not query or query in e[0].lower() or query in e[2].lower()]
st.caption(" · ".join(f"[{t}](#{a})" for t, a, _ in shown) or "No term matches.")
for term, anchor, body in shown:
    st.subheader(term, anchor=anchor)
    st.markdown(body)
