"""A *Copy link* button: the address of the view on screen (program, step, view) onto the clipboard.

The address bar always holds the share link (the server writes the program and
the view into it, the player writes the step), so the button copies the page's
own address at the moment it is pressed, with no server round trip. The
clipboard API needs a secure context (https, or this machine); a classroom server
on plain http over the LAN falls back to the old copy command and, failing that,
shows the link selected in a field for Ctrl+C.

Trusted inline JavaScript in ``st.html`` (constant text, no user input), no build step, no network.
"""
from __future__ import annotations

import html
from functools import cache
from importlib import resources

import streamlit as st

from lucid.i18n import N_, _
from lucid.ui.playground.keys import keys

LABEL = N_("Copy link")
HELP = N_("Copies this page's link (program, step and view) to the clipboard, to share or put in a lesson plan.")

_HTML = """
<div class="lucid-copy-link" data-copied-text="COPIED" data-press-text="PRESS">
  <button type="button" class="lucid-copy-button" title="HELP">LABEL</button>
  <span class="lucid-copy-status" role="status" aria-live="polite"></span>
  <input class="lucid-copy-field" type="text" readonly hidden aria-label="FIELD">
</div>
"""

SCRIPT_FILE = "copy_link.js"
STYLESHEET_FILE = "copy_link.css"


@cache
def _read(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text("utf-8")


def _page() -> str:
    """The button in the reader's language (our own constant words, escaped; no user text)."""
    words = {"LABEL": _(LABEL), "HELP": _(HELP), "COPIED": _("Link copied"), "PRESS": _("Press Ctrl+C to copy:"),
             "FIELD": _("Link to copy")}
    body = _HTML
    for marker, word in words.items():
        body = body.replace(marker, html.escape(word, quote=True))
    return f"<style>{_read(STYLESHEET_FILE)}</style>{body}<script>{_read(SCRIPT_FILE)}</script>"


def copy_link_button(key: str) -> None:
    """The *Copy link* button of a page whose URL is its share link (in a container keyed ``<key>_copy_link``).

    Constant, trusted HTML and JavaScript (no user text goes into it), so ``st.html`` may run the script.
    """
    with st.container(key=keys(key).copy_link):
        st.html(_page(), unsafe_allow_javascript=True)
