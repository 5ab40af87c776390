"""The three classic autodiff bugs, reproduced on purpose next to the right version.

(a) a backward rule that assigns (``=``) instead of accumulating (``+=``);
(b) a training loop that forgets to reset gradients between steps;
(c) a recursive topological sort that dies at Python's recursion limit.

The buggy halves are written here, against lucid's real graph, so that the
engine itself stays correct: lucid's own backward accumulates, lucid's own
topological sort uses an explicit stack.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lucid._backend.grad_mode import no_grad
from lucid._tensor.tensor import Tensor
from lucid.autograd.backward import backward, topological_order
from lucid.autograd.trace import Trace, backward_trace
from lucid.i18n import L_, Message, format_integer
from lucid.viz.explanation.explain import explain


# ----- (a) assign instead of accumulate ----------------------------------------
def hand_backward(root: Tensor, accumulate: bool = True) -> dict[int, np.ndarray]:
    """A small backward pass over lucid's graph written in the open, for elementwise ops
    on same-shaped inputs (no broadcasting, no reductions: enough for the demo).

    For each node in reverse topological order, push ``upstream · local`` to
    each input slot. With ``accumulate=False`` the push is ``grad = …`` (the
    bug): in ``x*x`` the second slot overwrites the first and half the gradient
    is lost. Returns every node's gradient by ``id``; leaves' ``.grad`` are untouched.
    """
    grads: dict[int, np.ndarray] = {id(root): np.ones_like(root.data)}
    for node in reversed(topological_order(root)):
        if node._op is None or id(node) not in grads:
            continue
        locals_ = node._op.local_derivatives()
        if locals_ is None:
            raise ValueError(f"the demo backward handles elementwise ops only, not {node._op.describe()}")
        upstream = grads[id(node)]
        for parent, local in zip(node._prev, locals_):
            if local is None or not parent.requires_grad:
                continue
            if np.shape(local) != node.shape or parent.shape != node.shape:
                raise ValueError(f"the demo backward handles elementwise ops on same-shaped inputs only, "
                                 f"not {node._op.describe()} from {parent.shape} to {node.shape}")
            contribution = upstream * local
            if accumulate:
                grads[id(parent)] = grads.get(id(parent), 0.0) + contribution
            else:
                grads[id(parent)] = contribution  # the bug: the last path wins
    return grads


@dataclass(frozen=True)
class SquareDemo:
    """``y = x*x`` at one ``x``: what each backward says dy/dx is."""

    x: float
    y: float
    assigned: float
    accumulated: float
    engine: float
    graph_root: Tensor
    trace: Trace  # lucid's own backward of ``graph_root``, step by step (for drawing)

    @property
    def headline(self) -> str:
        """The arithmetic of the last step, where the second part is added: ``… ⇒  grad x = 3.000 + 3.000 = 6.000``."""
        return explain(self.trace, len(self.trace.steps) - 1).arithmetic


def square_gradients(x: float = 3.0) -> SquareDemo:
    """dy/dx of ``y = x*x`` by the buggy (=) and right (+=) hand backward and by lucid."""
    leaf = Tensor(float(x), requires_grad=True, name="x")
    y = leaf * leaf
    y.name = "y"
    wrong = hand_backward(y, accumulate=False)[id(leaf)]
    right = hand_backward(y, accumulate=True)[id(leaf)]
    trace = backward_trace(y)
    return SquareDemo(float(x), float(y.data), float(wrong), float(right), float(leaf.grad), y, trace)


# ----- (b) forgetting to zero gradients -----------------------------------------
def quadratic_descent(steps: int = 6, lr: float = 0.3, w0: float = 0.0, target: float = 1.0,
                      reset: bool = True) -> list[float]:
    """Minimise ``(w - target)**2`` by gradient descent with lucid; ``w`` after each step.

    ``reset=False`` leaves out ``w.grad = None`` before ``backward``: lucid
    accumulates into leaves (as it must), so each step then also re-applies
    every earlier gradient, and ``w`` overshoots.
    """
    w = Tensor(float(w0), requires_grad=True, name="w")
    trajectory = []
    for _ in range(steps):
        loss = (w - target) ** 2
        if reset:
            w.zero_grad()
        loss.backward()
        with no_grad():
            w.data = w.data - lr * w.grad
        trajectory.append(float(w.data))
    return trajectory


# ----- (c) recursive topological sort -------------------------------------------
CHAIN_LENGTHS = (100, 500, 900, 2_000, 5_000, 20_000, 100_000)
"""The chain lengths the page offers: some under any usual recursion limit, some far past it."""


def first_failing_chain_length(options: tuple[int, ...] = CHAIN_LENGTHS) -> int:
    """The shortest offered chain that a recursive sort cannot finish in this process: the page's default.

    Python's limit is 1,000 frames, but a library may raise it for the whole process (IPython's
    completer sets 3,000 when it is imported), so the demonstration reads the limit in force instead
    of assuming it: the page opens on the failure it is there to show.
    """
    limit = sys.getrecursionlimit()
    return next((n for n in options if n > limit), options[-1])


def addition_chain(n: int) -> tuple[Tensor, Tensor]:
    """``x + 1 + 1 + … `` with ``n`` additions: a graph ``n`` nodes deep. Returns (x, out)."""
    x = Tensor(0.5, requires_grad=True, name="x")
    out = x
    for _ in range(n):
        out = out + 1.0
    return x, out


def recursive_topological_order(root: Tensor, on_depth: Callable[[int], None] | None = None) -> list[Tensor]:
    """The textbook recursive sort (the bug): one Python frame per level of the graph."""
    order: list[Tensor] = []
    seen: set[int] = set()

    def visit(node: Tensor, depth: int) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if on_depth is not None:
            on_depth(depth)
        for parent in node._prev:
            visit(parent, depth + 1)
        order.append(node)

    visit(root, 1)
    return order


@dataclass(frozen=True)
class DeepGraphResult:
    """What happened to one way of sorting an ``n``-deep chain.

    ``nodes`` counts every tensor of the graph (each ``+ 1.0`` adds a constant
    leaf too); ``depth_reached`` counts levels along the chain. ``message`` is a ``Message`` (rendered in
    the reader's language where it is shown): a result is cached and shared by every session.
    """

    n: int
    ok: bool
    nodes: int
    depth_reached: int
    recursion_limit: int
    message: Message


def try_recursive_sort(n: int) -> DeepGraphResult:
    """Sort an ``n``-addition chain recursively; a RecursionError is caught and reported.

    ``depth_reached`` is the deepest level visited before it stopped: a bit
    under the recursion limit, because the caller's own frames count too.
    """
    _, out = addition_chain(n)
    deepest = [0]

    def note(depth: int) -> None:
        if depth > deepest[0]:
            deepest[0] = depth

    limit = sys.getrecursionlimit()
    try:
        order = recursive_topological_order(out, note)
    except RecursionError as err:
        # Python's own words for the usual case are translated; anything else is shown as Python said it.
        message = (L_("RecursionError: maximum recursion depth exceeded")
                   if str(err).startswith("maximum recursion depth exceeded")
                   else L_("RecursionError: {error}", error=str(err)))
        return DeepGraphResult(n, False, 0, deepest[0], limit, message)
    return DeepGraphResult(n, True, len(order), deepest[0], limit,
                           L_("sorted {nodes} nodes", nodes=format_integer(len(order))))


def try_lucid_backward(n: int) -> DeepGraphResult:
    """lucid's backward (explicit stack) on an ``n``-addition chain; dx must come out 1."""
    x, out = addition_chain(n)
    nodes = len(backward(out))
    ok = x.grad is not None and float(x.grad) == 1.0
    dx = f"{float(x.grad):g}"
    return DeepGraphResult(n, ok, nodes, n + 1, sys.getrecursionlimit(),
                           L_("backward through {nodes} nodes, dx = {dx}", nodes=format_integer(nodes), dx=dx))
