"""A record of every gradient that flows during backward: the animation's script.

One ``TraceStep`` per edge (node -> parent), in the exact order the engine
applied them, with copies of every array involved so the record stays true after
the engine releases non-leaf gradients.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lucid._backend.core import _grad_dtype
from lucid._tensor.tensor import Tensor
from lucid.autograd.backward import backward


@dataclass(frozen=True)
class TraceStep:
    """One gradient flowing from ``node`` into its input ``parent`` (slot ``slot``).

    ``contribution_raw`` is upstream · local before shape matching;
    ``contribution`` is what was added to the parent after summing away the
    broadcast axes listed in ``summed_axes`` (axes of ``contribution_raw``).
    Step 0 is the seed: ``node`` is None, ``parent`` the output.
    """

    index: int
    node: Tensor | None
    parent: Tensor
    slot: int
    upstream: np.ndarray | None
    local: np.ndarray | None
    contribution_raw: np.ndarray
    contribution: np.ndarray
    summed_axes: tuple[int, ...]
    accumulated: np.ndarray
    is_final: bool = False

    @property
    def broadcast(self) -> bool:
        return bool(self.summed_axes) or self.contribution_raw.shape != self.contribution.shape

    @property
    def is_seed(self) -> bool:
        return self.node is None


@dataclass
class Trace:
    """The whole backward pass: forward topological ``order`` and the ``steps``."""

    root: Tensor
    order: list[Tensor]
    steps: list[TraceStep] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.steps)

    def grads_at(self, step: int) -> dict[int, np.ndarray]:
        """Gradient of every node (by ``id``) after steps 0..``step`` have been applied."""
        grads: dict[int, np.ndarray] = {}
        for s in self.steps[: step + 1]:
            grads[id(s.parent)] = s.accumulated
        return grads

    def final_grads(self) -> dict[int, np.ndarray]:
        return self.grads_at(len(self.steps) - 1)


def backward_trace(root: Tensor, grad: Any = None) -> Trace:
    """Run backward from ``root`` and return every gradient that flowed, in order."""
    steps: list[TraceStep] = []
    accumulated: dict[int, np.ndarray] = {}

    def record(node: Tensor, parent: Tensor, slot: int, upstream: np.ndarray,
               raw: np.ndarray, matched: np.ndarray, axes: tuple[int, ...]) -> None:
        locals_ = node._op.local_derivatives() if node._op is not None else None
        local = None if locals_ is None or locals_[slot] is None else np.array(locals_[slot], dtype=np.float64)
        total = np.array(parent.grad, copy=True)
        accumulated[id(parent)] = total
        steps.append(TraceStep(len(steps), node, parent, slot, np.array(upstream, copy=True), local,
                               np.array(raw, dtype=np.float64), np.array(matched, dtype=np.float64),
                               axes, total))

    previous = None if root.grad is None else np.array(root.grad, copy=True)
    from lucid.autograd.backward import seed_gradient

    seed = seed_gradient(root, grad)
    # the running total of the root after the seed, in the root's own gradient dtype (as the engine keeps it)
    seed_total = seed if previous is None or root._op is not None else previous + seed
    seed_total = np.asarray(seed_total, dtype=_grad_dtype(root))
    steps.append(TraceStep(0, None, root, 0, None, None, seed.copy(), seed.copy(), (), seed_total.copy()))
    order = backward(root, grad, record)
    # a step is final when no later step adds to the same parent
    last: dict[int, int] = {}
    for s in steps:
        last[id(s.parent)] = s.index
    steps = [TraceStep(**{**s.__dict__, "is_final": last[id(s.parent)] == s.index}) for s in steps]
    return Trace(root, order, steps)
