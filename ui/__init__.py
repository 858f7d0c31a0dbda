"""Streamlit helpers shared by the pages (the engine in core/ never imports Streamlit)."""
