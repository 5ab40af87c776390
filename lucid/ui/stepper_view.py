"""The backward stepper: the in-browser player, its caption, the node inspector, legend and exports.

The animation of the program (one layout, per-step changes, explanations) comes
from the process-wide cache and is handed to the player component once; stepping,
the slider, keys and autoplay then happen in the browser with no rerun. The
server's idea of the step (``<key>_step``) is where a shared link or a new
program starts, and what the browser reported with the last click on a node: the
node inspector and the exports use it.
"""
from __future__ import annotations

import hashlib

import streamlit as st

from lucid import viz
from lucid.ui import graph_view, stepper
from lucid.ui.analysis import Analysis, shared_animation
from lucid.ui.classroom import TOP_BAR
from lucid.ui.clickable_graph import animation_player
from lucid.ui.graph_view import export_buttons, show_legend, static_frame
from lucid.ui.inspector_view import inspect_clicked, node_inspector
from lucid.ui.options import DrawOptions
from lucid.viz.style import BLUE, EDGE_STYLE, GREEN, GREY, ORANGE, PROGRESS_STYLE, RED, VERMILLION

COLOUR_WORDS = {VERMILLION: "orange-red", ORANGE: "orange", BLUE: "blue", GREEN: "green", GREY: "grey", RED: "red"}
"""Words for the drawing's colours (``lucid.viz.style``), so the caption names what the eye sees."""


def colour_word(colour: str) -> str:
    """The everyday name of one of the drawing's colours (its hex code if it has none)."""
    return COLOUR_WORDS.get(colour.upper(), COLOUR_WORDS.get(colour, colour))


def caption_text(analysis: Analysis) -> str:
    """Counts, and what the highlight colours mean, in the colours the drawing really uses."""
    n = analysis.n_steps
    node = colour_word(PROGRESS_STYLE["current"]["color"])
    edge = colour_word(EDGE_STYLE["flowing"]["color"])
    return (f"{analysis.n_tensors} tensors · {analysis.n_ops} ops · step 0 is the seed, then {max(n - 1, 0)} "
            f"gradient steps · thick {node} border: the node receiving gradient now; "
            f"thick {edge} arrow: the edge it flows along")


def backward_stepper(key: str, analysis: Analysis, options: DrawOptions, *, seconds: float, classroom: bool,
                     share_url: bool, zoom: str | float = "screen") -> None:
    """The player for ``analysis`` and what goes with it (session keys prefixed with ``key``)."""
    step_key = f"{key}_step"
    n = analysis.n_steps
    step = st.session_state[step_key] = stepper.clamp(st.session_state.get(step_key, 0), n)

    def on_node(node_id: str, at_step: int) -> None:
        st.session_state[step_key] = stepper.clamp(at_step, n)
        if share_url:  # the server's copy of the URL follows, so a later rewrite keeps this step
            st.query_params["step"] = str(st.session_state[step_key])
        inspect_clicked(key, analysis, node_id)

    with st.container(key=f"{key}_graph"):
        if graph_view.has_dot():
            try:
                anim = shared_animation(analysis, options)
            except viz.GraphTooLarge as err:
                st.warning(f"**Too large to draw.** {err}", icon=":material/warning:")
                return
            except (viz.GraphvizNotInstalled, viz.RenderError) as err:
                st.warning(f"**Could not draw the graph.** {err}", icon=":material/warning:")
                return
            program_id = hashlib.blake2b(f"{analysis.seed}\n{analysis.source}".encode(), digest_size=8).hexdigest()
            animation_player(anim, key=f"{key}_player", step=step, on_node=on_node, program_id=program_id,
                             seconds=seconds, classroom=classroom, zoom=zoom, beside=analysis.trace is not None,
                             follow_first=step > 0, share_url=share_url, top=TOP_BAR)
        else:
            try:
                static_frame(analysis, step if n else None, options)
            except viz.GraphTooLarge as err:
                st.warning(f"**Too large to draw.** {err}", icon=":material/warning:")
                return
            if analysis.trace is not None:
                _server_explanation(key, analysis, n)
        st.caption(caption_text(analysis))
    if analysis.trace is None:
        st.info(analysis.problem or "There is no backward pass to show.")

    current = None
    if analysis.trace is not None:
        current = analysis.index_of(analysis.trace.steps[step].parent)
    node_inspector(key, analysis, step if n else None, current)
    with st.expander("Legend", icon=":material/palette:"):
        show_legend()
    with st.expander("Export", icon=":material/download:"):
        export_buttons(key, analysis, step, options)


def _server_explanation(key: str, analysis: Analysis, n: int) -> None:
    """Without ``dot`` (no player): a step slider and the explanation, rendered by the server."""
    if n > 1:
        st.slider("Step", 0, n - 1, key=f"{key}_step", format="step %d")
    explanation = viz.explain(analysis.trace, st.session_state[f"{key}_step"])
    with st.container(border=True, key=f"{key}_explanation"):
        st.markdown(f"**{explanation.title_markdown}**")
        st.markdown(explanation.markdown)
