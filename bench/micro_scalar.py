"""A lean scalar autodiff engine in the style of micrograd: the yardstick for lucid's scalar twin.

One Python float per node, a closure per op that adds into its inputs' ``grad``, and an iterative
topological sort: nothing else (no arrays, no op objects, no grad mode, no dtype rules). The
Train page's "tensors vs scalars" ratio compares lucid's arrays with lucid's 0-d tensors; this
engine says how much of that ratio is lucid's own per-node cost rather than the lost
vectorisation (``bench/bench_mlp.py`` prints ``scalar/micro``). Written for this benchmark.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


class Value:
    """A number that remembers the op that made it and how to push its gradient back."""

    __slots__ = ("data", "grad", "parents", "push")

    def __init__(self, data: float, parents: tuple = ()) -> None:
        self.data = data
        self.grad = 0.0
        self.parents = parents
        self.push = None

    def __add__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def push() -> None:
            self.grad += out.grad
            other.grad += out.grad
        out.push = push
        return out

    __radd__ = __add__

    def __mul__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def push() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out.push = push
        return out

    __rmul__ = __mul__

    def __rsub__(self, other: float) -> Value:  # ``1 - p``
        out = Value(other - self.data, (self,))

        def push() -> None:
            self.grad -= out.grad
        out.push = push
        return out

    def tanh(self) -> Value:
        t = math.tanh(self.data)
        out = Value(t, (self,))

        def push() -> None:
            self.grad += (1.0 - t * t) * out.grad
        out.push = push
        return out

    def sigmoid(self) -> Value:
        s = 1.0 / (1.0 + math.exp(-self.data))
        out = Value(s, (self,))

        def push() -> None:
            self.grad += s * (1.0 - s) * out.grad
        out.push = push
        return out

    def log(self) -> Value:
        out = Value(math.log(self.data), (self,))

        def push() -> None:
            self.grad += out.grad / self.data
        out.push = push
        return out

    def backward(self) -> None:
        order, seen, stack = [], {id(self)}, [(self, iter(self.parents))]
        while stack:
            node, parents = stack[-1]
            for p in parents:
                if id(p) not in seen:
                    seen.add(id(p))
                    stack.append((p, iter(p.parents)))
                    break
            else:
                order.append(node)
                stack.pop()
        self.grad = 1.0
        for node in reversed(order):
            if node.push is not None:
                node.push()


def train(weights: Sequence[tuple[np.ndarray, np.ndarray]], x: np.ndarray, y: np.ndarray, steps: int,
          lr: float) -> list[float]:
    """The bench's MLP (tanh hidden layers, sigmoid output, BCE written out, SGD), one Value per number.

    Same sums in the same order as ``lucid.nn.scalar.ScalarMLP.bce_loss``, so the losses agree.
    """
    layers = [[([Value(float(v)) for v in w[:, j]], Value(float(b[j]))) for j in range(w.shape[1])]
              for w, b in weights]
    params = [p for layer in layers for ws, b in layer for p in (*ws, b)]
    samples = [(row.tolist(), np.atleast_1d(target).tolist()) for row, target in zip(x, y)]
    losses = []
    for _ in range(steps):
        for p in params:
            p.grad = 0.0
        total, count = None, 0
        for row, targets in samples:
            acts: list = row
            for k, layer in enumerate(layers):
                outs = []
                for ws, b in layer:
                    z = b
                    for w, a in zip(ws, acts):
                        z = z + w * a
                    outs.append(z.sigmoid() if k == len(layers) - 1 else z.tanh())
                acts = outs
            for p, t in zip(acts, targets):
                term = p.log() * t + (1.0 - p).log() * (1.0 - t)
                total = term if total is None else total + term
                count += 1
        loss = total * (-1.0 / count)
        loss.backward()
        for p in params:
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
