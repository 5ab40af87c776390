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

from lucid.ui.runtime.stylesheets import stylesheet

_GRAPH = '.st-key-{key}_graph [data-testid="stGraphVizChart"] > svg'
"""Only the in-browser fallback chart; the clickable SVG sizes itself (see ``clickable_graph``)."""

TOP_BAR = 60
"""Height in px of Streamlit's top bar (the page menu), which covers the top of the scrolling page."""

PHONE_WIDTH = 640
"""Widest screen, in CSS px, treated as a phone (portrait phones are 360-430 px wide, small tablets 600+)."""

PHONE_INPUT_PX = 16
"""Smallest font of a text box on a phone: iOS Safari zooms the page into any input under 16 px on focus
(the class answer box was 14 px), and the student then has to pinch back out to see the question."""

PHONE_CSS = stylesheet(__package__, "phone.css", phone_width=PHONE_WIDTH, phone_input=PHONE_INPUT_PX)
"""Text boxes at least 16 px on a phone (``phone.css``)."""


def sticky_css(key: str, classroom: bool) -> str:
    """CSS that keeps the stepper row and the explanation of ``key``'s stepper in view while scrolling."""
    explain_top = TOP_BAR + (86 if classroom else 70)
    return stylesheet(__package__, "sticky.css", key=key, top=TOP_BAR, explain=explain_top)


def apply_style(classroom: bool, key: str = "pg") -> None:
    """Inject the CSS for the current mode (it takes no space on the page)."""
    mode = stylesheet(__package__, "classroom.css" if classroom else "normal.css", graph=_GRAPH.format(key=key))
    st.html(mode + sticky_css(key, classroom) + stylesheet(__package__, "inspector.css", key=key) + PHONE_CSS)
