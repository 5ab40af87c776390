"""Keyboard and screen-reader fixes to Streamlit's own widgets, on every page (WCAG 2.1 AA, issue 28).

Streamlit draws a popover's panel (*Drawing*, *Join*, the class menu) at the end of the page and leaves the focus
on its button: from there the panel's first control was 38 Tab presses away, past the whole page (2.4.3 Focus
order), and closing the panel left the focus nowhere. An invisible component (``a11y.js``) moves the focus into a
panel when it opens and back to its button when it closes. It is drawn once per page run (``app.py``).
"""
from __future__ import annotations

from lucid.ui.runtime.file_component import file_component

KEY = "lucid_a11y"
"""The component's key: one per page, on every page (not a page's own session key)."""
SCRIPT_FILE = "a11y.js"
STYLESHEET_FILE = "a11y.css"


def install() -> None:
    """Draw the page's accessibility helper (takes no room; sends nothing to the server)."""
    file_component("lucid_a11y", __package__, SCRIPT_FILE, STYLESHEET_FILE)(key=KEY, data={})
