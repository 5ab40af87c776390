"""``to_dot``: a lucid graph, optionally at one step of its backward pass, as a Graphviz Digraph.

The structure (nodes, edges, their order, shapes and label sizes) comes from
``structure.build_model`` and is the same for every step; only classes,
colours, border widths and the text of gradients change from frame to frame, so
Graphviz places every node at the same spot in every frame.

Classes emitted (Graphviz adds ``node``/``edge`` in front in SVG):

- tensor nodes ``t<k>``: kind ``leaf``/``const``/``intermediate``/``output``; with a
  trace also ``current``/``done``/``pending`` and ``partial``/``final``/``nograd``,
  plus ``source`` (its gradient is being pushed now) and ``nan`` (value has NaN/inf);
  without a trace only the kind and ``final``/``nograd``;
- op nodes ``op<k>``: ``op`` plus ``active``/``done``/``pending`` with a trace,
  ``chain`` for a collapsed chain (and ``current`` when the current tensor is hidden in it);
- edges ``e<k>_<slot>``: ``input`` plus ``flowing``/``flowed``/``pending``/``nograd``;
  edges ``o<k>``: ``output`` plus ``active``/``flowed``/``pending`` (``static`` for
  both without a trace).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import graphviz

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace
from lucid.i18n import _
from lucid.viz.errors import GraphTooLarge
from lucid.viz.explanation.opinfo import spec_of
from lucid.viz.graph import statements as dot_lines
from lucid.viz.graph.circuit import circuit_dot
from lucid.viz.graph.collapse import CollapsedView, collapsed_dot
from lucid.viz.graph.labels import (  # noqa: F401  (BACK_ARROW, contribution_note: re-exported)
    BACK_ARROW,
    LabelOptions,
    contribution_note,
    edge_text,
    number_columns,
    op_html,
    tensor_label,
)
from lucid.viz.graph.layout_cost import LAYOUT_BUDGET
from lucid.viz.graph.state import FrameState, edge_steps, frame_state, grads_over_trace, validate_step
from lucid.viz.graph.structure import GraphModel, build_model, is_derivative, model_cost
from lucid.viz.graph.style import (
    DERIVATIVE_CLUSTER,
    DERIVATIVE_CLUSTER_ATTRS,
    DERIVATIVE_OP_STYLE,
    DERIVATIVE_STYLE,
    EDGE_ATTRS,
    EDGE_NOTE_COLOURS,
    EDGE_STYLE,
    GRAPH_ATTRS,
    KIND_STYLE,
    NODE_ATTRS,
    OP_STATE_STYLE,
    PROGRESS_STYLE,
    RED,
    add_legend,
)
from lucid.viz.graph.text import attribute_text, html_text, shorten
from lucid.viz.numbers import has_nonfinite, shape_text

DIRECTIONS = ("LR", "TB", "RL", "BT")
#: Drawing styles: ``default`` (boxes with name, kind, value and gradient rows) and ``circuit``
#: (``lucid.viz.graph.circuit``: CS231n-style wires with the value above and the gradient below).
PRESETS = ("default", "circuit")


def to_dot(root: Tensor | None, trace: Trace | None = None, step: int | None = None, *, direction: str = "LR",
           show_values: bool = True, show_grads: bool = True, show_shapes: bool = True,
           show_constants: bool = True, large: bool | str = "auto", max_nodes: int = 400,
           legend: bool = False, expanded: Iterable[str] | None = None,
           node_cache: dict | None = None, preset: str = "default") -> graphviz.Digraph:
    """The graph of ``root`` (and, with ``trace``, its state after ``step`` gradients have flowed).

    ``step=None`` with a trace shows the end of the pass. ``large="auto"``
    switches large-graph mode on for big graphs (chains of one-input ops
    collapsed, clusters by name prefix, one-line labels). A graph that would
    still draw more than ``max_nodes`` nodes, or whose layout would cost too much,
    is drawn *collapsed* (``lucid.viz.graph.collapse``): boxes for its groups (a neuron, a
    sample, a line of the program, a block of them) with a count each; the groups
    in ``expanded`` (keys like ``"sample 3"`` or box ids ``g<n>``) are drawn open.
    Passing ``expanded`` (even empty) asks for the collapsed drawing. ``step`` is
    then still a step of the trace: the drawing shows the collapsed step that
    holds it (``CollapsedView.step_of``). ``GraphTooLarge`` is raised only with
    ``large=False`` past ``max_nodes``, or past ``collapse.MAX_DRAWN`` (5,000) drawn
    nodes with the groups opened. ``legend=True`` draws the legend beside the graph.
    ``node_cache``: a dict shared by the frames of ONE trace drawn with the same options; a node or edge
    whose state did not change since a frame already drawn reuses its DOT statements, and the graph's structure
    (the model, its layout cost, the gradients over the trace) is built once for every frame
    (``lucid.viz.player.animation``).

    ``preset="circuit"`` draws the same nodes and edges (same ids, same classes) in the style of
    the CS231n circuit diagrams (``lucid.viz.graph.circuit``): always left to right (``direction`` is
    ignored), no clusters. A graph drawn collapsed has boxes, not wires, so the collapsed drawing
    falls back to the default style whatever the preset.
    """
    if root is None:
        if trace is None:
            raise ValueError("to_dot needs a tensor or a trace")
        root = trace.root
    if trace is not None and trace.root is not root:
        raise ValueError("the trace was recorded for a different output tensor than the one given")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, not {preset!r}")
    if large not in ("auto", True, False):
        raise ValueError(f"large must be 'auto', True or False, not {large!r}")
    if expanded is not None and large is not False:
        return _collapsed(root, trace, step, expanded, direction)
    built = None if node_cache is None else node_cache.get(_MODEL)
    if built is None:  # the structure is the same in every frame: with a node cache, built once for all of them
        try:
            model = build_model(root, None if trace is None else trace.order, show_constants=show_constants,
                                large=large, max_nodes=max_nodes)
        except GraphTooLarge:
            if large is False:
                raise
            return _collapsed(root, trace, step, (), direction)
        built = (model, large is not False and model_cost(model) > LAYOUT_BUDGET)
        if node_cache is not None:
            node_cache[_MODEL] = built
    model, too_costly = built
    if too_costly:
        return _collapsed(root, trace, step, (), direction)
    state = frame_state(model, trace, step)
    if preset == "circuit":
        return circuit_dot(model, state, trace, show_values=show_values, show_grads=show_grads,
                           show_shapes=show_shapes, legend=legend)
    options = LabelOptions(show_values, show_grads, show_shapes, grids=not model.large)
    g = graphviz.Digraph("lucid", graph_attr={**GRAPH_ATTRS, "rankdir": direction},
                         node_attr=NODE_ATTRS, edge_attr=EDGE_ATTRS)
    clusters = [graphviz.Digraph(name=f"cluster_{i}", graph_attr=_cluster_attrs(i, prefix))
                for i, prefix in enumerate(model.clusters)]
    _add_nodes(g, clusters, model, state, options, trace, node_cache)
    for c in clusters:
        g.subgraph(c)
    _add_edges(g, model, state, trace if show_grads else None, direction, node_cache)
    if legend:
        box = graphviz.Digraph(name="cluster_legend", graph_attr={
            "label": _("Legend"), "style": "rounded", "color": "#BBBBBB", "id": "legend", "class": "legend"})
        add_legend(box, "legend")
        g.subgraph(box)
    return g


_MODEL = ("model",)
"""A node cache's entry for the frames' shared structure: the model and whether its layout costs too much."""
_GRADS = ("gradients over the trace",)
_EDGE_STEPS = ("edge steps",)


def _once(cache: dict | None, name: tuple, make: Callable[[], Any]) -> Any:
    """``make()``, kept in ``cache`` under ``name`` for the other frames of the same trace (when there is one)."""
    if cache is None:
        return make()
    if name not in cache:
        cache[name] = make()
    return cache[name]


def _cluster_attrs(i: int, prefix: str) -> dict[str, str]:
    """A name-prefix cluster (dashed grey), or the recorded backward pass's cluster (purple, filled)."""
    if prefix == DERIVATIVE_CLUSTER:
        return {"label": f"<{html_text(_(prefix))}>", "id": f"cluster{i}", **DERIVATIVE_CLUSTER_ATTRS}
    return {"label": f"<{html_text(shorten(prefix, 24))}>", "style": "rounded,dashed", "color": "#9A9A9A",
            "fontcolor": "#555555", "id": f"cluster{i}", "class": "prefix"}


def _backward_note(t: Tensor) -> str:
    """Tooltip text for a node of a recorded backward pass: which forward node it differentiates."""
    forward = t._op.differentiates
    op = forward._op
    what = forward.name or (op.describe() if op is not None else _("an input"))
    return " " + _("(backward pass: part of the gradient through {node})").format(node=shorten(what, 40))


def _collapsed(root: Tensor, trace: Trace | None, step: int | None, expanded: Iterable[str],
               direction: str) -> graphviz.Digraph:
    view = CollapsedView(root, trace, expanded)
    collapsed_step = None if trace is None else view.step_of(validate_step(trace, step))
    return collapsed_dot(view, collapsed_step, direction=direction)


def draw(tensor: Tensor, **options: Any) -> graphviz.Digraph:
    """``to_dot(tensor, **options)``: a Digraph, which Jupyter displays inline."""
    return to_dot(tensor, **options)


def _add_nodes(g: graphviz.Digraph, clusters: list[graphviz.Digraph], model: GraphModel, state: FrameState,
               options: LabelOptions, trace: Trace | None, cache: dict | None = None, *,
               grad_word: str = "grad ", status_words: bool | None = None) -> None:
    all_grads = _once(cache, _GRADS, lambda: grads_over_trace(model, trace)) if trace is not None else {}
    current = next((k for k, p in state.progress.items() if p == "current"), None)
    current_chain = model.hidden_in.get(current) if current is not None else None
    ops = {op.index: op for op in model.ops}
    for node in model.tensors:
        k, t = node.index, node.tensor
        target = g if node.cluster is None else clusters[node.cluster]
        key = (k, state.op_state.get(k), current_chain == k, id(state.grads.get(k)), state.grad_status.get(k),
               state.progress.get(k), state.source == k)
        if cache is not None and key in cache:
            target.body.extend(cache[key])
            continue
        first_line = len(target.body)
        op = ops.get(k)
        if op is not None:
            op_state = state.op_state.get(k)
            derivative = is_derivative(t)
            classes = ["op"] + ([op_state] if op_state else []) + (["chain"] if op.is_chain else []) + \
                (["derivative"] if derivative else [])
            attrs = {**KIND_STYLE["op"], **(DERIVATIVE_OP_STYLE if derivative else {}),
                     **OP_STATE_STYLE.get(op_state or "", {})}
            if current_chain == k:
                classes.append("current")
                attrs.update(PROGRESS_STYLE["current"])
            spec = spec_of(t)
            tip = spec.formula if spec is not None and not op.is_chain else op.text
            if derivative:
                tip += _backward_note(t)
            dot_lines.node(target, op.id, label=op_html(op.text), id=op.id, _attributes={"class": " ".join(classes)},
                        tooltip=attribute_text(shorten(tip, 200)), **attrs)
        grads = all_grads.get(k, [])
        if t.grad is not None and trace is None:  # (a Tensor after backward(create_graph=True): its values)
            grads = [t.grad.data if isinstance(t.grad, Tensor) else t.grad]
        width = number_columns([t.data, *grads])
        has_grad_row = t.requires_grad
        status = state.grad_status.get(k, "nograd") if has_grad_row else None
        label = tensor_label(node.label, node.kind, t.data, grad=state.grads.get(k), grad_status=status,
                             width=width, grad_history=grads, options=options,
                             status_words=state.traced if status_words is None else status_words,
                             grad_word=grad_word)
        classes = [node.kind]
        attrs = dict(KIND_STYLE[node.kind])
        if is_derivative(t):
            classes.append("derivative")
            attrs.update(DERIVATIVE_STYLE)
        if state.traced:
            progress = state.progress[k]
            classes.append(progress)
            attrs.update(PROGRESS_STYLE[progress])
            if state.source == k and progress != "current":
                classes.append("source")
                attrs.update(PROGRESS_STYLE["source"])
        classes.append(state.grad_status.get(k, "nograd"))
        if has_nonfinite(t.data):
            classes.append("nan")
            if "current" not in classes:
                attrs["color"] = RED
        tip = f"{node.label}: {node.kind}, shape {shape_text(t.shape)}" if node.kind != "intermediate" else \
            f"{node.label}: shape {shape_text(t.shape)}"
        dot_lines.node(target, node.id, label=label, id=node.id, _attributes={"class": " ".join(classes)},
                    tooltip=attribute_text(shorten(tip, 200)), **attrs)
        if cache is not None:
            cache[key] = target.body[first_line:]


def _add_edges(g: graphviz.Digraph, model: GraphModel, state: FrameState, trace: Trace | None,
               direction: str, cache: dict | None = None) -> None:
    steps = _once(cache, _EDGE_STEPS, lambda: edge_steps(model, trace)) if trace is not None else {}
    for edge in model.edges:
        edge_state = state.edge_state.get(edge.id, "static")
        if cache is not None and ("edge", edge.id, edge_state) in cache:
            g.body.extend(cache[("edge", edge.id, edge_state)])
            continue
        first_line = len(g.body)
        attrs: dict[str, str] = dict(EDGE_STYLE[edge_state])
        if edge.slot_name:
            attrs["headlabel"] = f'<<FONT POINT-SIZE="9" COLOR="#555555">{html_text(edge.slot_name)}</FONT>>'
        if edge.id in steps:
            # the contribution stays on the edge once it has flowed (calmer), so every part added into a
            # node used more than once is on screen together; the label's room never changes
            attrs["label"] = edge_text(contribution_note(steps[edge.id], direction),
                                       edge_state in ("flowing", "flowed"))
            attrs["fontcolor"] = EDGE_NOTE_COLOURS.get(edge_state, EDGE_NOTE_COLOURS["flowing"])
        classes = edge.kind if edge_state == "static" else f"{edge.kind} {edge_state}"
        dot_lines.edge(g, edge.tail, edge.head, id=edge.id, _attributes={"class": classes}, **attrs)
        if cache is not None:
            cache[("edge", edge.id, edge_state)] = g.body[first_line:]
