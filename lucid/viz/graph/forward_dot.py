"""The graph at one step of forward mode: tangents in place of gradients, flowing with the arrows.

The same nodes, edges, shapes and colours as ``to_dot`` (so the picture reads like the backward
player's), drawn from a ``ForwardTrace``: a node's second row is its tangent (``tang``), the
node whose tangent is computed at this step has the thick "current" border, the edges from its
moving inputs are the flowing ones, and inputs that do not move along the direction are drawn
like constants (dotted). Step 0 shows only the chosen direction on the inputs.
"""
from __future__ import annotations

import graphviz

from lucid.autograd.forward_trace import ForwardTrace
from lucid.viz.graph.dot import DIRECTIONS, _add_edges, _add_nodes, _cluster_attrs
from lucid.viz.graph.labels import LabelOptions
from lucid.viz.graph.state import FrameState
from lucid.viz.graph.structure import GraphModel, build_model
from lucid.viz.graph.style import EDGE_ATTRS, GRAPH_ATTRS, NODE_ATTRS

TANGENT_WORD = "tang "  # the label row of a tangent (5 characters, like "val  " and "grad ")


def forward_state(model: GraphModel, trace: ForwardTrace, step: int) -> FrameState:
    """What every drawn element looks like after ``step`` tangent steps (0: only the seeds)."""
    if not 0 <= step <= len(trace.steps):
        raise IndexError(f"step {step} is out of range: this forward pass has steps 0..{len(trace.steps)}")
    index_of = model.index_of
    moving = {index_of[i] for i in (id(t) for t in trace.order) if i in trace.seeds}
    seeds = set(moving)
    moving |= {index_of[id(s.node)] for s in trace.steps}
    tangents = {index_of[id(t)]: trace.seeds[id(t)] for t in trace.order if id(t) in trace.seeds}
    for s in trace.steps[:step]:
        tangents[index_of[id(s.node)]] = s.tangent
    current = index_of[id(trace.steps[step - 1].node)] if step else None
    state = FrameState(step, True)
    for k in range(len(model.order)):
        if k in tangents:
            state.grads[k] = tangents[k]
            state.grad_status[k] = "final"  # a tangent is computed once, from tangents already final
        else:
            state.grad_status[k] = "nograd"
        if k == current or (step == 0 and k in seeds):
            state.progress[k] = "current"
        elif k in tangents or k not in moving:
            state.progress[k] = "done"
        else:
            state.progress[k] = "pending"
    for op in model.ops:
        last = op.covers[-1]
        if current is not None and current in op.covers:
            state.op_state[op.index] = "active"
        elif last in tangents:
            state.op_state[op.index] = "done"
        else:
            state.op_state[op.index] = "pending"
    for edge in model.edges:
        if edge.kind == "output":
            op_state = state.op_state.get(edge.child)
            state.edge_state[edge.id] = {"active": "active", "done": "flowed"}.get(op_state, "pending")
        elif edge.parent not in moving:
            state.edge_state[edge.id] = "nograd"
        elif edge.child == current:
            state.edge_state[edge.id] = "flowing"
        else:
            state.edge_state[edge.id] = "flowed" if edge.child in tangents else "pending"
    return state


def forward_dot(trace: ForwardTrace, step: int, *, direction: str = "LR", show_values: bool = True,
                show_shapes: bool = True, max_nodes: int = 150) -> graphviz.Digraph:
    """The graph of ``trace.root`` after ``step`` forward steps. Raises ``GraphTooLarge`` past ``max_nodes``."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    model = build_model(trace.root, trace.order, large=False, max_nodes=max_nodes)
    state = forward_state(model, trace, step)
    options = LabelOptions(show_values, True, show_shapes, grids=True)
    g = graphviz.Digraph("lucid_forward", graph_attr={**GRAPH_ATTRS, "rankdir": direction},
                         node_attr=NODE_ATTRS, edge_attr=EDGE_ATTRS)
    clusters = [graphviz.Digraph(name=f"cluster_{i}", graph_attr=_cluster_attrs(i, prefix))
                for i, prefix in enumerate(model.clusters)]
    _add_nodes(g, clusters, model, state, options, None, grad_word=TANGENT_WORD, status_words=False)
    for c in clusters:
        g.subgraph(c)
    _add_edges(g, model, state, None, direction)
    return g
