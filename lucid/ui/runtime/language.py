"""The interface language as one setting of the whole session, carried in every link as ``lang=ko``.

Like Classroom mode (``classroom_state``), the language chosen on one page holds on the next one,
after a reload and in a link handed to the class: a plain session-state key mirrored into the URL.
English is the default and leaves no trace in the URL, so existing links stay as they were.
``follow_link`` runs at the top of every script run (``app.py``) and sets the language of that run's
context (``lucid.i18n``, a ``ContextVar``: sessions run in threads, one student's choice never
reaches a neighbour's page).
"""
from __future__ import annotations

import streamlit as st

from lucid import i18n
from lucid.i18n import _
from lucid.ui.playground.keys import keys

SESSION_KEY = "lucid_language"
URL_KEY = "lang"


def from_link(params: dict[str, str]) -> str | None:
    """The language a link asks for (``ko``), or None when it names none (or one the app does not offer)."""
    raw = str(params.get(URL_KEY, "")).strip()
    if not raw:
        return None
    language = i18n.normalize_language(raw)
    return language if language != i18n.DEFAULT_LANGUAGE or raw.lower().startswith("en") else None


def current() -> str:
    """This session's language (English until a link or the picker says otherwise)."""
    return i18n.normalize_language(st.session_state.get(SESSION_KEY, i18n.DEFAULT_LANGUAGE))


def set_language(language: str) -> str:
    """Make ``language`` the session's, this run's (``lucid.i18n``) and the URL's (``lang=``, none for English)."""
    language = i18n.normalize_language(language)
    st.session_state[SESSION_KEY] = language
    i18n.set_language(language)
    publish(language)
    return language


def publish(language: str | None = None) -> None:
    """Say the session's language in the URL: ``lang=ko``, or nothing for the default."""
    language = current() if language is None else language
    if language != i18n.DEFAULT_LANGUAGE:
        if st.query_params.get(URL_KEY) != language:
            st.query_params[URL_KEY] = language
    elif URL_KEY in st.query_params:
        del st.query_params[URL_KEY]


def follow_link() -> str:
    """A run's language: the link's when it names one, else the session's; the URL then agrees.

    A link without ``lang=`` is what a page switch through the menu produces, so it keeps the language.
    """
    linked = from_link(st.query_params.to_dict())
    return set_language(current() if linked is None else linked)


def picker(key: str, container=None) -> str:
    """A compact language choice (English, 한국어), bound to the session's language.

    The choice is applied in the widget's callback, before the page's script runs again, so the whole
    rerun (titles, explanations, the URL) is already in the new language.
    """
    widget_key = keys(key).language
    language = current()
    if widget_key in st.session_state and st.session_state[widget_key] != language:  # a link changed it since
        del st.session_state[widget_key]  # drawn afresh from ``index`` (setting it too would make Streamlit warn)
    return (container or st).selectbox(
        _("Language"), list(i18n.LANGUAGES), index=list(i18n.LANGUAGES).index(language), key=widget_key,
        format_func=i18n.LANGUAGES.get, label_visibility="collapsed", on_change=_chosen, args=(widget_key,),
        help=_("Language of the interface and the explanations; kept in the link."))


def _chosen(widget_key: str) -> None:
    set_language(st.session_state[widget_key])


def corner_picker(key: str) -> str:
    """The picker at the top right of a page that has no row of controls of its own (the lesson pages).

    The Playground has the picker in its title row; every other page gets this one, so a student who
    arrives on a lesson page by a link can still switch the language where they are. It sits beside the
    page's title (pulled up into the title's row), not in a row of its own above it.
    """
    st.html(f"<style>.st-key-{key}_language_corner {{ align-self: flex-end; width: 11rem; height: 0;"
            " margin-bottom: -2rem; overflow: visible; z-index: 5; transform: translateY(2.2rem); }</style>")
    return picker(key, st.container(key=keys(key).language_corner))
