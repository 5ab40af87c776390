"""A record of every gradient that flows during backward: the animation's script.

One ``TraceStep`` per edge (node -> parent), in the exact order the engine
applied them, with copies of the arrays involved so the record stays true after
the engine releases non-leaf gradients.

The copies are made once and shared, never once per edge: a node's upstream
gradient is copied once however many inputs it has (``stack`` of one tensor
repeated n times would otherwise keep n copies of an n-times-larger array:
n²·m elements), an unbroadcast contribution is the raw one when nothing was
summed, and a first contribution is also the running total. Every kept array is
read-only, so sharing is safe. ``max_elements`` bounds what the record may keep:
the pass stops with ``TraceTooLarge`` the moment it would keep more, so a
program the limits mispredicted cannot take the server's memory.
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


class TraceTooLarge(MemoryError):
    """The backward record would keep more array elements than its budget (``max_elements``) allows.

    A ``MemoryError`` so callers that guard memory catch it, but raised *before* the memory is
    taken, with a message a person can act on.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(f"the step-by-step record of this backward pass would keep more than {limit:,} "
                         "numbers (the trace limit): use fewer or smaller tensors")
        self.limit = limit


def _compact(array: Any) -> np.ndarray:
    """The smallest block of ``array`` that holds all its values when it is a broadcast view (zero strides).

    A reduction's raw gradient or a broadcast operand's local derivative is often ``np.broadcast_to`` of
    something small: the record keeps that small block and broadcasts it again (a read-only view).
    """
    a = np.asarray(array)
    if a.ndim and a.size > 1 and 0 in a.strides:
        return a[tuple(slice(0, 1) if step == 0 else slice(None) for step in a.strides)]
    return a


def _kept(array: Any, dtype: Any = None) -> np.ndarray:
    """A read-only copy of ``array`` (in ``dtype`` when given): what the record keeps of an engine array.

    A broadcast view is kept as its compact block broadcast again, so it costs what it holds.
    """
    a = np.asarray(array)
    block = _compact(a)
    kept = np.array(block, dtype=dtype, copy=True)
    kept.flags.writeable = False
    return kept if block is a else np.broadcast_to(kept, a.shape)


def kept_size(array: np.ndarray) -> int:
    """Elements an array kept by the record really holds (a broadcast view: its compact block)."""
    return int(_compact(array).size)


def backward_trace(root: Tensor, grad: Any = None, *, max_elements: int | None = None) -> Trace:
    """Run backward from ``root`` and return every gradient that flowed, in order.

    ``max_elements``: the most array elements the record may keep (all its arrays together, each
    shared array counted once); past it ``TraceTooLarge`` is raised before the next copy is made.
    """
    steps: list[TraceStep] = []
    kept = 0
    upstream_of: tuple[Tensor | None, np.ndarray | None] = (None, None)  # the last node's upstream copy
    locals_of: tuple[Tensor | None, Any] = (None, None)  # and its local derivatives, computed once per node
    totals: set[int] = set()  # parents that already received a contribution

    def keep(array: Any, dtype: Any = None) -> np.ndarray:
        nonlocal kept
        kept += kept_size(np.asarray(array))
        if max_elements is not None and kept > max_elements:
            raise TraceTooLarge(max_elements)
        return _kept(array, dtype)

    def keep_or_share(array: Any, kept_already: np.ndarray, dtype: Any = None) -> np.ndarray:
        """``kept_already`` when ``array`` holds the same numbers in the same shape and dtype, else a copy."""
        a = np.asarray(array)
        same = (a.shape == kept_already.shape and np.dtype(dtype or a.dtype) == kept_already.dtype
                and np.array_equal(a, kept_already))
        return kept_already if same else keep(a, dtype)

    def record(node: Tensor, parent: Tensor, slot: int, upstream: np.ndarray,
               raw: np.ndarray, matched: np.ndarray, axes: tuple[int, ...]) -> None:
        nonlocal upstream_of, locals_of
        if upstream_of[0] is not node:  # edges of one node come one after another: copy its upstream once
            upstream_of = (node, keep(upstream))
            locals_of = (node, node._op.local_derivatives() if node._op is not None else None)
        locals_ = locals_of[1]
        local = None if locals_ is None or locals_[slot] is None else keep(locals_[slot], np.float64)
        raw_kept = keep(raw, np.float64)
        contribution = keep_or_share(matched, raw_kept, np.float64)  # nothing summed away: the same array
        first = id(parent) not in totals
        totals.add(id(parent))
        # the first contribution is usually the running total: one array, not two
        total = keep_or_share(parent.grad, contribution) if first else keep(parent.grad)
        steps.append(TraceStep(len(steps), node, parent, slot, upstream_of[1], local,
                               raw_kept, contribution, axes, total))

    previous = None if root.grad is None else np.array(root.grad, copy=True)
    from lucid.autograd.backward import seed_gradient

    seed = seed_gradient(root, grad)
    # the running total of the root after the seed, in the root's own gradient dtype (as the engine keeps it)
    seed_total = seed if previous is None or root._op is not None else previous + seed
    seed_total = np.asarray(seed_total, dtype=_grad_dtype(root))
    seed_kept = keep(seed, np.float64)
    total_kept = keep_or_share(seed_total, seed_kept)
    steps.append(TraceStep(0, None, root, 0, None, None, seed_kept, seed_kept, (), total_kept))
    order = backward(root, grad, record)
    # a step is final when no later step adds to the same parent
    last: dict[int, int] = {}
    for s in steps:
        last[id(s.parent)] = s.index
    steps = [TraceStep(**{**s.__dict__, "is_final": last[id(s.parent)] == s.index}) for s in steps]
    return Trace(root, order, steps)
