"""The backward stepper: buttons, slider, autoplay, and the frame, explanation and inspector it drives.

All of it lives in one ``st.fragment``: a click on Next or an autoplay tick
reruns only this part of the page, and the frame comes from the session memo,
so nothing else flickers or goes stale. Autoplay is the fragment's
``run_every``; a tick advances only when a step's worth of time has passed, so
a full-page rerun in between never skips a step. No sleeping anywhere.
"""
from __future__ import annotations

import time

import streamlit as st

from lucid import viz
from lucid.ui import stepper
from lucid.ui.analysis import Analysis
from lucid.ui.editor import session_memo
from lucid.ui.graph_view import export_buttons, frame, show_graph, show_legend
from lucid.ui.inspector_view import inspect_clicked, node_inspector
from lucid.ui.memo import LRUMemo
from lucid.ui.options import DrawOptions


def _move(key: str, move: str, n_steps: int) -> None:
    step_key = f"{key}_step"
    st.session_state[step_key] = stepper.MOVES[move](st.session_state.get(step_key, 0), n_steps)
    st.session_state[f"{key}_playing"] = False


def _pause(key: str) -> None:
    st.session_state[f"{key}_playing"] = False


def backward_stepper(key: str, analysis: Analysis, options: DrawOptions, memo: LRUMemo, *,
                     seconds: float, classroom: bool, share_url: bool, zoom: str | float = "screen") -> None:
    """Render the stepper fragment for ``analysis`` (keys prefixed with ``key``)."""
    step_key, playing_key, tick_key = f"{key}_step", f"{key}_playing", f"{key}_last_tick"
    n = analysis.n_steps
    st.session_state[step_key] = stepper.clamp(st.session_state.get(step_key, 0), n)
    playing = bool(st.session_state.get(playing_key)) and n > 1
    run_every = seconds if playing else None
    gifs = session_memo(key, "gifs", capacity=2)

    @st.fragment(run_every=run_every)
    def section() -> None:
        now = time.monotonic()
        if st.session_state.get(playing_key) and run_every is not None:
            if now - st.session_state.get(tick_key, 0.0) >= 0.75 * run_every:
                result = stepper.tick(st.session_state[step_key], n)
                st.session_state[step_key] = result.step
                st.session_state[tick_key] = now
                if not result.playing:
                    st.session_state[playing_key] = False
                    st.rerun()  # the whole page: stop the timer
        elif run_every is not None:
            st.rerun()  # paused by Next/Prev: rerun the page once so the timer stops

        if n > 1:
            with st.container(key=f"{key}_controls"):  # stays on screen while the page scrolls (see classroom)
                _controls(key, n)
        step = st.session_state[step_key]
        if share_url and st.query_params.get("step") != str(step):
            st.query_params["step"] = str(step)

        try:
            graph = frame(memo, analysis, step if n else None, options)
        except viz.GraphTooLarge as err:
            st.warning(f"**Too large to draw.** {err}", icon=":material/warning:")
            return
        # A top-to-bottom graph is tall and narrow: put the explanation beside it, so the
        # highlighted edge and its arithmetic are on screen together.
        beside = options.direction == "TB" and analysis.trace is not None
        graph_area, text_area = st.columns([3, 2], gap="medium") if beside else (st.container(), st.container())
        with graph_area:
            with st.container(key=f"{key}_graph"):
                show_graph(key, memo, analysis, step if n else None, options, graph,
                           on_node=lambda node_id: inspect_clicked(key, analysis, node_id), classroom=classroom,
                           zoom=zoom, follow_first=step > 0)
            st.caption(f"{analysis.n_tensors} tensors · {analysis.n_ops} ops · step 0 is the seed, then "
                       f"{max(n - 1, 0)} gradient steps · thick red border: the node receiving gradient now; "
                       "red arrow: the edge it flows along")

        with text_area:
            if analysis.trace is None:
                st.info(analysis.problem or "There is no backward pass to show.")
            else:
                explanation = viz.explain(analysis.trace, step)
                with st.container(border=True, key=f"{key}_explanation"):
                    st.markdown(f"**{explanation.title_markdown}**")
                    st.markdown(explanation.markdown)

        current = None
        if analysis.trace is not None:
            current = analysis.index_of(analysis.trace.steps[step].parent)
        node_inspector(key, analysis, step if n else None, current)
        with st.expander("Legend", icon=":material/palette:"):
            show_legend()
        with st.expander("Export", icon=":material/download:"):
            export_buttons(key, memo, analysis, graph, step, options, gifs)

    section()


def _controls(key: str, n: int) -> None:
    """First / Previous / Next / Last / Play-Pause and the step slider, in one row."""
    playing = bool(st.session_state.get(f"{key}_playing"))
    step = st.session_state.get(f"{key}_step", 0)
    cols = st.columns([1, 1, 1, 1, 1.2, 4.5], vertical_alignment="center")
    cols[0].button("First", key=f"{key}_first", on_click=_move, args=(key, "first", n),
                   icon=":material/first_page:", width="stretch", disabled=step == 0)
    cols[1].button("Prev", key=f"{key}_prev", on_click=_move, args=(key, "previous", n),
                   icon=":material/chevron_left:", width="stretch", disabled=step == 0)
    cols[2].button("Next", key=f"{key}_next", on_click=_move, args=(key, "next", n),
                   icon=":material/chevron_right:", width="stretch", disabled=step >= n - 1)
    cols[3].button("Last", key=f"{key}_last", on_click=_move, args=(key, "last", n),
                   icon=":material/last_page:", width="stretch", disabled=step >= n - 1)
    if playing:
        if cols[4].button("Pause", key=f"{key}_pause", icon=":material/pause:", width="stretch",
                          on_click=_pause, args=(key,)):
            st.rerun()
    elif cols[4].button("Play", key=f"{key}_play", icon=":material/play_arrow:", width="stretch", type="primary"):
        started = stepper.start(step, n)
        st.session_state[f"{key}_step"] = started.step
        st.session_state[f"{key}_playing"] = started.playing
        st.session_state[f"{key}_last_tick"] = time.monotonic()
        st.rerun()
    cols[5].slider("Step", 0, n - 1, key=f"{key}_step", label_visibility="collapsed",
                   format="step %d",
                   help="Step 0 is the seed gradient at the output; each later step is one gradient "
                        "flowing along one edge.")
