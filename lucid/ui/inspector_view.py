"""The node inspector (Streamlit side): pick a node, see its full arrays, its op and its parents."""
from __future__ import annotations

import streamlit as st

from lucid.ui import inspector
from lucid.ui.analysis import Analysis
from lucid.viz.numbers import shape_text

FOLLOW = "The node receiving gradient at this step"


def inspect_clicked(key: str, analysis: Analysis, node_id: str) -> None:
    """Widget callback for a click in the graph: show that node in the inspector."""
    k = inspector.node_from_click(node_id, analysis.n_tensors)
    if k is not None:
        st.session_state[f"{key}_inspect"] = inspector.node_choices(analysis)[k]


def node_inspector(key: str, analysis: Analysis, step: int | None, current: int | None) -> None:
    """An expander with a node list; by default it follows the node the current step flows into."""
    choices = inspector.node_choices(analysis)
    with st.container(border=True, key=f"{key}_inspector"):
        st.markdown("**:material/search: Inspect a node** — pick it here or click it in the graph")
        pick_key = f"{key}_inspect"
        if st.session_state.get(pick_key) not in (FOLLOW, *choices):
            st.session_state[pick_key] = FOLLOW
        picked = st.selectbox("Node", [FOLLOW, *choices], key=pick_key, label_visibility="collapsed",
                              help="Nodes are numbered in topological order, like t3 in the graph.")
        k = current if picked == FOLLOW else choices.index(picked)
        if k is None:
            k = len(choices) - 1
        d = inspector.node_details(analysis, k, step)
        size = "scalar" if not d.shape else f"shape {shape_text(d.shape)}"
        st.markdown(f"**{d.node_id} · {d.title}** — {d.kind}, {size}")
        left, right = st.columns(2)
        with left:
            st.markdown("Value")
            st.code(d.value, language=None)
        with right:
            state = "final" if d.gradient_is_final else "partial: more contributions still to come"
            st.markdown("Gradient" + (f" ({state})" if d.gradient is not None else ""))
            st.code(d.gradient if d.gradient is not None else "not reached yet at this step", language=None)
        if d.op:
            st.markdown(f"Made by **{d.op}**" + (f": `{d.formula}`" if d.formula else ""))
            if d.derivatives:
                st.markdown("Local derivatives: " + ", ".join(f"`{x}`" for x in d.derivatives))
        if d.parents:
            st.markdown("Inputs (parents): " + ", ".join(d.parents))
        if d.children:
            st.markdown("Used by: " + ", ".join(d.children))
