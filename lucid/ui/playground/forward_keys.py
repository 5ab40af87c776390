"""The clicker's keys for the Forward-mode panel: →/PageDown, ←/PageUp, Home/End step its tangent.

The backward player (``lucid.viz.player``) listens to the keys on the whole page, so a presenter's clicker
works wherever the focus is. The Forward-mode panel sits under it on the same page, and a page has one
clicker, so one of the two owns the keys at a time. The rule:

- **The panel owns the keys while it is open and was the last thing the lecturer used**: a click, a tap or a
  focus (Tab) anywhere inside its expander, its header included, hands the keys to it; a click or a focus
  anywhere else on the page (the graph, the player's bar, the editor) hands them back to the player.
- Folding the panel gives the keys back at once: a closed panel never takes a key.
- A page that has never touched the panel behaves as before: the player has every key.

While the panel owns the keys this component takes them first (on the window, in the capture phase) and stops
them there, so neither the player nor the panel's own slider (which would move a second time) sees them; text
fields and an open list (the input picker while choosing) keep their keys. A line in the panel says who has
the keys, and a press brings it to the top of the screen. Each press counts the step in the browser at once
and asks the server for that step (``on_step``): the server checks the value (``step_event``) and sets the
panel's slider to it before the rerun draws the panel, so the slider, the graph and the explanation all show
the new step. Presses faster than the reruns count on from the last step asked for, and a step from another
input's trace (a press still in flight when the input changed) is dropped by its ``panel`` id.
"""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from lucid.i18n import _
from lucid.ui.playground.keys import keys
from lucid.ui.runtime.file_component import file_component

SCRIPT_FILE = "forward_keys.js"
STYLESHEET_FILE = "forward_keys.css"


def step_event(value: object, *, panel: str, steps: int) -> int | None:
    """The step a key press asks for, or None when the event is not one this panel sent for this trace.

    The value comes from the browser, so it is checked like any other input: a dict with an ``int`` step
    (not a bool) between 0 and ``steps``, made for ``panel`` (the slider it steps).
    """
    if not isinstance(value, dict) or value.get("panel") != panel:
        return None
    step = value.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= steps:
        return None
    return step


def forward_keys(key: str, *, slider_key: str, step: int, steps: int) -> None:
    """Let the clicker's keys step the slider ``slider_key`` (0..``steps``, now at ``step``); see the module.

    Call it inside the panel's expander, before the slider is drawn (the press's step is set in the event's
    callback, which runs before the script).
    """
    component = file_component("lucid_forward_keys", __package__, SCRIPT_FILE, STYLESHEET_FILE)
    component_key = keys(key).forward_keys

    def pressed() -> None:
        try:
            state = st.session_state.get(component_key)
        except (RecursionError, ValueError, TypeError):  # a crafted component state Streamlit cannot read
            return
        asked = step_event(state.get("step") if isinstance(state, dict) else None, panel=slider_key, steps=steps)
        if asked is not None:
            st.session_state[slider_key] = asked

    on_step: Callable[[], None] = pressed
    words = {"on": _("⌨ The clicker's keys step this panel (→ / ←, Home / End). Click the graph above to give "
                     "them back to the player."),
             "off": _("⌨ Click in this panel to step it with the clicker's keys.")}
    component(key=component_key, data={"panel": slider_key, "step": int(step), "steps": int(steps),
                                           "words": words}, on_step_change=on_step)
