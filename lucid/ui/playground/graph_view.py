"""One frame of the backward pass on demand, the legend and the exports (Streamlit side).

The Playground plays the animation in the browser (``clickable_graph``); a single
frame's DOT is built here only for an export or for the page without ``dot``.
"""
from __future__ import annotations

import shutil
import time
from collections.abc import Callable

import graphviz
import streamlit as st

from lucid import viz
from lucid.i18n import _, current_language, text, use_language
from lucid.session.analysis import BUILD_LANES, Analysis
from lucid.session.memo import LRUMemo
from lucid.session.options import DrawOptions
from lucid.ui.playground.editor import session_memo
from lucid.ui.playground.keys import keys
from lucid.viz.export import slide as slides


def frame(analysis: Analysis, step: int | None, options: DrawOptions,
          expanded: tuple[str, ...] | None = None) -> graphviz.Digraph:
    """The Digraph of ``analysis`` after ``step`` gradients (no trace: just the forward graph).

    ``expanded``: for a graph drawn collapsed, the boxes the student opened (None: not collapsed).
    Raises ``lucid.viz.GraphTooLarge`` for graphs past the node cap. Made only when asked for (an
    export, or the page without ``dot``): the browser plays the animation without it.
    """
    trace = analysis.trace
    return viz.to_dot(analysis.program.output, trace, None if trace is None else step, expanded=expanded,
                      **options.as_kwargs())


def static_frame(analysis: Analysis, step: int | None, options: DrawOptions) -> None:
    """One frame drawn by Streamlit's in-browser Graphviz (the page without ``dot`` on the server)."""
    st.graphviz_chart(frame(analysis, step, options), width="stretch", height="content")


_LEGENDS: dict[str, tuple[bool, str]] = {}


def legend_source() -> tuple[bool, str]:
    """The legend in this run's language, built once per language (it is the same for every program):
    whether it is a graph, and its DOT (else its text)."""
    language = current_language()
    made = _LEGENDS.get(language)
    if made is None:
        legend = viz.legend()
        graph = isinstance(legend, graphviz.Graph | graphviz.Digraph)
        made = _LEGENDS[language] = (graph, legend.source if graph else str(legend))
    return made


def show_legend() -> None:
    """The colour/shape legend, beside the graph, so colour is never the only signal."""
    graph, source = legend_source()
    if graph:
        st.graphviz_chart(source, width="content")
    else:
        st.markdown(source)


DOT_CHECK_SECONDS = 30.0
"""How long the answer to "is ``dot`` installed?" is kept: the page asks twice per run, and each look walks
the ``PATH``; Graphviz installed while the server runs is seen within this long."""
_DOT_FOUND: list[tuple[float, bool]] = []


def has_dot() -> bool:
    """Whether Graphviz's ``dot`` binary is installed (needed for SVG, PNG and GIF files)."""
    now = time.monotonic()
    if _DOT_FOUND and now - _DOT_FOUND[-1][0] < DOT_CHECK_SECONDS:
        return _DOT_FOUND[-1][1]
    found = shutil.which("dot") is not None
    _DOT_FOUND[:] = [(now, found)]
    return found


GIF_STEP_LIMIT = 80
"""Most backward steps offered as a GIF: each step is one ``dot`` render, so more would keep the
class waiting for minutes (single frames still export as PNG or SVG)."""


def export_buttons(key: str, analysis: Analysis, step: int, options: DrawOptions,
                   expanded: tuple[str, ...] | None = None) -> None:
    """DOT always; SVG and PNG of a chosen step and the whole pass as a GIF when ``dot`` exists.

    A collapsed graph exports as it is on screen: with the boxes in ``expanded`` open.

    The graph above steps in the browser, so the step to export is chosen here (it starts at the
    step the page last heard of: a shared link's step, or the step of the last node clicked).
    Files are made only when their button is clicked. The GIF takes one render per step, so it is
    made by its own button, under a spinner, and kept per session for the download.
    """
    n = analysis.n_steps
    chosen = step
    if n > 1:
        chosen = int(st.number_input(_("Step to export"), 0, n - 1, value=int(step), key=keys(key).export_step,
                                     help=_("Step 0 is the seed; the last step shows every final gradient.")))
    base = f"lucid-step{chosen}"
    cols = st.columns(4)
    cols[0].download_button("DOT", lambda: frame(analysis, chosen, options, expanded).source, file_name=f"{base}.dot",
                            mime="text/vnd.graphviz", key=keys(key).dl_dot, on_click="ignore",
                            icon=":material/download:")
    if not has_dot():
        st.caption(_("SVG, PNG and GIF exports need Graphviz's `dot` program on the server "
                     "(Debian: `apt-get install graphviz`); the DOT file opens in any Graphviz viewer."))
        return
    cols[1].download_button("SVG", lambda: viz.to_svg(frame(analysis, chosen, options, expanded)),
                            file_name=f"{base}.svg", mime="image/svg+xml",
                            key=keys(key).dl_svg, on_click="ignore", icon=":material/download:")
    cols[2].download_button("PNG", lambda: viz.to_png(frame(analysis, chosen, options, expanded)),
                            file_name=f"{base}.png", mime="image/png", key=keys(key).dl_png, on_click="ignore",
                            icon=":material/download:")
    if analysis.trace is not None:
        with cols[3]:
            _gif_button(key, analysis, options, session_memo(key, "gifs", capacity=1))
        _slide_buttons(key, analysis, chosen, options, expanded)


def slide_file(make: Callable[..., bytes], root: object, trace: object, step: int, kwargs: dict,
               language: str) -> Callable[[], bytes]:
    """The deferred maker of one slide file: Streamlit calls it on the click, outside the page's run (and its
    language), so the words are written in the ``language`` the page had."""
    def made() -> bytes:
        with use_language(language):
            return make(root, trace, step, **kwargs)

    return made


def _slide_buttons(key: str, analysis: Analysis, step: int, options: DrawOptions,
                   expanded: tuple[str, ...] | None) -> None:
    """The chosen step as a 1280×720 slide: the whole graph with the step's title and arithmetic line.

    A plain PNG of a tall graph is as tall as the graph (1415×3361 for the MLP); a slide is the size a
    projector shows, with the numbers of the step written large beside or under the graph.
    """
    root, trace = analysis.program.output, analysis.trace
    kwargs = {**options.as_kwargs(), "expanded": expanded}
    language = current_language()
    cols = st.columns(4)
    cols[0].download_button(_("16:9 slide (PNG)"), slide_file(slides.still_png, root, trace, step, kwargs, language),
                            file_name=f"lucid-step{step}-slide.png", mime="image/png", key=keys(key).dl_slide_png,
                            on_click="ignore", icon=":material/slideshow:",
                            help=_("This step on a 1280×720 slide, with its arithmetic line written under or "
                                   "beside the graph."))
    cols[1].download_button(_("16:9 slide (SVG)"), slide_file(slides.still_svg, root, trace, step, kwargs, language),
                            file_name=f"lucid-step{step}-slide.svg", mime="image/svg+xml",
                            key=keys(key).dl_slide_svg, on_click="ignore", icon=":material/slideshow:")


def _gif_button(key: str, analysis: Analysis, options: DrawOptions, gifs: LRUMemo) -> None:
    n = analysis.n_steps
    if n > GIF_STEP_LIMIT:
        st.caption(_("No GIF for {n} steps (at most {limit}): export single frames instead.").format(
            n=n, limit=GIF_STEP_LIMIT))
        return
    slide = st.checkbox(_("16:9 slide"), key=keys(key).gif_slide,
                        help=_("The whole graph on a 1280×720 canvas, at the same place in every frame, with each "
                               "step's arithmetic line: ready to drop into a presentation."))
    made = ("gif", analysis.source, analysis.seed, analysis.variant, options, slide, current_language())
    slot = st.empty()  # the Make button, then the download in its place
    if made not in gifs:
        if not slot.button(_("Make GIF"), key=keys(key).make_gif, icon=":material/movie:",
                           help=_("Draws all {n} steps of the backward pass into one animation.").format(n=n)):
            return
        trace, root = analysis.trace, analysis.program.output
        try:
            drawing = _("Drawing {n} frames…").format(n=n)
            with st.spinner(drawing), BUILD_LANES.costly:  # one render-per-step job at a time
                gifs.get(made, lambda: viz.animation_gif(root, trace, slide=slide, **options.as_kwargs()))
        except (viz.GraphTooLarge, viz.RenderError, viz.GraphvizNotInstalled) as err:
            st.warning(text(err), icon=":material/warning:")
            return
    slot.download_button(_("GIF (whole pass)"), lambda: gifs.get(made, bytes),
                         file_name="lucid-backward-slide.gif" if slide else "lucid-backward.gif",
                         mime="image/gif", key=keys(key).dl_gif, on_click="ignore", icon=":material/download:")
