"""Where the backward pass stands at one step: the per-frame half of a picture.

``frame_state(model, trace, step)`` says, for each drawn element, its state after
steps ``0..step`` of the trace have been applied. These become the DOT ``class``
of each element (and its colours/border/text), never its size or position.

Tensor nodes (with a trace):
- progress: ``current`` (its gradient changes at this step: step 0 is the seed at
  the output), ``done`` (has a gradient; constants, which never get one, count as
  done), ``pending`` (not reached yet);
- gradient: ``partial`` (more contributions still to come along other paths),
  ``final``, or ``nograd`` (none yet, or never for constants);
- ``source`` on the tensor whose gradient is being pushed to its input now.
Op nodes: ``active`` (its backward runs at this step), ``done``, ``pending``.
Edges: ``flowing`` (exactly one per step after the seed: the input edge the
gradient flows along now), ``flowed``, ``pending``, ``nograd`` (into constants).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lucid.autograd import Trace, TraceStep
from lucid.viz.graph.structure import GraphModel


@dataclass
class FrameState:
    step: int | None
    traced: bool
    grads: dict[int, np.ndarray] = field(default_factory=dict)  # tensor index -> gradient shown
    progress: dict[int, str] = field(default_factory=dict)
    grad_status: dict[int, str] = field(default_factory=dict)
    source: int | None = None
    current_step: TraceStep | None = None
    op_state: dict[int, str] = field(default_factory=dict)  # by op node index
    edge_state: dict[str, str] = field(default_factory=dict)  # by edge id


def validate_step(trace: Trace, step: int | None) -> int:
    """The step to draw: ``None`` means the end of the pass; out-of-range steps are an error."""
    n = len(trace.steps)
    if step is None:
        return n - 1
    step = int(step)
    if not 0 <= step < n:
        raise IndexError(f"step {step} is out of range: this backward pass has steps 0..{n - 1}")
    return step


def frame_state(model: GraphModel, trace: Trace | None, step: int | None) -> FrameState:
    """Classes and gradients of every drawn element at ``step`` (static state without a trace)."""
    if trace is None:
        return _static_state(model)
    step = validate_step(trace, step)
    index_of = model.index_of
    current = trace.steps[step]
    state = FrameState(step, True, current_step=current)

    last_step: dict[int, TraceStep] = {}  # tensor index -> the last step (≤ step) that updated it
    edge_step: dict[tuple[int, int], int] = {}  # (child, slot) -> step index, whole trace
    op_steps: dict[int, list[int]] = {}
    for s in trace.steps:
        if s.node is not None:
            k = index_of[id(s.node)]
            edge_step[(k, s.slot)] = s.index
            op_steps.setdefault(k, []).append(s.index)
        if s.index <= step:
            last_step[index_of[id(s.parent)]] = s
    cur_parent = index_of[id(current.parent)]
    state.source = None if current.node is None else index_of[id(current.node)]

    for k, tensor in enumerate(model.order):
        got = last_step.get(k)
        if got is not None:
            state.grads[k] = got.accumulated
            state.grad_status[k] = "final" if got.is_final else "partial"
        else:
            state.grad_status[k] = "nograd"
        if k == cur_parent:
            state.progress[k] = "current"
        elif got is not None or not tensor.requires_grad:
            state.progress[k] = "done"
        else:
            state.progress[k] = "pending"

    for op in model.ops:
        indices = [i for c in op.covers for i in op_steps.get(c, [])]
        if step in indices:
            state.op_state[op.index] = "active"
        elif indices and max(indices) < step:
            state.op_state[op.index] = "done"
        else:
            state.op_state[op.index] = "pending"
    for edge in model.edges:
        if edge.kind == "output":
            active = state.op_state.get(edge.child) == "active"
            has_grad = edge.child in state.grads
            state.edge_state[edge.id] = "active" if active else ("flowed" if has_grad else "pending")
            continue
        at = edge_step.get((edge.child, edge.slot))
        if at is None:
            state.edge_state[edge.id] = "nograd"
        elif at == step:
            state.edge_state[edge.id] = "flowing"
        else:
            state.edge_state[edge.id] = "flowed" if at < step else "pending"
    return state


def _static_state(model: GraphModel) -> FrameState:
    """Without a trace: show whatever gradients the tensors hold now."""
    state = FrameState(None, False)
    for k, tensor in enumerate(model.order):
        if tensor.grad is not None:
            grad = tensor.grad  # a Tensor after backward(create_graph=True): its values
            state.grads[k] = np.asarray(grad.data if hasattr(grad, "requires_grad") else grad)
            state.grad_status[k] = "final"
        else:
            state.grad_status[k] = "nograd"
    return state


def edge_steps(model: GraphModel, trace: Trace) -> dict[str, TraceStep]:
    """The trace step that flows along each drawn input edge (edges into constants have none)."""
    by_key: dict[tuple[int, int], TraceStep] = {}
    for s in trace.steps:
        if s.node is not None:
            by_key[(model.index_of[id(s.node)], s.slot)] = s
    return {e.id: by_key[(e.child, e.slot)] for e in model.edges
            if e.kind == "input" and (e.child, e.slot) in by_key}


def grads_over_trace(model: GraphModel, trace: Trace) -> dict[int, list[np.ndarray]]:
    """Every gradient each tensor shows during the pass (for label widths that never change)."""
    out: dict[int, list[np.ndarray]] = {}
    for s in trace.steps:
        out.setdefault(model.index_of[id(s.parent)], []).append(s.accumulated)
    return out
