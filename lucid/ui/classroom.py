"""Classroom mode: larger type and a larger graph for a projector.

Streamlit sizes nearly everything in rem, so raising the root font size scales
text, widgets and tables together; the graph gets more of the screen height.
The graph always keeps its aspect ratio: it fills the width unless that would
make it taller than the given share of the screen.
"""
from __future__ import annotations

import streamlit as st

_GRAPH = '.st-key-{key}_graph [data-testid="stGraphVizChart"] > svg'
"""Only the in-browser fallback chart; the clickable SVG sizes itself (see ``clickable_graph``)."""

CLASSROOM_CSS = """
<style>
html { font-size: 20px; }
[data-testid="stMainBlockContainer"] { padding-top: 2.6rem; }
SVG { width: 100%; height: auto; max-height: calc(100vh - 300px); min-height: 360px; }
</style>
"""

NORMAL_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem; }
SVG { width: 100%; height: auto; max-height: calc(100vh - 280px); min-height: 320px; }
</style>
"""


def apply_style(classroom: bool, key: str = "pg") -> None:
    """Inject the CSS for the current mode (it takes no space on the page)."""
    css = CLASSROOM_CSS if classroom else NORMAL_CSS
    st.html(css.replace("SVG", _GRAPH.format(key=key)))
