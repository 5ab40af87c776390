"""Streamlit section of the Train an MLP page: one step as 13 array nodes beside thousands of scalar nodes.

The scalar graph is drawn collapsed (``lucid.viz.large_view``): a select box opens or
closes a box, a slider steps through the backward pass at the collapsed level, and an
overview + detail pair shows where the current step is. The graphs are built once per
seed and shared by every session (``process_cache``: read-only once built, and no client can clear them);
each drawing is timed on the server and the times are shown.
"""
from __future__ import annotations

import time

import graphviz
import streamlit as st

from lucid.data import load
from lucid.i18n import _, format_integer
from lucid.lessons.graph_sizes import SEED_HIDDEN, SEED_SAMPLES, GraphSizes, step_graphs
from lucid.lessons.training import make_model, prepare
from lucid.ui.runtime.process_cache import process_cache
from lucid.viz import (
    CollapsedView,
    GraphvizNotInstalled,
    RenderError,
    describe_step,
    large_frame,
    large_view,
    to_dot,
    toggle,
)
from lucid.viz.export.pictures import to_svg

_EXPANDED = "gs_expanded"


@process_cache(max_entries=4, spinner=_("Building the scalar graph of one step…"))
def _sizes(seed: int) -> GraphSizes:
    prepared = prepare(load("file chunks"))
    model = make_model(prepared.Z.shape[1], SEED_HIDDEN, seed)
    return step_graphs(model, prepared.Z, prepared.y, SEED_SAMPLES)


@process_cache(max_entries=64)
def _view(seed: int, expanded: tuple[str, ...]) -> tuple[CollapsedView, float]:
    start = time.perf_counter()
    sizes = _sizes(seed)
    view = large_view(sizes.scalar.root, sizes.scalar.trace, expanded)
    return view, time.perf_counter() - start


@process_cache(max_entries=256, max_bytes=64 << 20, sizeof=lambda svg_seconds: len(svg_seconds[0]), disk=True)
def _svg(seed: int, expanded: tuple[str, ...], step: int, which: str) -> tuple[bytes, float]:
    view, view_seconds = _view(seed, expanded)
    start = time.perf_counter()
    frame = large_frame(view, step, direction="LR")
    svg = to_svg(getattr(frame, which))
    return svg, time.perf_counter() - start + view_seconds


@process_cache(max_entries=128, max_bytes=32 << 20, sizeof=len, disk=True)
def _svg_of(dot_source: str) -> bytes:
    """The SVG of one DOT text, laid out once per server: a page's graph depends only on its widgets' values,
    so every session showing the same graph reuses the layout (a ``dot`` run costs tens of milliseconds)."""
    return to_svg(dot_source)


def graph_image(graph: graphviz.Digraph, alt: str, width: str | int = "content") -> None:
    """Show a graph as the SVG Graphviz's ``dot`` lays out on the server, at its own size (never blown up,
    shrunk only to fit the column), so its text stays the size it was made; ``st.graphviz_chart`` (which
    lays it out in the browser) when ``dot`` is missing.

    ``alt`` is the picture's text alternative (WCAG 1.1.1): what the graph shows, in a sentence; the page's
    text around it says the rest. An ``<img>`` of an SVG exposes none of the SVG's own text.
    """
    try:
        svg = graph_svg(graph)
    except (GraphvizNotInstalled, RenderError):
        st.graphviz_chart(graph)
        return
    st.image(svg.decode("utf-8"), width=width, alt=alt)


def graph_svg(graph: graphviz.Digraph) -> bytes:
    """The SVG ``graph_image`` shows for ``graph`` (laid out once per server; the warm-up asks first)."""
    return _svg_of(graph.source)


def _tensor_step_graph(sizes: GraphSizes) -> graphviz.Digraph:
    # its structure is the point here: names, kinds and shapes only, so it is drawn at full size
    return to_dot(sizes.tensor.root, direction="TB", show_values=False, show_grads=False, large=True)


def warm_scalar_section(seed: int) -> None:
    """Compute what ``scalar_step_section(seed)`` shows before anyone opens or steps it (``lucid.ui.runtime.warmup``):
    both graphs, the collapsed view and its three drawings at the last step."""
    graph_svg(_tensor_step_graph(_sizes(int(seed))))
    view, _seconds = _view(int(seed), ())
    for which in ("main", "overview", "detail"):
        _svg(int(seed), (), len(view.steps) - 1, which)


def scalar_step_section(seed: int) -> None:
    """The whole section: both graphs, their sizes and times, the collapsed scalar graph to explore."""
    sizes = _sizes(int(seed))
    st.header(_("The same step as scalars: thousands of nodes, drawn"))
    st.write(_("The design notes' experiment: 5 features → {hidden} tanh → 1 sigmoid on {samples} points of the "
               "file-chunk data, one training step. Built from arrays it is **{tensor_nodes} nodes**; built from "
               "0-d tensors, written as the notes write it, it is **{scalar_nodes} nodes** ({ratio}×), with the "
               "same loss.").format(hidden=SEED_HIDDEN, samples=sizes.samples, tensor_nodes=sizes.tensor.nodes,
                                    scalar_nodes=format_integer(sizes.scalar.nodes),
                                    ratio=format_integer(round(sizes.node_ratio))))
    left, right = st.columns([1, 2])
    with left:
        st.subheader(_("tensors"))
        a, b = st.columns(2)
        a.metric(_("nodes"), f"{sizes.tensor.nodes:,}")
        b.metric(_("build + backward"), f"{sizes.tensor.seconds * 1000:.1f} ms")
        st.metric(_("loss"), f"{sizes.tensor.loss:.12f}")
        graph_image(_tensor_step_graph(sizes), _(
            "Graph of the training step built from arrays: {n} nodes, from the data and the parameters to the "
            "loss, with each node's name, kind and shape.").format(n=sizes.tensor.nodes))
    with right:
        st.subheader(_("scalars, collapsed"))
        a, b = st.columns(2)
        a.metric(_("nodes"), f"{sizes.scalar.nodes:,}")
        b.metric(_("build + backward"), f"{sizes.scalar.seconds * 1000:.0f} ms")
        st.metric(_("loss"), f"{sizes.scalar.loss:.12f}",
                  help=_("difference from the tensor loss: {difference}").format(
                      difference=f"{abs(sizes.scalar.loss - sizes.tensor.loss):.1e}"))
        expanded = tuple(sorted(st.session_state.get(_EXPANDED, ())))
        view, _seconds = _view(int(seed), expanded)
        _open_close(view, expanded)
        expanded = tuple(sorted(st.session_state.get(_EXPANDED, ())))
        view, _seconds = _view(int(seed), expanded)
        n = len(view.steps)
        step = st.slider(_("backward step (collapsed)"), 0, n - 1, n - 1, key=f"gs_step_{n}",
                         help=_("A step is the gradient working through one box and leaving it; inside an open "
                                "box every gradient is its own step."))
        svg, seconds = _svg(int(seed), expanded, step, "main")
        where = describe_step(view, step)
        st.caption(where + " " + _(
            "{drawn} boxes and nodes drawn for {nodes} nodes, {steps} collapsed steps for {trace_steps} trace "
            "steps; drawn on the server in {seconds} s.").format(
            drawn=view.node_count, nodes=format_integer(sizes.scalar.nodes), steps=n,
            trace_steps=format_integer(len(view.trace.steps)), seconds=f"{seconds:.2f}"))
        if view.closed_for_budget:
            st.caption(_("{n} open groups were closed again to keep the layout within its budget.").format(
                n=len(view.closed_for_budget)))
        st.image(svg.decode("utf-8"), width="stretch", alt=_(
            "The scalar graph drawn collapsed: {drawn} boxes and nodes for {nodes} nodes. {step}").format(
            drawn=view.node_count, nodes=format_integer(sizes.scalar.nodes), step=where))
    with st.expander(_("Where this step is: the whole graph small, the current region large"), expanded=False):
        o, d = st.columns([2, 3])
        o.image(_svg(int(seed), expanded, step, "overview")[0].decode("utf-8"),
                alt=_("The whole collapsed graph, small, with the current region marked. {step}").format(step=where))
        d.image(_svg(int(seed), expanded, step, "detail")[0].decode("utf-8"),
                alt=_("The current region of the collapsed graph, large. {step}").format(step=where))


def _open_close(view: CollapsedView, expanded: tuple[str, ...]) -> None:
    """A select box that opens a drawn box or closes an open group (a click on the drawing does the same
    in the Playground)."""
    boxes = [(u, view.group_of_unit(u)) for u in view.units if u.startswith("g")]
    choices = {"—": None}
    for unit, grp in boxes:
        if grp is not None:
            choices[_("open ▸ {label} ({n} nodes)").format(label=grp.label, n=format_integer(grp.size))] = unit
    for grp in view.open_groups:
        choices[_("close ▾ {label}").format(label=grp.label)] = grp.id

    def apply() -> None:
        picked = choices.get(st.session_state.get("gs_toggle", "—"))
        if picked is not None:
            st.session_state[_EXPANDED] = tuple(sorted(toggle(view, expanded, picked)))
        st.session_state["gs_toggle"] = "—"

    st.selectbox(_("open or close a box"), list(choices), key="gs_toggle", on_change=apply)
