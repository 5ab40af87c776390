"""What the browser's document says about the page: its title and its language (WCAG 2.4.2 and 3.1.1).

A screen reader announces the tab's title first, and a list of tabs all titled "Lucid Graph Lab" tells a
student nothing, so each page is titled by its own name in the reader's language ("기울기 확인 · Lucid
Graph Lab"): ``st.set_page_config`` may be called again after ``st.navigation`` and its title is what the browser
shows. The document's language decides the voice a screen reader reads with; Streamlit serves
``<html lang="en">`` for every page and has no setting for it, so a one-line script sets
``document.documentElement.lang`` from this run's language.

The same hidden element carries the app's page-wide stylesheet (``lucid.ui.projector.contrast``): one element
per page whose text is the same in every run, so a rerun never redraws it. (On a fresh load Streamlit draws an
``st.html`` a moment after the page's text, once its code is loaded; the browser tests wait for it.)
"""
from __future__ import annotations

import json

import streamlit as st

from lucid import i18n

APP_NAME = "Lucid Graph Lab"
SEPARATOR = " · "
#: The hidden container of the language script (``st-key-<key>``): ``display: none`` on it and on the layout
#: wrapper Streamlit puts around it (the flex item of the page's column) leaves no gap above the page.
HEAD_KEY = "lucid_document_head"


def title(page_title: str) -> str:
    """The browser title of a page named ``page_title`` (already translated): the page first, then the app."""
    page_title = page_title.strip()
    if not page_title or page_title == APP_NAME:
        return APP_NAME
    return f"{page_title}{SEPARATOR}{APP_NAME}"


def head(language: str, css: str = "") -> str:
    """The hidden element's HTML: ``css`` (``<style>`` elements) and the script that sets ``<html lang>``.

    ``language`` is made one of ``lucid.i18n.LANGUAGES`` (never user text) and written as a JSON string. The
    script runs when the element is drawn: on every page switch and when the picker changes the language (its
    text changes); a rerun in the same language leaves the element, and the document, as they are.
    """
    code = json.dumps(i18n.normalize_language(language))
    hidden = f".st-key-{HEAD_KEY}, [data-testid=\"stLayoutWrapper\"]:has(> .st-key-{HEAD_KEY})"
    return (f"<style>{hidden} {{ display: none; }}</style>{css}"
            f"<script>document.documentElement.lang = {code};</script>")


def name_page(page_title: str, language: str, css: str = "") -> None:
    """Title this run's page, set the document's language and add ``css`` (once per run, nothing visible)."""
    st.set_page_config(page_title=title(page_title))
    with st.container(key=HEAD_KEY):
        st.html(head(language, css), unsafe_allow_javascript=True)
