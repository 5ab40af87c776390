"""While the class predicts a step, a student's page holds that step and every later one back.

A question asks for the gradient of trace step ``q["step"]``. Until the teacher reveals it, a student's
page draws only what the class has been shown: the player gets the animation cut before that step
(``lucid.viz.player.redact``), the server's step (the node inspector, a forged click) stays before it, and the
exports, the inputs table and forward mode (which print every final gradient) wait for the reveal.

The hold is settled once per page run, before anything is drawn (``settle``), and kept in the session,
so every part of the page agrees on it. The class panel's fragment reruns alone when the question
changes (``lucid.ui.live_class.room_watch``); the player is outside it, so when the hold a question asks for is not
the one the page was drawn with, the fragment runs the whole page again (``rerun_if_changed``): once per
student when a question opens and once at its reveal, never for a closed or unchanged question.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from lucid.live_class import StoreUnavailable
from lucid.ui.live_class import room_service
from lucid.ui.playground.keys import keys


def open_step(question: dict[str, Any] | None) -> int | None:
    """The step an open, unrevealed question asks for (None: nothing to hold back)."""
    if not question or question.get("revealed"):
        return None
    try:
        return max(int(question["step"]), 1)
    except (KeyError, TypeError, ValueError):
        return None


def settle(key: str, s: Any) -> int | None:
    """The step this run of a student's page holds back from (None for a teacher, outside a class, or no
    open question); kept for ``held`` and ``rerun_if_changed``. With the room store out of reach the last
    known hold stays (a reveal is never assumed)."""
    if s is None or s.teacher:
        st.session_state[keys(key).held_from] = None
        return None
    try:
        view = room_service.rooms().view(s.code)
    except StoreUnavailable:
        return held(key)
    upto = open_step(view.question if view is not None else None)
    st.session_state[keys(key).held_from] = upto
    return upto


def held(key: str) -> int | None:
    """The step this page holds back from (what ``settle`` found in this page run)."""
    value = st.session_state.get(keys(key).held_from)
    return value if isinstance(value, int) else None


def rerun_if_changed(key: str, question: dict[str, Any] | None) -> None:
    """In the class panel's fragment: run the whole page again when ``question`` holds back another step than
    the page was drawn with (a question opened, was revealed, or replaced by one about another step).

    Nothing happens where no page run settled a hold (the fragment drawn on its own): no player to redraw.
    """
    if keys(key).held_from in st.session_state and open_step(question) != held(key):
        st.rerun(scope="app")
