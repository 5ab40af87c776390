"""The graph of one frame of the backward pass, its legend and its exports (Streamlit side).

Frames are memoized per session by (program, seed, step, options): stepping
back and forth, or autoplay looping, never rebuilds a DOT it already made.
"""
from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable

import graphviz
import streamlit as st

from lucid import viz
from lucid.ui.analysis import Analysis
from lucid.ui.clickable_graph import clickable_graph
from lucid.ui.memo import LRUMemo
from lucid.ui.options import DrawOptions


def frame(memo: LRUMemo, analysis: Analysis, step: int | None, options: DrawOptions) -> graphviz.Digraph:
    """The Digraph of ``analysis`` after ``step`` gradients (no trace: just the forward graph).

    Raises ``lucid.viz.GraphTooLarge`` for graphs past the node cap.
    """
    key = ("frame", analysis.source, analysis.seed, step, options)

    def build() -> graphviz.Digraph:
        trace = analysis.trace
        return viz.to_dot(analysis.program.output, trace, None if trace is None else step, **options.as_kwargs())

    return memo.get(key, build)


def frame_svg(memo: LRUMemo, analysis: Analysis, step: int | None, options: DrawOptions,
              graph: graphviz.Digraph) -> tuple[str, str]:
    """The frame rendered by ``dot`` as SVG text, and a short id of the picture (memoized like the DOT)."""
    key = ("svg", analysis.source, analysis.seed, step, options)

    def render() -> tuple[str, str]:
        svg = viz.to_svg(graph)
        text = svg.decode("utf-8") if isinstance(svg, bytes) else str(svg)
        return text, hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()

    return memo.get(key, render)


def show_graph(key: str, memo: LRUMemo, analysis: Analysis, step: int | None, options: DrawOptions,
               graph: graphviz.Digraph, on_node: Callable[[str], None], classroom: bool = False,
               zoom: str | float = "screen", follow_first: bool = False) -> None:
    """Draw the frame: a clickable server-rendered SVG when ``dot`` exists, else Streamlit's in-browser Graphviz."""
    if has_dot():
        try:
            svg, frame_id = frame_svg(memo, analysis, step, options, graph)
        except (viz.GraphvizNotInstalled, viz.RenderError):
            pass
        else:
            clickable_graph(svg, frame_id, key=f"{key}_graphclick", on_node=on_node, classroom=classroom,
                            zoom=zoom, follow_first=follow_first)
            return
    st.graphviz_chart(graph, width="stretch", height="content")


def show_legend() -> None:
    """The colour/shape legend, beside the graph, so colour is never the only signal."""
    legend = viz.legend()
    if isinstance(legend, graphviz.Graph | graphviz.Digraph):
        st.graphviz_chart(legend, width="content")
    else:
        st.markdown(str(legend))


def has_dot() -> bool:
    """Whether Graphviz's ``dot`` binary is installed (needed for SVG, PNG and GIF files)."""
    return shutil.which("dot") is not None


GIF_STEP_LIMIT = 80
"""Most backward steps offered as a GIF: each step is one ``dot`` render, so more would keep the
class waiting for minutes (single frames still export as PNG or SVG)."""


def export_buttons(key: str, memo: LRUMemo, analysis: Analysis, graph: graphviz.Digraph, step: int,
                   options: DrawOptions, gifs: LRUMemo | None = None) -> None:
    """DOT always; SVG and PNG of this frame and the whole pass as a GIF when ``dot`` exists.

    SVG and PNG are made only when clicked. The GIF takes one render per step, so it is made by
    its own button, under a spinner, and kept in ``gifs`` for the download; a graph too large to
    animate gets a message instead of a download that never arrives.
    """
    base = f"lucid-step{step}"
    cols = st.columns(4)
    cols[0].download_button("DOT", graph.source, file_name=f"{base}.dot", mime="text/vnd.graphviz",
                            key=f"{key}_dl_dot", on_click="ignore", icon=":material/download:")
    if not has_dot():
        st.caption("SVG, PNG and GIF exports need Graphviz's `dot` program on the server "
                   "(Debian: `apt-get install graphviz`); the DOT file opens in any Graphviz viewer.")
        return
    cols[1].download_button("SVG", lambda: frame_svg(memo, analysis, step, options, graph)[0],
                            file_name=f"{base}.svg", mime="image/svg+xml",
                            key=f"{key}_dl_svg", on_click="ignore", icon=":material/download:")
    cols[2].download_button("PNG", lambda: viz.to_png(graph), file_name=f"{base}.png", mime="image/png",
                            key=f"{key}_dl_png", on_click="ignore", icon=":material/download:")
    if analysis.trace is not None:
        with cols[3]:
            _gif_button(key, analysis, options, memo if gifs is None else gifs)


def _gif_button(key: str, analysis: Analysis, options: DrawOptions, gifs: LRUMemo) -> None:
    n = analysis.n_steps
    if n > GIF_STEP_LIMIT:
        st.caption(f"No GIF for {n} steps (at most {GIF_STEP_LIMIT}): export single frames instead.")
        return
    made = ("gif", analysis.source, analysis.seed, options)
    slot = st.empty()  # the Make button, then the download in its place
    if made not in gifs:
        if not slot.button("Make GIF", key=f"{key}_make_gif", icon=":material/movie:",
                           help=f"Draws all {n} steps of the backward pass into one animation."):
            return
        trace, root = analysis.trace, analysis.program.output
        try:
            with st.spinner(f"Drawing {n} frames…"):
                gifs.get(made, lambda: viz.animation_gif(root, trace, **options.as_kwargs()))
        except (viz.GraphTooLarge, viz.RenderError, viz.GraphvizNotInstalled) as err:
            st.warning(str(err), icon=":material/warning:")
            return
    slot.download_button("GIF (whole pass)", lambda: gifs.get(made, bytes), file_name="lucid-backward.gif",
                         mime="image/gif", key=f"{key}_dl_gif", on_click="ignore", icon=":material/download:")
