"""Make every page run through app.py's navigation, even when opened by a deep link on a fresh server.

Streamlit still knows the old "pages/ folder" way of making a multipage app: a
server that has not yet run ``st.navigation`` in any session runs a deep link
such as ``/playground`` straight from ``pages/playground.py``, skipping
``app.py`` (no page config, the wrong menu). A page that finds itself run that
way switches the legacy mode off and reruns, which goes through ``app.py``.
"""
from __future__ import annotations

import streamlit as st

from lucid.ui.runtime import browser_gate, rerun_gate, streamlit_internals


def ensure_navigation() -> None:
    """Call first in every page file; a no-op when the page was reached through ``st.navigation``.

    It also puts ``browser_gate`` in front of the session state (once per process), so every value a
    browser sends is checked before Streamlit reads it, and ``rerun_gate`` in front of every session's
    reruns, so no group of tabs can keep the server's script threads busy.
    """
    PagesManager = streamlit_internals.pages_manager()
    browser_gate.install()
    rerun_gate.install()
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
