"""Classroom mode: larger type for a projector (the player fits the whole graph); and the page's sticky parts.

Streamlit sizes nearly everything in rem, so raising the root font size scales
text, widgets and tables together; the graph gets more of the screen height.
The graph always keeps its aspect ratio: it fills the width unless that would
make it taller than the given share of the screen.

A tall graph scrolls the page, so the stepper's buttons and the explanation of
the current step stick under the top bar: a teacher clicking Next never has to
hunt for the button, and the arithmetic stays beside the edge it describes.
The player component (``clickable_graph``) does this for its own bar and
explanation; the rules here cover the page without ``dot`` (Streamlit's slider
and explanation box).
"""
from __future__ import annotations

import streamlit as st

_GRAPH = '.st-key-{key}_graph [data-testid="stGraphVizChart"] > svg'
"""Only the in-browser fallback chart; the clickable SVG sizes itself (see ``clickable_graph``)."""

TOP_BAR = 60
"""Height in px of Streamlit's top bar (the page menu), which covers the top of the scrolling page."""

STICKY_CSS = """
<style>
[data-testid="stLayoutWrapper"]:has(> .st-key-KEY_controls) {
  position: sticky; top: TOPpx; z-index: 50; background: #FFFFFF;
  padding: 0.9rem 0 0.45rem 0; margin-top: -0.9rem; border-bottom: 1px solid #E6E6E6;
}
[data-testid="stLayoutWrapper"]:has(> .st-key-KEY_explanation) {
  position: sticky; top: EXPLAINpx; align-self: flex-start; width: 100%;
}
.st-key-KEY_explanation { max-height: calc(100vh - EXPLAINpx - 1rem); overflow-y: auto; }
</style>
"""

CLASSROOM_CSS = """
<style>
html { font-size: 20px; }
[data-testid="stMainBlockContainer"] { padding-top: 66px; }
SVG { width: 100%; height: auto; max-height: calc(100vh - 300px); min-height: 360px; }
</style>
"""

NORMAL_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem; }
SVG { width: 100%; height: auto; max-height: calc(100vh - 280px); min-height: 320px; }
</style>
"""


PHONE_WIDTH = 640
"""Widest screen, in CSS px, treated as a phone (portrait phones are 360-430 px wide, small tablets 600+)."""

PHONE_INPUT_PX = 16
"""Smallest font of a text box on a phone: iOS Safari zooms the page into any input under 16 px on focus
(the class answer box was 14 px), and the student then has to pinch back out to see the question."""

PHONE_CSS = f"""
<style>
@media (max-width: {PHONE_WIDTH}px) {{
  input, textarea, select, [data-baseweb="input"] input, [data-baseweb="textarea"] textarea,
  [data-baseweb="select"] input {{ font-size: max({PHONE_INPUT_PX}px, 1rem) !important; }}
}}
</style>
"""


def sticky_css(key: str, classroom: bool) -> str:
    """CSS that keeps the stepper row and the explanation of ``key``'s stepper in view while scrolling."""
    explain_top = TOP_BAR + (86 if classroom else 70)
    return (STICKY_CSS.replace("KEY", key).replace("EXPLAIN", str(explain_top))
            .replace("TOP", str(TOP_BAR)))


def apply_style(classroom: bool, key: str = "pg") -> None:
    """Inject the CSS for the current mode (it takes no space on the page)."""
    css = CLASSROOM_CSS if classroom else NORMAL_CSS
    st.html(css.replace("SVG", _GRAPH.format(key=key)) + sticky_css(key, classroom) + PHONE_CSS)
