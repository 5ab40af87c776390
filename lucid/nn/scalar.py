"""The same MLP built from 0-d (scalar) Tensors, one node per multiply and add.

This is how micrograd builds networks: every weight is its own Tensor and a
neuron is ``b + Σ wᵢ·xᵢ`` written out. It gives identical numbers to the
array MLP but a graph with thousands of nodes instead of a dozen, which makes
the cost of per-op bookkeeping (and the point of vectorising) visible.
"""
from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from lucid._func import log
from lucid._tensor.tensor import Tensor
from lucid.nn.layers import activation_fn
from lucid.nn.module import Module
from lucid.viz.graph.groups import group, tag, tag_subgraph


class ScalarNeuron(Module):
    """``act(b + Σᵢ wᵢ·xᵢ)`` with each ``wᵢ`` and ``b`` a 0-d Tensor."""

    def __init__(self, weights: Sequence[float], bias: float, activation: str | None) -> None:
        self.w = [Tensor(float(v), requires_grad=True) for v in weights]
        self.b = Tensor(float(bias), requires_grad=True)
        self._act = activation_fn(activation)

    def forward(self, x: Sequence[Any]) -> Tensor:
        out = self.b
        for w, xi in zip(self.w, x):
            out = out + w * xi
        return out if self._act is None else self._act(out)


class ScalarMLP(Module):
    """An MLP of ``ScalarNeuron`` layers, initialised from ``(W (in, out), b (out,))`` arrays."""

    def __init__(self, weights: Sequence[tuple[np.ndarray, np.ndarray]], activation: str = "tanh",
                 output_activation: str | None = "sigmoid") -> None:
        last = len(weights) - 1
        self.layers = [[ScalarNeuron(w[:, j], b[j], output_activation if i == last else activation)
                        for j in range(w.shape[1])]
                       for i, (w, b) in enumerate(weights)]

    @classmethod
    def from_mlp(cls, mlp: Any) -> ScalarMLP:
        """The scalar twin of a ``lucid.nn.MLP`` (same weights, same activations)."""
        return cls(mlp.weights(), mlp.activation, mlp.output_activation)

    def forward(self, x: Sequence[Any], groups: bool = False) -> list[Tensor]:
        """Outputs for one sample ``x`` (a sequence of numbers or 0-d Tensors).

        Numbers become one input Tensor each, shared by every neuron of the first
        layer (as the inputs of a drawn network are). ``groups=True`` tags each
        neuron's nodes with its group (``layer 1 neuron 0``, inside any open
        ``lucid.viz.group``) so a drawing can collapse it into one box.
        """
        x = [xi if isinstance(xi, Tensor) else Tensor(xi) for xi in x]
        if groups:
            self.tag_parameters()
            tag(x, overwrite=False)  # the sample's inputs belong to the open group (the sample)
        for i, layer in enumerate(self.layers, start=1):
            inputs = x
            x = []
            for j, neuron in enumerate(layer):
                if not groups:
                    x.append(neuron(inputs))
                    continue
                with group(f"layer {i} neuron {j}"):
                    out = neuron(inputs)
                    tag_subgraph(out, stop=inputs)
                x.append(out)
        return x

    def tag_parameters(self) -> None:
        """Tag the weights and bias of each neuron as ``parameters/layer i neuron j`` (for drawings)."""
        for i, layer in enumerate(self.layers, start=1):
            for j, neuron in enumerate(layer):
                tag([*neuron.w, neuron.b], ("parameters", f"layer {i} neuron {j}"))

    def bce_loss(self, xs: np.ndarray, ys: np.ndarray, groups: bool = False) -> Tensor:
        """Mean binary cross-entropy over all samples and outputs, from scalar ops only.

        Written out as ``−[t·ln p + (1 − t)·ln(1 − p)]`` with no floor (the
        array ``binary_cross_entropy`` floors each ln at −100); the two agree
        exactly while every ln stays above −100. ``groups=True``
        tags the graph for drawing: ``sample n`` (its neurons nested inside) and
        ``loss sum`` (the running total), so it collapses into a few boxes.
        """
        total, count = None, 0
        for n, (x, y) in enumerate(zip(np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64))):
            with group(f"sample {n}") if groups else _no_group():
                for p, t in zip(self(x.tolist(), groups=groups), np.atleast_1d(y).tolist()):
                    term = log(p) * t + log(1.0 - p) * (1.0 - t)
                    if groups:
                        tag_subgraph(term)
                    total = term if total is None else total + term
                    if groups and count:
                        tag(total, ("loss sum",))
                    count += 1
        return total * (-1.0 / count)

    def weights(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The current weights as ``(W (in, out), b (out,))`` arrays."""
        return [(np.array([[w.item() for w in n.w] for n in layer]).T, np.array([n.b.item() for n in layer]))
                for layer in self.layers]


def _no_group() -> contextlib.AbstractContextManager:
    return contextlib.nullcontext()
