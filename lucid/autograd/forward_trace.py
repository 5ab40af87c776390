"""Forward mode one node at a time: the record of a tangent pass, for stepping and explaining.

``forward_trace(root, seeds)`` pushes the tangents ``seeds`` (``{input tensor: tangent array}``)
through the graph that made ``root`` in forward order, the way ``lucid.autograd.jvp`` does, and
keeps every step: which node, its inputs' tangents and its own. Reverse mode's counterpart is
``backward_trace``; here nothing flows backward, so the steps run in the order the values were
computed and each node is visited once.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.autograd.forward import push_tangents
from lucid.autograd.grad import graph_order


@dataclass(frozen=True)
class TangentStep:
    """One node's tangent, computed from its inputs' tangents by its op's ``jvp`` rule."""

    node: Tensor
    input_tangents: tuple[np.ndarray | None, ...]  # None: that input does not move along the direction
    tangent: np.ndarray


@dataclass
class ForwardTrace:
    """A whole tangent pass: the order, the seeds and one step per node that moved."""

    root: Tensor
    order: list[Tensor]
    seeds: dict[int, np.ndarray]
    steps: list[TangentStep] = field(default_factory=list)

    def tangent_of(self, tensor: Tensor, step: int | None = None) -> np.ndarray | None:
        """``tensor``'s tangent after ``step`` steps (all of them by default), or None if it has none yet."""
        if id(tensor) in self.seeds:
            return self.seeds[id(tensor)]
        steps = self.steps if step is None else self.steps[:step]
        return next((s.tangent for s in steps if s.node is tensor), None)

    @property
    def output_tangent(self) -> np.ndarray:
        """The root's tangent: the directional derivative of the output (zeros if it does not move)."""
        found = self.tangent_of(self.root)
        return np.zeros(self.root.shape) if found is None else found


def forward_trace(root: Tensor, seeds: Mapping[Tensor, object]) -> ForwardTrace:
    """Push ``seeds`` forward through ``root``'s graph, recording each node's tangent.

    ``seeds`` maps input tensors of the graph to their tangents (arrays of their shapes). The
    graph must have been recorded (``root.requires_grad``), as for a backward pass.

    A seed for a tensor the output does not use moves nothing: it is left out (the output's tangent
    along it is 0, as PyTorch's forward mode gives), so "every input at once" of a program with an
    unused input is still one pass.
    """
    order = graph_order([root])
    known = {id(t) for t in order}
    table: dict[int, Tensor] = {}
    seed_arrays: dict[int, np.ndarray] = {}
    for tensor, value in seeds.items():
        array = np.array(value.data if isinstance(value, Tensor) else value, dtype=np.float64)
        if array.shape != tensor.shape:
            raise ValueError(f"a tangent has shape {array.shape} but its input has shape {tensor.shape}")
        if id(tensor) not in known:  # the output does not depend on it: its tangent reaches nothing
            continue
        table[id(tensor)] = Tensor(array)
        seed_arrays[id(tensor)] = array
    trace = ForwardTrace(root, order, seed_arrays)

    def record(node: Tensor, incoming: list, tangent: Tensor) -> None:
        trace.steps.append(TangentStep(node, tuple(None if t is None else t.data for t in incoming), tangent.data))

    push_tangents(order, table, record=record)
    return trace
