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

_JS = r"""
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(text); return true; } catch (e) { /* fall through */ }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
  area.remove();
  return ok;
}

function bind(root) {
  root.dataset.ready = '1';
  const button = root.querySelector('.lucid-copy-button');
  const status = root.querySelector('.lucid-copy-status');
  const field = root.querySelector('.lucid-copy-field');
  let timer = null;
  button.addEventListener('click', async () => {
    // the player keeps ?step= in it up to date; a class's teacher token (teach=) never leaves in a link
    const url = new URL(window.location.href);
    url.searchParams.delete('teach');
    const link = url.toString();
    const ok = await copyText(link);
    root.dataset.copied = ok ? link : '';
    field.hidden = ok;
    if (ok) {
      status.textContent = root.dataset.copiedText || 'Link copied';
    } else {
      status.textContent = root.dataset.pressText || 'Press Ctrl+C to copy:';
      field.value = link;
      field.focus();
      field.select();
    }
    clearTimeout(timer);
    if (ok) timer = setTimeout(() => { status.textContent = ''; }, 2500);
  });
}

document.querySelectorAll('.lucid-copy-link:not([data-ready])').forEach(bind);
"""

_CSS = """
.lucid-copy-link { display: flex; align-items: center; gap: 0.5rem; flex-wrap: wrap; }
.lucid-copy-link .lucid-copy-button {
  font: inherit; padding: 0.25rem 0.75rem; min-height: 2.5rem; cursor: pointer;
  color: inherit; background: transparent; border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem;
}
.lucid-copy-link .lucid-copy-button:hover { border-color: #D55E00; color: #D55E00; }
.lucid-copy-link .lucid-copy-status { font-size: 0.875rem; color: #555555; white-space: nowrap; }
.lucid-copy-link .lucid-copy-field { font: inherit; font-size: 0.875rem; width: 100%; }
"""



def _page() -> str:
    """The button in the reader's language (our own constant words, escaped; no user text)."""
    words = {"LABEL": _(LABEL), "HELP": _(HELP), "COPIED": _("Link copied"), "PRESS": _("Press Ctrl+C to copy:"),
             "FIELD": _("Link to copy")}
    body = _HTML
    for marker, word in words.items():
        body = body.replace(marker, html.escape(word, quote=True))
    return f"<style>{_CSS}</style>{body}<script>{_JS}</script>"


def copy_link_button(key: str) -> None:
    """The *Copy link* button of a page whose URL is its share link (in a container keyed ``<key>_copy_link``).

    Constant, trusted HTML and JavaScript (no user text goes into it), so ``st.html`` may run the script.
    """
    with st.container(key=keys(key).copy_link):
        st.html(_page(), unsafe_allow_javascript=True)
