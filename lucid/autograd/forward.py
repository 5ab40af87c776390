"""Forward mode: tangents pushed through the graph in the forward direction, one node at a time.

Reverse mode asks "how does the output change with each input?" and answers for every input
at once, one pass per output number. Forward mode asks "how does everything change when the
inputs move along a direction ``v``?" and answers for every node at once, one pass per
direction: each node's tangent comes from its inputs' tangents by its op's ``jvp`` rule
(``ẏ = ∂y/∂a · ȧ + ∂y/∂b · ḃ``), in the same order the values were computed. No backward pass
is involved. ``jvp``/``vjp``/``jacobian``/``hvp`` are the functional forms (as in JAX).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lucid._backend.grad_mode import enable_grad, no_grad
from lucid._func._rules import broadcast_like
from lucid._tensor.tensor import Tensor
from lucid.autograd.grad import as_tensor_list, grad, graph_order

TangentRecorder = Callable[[Tensor, list["Tensor | None"], Tensor], None]


def push_tangents(order: Sequence[Tensor], tangents: dict[int, Tensor], create_graph: bool = False,
                  record: TangentRecorder | None = None) -> dict[int, Tensor]:
    """Every node's tangent from its inputs' tangents, in forward (topological) order.

    ``tangents`` maps ``id(input)`` to its tangent and is filled in place. A node none of whose
    inputs has a tangent gets none (its value does not move along the direction).
    ``record(node, input_tangents, tangent)`` sees every step (for drawing forward mode).
    """
    with enable_grad() if create_graph else no_grad():
        for node in order:
            op = node._op
            if op is None or id(node) in tangents:
                continue
            incoming = [tangents.get(id(p)) for p in node._prev]
            if all(t is None for t in incoming):
                continue
            tangent = op.jvp(incoming, node._prev, node)
            if tangent is None:
                continue
            tangent = broadcast_like(tangent, node.shape)
            tangents[id(node)] = tangent
            if record is not None:
                record(node, incoming, tangent)
    return tangents


def _leaves(inputs: Any, keep: bool = False) -> tuple[list[Tensor], bool]:
    """Fresh differentiable leaves holding the inputs' values, and whether one input was given alone.

    A tuple holds several inputs; anything else (a Tensor, an array, a number, a list of numbers)
    is one input, as in ``jvp(f, [1.0, 2.0], [1.0, 0.0])``. With ``keep`` (``create_graph``) a
    Tensor that requires grad is used itself, so the results stay connected to the caller's graph
    (``jvp`` or ``vjp`` nested inside another derivative).
    """
    single = not isinstance(inputs, tuple)
    items = [inputs] if single else list(inputs)
    leaves = [x if keep and isinstance(x, Tensor) and x.requires_grad else
              Tensor(np.array(x.data if isinstance(x, Tensor) else x, dtype=np.float64), requires_grad=True,
                     name=x.name if isinstance(x, Tensor) else None) for x in items]
    return leaves, single


def _one_input(value: Any) -> Tensor | np.ndarray:
    """The one input of ``jacobian``/``hvp``: a Tensor, or a number or nested list read as one array."""
    if isinstance(value, Tensor):
        return value
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("this takes one input: a Tensor, an array or a number") from None


def _run(func: Callable[..., Any], leaves: list[Tensor]) -> tuple[list[Tensor], bool]:
    with enable_grad():  # the graph records how the values were computed, whatever the caller's mode
        result = func(*leaves)
    single = isinstance(result, Tensor)
    return as_tensor_list(result, "func's results"), single


def jvp(func: Callable[..., Any], inputs: Any, tangents: Any, create_graph: bool = False) -> tuple[Any, Any]:
    """``(func(*inputs), J · tangents)`` by forward mode: one pass pushing the tangents forward.

    ``inputs`` and ``tangents`` are one value each (a Tensor, an array, a number or a list of numbers)
    or matching tuples; the results mirror ``func``'s (one Tensor, or a tuple). The outputs come
    back detached.
    """
    leaves, single_in = _leaves(inputs, keep=create_graph)
    directions = [tangents] if single_in else list(tangents)
    if len(directions) != len(leaves):
        raise ValueError(f"got {len(directions)} tangents for {len(leaves)} inputs")
    table: dict[int, Tensor] = {}
    for leaf, t in zip(leaves, directions):
        tangent = t if isinstance(t, Tensor) and create_graph else Tensor(np.array(
            t.data if isinstance(t, Tensor) else t, dtype=np.float64))
        if tangent.shape != leaf.shape:
            raise ValueError(f"a tangent has shape {tangent.shape} but its input has shape {leaf.shape}")
        table[id(leaf)] = tangent
    outputs, single_out = _run(func, leaves)
    push_tangents(graph_order(outputs), table, create_graph)
    out_tangents = [table[id(o)] if id(o) in table else Tensor(np.zeros(o.shape)) for o in outputs]
    values = [o if create_graph else o.detach() for o in outputs]
    if single_out:
        return values[0], out_tangents[0]
    return tuple(values), tuple(out_tangents)


def vjp(func: Callable[..., Any], inputs: Any, cotangents: Any = None,
        create_graph: bool = False) -> tuple[Any, Any]:
    """``(func(*inputs), cotangents · J)`` by reverse mode (the gradient of ``Σ out · cotangents``)."""
    leaves, single_in = _leaves(inputs, keep=create_graph)
    outputs, single_out = _run(func, leaves)
    grads = grad(outputs, leaves, cotangents, create_graph=create_graph)
    values = [o if create_graph else o.detach() for o in outputs]
    return (values[0] if single_out else tuple(values)), (grads[0] if single_in else grads)


def hvp(func: Callable[[Tensor], Tensor], inputs: Any, v: Any) -> tuple[Tensor, Tensor]:
    """``(∇f(x), H · v)`` for a scalar ``f`` of one input: the gradient recorded (``create_graph``),
    then differentiated along ``v`` (the gradient of ``∇f · v``), never forming the Hessian.

    A gradient that does not depend on x (``f`` linear or piecewise linear, ``relu(x).sum()``) has
    second derivative 0: ``H · v`` is zeros of x's shape, as PyTorch returns, not an error."""
    leaves, _ = _leaves(_one_input(inputs))
    direction = np.array(v.data if isinstance(v, Tensor) else v, dtype=np.float64)
    with enable_grad():
        out = func(*leaves)
        if out.size != 1:
            raise ValueError(f"hvp needs a function with one output number, not shape {out.shape}")
        if direction.shape != leaves[0].shape:
            raise ValueError(f"v has shape {direction.shape} but the input has shape {leaves[0].shape}")
        (g,) = grad(out, leaves, create_graph=True)
        if not g.requires_grad:  # the gradient is a constant: no graph to differentiate, the Hessian is 0
            return g.detach(), Tensor(np.zeros(leaves[0].shape, dtype=g.data.dtype))
        (hv,) = grad(g, leaves, direction)
    return g.detach(), hv


@dataclass(frozen=True)
class Jacobian:
    """A Jacobian with how it was computed: ``matrix[i..., j...] = ∂out[i...]/∂in[j...]``."""

    matrix: np.ndarray
    mode: str  # "forward" or "reverse"
    passes: int
    reason: str


def choose_mode(n_in: int, n_out: int) -> tuple[str, str]:
    """Forward mode costs one pass per input number, reverse one per output number: pick the fewer."""
    if n_in < n_out:
        return "forward", (f"forward mode: {n_in} input number{'s' * (n_in != 1)} and {n_out} output numbers, "
                           f"so {n_in} forward pass{'es' * (n_in != 1)} (one per input) instead of {n_out} "
                           "backward passes (one per output)")
    if n_out < n_in:
        return "reverse", (f"reverse mode: {n_out} output number{'s' * (n_out != 1)} and {n_in} input numbers, "
                           f"so {n_out} backward pass{'es' * (n_out != 1)} (one per output) instead of {n_in} "
                           "forward passes (one per input)")
    return "reverse", (f"reverse mode: {n_in} input and {n_out} output numbers take {n_in} passes either way; "
                       "reverse is lucid's usual mode")


def jacobian(func: Callable[[Tensor], Tensor], inputs: Any, mode: str = "auto") -> Jacobian:
    """The full Jacobian of a one-input, one-output ``func``, by forward or reverse mode.

    ``mode="auto"`` picks by the Jacobian's shape (``choose_mode``) and says why in ``reason``;
    ``"forward"`` or ``"reverse"`` force one. Either way the graph is recorded once and the
    passes reuse it: a forward pass per input number, or a backward pass per output number.
    """
    leaves, _ = _leaves(_one_input(inputs))
    x = leaves[0]
    outputs, single_out = _run(func, leaves)
    if not single_out:
        raise ValueError("jacobian takes a function with one Tensor result")
    out = outputs[0]
    n_in, n_out = x.size, out.size
    picked, reason = choose_mode(n_in, n_out)
    if mode != "auto":
        if mode not in ("forward", "reverse"):
            raise ValueError(f"mode must be 'auto', 'forward' or 'reverse', not {mode!r}")
        picked, reason = mode, f"{mode} mode, as asked ({choose_mode(n_in, n_out)[1]})"
    matrix = np.zeros((n_out, n_in))
    if not out.requires_grad:  # the output does not depend on the input
        return Jacobian(matrix.reshape(out.shape + x.shape), picked, 0, reason)
    if picked == "forward":
        order = graph_order([out])
        for j in range(n_in):
            direction = np.zeros(n_in)
            direction[j] = 1.0
            table = push_tangents(order, {id(x): Tensor(direction.reshape(x.shape))})
            if id(out) in table:
                matrix[:, j] = table[id(out)].data.reshape(-1)
        passes = n_in
    else:
        for i in range(n_out):
            seed = np.zeros(n_out)
            seed[i] = 1.0
            (row,) = grad(out, [x], seed.reshape(out.shape))
            matrix[i, :] = row.data.reshape(-1)
        passes = n_out
    return Jacobian(matrix.reshape(out.shape + x.shape), picked, passes, reason)
