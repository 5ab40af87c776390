"""The Playground's view controls: classroom mode and drawing options (the speed is in the player's bar).

They sit in one row above the editor (drawing options in a popover) rather than
in the sidebar, so the graph gets the page's full width.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from lucid.ui import stepper
from lucid.ui.options import DIRECTIONS, LARGE_MODES, PRESETS, ZOOMS, DrawOptions


@dataclass(frozen=True)
class ViewSettings:
    classroom: bool
    options: DrawOptions
    seconds_per_step: float
    zoom: str | float = "screen"
    lead: Any = None
    """The row's first column: the title in normal mode; in Classroom mode the page puts its folded editor
    there, so everything above the graph is one row."""


def view_controls(key: str) -> ViewSettings:
    """Title row: page title, drawing options, classroom toggle (the autoplay speed is in the player's bar).

    ``<key>_speed`` (the speed label, the link's ``speed=``) is kept in session state; the player's bar
    shows and sets it.
    """
    classroom_now = bool(st.session_state.get(f"{key}_classroom"))
    lead, opts_col, class_col = st.columns([4.0, 1.2, 1.6], vertical_alignment="top" if classroom_now else "bottom")
    if not classroom_now:  # on a projector the graph needs the height more: the title folds away
        lead.header("Playground", anchor=False)
        lead.caption("Type a program, run it, then watch the backward pass one gradient at a time.")
    label = st.session_state[_init(f"{key}_speed", stepper.DEFAULT_SPEED)]
    with opts_col.popover("Drawing", icon=":material/tune:", width="stretch"):
        options = draw_options(key)
        zoom = st.select_slider("Graph size", list(ZOOMS), key=f"{key}_zoom",
                                help="Fit screen keeps the whole graph in view (in Classroom mode the whole "
                                     "graph, with the current node magnified above the explanation); "
                                     "larger sizes scroll and follow the current node.")
    with class_col:
        classroom = st.toggle("Classroom mode", key=f"{key}_classroom",
                              help="Larger type, the whole graph on screen; the editor folds away.")
    return ViewSettings(classroom, options, stepper.seconds_per_step(str(label)), ZOOMS[zoom],
                        lead if classroom_now else None)


def _init(widget_key: str, default: object) -> str:
    """``widget_key``, with ``default`` as its value unless the session (or a shared link) already set one.

    The widgets take their value from session state only, never from a ``value=`` argument as well:
    ``lucid.ui.view_link.restore_view`` may have set it from the link before they are drawn.
    """
    st.session_state.setdefault(widget_key, default)
    return widget_key


def draw_options(key: str) -> DrawOptions:
    """What the graph shows and how it is laid out (a circuit always runs left to right)."""
    style = st.radio("Style", list(PRESETS), key=f"{key}_preset", horizontal=True,
                     help="Circuit: compact, left to right, value above and gradient below each wire, "
                          "as in the CS231n backprop notes.")
    circuit = PRESETS[style] == "circuit"
    direction = st.radio("Direction", list(DIRECTIONS), key=f"{key}_direction", horizontal=True, disabled=circuit,
                         help="The Circuit style always runs left to right.")
    if circuit:
        st.caption("Circuits always run left to right.")
    c1, c2 = st.columns(2)
    values = c1.checkbox("Values", key=_init(f"{key}_values", True))
    grads = c2.checkbox("Gradients", key=_init(f"{key}_grads", True))
    shapes = c1.checkbox("Shapes", key=_init(f"{key}_shapes", True))
    constants = c2.checkbox("Constants", key=_init(f"{key}_constants", True))
    large = st.selectbox("Large graphs", list(LARGE_MODES), key=f"{key}_large",
                         help="Compact mode collapses chains of one-input ops and shortens labels.")
    return DrawOptions(DIRECTIONS[direction], values, grads, shapes, constants, LARGE_MODES[large], PRESETS[style])
