"""The Export panel's *Interactive HTML*: the player on screen as one offline file (``lucid.viz.save_html``).

The file is the program on screen, drawn as on screen (the same shared animation, boxes opened as they
are), in the page's language. Made by its own button, like the GIF: writing every node's facts takes a
moment for a large graph, and a graph whose file would pass ``HTML_LIMIT_BYTES`` gets a message, not a
file. Kept per session for the download.

Class mode: ``upto`` (a student's held step, ``lucid.ui.live_class.room_hold``) cuts the file before the
asked step, as the student's player is cut (``lucid.viz.player.redact``); the panel itself shows no
export while a question is open, so this is the second lock, not the only one.
"""
from __future__ import annotations

import streamlit as st

from lucid import viz
from lucid.i18n import _, current_language, text, use_language
from lucid.notebook.html_file import html_text
from lucid.session.analysis import BUILD_LANES, Analysis, shared_animation
from lucid.session.options import DrawOptions
from lucid.ui.playground.editor import session_memo
from lucid.ui.playground.keys import keys


def html_file(analysis: Analysis, options: DrawOptions, expanded: tuple[str, ...], *, step: int,
              upto: int | None, language: str) -> bytes:
    """The file's bytes for ``analysis`` drawn with ``options`` and ``expanded`` boxes, opening at ``step``.

    Raises ``viz.HtmlTooLarge`` past the size limit, and what ``shared_animation`` raises.
    """
    with use_language(language):  # the animation's titles and explanations in the file's language too
        anim = shared_animation(analysis, options, expanded)
    return html_text(analysis, anim, lang=language, step=step, upto=upto,
                     beside=analysis.trace is not None).encode("utf-8")


def html_button(key: str, analysis: Analysis, options: DrawOptions, expanded: tuple[str, ...], *, step: int,
                upto: int | None = None) -> None:
    """*Make interactive HTML*, then the download in its place (both in the page's language)."""
    if analysis.trace is None:
        return
    language = current_language()
    made = ("html", analysis.source, analysis.seed, analysis.variant, options, tuple(expanded), step, upto, language)
    files = session_memo(key, "html_files", capacity=1)
    slot = st.empty()
    if made not in files:
        if not slot.button(_("Make interactive HTML"), key=keys(key).make_html, icon=":material/html:",
                           help=_("One HTML file that steps through this backward pass in any browser, offline: "
                                  "for a course site, an LMS page or a slide (<iframe>).")):
            return
        try:
            with st.spinner(_("Writing the HTML file…")), BUILD_LANES.costly:
                files.get(made, lambda: html_file(analysis, options, expanded, step=step, upto=upto,
                                                  language=language))
        except (viz.HtmlTooLarge, viz.GraphTooLarge, viz.RenderError, viz.GraphvizNotInstalled) as err:
            st.warning(text(err), icon=":material/warning:")
            return
    slot.download_button(_("Interactive HTML"), lambda: files.get(made, bytes), file_name="lucid-backward.html",
                         mime="text/html", key=keys(key).dl_html, on_click="ignore", icon=":material/download:")
