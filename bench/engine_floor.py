"""The least work any engine shaped like DESIGN.md's can do per op: a measuring stick, not an engine.

DESIGN.md fixes what every op call leaves behind: a fresh ``operation`` instance, a
result ``Tensor`` with ``_op``, ``_prev`` and a gradient closure (lucid keeps it in
``_grad_fn`` and wraps it as ``_backward_op`` on demand; so does this stick);
``backward`` sorts the graph with an explicit stack and runs each closure in reverse.
This module does exactly that and nothing more, on lucid's own ``Tensor`` class and for
the nine ops the benchmark MLP needs. Left out on purpose, because lucid must have them
and this stick must not: grad mode, dtype rules for gradients, ``retain_grad``, gradient
ownership (no copies), constants other than floats, shape checks beyond a bias sum,
the op registry and the trace.

So ``floor / numpy`` is the ratio below which no DESIGN-shaped engine in this Python can
go on the benchmark, and ``lucid / floor`` is what lucid's correctness machinery costs.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from lucid import Tensor

_new = object.__new__
_ref = weakref.ref
_dot, _reduce = np.dot, np.add.reduce


class _Op:
    """A fresh instance per call, holding a weak reference to its result (as lucid's ``operation``)."""

    __slots__ = ("_result", "__weakref__")


def _tensor(data: np.ndarray, requires_grad: bool = False) -> Tensor:
    t = _new(Tensor)
    t.data, t.grad, t.requires_grad, t.name = data, None, requires_grad, None
    t._op, t._prev, t._grad_fn, t._retain_grad = None, [], None, False
    return t


def _record(parents: list[Tensor], out: np.ndarray, grad: Callable, track: bool) -> Tensor:
    """The graph bookkeeping every op call pays: op instance, result, weak reference, links."""
    op = _new(_Op)
    result = _tensor(out)
    op._result = _ref(result)
    if track:
        result.requires_grad = True
        result._op, result._prev, result._grad_fn = op, parents, grad
    return result


def _const(value: Any) -> Tensor:
    return value if value.__class__ is Tensor else _tensor(np.array(float(value)))


def add(a: Tensor, b: Tensor) -> Tensor:
    return _record([a, b], a.data + b.data, lambda g: (g, g), a.requires_grad or b.requires_grad)


def sub(a: Any, b: Any) -> Tensor:
    a, b = _const(a), _const(b)
    return _record([a, b], a.data - b.data, lambda g: (g, -g), a.requires_grad or b.requires_grad)


def mul(a: Tensor, b: Tensor) -> Tensor:
    x, y, ga, gb = a.data, b.data, a.requires_grad, b.requires_grad  # no product for a constant side
    return _record([a, b], x * y, lambda g: (g * y if ga else None, g * x if gb else None), ga or gb)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    x, y, ga, gb = a.data, b.data, a.requires_grad, b.requires_grad
    return _record([a, b], _dot(x, y), lambda g: (_dot(g, y.T) if ga else None, _dot(x.T, g) if gb else None),
                   ga or gb)


def tanh(a: Tensor) -> Tensor:
    out = np.tanh(a.data)
    return _record([a], out, lambda g: (g * (1.0 - out * out),), a.requires_grad)


def sigmoid(a: Tensor) -> Tensor:
    e = np.exp(-a.data)
    e += 1.0
    out = np.divide(1.0, e, out=e)
    return _record([a], out, lambda g: (g * (out * (1.0 - out)),), a.requires_grad)


def log(a: Tensor) -> Tensor:
    x = a.data
    return _record([a], np.log(x), lambda g: (g / x,), a.requires_grad)


def neg(a: Tensor) -> Tensor:
    return _record([a], -a.data, lambda g: (-g,), a.requires_grad)


def mean(a: Tensor) -> Tensor:
    x = a.data
    n, shape = x.size, x.shape

    def grad(g: Any) -> tuple[np.ndarray]:
        out = np.empty(shape)
        out.fill(float(g) / n)
        return (out,)

    return _record([a], np.array(_reduce(x, None) / n), grad, a.requires_grad)


def backward(root: Tensor) -> None:
    """Explicit-stack topological order, then each node's closure in reverse; leaves accumulate."""
    order, visited = [], {root}
    nodes, parents = [root], [iter(root._prev)]
    while parents:
        for p in parents[-1]:
            if p._prev and p not in visited:
                visited.add(p)
                p.grad = None
                nodes.append(p)
                parents.append(iter(p._prev))
                break
        else:
            order.append(nodes.pop())
            parents.pop()
    root.grad = np.array(1.0)
    for node in reversed(order):
        for parent, raw in zip(node._prev, node._grad_fn(node.grad)):
            if raw is not None and parent.requires_grad:
                if raw.shape != parent.data.shape:
                    raw = _reduce(raw, 0)  # the bias over the batch: the only broadcast in this MLP
                current = parent.grad
                parent.grad = raw if current is None else current + raw
        node.grad = None


def train(weights: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray, y: np.ndarray,
          steps: int, lr: float) -> list[float]:
    """The benchmark's loop (forward, BCE written out, backward, SGD) on this stick."""
    params = [_tensor(np.array(a, dtype=np.float64), True) for pair in weights for a in pair]
    w1, b1, w2, b2 = params
    xt, yt = _tensor(x), _tensor(y)
    losses = []
    for _ in range(steps):
        for p in params:
            p.grad = None
        p_ = sigmoid(add(matmul(tanh(add(matmul(xt, w1), b1)), w2), b2))
        loss = neg(mean(add(mul(yt, log(p_)), mul(sub(1, yt), log(sub(1, p_))))))
        backward(loss)
        for p in params:
            p.data -= lr * p.grad
        losses.append(loss.data.item())
    return losses
