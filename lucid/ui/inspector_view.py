"""The node inspector (Streamlit side): pick a node, see its full arrays, its op and its parents.

In a collapsed drawing a click on a box (``g<n>``) shows the box instead: its size, what it
holds and how many of its gradients have arrived at the step on screen.
"""
from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from lucid.ui import inspector
from lucid.ui.analysis import Analysis, hierarchy_of
from lucid.viz.numbers import shape_text

FOLLOW = "The node receiving gradient at this step"


def _group_key(key: str) -> str:
    return f"{key}_inspect_group"


def inspect_clicked(key: str, analysis: Analysis, node_id: str) -> None:
    """Widget callback for a click in the graph: show that node (or box) in the inspector."""
    k = inspector.node_from_click(node_id, analysis.n_tensors)
    if k is not None:
        st.session_state[f"{key}_inspect"] = inspector.node_choices(analysis)[k]
        st.session_state.pop(_group_key(key), None)
    elif inspector.group_from_click(node_id, hierarchy_of(analysis)) is not None:
        st.session_state[_group_key(key)] = node_id


def node_inspector(key: str, analysis: Analysis, step: int | None, current: int | None,
                   expanded: Iterable[str] = ()) -> None:
    """An expander with a node list; by default it follows the node the current step flows into.

    ``expanded``: the boxes open in the drawing (so a clicked box says whether it is open).
    """
    choices = inspector.node_choices(analysis)
    with st.container(border=True, key=f"{key}_inspector"):
        st.markdown("**:material/search: Inspect a node** — pick it here or click it in the graph")
        pick_key = f"{key}_inspect"
        if st.session_state.get(pick_key) not in (FOLLOW, *choices):
            st.session_state[pick_key] = FOLLOW
        picked = st.selectbox("Node", [FOLLOW, *choices], key=pick_key, label_visibility="collapsed",
                              help="Nodes are numbered in topological order, like t3 in the graph.",
                              on_change=lambda: st.session_state.pop(_group_key(key), None))
        box = st.session_state.get(_group_key(key))
        if box is not None:
            details = inspector.group_details(analysis, hierarchy_of(analysis), box, step, expanded)
            if details is not None:
                _group_section(details)
                st.button("Inspect single nodes again", key=f"{key}_inspect_nodes", icon=":material/arrow_back:",
                          on_click=lambda: st.session_state.pop(_group_key(key), None),
                          help="Back to the node picked in the list (by default the one receiving gradient).")
                return
            st.session_state.pop(_group_key(key), None)
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


def _group_section(d: inspector.GroupDetails) -> None:
    """What the inspector shows for a clicked box."""
    state = "open (click its ▾ header to close it)" if d.is_open else "closed (click it to open it)"
    st.markdown(f"**{d.group_id} · box {d.label}** — {d.size:,} nodes, {state}")
    inside = []
    if d.inner_groups:
        inside.append(f"{d.inner_groups} smaller box{'es' if d.inner_groups != 1 else ''}")
    if d.loose:
        inside.append(f"{d.loose} node{'s' if d.loose != 1 else ''} of its own")
    if inside:
        st.markdown("Holds " + " and ".join(inside) + ".")
    if d.needing_gradient:
        st.markdown(f"Gradients at this step: **{d.with_gradient} of {d.needing_gradient}** nodes that need one "
                    f"have one, {d.final_gradient} final.")
    else:
        st.markdown("Nothing in this box needs a gradient (constants only).")
    listed = ", ".join(d.members) + (f" and {d.more:,} more" if d.more else "")
    st.markdown(f"Members: {listed}")
