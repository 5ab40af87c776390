"""The node inspector (Streamlit side): pick a node, see its full arrays, its op and its parents.

In a collapsed drawing a click on a box (``g<n>``) shows the box instead: its size, what it
holds and how many of its gradients have arrived at the step on screen.
"""
from __future__ import annotations

import html
from collections.abc import Iterable

import streamlit as st

from lucid.i18n import N_, _, format_integer, ngettext
from lucid.session import inspector
from lucid.session.analysis import Analysis, hierarchy_of
from lucid.ui.playground.keys import keys
from lucid.viz.numbers import shape_text

FOLLOW = N_("The node receiving gradient at this step")


def inspect_clicked(key: str, analysis: Analysis, node_id: str) -> None:
    """Widget callback for a click in the graph: show that node (or box) in the inspector."""
    k = inspector.node_from_click(node_id, analysis.n_tensors)
    if k is not None:
        st.session_state[keys(key).inspect] = inspector.node_choices(analysis)[k]
        st.session_state.pop(keys(key).inspect_group, None)
    elif inspector.group_from_click(node_id, hierarchy_of(analysis)) is not None:
        st.session_state[keys(key).inspect_group] = node_id


def node_inspector(key: str, analysis: Analysis, step: int | None, current: int | None,
                   expanded: Iterable[str] = ()) -> None:
    """An expander with a node list; by default it follows the node the current step flows into.

    ``expanded``: the boxes open in the drawing (so a clicked box says whether it is open).
    """
    choices = inspector.node_choices(analysis)
    with st.container(border=True, key=keys(key).inspector):
        st.markdown(_("**:material/search: Inspect a node** — pick it here or click it in the graph"))
        if step is not None:  # shown only once the player has stepped elsewhere (projector/inspector.css)
            with st.container(key=keys(key).inspector_note):
                st.caption(_(":material/history: Shown at step {step}; the graph is at another step now. Click a "
                             "node, or press Enter on it, to inspect it at the step on screen.").format(step=step))
        pick_key = keys(key).inspect
        if st.session_state.get(pick_key) not in (FOLLOW, *choices):
            st.session_state[pick_key] = FOLLOW
        picked = st.selectbox(_("Node"), [FOLLOW, *choices], key=pick_key, label_visibility="collapsed",
                              format_func=lambda choice: _(FOLLOW) if choice == FOLLOW else choice,
                              help=_("Nodes are numbered in topological order, like t3 in the graph."),
                              on_change=lambda: st.session_state.pop(keys(key).inspect_group, None))
        box = st.session_state.get(keys(key).inspect_group)
        if box is not None:
            details = inspector.group_details(analysis, hierarchy_of(analysis), box, step, expanded)
            if details is not None:
                _group_section(details)
                st.button(_("Inspect single nodes again"), key=keys(key).inspect_nodes, icon=":material/arrow_back:",
                          on_click=lambda: st.session_state.pop(keys(key).inspect_group, None),
                          help=_("Back to the node picked in the list (by default the one receiving gradient)."))
                return
            st.session_state.pop(keys(key).inspect_group, None)
        k = current if picked == FOLLOW else choices.index(picked)
        if k is None:
            k = len(choices) - 1
        d = inspector.node_details(analysis, k, step)
        size = _("scalar") if not d.shape else _("shape {shape}").format(shape=shape_text(d.shape))
        st.markdown(f"**{d.node_id} · {d.title}** — {_(d.kind)}, {size}, float64")  # lucid computes in float64 only
        left, right = st.columns(2)
        with left:
            st.markdown(_("Value"))
            array_block(d.value)
        with right:
            state = _("final") if d.gradient_is_final else _("partial: more contributions still to come")
            st.markdown(_("Gradient ({state})").format(state=state) if d.gradient is not None else _("Gradient"))
            array_block(d.gradient if d.gradient is not None else _("not reached yet at this step"))
        if d.op:
            made = _("Made by **{op}**").format(op=d.op)
            st.markdown(made + (f": `{d.formula}`" if d.formula else ""))
            if d.derivatives:
                st.markdown(_("Local derivatives: {list}").format(list=", ".join(f"`{x}`" for x in d.derivatives)))
        if d.parents:
            st.markdown(_("Inputs (parents): {list}").format(list=", ".join(d.parents)))
        if d.children:
            st.markdown(_("Used by: {list}").format(list=", ".join(d.children)))


def array_block(text: str) -> None:
    """An array's printout as preformatted text in a grey box (``ARRAY_CLASS``, styled in projector/inspector.css).

    Not ``st.code``: the first code block on a page makes the browser load and run Streamlit's syntax highlighter
    with every language's grammar, for text that has nothing to colour; without it a Playground load costs the
    browser about 0.5 s less CPU (5.07 against 5.57 s, eight loads each). A Tab stop, as st.code's box is: a wide
    array scrolls sideways, and a keyboard reaches what it scrolls to.
    """
    st.html(f'<pre class="{ARRAY_CLASS}" tabindex="0">{html.escape(text)}</pre>')


ARRAY_CLASS = "lgl-array"


def _group_section(d: inspector.GroupDetails) -> None:
    """What the inspector shows for a clicked box."""
    state = _("open (click its ▾ header to close it)") if d.is_open else _("closed (click it to open it)")
    st.markdown(_("**{id} · box {label}** — {n} nodes, {state}").format(id=d.group_id, label=d.label,
                                                                         n=format_integer(d.size), state=state))
    inside = []
    if d.inner_groups:
        inside.append(ngettext("{n} smaller box", "{n} smaller boxes", d.inner_groups).format(n=d.inner_groups))
    if d.loose:
        inside.append(ngettext("{n} node of its own", "{n} nodes of its own", d.loose).format(n=d.loose))
    if len(inside) == 2:
        st.markdown(_("Holds {first} and {second}.").format(first=inside[0], second=inside[1]))
    elif inside:
        st.markdown(_("Holds {first}.").format(first=inside[0]))
    if d.needing_gradient:
        st.markdown(_("Gradients at this step: **{got} of {need}** nodes that need one have one, {final} final.")
                    .format(got=d.with_gradient, need=d.needing_gradient, final=d.final_gradient))
    else:
        st.markdown(_("Nothing in this box needs a gradient (constants only)."))
    listed = ", ".join(d.members)
    if d.more:
        listed = _("{names} and {k} more").format(names=listed, k=format_integer(d.more))
    st.markdown(_("Members: {list}").format(list=listed))
