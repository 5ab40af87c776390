"""Classroom mode as one setting of the whole session, carried in the link as ``classroom=1``.

A lecture moves between pages (Playground, Pitfalls, Broadcasting, ...): the
projector mode chosen on one page must hold on the next one, after a reload and
in a link handed to the class. So there is one place that knows it: a plain
session-state key (Streamlit keeps those across pages, unlike a widget's state,
which is dropped on any run that does not draw the widget) mirrored into the
URL. Every page asks ``follow_link`` (or draws ``toggle``); the Playground's own
toggle writes through ``set_on``. Only state lives here; the look of Classroom
mode is ``lucid.ui.projector.layout``.
"""
from __future__ import annotations

import streamlit as st

from lucid.i18n import N_, _
from lucid.ui.playground.keys import keys

SESSION_KEY = "lucid_classroom"
URL_KEY = "classroom"
LABEL = N_("Classroom mode")
HELP = N_("Larger type and graph for a projector; kept on every page and in the link.")


def is_on() -> bool:
    """Whether this session is in Classroom mode (off until someone turns it on or a link asks for it)."""
    return bool(st.session_state.get(SESSION_KEY, False))


def from_link(params: dict[str, str]) -> bool | None:
    """What a link says about Classroom mode: True, False, or None when it says nothing (or nonsense)."""
    raw = str(params.get(URL_KEY, "")).strip()
    return {"1": True, "0": False}.get(raw)


def set_on(on: bool) -> None:
    """Turn Classroom mode on or off for the session, and say so in the URL (``classroom=1``, or nothing)."""
    st.session_state[SESSION_KEY] = bool(on)
    if on:
        if st.query_params.get(URL_KEY) != "1":
            st.query_params[URL_KEY] = "1"
    elif URL_KEY in st.query_params:
        del st.query_params[URL_KEY]


def follow_link() -> bool:
    """A page's run: the link decides when it names a mode, else the session keeps its own; the URL then agrees.

    A link without ``classroom=`` is what a page switch through the menu produces, so it keeps the mode.
    """
    linked = from_link(st.query_params.to_dict())
    on = is_on() if linked is None else linked
    set_on(on)
    return on


def toggle(key: str, container=None) -> bool:
    """A page's Classroom mode toggle, bound to the session's setting (session-state key ``<key>_classroom``).

    The toggle is given the setting when the page is entered (its own state was dropped while another
    page ran) and always gets its value passed in as well, so the browser draws what is in effect.
    """
    widget_key = keys(key).classroom
    value = st.session_state[widget_key] if widget_key in st.session_state else follow_link()
    on = (container or st).toggle(_(LABEL), value=bool(value), key=widget_key, help=_(HELP))
    set_on(on)
    return on
