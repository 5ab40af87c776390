"""The graph as text: what a screen reader says for each drawn node, in step with the picture.

The picture says a node's name, value and gradient in SVG text laid out for the eye (padded columns, grids,
a "pending" placeholder); a screen reader needs one sentence per node, such as "t6, tanh of t5, value 0.7616,
gradient 0.4200, final; inputs t5; used by t7". ``node_texts(root, trace, **options)`` gives the player the
parts of those sentences as plain data (``Animation.nodes``), and the browser puts them together in the
reader's language (``logic.mjs``'s ``nodeName``, with the player's words) at every step:

- ``order``: the drawn tensor nodes in topological order (inputs first), each with its SVG ``id``, ``name``
  (the one the picture shows), ``kind`` (leaf, const, intermediate, output), ``op`` (the op that made it, by
  its registry name: ``tanh``, ``mul``) and its ``inputs``/``users`` (ids of drawn tensor nodes), and ``value``
  (the forward value, as the picture writes numbers), and ``grad``: whether it gets a gradient at all.
- ``grads``: ``[trace step, node id, gradient text, final]`` for every trace step that reaches a drawn node
  (the node's gradient after it, accumulated, and whether it is final), in step order: a step whose gradient
  stays inside a box of a collapsed drawing sends nothing.

A collapsed drawing (``collapsed_node_texts``) names its tensors drawn on their own the same way; its boxes
are named from their drawn text in the browser. Gradients travel per trace step, so a student's player cut
before a question's step (``lucid.viz.player.redact``) holds none of the answers.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace
from lucid.i18n import _
from lucid.viz.errors import GraphTooLarge
from lucid.viz.explanation.opinfo import op_label, spec_of
from lucid.viz.graph.collapse import CollapsedView
from lucid.viz.graph.structure import build_model, kind_of
from lucid.viz.numbers import format_grid, format_number, shape_text, summary_numbers

#: Most elements an array's text lists one by one; a larger one is said as its shape and min, mean and max.
LISTED = 6


def number_text(values: Any) -> str:
    """A value or gradient as a screen reader hears it: ``0.7616``; ``[1.000, −2.000]``; ``2×3: min …, max …``."""
    a = np.asarray(values)
    if a.dtype.kind == "b":
        a = a.astype(np.float64)
    if a.ndim == 0:
        return format_number(float(a))
    if a.size == 0:
        return shape_text(a.shape)
    if a.size <= LISTED:
        return "[" + ", ".join(format_grid(a)) + "]"
    summary = summary_numbers(a)
    if summary is None:
        return shape_text(a.shape)
    low, mean, high = format_grid(list(summary))
    return _("{shape}: min {low}, mean {mean}, max {high}").format(shape=shape_text(a.shape), low=low, mean=mean,
                                                                     high=high)


def node_texts(root: Tensor, trace: Trace, *, show_constants: bool = True, large: bool | str = "auto",
               max_nodes: int = 400, **_drawing: Any) -> dict[str, Any] | None:
    """The parts of every drawn tensor node's spoken name and its gradient per trace step (None if none).

    Takes ``to_dot``'s options (those that decide what is drawn are used, the rest ignored), so the nodes
    named are the nodes drawn. None when the model cannot be built the way ``to_dot`` draws it in full.
    """
    try:
        model = build_model(root, trace.order, show_constants=show_constants, large=large, max_nodes=max_nodes)
    except GraphTooLarge:
        return None
    drawn = {n.index for n in model.tensors}
    inputs: dict[int, list[str]] = {}
    users: dict[int, list[str]] = {}
    made_by = {op.index: op for op in model.ops}  # result tensor index -> the op node that made it
    result_of = {op.covers[0]: op.index for op in model.ops}  # a collapsed chain's input edge names its first op
    for edge in model.edges:
        if edge.kind != "input" or edge.parent not in drawn:
            continue
        result = result_of.get(edge.child, edge.child)
        inputs.setdefault(result, []).append(f"t{edge.parent}")  # b * b: "mul of b, b"
        if f"t{result}" not in users.setdefault(edge.parent, []):
            users[edge.parent].append(f"t{result}")
    order = []
    for node in sorted(model.tensors, key=lambda n: n.index):
        op = made_by.get(node.index)
        if op is None:
            op_name = ""
        elif op.is_chain:
            op_name = op.text
        else:
            spec = spec_of(node.tensor)
            op_name = spec.name if spec is not None else op.text
        order.append({"id": node.id, "name": node.label, "kind": node.kind, "op": op_name,
                      "value": number_text(node.tensor.data), "inputs": inputs.get(node.index, []),
                      "users": users.get(node.index, []), "grad": bool(node.tensor.requires_grad)})
    grads = []
    for s in trace.steps:
        k = model.index_of[id(s.parent)]
        if k in drawn:
            grads.append([s.index, f"t{k}", number_text(s.accumulated), bool(s.is_final)])
    return {"order": order, "grads": grads}


def collapsed_node_texts(view: CollapsedView) -> dict[str, Any] | None:
    """The same for a collapsed drawing (``lucid.viz.graph.collapse``): its tensors drawn on their own, and its
    boxes as ``{"id", "box": True, "name"}`` (the browser names a box from its drawn text, which says how many
    of its gradients have arrived). Inputs and users are drawn nodes: a tensor fed from inside a box names the
    box. ``grads`` holds only the gradients of tensors drawn on their own (a gradient inside a box is counted by
    the box), and only those are formatted: a trace of a hundred thousand steps formats and sends a few."""
    if view.trace is None:
        return None
    order_of = view.order
    unit_of = view.unit_of

    def tensor_name(k: int) -> str:
        t = order_of[k]
        return str(t.name) if t.name else ("out" if t is view.root else f"t{k}")

    inputs: dict[str, list[str]] = {}
    users: dict[str, list[str]] = {}
    for k, t in enumerate(order_of):
        u = unit_of[k]
        for p in t._prev:
            pu = unit_of[view.index_of[id(p)]]
            if u == f"t{k}":
                inputs.setdefault(u, []).append(pu)
            if pu != u and u not in users.setdefault(pu, []):
                users[pu].append(u)
    order = []
    for u in view.units:
        group = view.group_of_unit(u)
        if group is not None:
            order.append({"id": u, "box": True, "name": group.label})
            continue
        k = int(u[1:])
        t = order_of[k]
        spec = spec_of(t)
        order.append({"id": u, "name": tensor_name(k), "kind": kind_of(t, view.root),
                      "op": spec.name if spec is not None else (op_label(t) if t._op is not None else ""),
                      "value": number_text(t.data), "inputs": inputs.get(u, []), "users": users.get(u, []),
                      "grad": bool(t.requires_grad)})
    grads = []
    for s in view.trace.steps:
        k = view.index_of[id(s.parent)]
        if unit_of[k] == f"t{k}":
            grads.append([s.index, f"t{k}", number_text(s.accumulated), bool(s.is_final)])
    return {"order": order, "grads": grads}
