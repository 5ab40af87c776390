"""Keep the URL in step with the Playground, so any view can be shared as a link."""
from __future__ import annotations

import streamlit as st

from lucid.session import share
from lucid.session import stepping as stepper
from lucid.session.analysis import Analysis
from lucid.ui.playground.keys import keys


def on_program_shown(key: str, analysis: Analysis) -> None:
    """When a new program appears: start at the linked step (first visit) or the seed, and put it in the URL."""
    shown_key = keys(key).shown
    if st.session_state.get(shown_key) == (analysis.source, analysis.seed):
        return
    first_time = shown_key not in st.session_state
    st.session_state[shown_key] = (analysis.source, analysis.seed)
    linked = st.session_state.pop(keys(key).initial_step, None) if first_time else None
    # A link may name a step past the program's last one: the URL then says the step that is shown.
    st.session_state[keys(key).step] = stepper.clamp(linked, analysis.n_steps) if linked is not None else 0
    params = share.encode(analysis.source, step=st.session_state[keys(key).step])
    for stale in (share.PLAIN_KEY, share.PACKED_KEY, "example"):
        if stale not in params and stale in st.query_params:
            del st.query_params[stale]
    st.query_params.update(params)
