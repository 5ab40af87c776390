"""Streamlit's own captions and code colours, darkened to WCAG AA contrast on every page (``contrast.css``).

Streamlit 1.67's theme options set the body text, links and code's base colour, but neither a caption's
fading (an opacity) nor the syntax colours of ``st.code``; so the app's own stylesheet overrides those, the
same in normal and Classroom mode (which only changes sizes). ``app.py`` hands it to
``lucid.ui.runtime.document.name_page``, whose hidden element stays on the page between runs.
``tests/e2e/test_contrast_browser.py`` measures the computed colours in Chromium.
"""
from __future__ import annotations

from lucid.ui.runtime.stylesheets import stylesheet

CSS = stylesheet(__package__, "contrast.css")

