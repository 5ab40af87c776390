"""``lucid.autograd.grad``: gradients returned as Tensors, and the backward pass as a graph of its own.

Without ``create_graph`` the pass runs each node's NumPy gradient function, the same numbers
``Tensor.backward`` gives, but returned instead of accumulated into ``.grad``. With
``create_graph=True`` it runs each op's ``vjp`` rule instead: the same derivative written with
lucid ops, so every gradient is a graph node (``_op``/``_prev`` like any other) that can be
drawn, stepped, and differentiated again, to any order (Hessian-vector products, gradient
penalties). ``Tensor.backward`` itself is untouched, so the first-order pass costs what it did.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lucid._backend.core import _grad_dtype, match_shape
from lucid._backend.grad_mode import enable_grad
from lucid._func._rules import sum_to
from lucid._tensor.tensor import Tensor
from lucid.autograd.backward import seed_gradient, topological_order

Tensors = Tensor | Sequence[Tensor]


def as_tensor_list(value: Tensors, what: str) -> list[Tensor]:
    """One Tensor or a sequence of them, as a list (a clear error for anything else)."""
    items = [value] if isinstance(value, Tensor) else list(value)
    for item in items:
        if not isinstance(item, Tensor):
            raise TypeError(f"{what} must be Tensors, not {type(item).__name__}")
    return items


def graph_order(roots: Sequence[Tensor]) -> list[Tensor]:
    """Every node reachable from any root, each after all of its inputs (one shared order)."""
    order: list[Tensor] = []
    seen: set[int] = set()
    for root in roots:
        for node in topological_order(root):
            if id(node) not in seen:
                seen.add(id(node))
                order.append(node)
    return order


def depends_on(order: Sequence[Tensor], inputs: Sequence[Tensor]) -> set[int]:
    """Ids of the nodes whose value depends on one of ``inputs`` (the only ones a gradient must reach).

    Gradients flowing anywhere else would only build nodes nobody asked for: ``grad(loss, w)``
    draws the backward pass of the path from ``w`` to the loss, not of the whole program.
    """
    reached = {id(t) for t in inputs}
    for node in order:
        if id(node) not in reached and any(id(p) in reached for p in node._prev):
            reached.add(id(node))
    return reached


def _seeds(outputs: list[Tensor], grad_outputs: Any, create_graph: bool) -> list[Any]:
    """The output gradients that start the pass: ones unless given (Tensors kept as they are)."""
    if grad_outputs is None:
        given: list[Any] = [None] * len(outputs)
    elif isinstance(grad_outputs, list | tuple) and (
            len(outputs) > 1 or all(g is None or isinstance(g, Tensor | np.ndarray) for g in grad_outputs)):
        given = list(grad_outputs)  # one per output
    else:
        given = [grad_outputs]  # the one output's gradient (a Tensor, an array, a number or nested lists)
    if len(given) != len(outputs):
        raise ValueError(f"got {len(given)} output gradients for {len(outputs)} outputs")
    seeds = []
    for out, g in zip(outputs, given):
        if create_graph and isinstance(g, Tensor):
            if g.shape != out.shape:
                raise ValueError(f"output gradient has shape {g.shape} but the output has shape {out.shape}")
            seeds.append(g)  # may require grad itself (the double-backward form of a Jacobian-vector product)
        else:
            seed = seed_gradient(out, g)
            seeds.append(Tensor(seed) if create_graph else seed)
    return seeds


def _array_pass(order: list[Tensor], outputs: list[Tensor], seeds: list[np.ndarray],
                needed: set[int]) -> dict[int, np.ndarray]:
    """Each node's NumPy gradient function, in reverse order; gradients kept in a table, not on ``.grad``."""
    grads: dict[int, np.ndarray] = {}
    for out, seed in zip(outputs, seeds):
        grads[id(out)] = seed if id(out) not in grads else grads[id(out)] + seed
    for node in reversed(order):
        g = grads.get(id(node))
        if g is None or node._grad_fn is None:
            continue
        for parent, raw in zip(node._prev, node._grad_fn(g)):
            if raw is None or id(parent) not in needed:
                continue
            matched = match_shape(raw, parent.data.shape)[0]
            key = id(parent)
            grads[key] = matched if key not in grads else grads[key] + matched
    return grads


def _mark(made: Tensor, known: set[int], forward: Tensor) -> None:
    """Mark the ops that made ``made`` and are new (not in ``known``) as part of ``forward``'s backward."""
    stack = [made]
    while stack:
        t = stack.pop()
        if id(t) in known:
            continue
        known.add(id(t))
        if t._op is not None:
            if t._op.differentiates is None:
                t._op.differentiates = forward
            stack.extend(t._prev)


def _graph_pass(order: list[Tensor], outputs: list[Tensor], seeds: list[Tensor],
                needed: set[int]) -> dict[int, Tensor]:
    """Each op's ``vjp`` rule, in reverse order, recorded as graph nodes (grad mode on).

    Every op call a rule makes is marked with the forward node it differentiates
    (``operation.differentiates``), so a drawing can show the backward pass as such.
    """
    grads: dict[int, Tensor] = {}
    known = {id(t) for t in order} | {id(s) for s in seeds}
    with enable_grad():
        for out, seed in zip(outputs, seeds):
            grads[id(out)] = seed if id(out) not in grads else grads[id(out)] + seed
            _mark(grads[id(out)], known, out)
        for node in reversed(order):
            g = grads.get(id(node))
            if g is None or node._op is None:
                continue
            for parent, part in zip(node._prev, node._op.vjp(g, node._prev, node)):
                if part is None or id(parent) not in needed:
                    continue
                part = sum_to(part, parent.shape)
                key = id(parent)
                grads[key] = part if key not in grads else grads[key] + part
                _mark(grads[key], known, node)
    return grads


def grad(outputs: Tensors, inputs: Tensors, grad_outputs: Any = None,
         create_graph: bool = False) -> tuple[Tensor, ...]:
    """∂(Σ outputs · grad_outputs)/∂input for each input, as Tensors (one per input, in order).

    ``grad_outputs`` defaults to ones (the gradient of ``outputs.sum()``). Inputs' ``.grad`` are
    left alone. An input the outputs do not depend on gets zeros. With ``create_graph=True`` the
    gradients are graph nodes built from lucid ops and can be differentiated again.
    """
    outs = as_tensor_list(outputs, "outputs")
    ins = as_tensor_list(inputs, "inputs")
    if not outs:
        raise ValueError("grad needs at least one output")
    for out in outs:
        if not out.requires_grad:
            raise RuntimeError("grad() needs outputs that require grad (no input of this expression requires grad)")
    for k, t in enumerate(ins):
        if not t.requires_grad:  # its derivative is not tracked: zeros would be a wrong answer, not a missing one
            raise RuntimeError(f"grad(): input {k} does not require grad, so no gradient is tracked for it")
    seeds = _seeds(outs, grad_outputs, create_graph)
    order = graph_order(outs)
    needed = depends_on(order, ins)
    if create_graph:
        table = _graph_pass(order, outs, seeds, needed)
        return tuple(table[id(t)] if id(t) in table else Tensor(np.zeros(t.shape, dtype=_grad_dtype(t)))
                     for t in ins)
    arrays = _array_pass(order, outs, seeds, needed)
    return tuple(Tensor(np.array(arrays[id(t)] if id(t) in arrays else np.zeros(t.shape), dtype=_grad_dtype(t)))
                 for t in ins)


def backward_with_graph(root: Tensor, seed: Any = None) -> None:
    """``root.backward(create_graph=True)``: every leaf's ``.grad`` becomes a Tensor with a graph.

    The gradients come from ``grad(..., create_graph=True)``, so ``x.grad`` is a graph node
    (differentiable again: ``(x.grad ** 2).sum().backward()`` gives a gradient penalty's gradient).
    A leaf that already holds a gradient gets the sum, also as a graph node.
    """
    if not root.requires_grad:
        raise RuntimeError("backward() needs an output that requires grad "
                           "(no input of this expression requires grad)")
    targets = [n for n in graph_order([root]) if n.requires_grad and (n._op is None or n._retain_grad)]
    grads = grad(root, targets, seed, create_graph=True)
    with enable_grad():
        for target, g in zip(targets, grads):
            current = target.grad
            if current is None:
                target.grad = g
            else:
                target.grad = (current if isinstance(current, Tensor) else Tensor(current)) + g


def gradient_value(y: Tensor, x: Tensor) -> Tensor:
    """``grad(y, x)`` of the expression language: ∂(Σ y)/∂x as a graph node (zeros when y does not
    depend on x), so a program can use it (``penalty = sum(g * g)``) and differentiate it again."""
    if not y.requires_grad:
        return Tensor(np.zeros(x.shape, dtype=_grad_dtype(x)))
    return grad(y, x, create_graph=True)[0]
