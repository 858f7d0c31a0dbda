"""Serve the lab: Streamlit's own server running app.py, with one line added to each page's head so that a
shared deep link connects at once (ui/server/page_head.py). ``bash run.sh app`` starts this file; every Streamlit
option (``--server.port``, ``--server.address``, .streamlit/config.toml) applies as to ``streamlit run app.py``.

Before the server takes its first session, everything the pages import is imported and then kept out of
Python's full garbage collections (ui/server/heap.py). While it serves, ended sessions are shut down and, once nobody is
connected, the demos' caches are emptied and their memory given back (ui/server/housekeeping.py).

    python -m streamlit run serve.py --server.port 8501 --server.address 127.0.0.1
"""
import streamlit as st
from starlette.middleware import Middleware

from ui.server.heap import freeze_libraries
from ui.server.housekeeping import lifespan
from ui.server.page_head import PageHead

freeze_libraries()
app = st.App("app.py", middleware=[Middleware(PageHead)], lifespan=lifespan)
