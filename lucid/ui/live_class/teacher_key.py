"""The teacher's secret kept out of the address bar: the browser tab holds it in its session storage.

A projected address bar is read by the whole class, so ``teach=`` leaves the URL as soon as the page has read
it (``lucid.ui.live_class.room_view.seat``). This invisible component keeps the token in the tab's ``sessionStorage``
(per tab, gone when the tab closes, never sent anywhere by the browser on its own) and, when the tab is
reloaded or the server restarted, hands it back to the new session with one event: the teacher stays the
teacher. A student's tab has nothing stored, so it sends nothing.
"""
from __future__ import annotations

import streamlit as st

from lucid.ui.playground.keys import keys
from lucid.ui.runtime.file_component import file_component

SCRIPT_FILE = "teacher_key.js"
STYLESHEET_FILE = "teacher_key.css"


def _ignore() -> None:
    """The event only asks for a rerun; the page reads the token with ``teacher_key_event``."""


def teacher_key_event(key: str) -> object:
    """The token the tab handed back in this run's event, if any (unchecked: the caller checks it)."""
    try:
        state = st.session_state.get(keys(key).teacher_key)
    except (RecursionError, ValueError, TypeError):  # a crafted component state Streamlit cannot read
        return None
    return state.get("token") if isinstance(state, dict) else None


def teacher_key(key: str, code: str, *, token: str | None, ask: bool) -> None:
    """Keep ``token`` for room ``code`` in this tab (when given), or ask the tab for one it keeps (``ask``)."""
    component = file_component("lucid_teacher_key", __package__, SCRIPT_FILE, STYLESHEET_FILE)
    component(key=keys(key).teacher_key, data={"code": code, "token": token or "", "ask": bool(ask)},
              on_token_change=_ignore)
