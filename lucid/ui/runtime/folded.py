"""Panels whose content costs a run nothing while they are folded.

Every run of a page draws every element it reaches, folded or not: an expander's content is made, sent and
hashed on each rerun even when nobody opened it. A keyed expander (or popover) with ``on_change="rerun"``
tells the run whether it is open (``.open``), so a folded panel draws only its header and opening it runs the
page again to draw the rest (``bench/bench_rerun_cost.py`` measures what a warm rerun costs).

Streamlit forgets the value of a widget that a run does not draw; ``keep`` sets the folded panel's widget values
again as plain session state, so the widgets take them back when the panel is drawn.
"""
from __future__ import annotations

import streamlit as st


def keep(*names: str, prefixes: tuple[str, ...] = ()) -> None:
    """Keep the session-state values of ``names``, and of every key starting with one of ``prefixes``, for the run
    that draws them (a prefix costs a walk over every key of the session; a name does not)."""
    state = st.session_state
    for name in names:
        if name in state:
            state[name] = state[name]
    if prefixes:
        for name in [k for k in state if isinstance(k, str) and k.startswith(prefixes)]:
            state[name] = state[name]
