"""The Playground's view controls: classroom mode and drawing options (the speed is in the player's bar).

They sit in one row above the editor (drawing options in a popover) rather than
in the sidebar, so the graph gets the page's full width.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from lucid.i18n import _
from lucid.session import stepping as stepper
from lucid.session.options import DIRECTIONS, LARGE_MODES, PRESETS, ZOOMS, DrawOptions
from lucid.ui.playground import view_link
from lucid.ui.playground.copy_link import copy_link_button
from lucid.ui.playground.keys import keys
from lucid.ui.projector import mode as classroom_state
from lucid.ui.runtime import language


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
    """Title row: page title, drawing options, *Copy link*, classroom toggle (the speed is in the player's bar).

    ``<key>_speed`` (the speed label, the link's ``speed=``) is plain session state, not a widget: the
    player's bar shows and sets it, and ``lucid.ui.playground.view_link.enter`` sets it from the link.
    """
    classroom_now = bool(view_link.entered_value(key, "classroom", classroom_state.is_on()))
    # Classroom mode's larger type needs wider buttons; its lead column holds only the folded editor.
    widths = [3.0, 1.2, 1.2, 1.7, 1.0] if classroom_now else [4.0, 1.2, 1.0, 1.6, 1.0]
    lead, opts_col, link_col, class_col, lang_col = st.columns(widths,
                                                     vertical_alignment="top" if classroom_now else "bottom")
    if not classroom_now:  # on a projector the graph needs the height more: the title folds away
        lead.header(_("Playground"), anchor=False)
        lead.caption(_("Type a program, run it, then watch the backward pass one gradient at a time."))
    label = st.session_state.setdefault(keys(key).speed, view_link.entered_value(key, "speed", stepper.DEFAULT_SPEED))
    with opts_col.popover(_("Drawing"), icon=":material/tune:", width="stretch"):
        options = draw_options(key)
        zoom = st.select_slider(_("Graph size"), list(ZOOMS), **_bound(key, "zoom", next(iter(ZOOMS))),
                                format_func=_,
                                help=_("Fit screen keeps the whole graph in view (in Classroom mode the whole "
                                       "graph, with the current node magnified above the explanation); "
                                       "larger sizes scroll and follow the current node."))
    with link_col:
        copy_link_button(key)
    with class_col:
        classroom = st.toggle(_(classroom_state.LABEL), **_bound(key, "classroom", classroom_state.is_on()),
                              help=_("Larger type, the whole graph on screen; the editor folds away. "
                                     "Kept on every page."))
    language.picker(key, lang_col)
    return ViewSettings(classroom, options, stepper.seconds_per_step(str(label)), ZOOMS[zoom],
                        lead if classroom_now else None)


def _bound(key: str, suffix: str, default: object) -> dict[str, object]:
    """``key=`` and ``value=`` for view widget ``<key>_<suffix>``: the value in effect, else ``default``.

    The value is passed in as well as kept under the key. A widget the browser has not mounted yet
    (the Drawing popover's content while it is closed) is built from the value sent with it, not from
    the session: without ``value=`` it showed the function's default (unticked boxes, the first
    option) and sent that back on the next rerun, switching the drawing options off behind the
    user's back. The value in effect is the widget's own state, or on entering the page the one
    ``lucid.ui.playground.view_link.enter`` read from the link.
    """
    return {"key": keys(key).of(suffix), "value": view_link.entered_value(key, suffix, default)}


def _index(key: str, suffix: str, choices: dict[str, object]) -> dict[str, object]:
    """``key=`` and ``index=`` for a radio or selectbox, with the same reason as ``_bound``."""
    labels = list(choices)
    value = _bound(key, suffix, labels[0])["value"]
    return {"key": keys(key).of(suffix), "index": labels.index(value) if value in labels else 0}


def draw_options(key: str) -> DrawOptions:
    """What the graph shows and how it is laid out (a circuit always runs left to right)."""
    style = st.radio(_("Style"), list(PRESETS), **_index(key, "preset", PRESETS), horizontal=True, format_func=_,
                     help=_("Circuit: compact, left to right, value above and gradient below each wire, "
                            "as in the CS231n backprop notes."))
    circuit = PRESETS[style] == "circuit"
    direction = st.radio(_("Direction"), list(DIRECTIONS), **_index(key, "direction", DIRECTIONS), horizontal=True,
                         disabled=circuit, format_func=_,
                         help=_("The Circuit style always runs left to right."))
    if circuit:
        st.caption(_("Circuits always run left to right."))
    c1, c2 = st.columns(2)
    values = c1.checkbox(_("Values"), **_bound(key, "values", True))
    grads = c2.checkbox(_("Gradients"), **_bound(key, "grads", True))
    shapes = c1.checkbox(_("Shapes"), **_bound(key, "shapes", True))
    constants = c2.checkbox(_("Constants"), **_bound(key, "constants", True))
    large = st.selectbox(_("Large graphs"), list(LARGE_MODES), **_index(key, "large", LARGE_MODES), format_func=_,
                         help=_("Compact mode collapses chains of one-input ops and shortens labels."))
    return DrawOptions(DIRECTIONS[direction], values, grads, shapes, constants, LARGE_MODES[large], PRESETS[style])
