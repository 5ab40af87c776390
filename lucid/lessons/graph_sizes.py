"""One training step, drawn twice: 13 array nodes, or the seed's ~4,659 scalar nodes collapsed into boxes.

The design notes' scalar experiment (5 → 2 tanh → 1 sigmoid on 80 samples of the
file-chunk data) reports 4,659 nodes per step. ``seed_scalar_loss`` rebuilds that
graph node for node from lucid 0-d tensors, written the way the notes write it:

- every input number is a fresh node for every neuron that reads it (``Value(x[i])``
  inside the neuron's sum);
- a neuron is ``sum(x·w for each input, start=b)``, then ``tanh``;
- ``sigmoid(v) = 1 / (1 + exp(−v))`` with ``−v = v · (−1)`` and ``a / b = a · b⁻¹``;
- the loss is ``−(y·ln p + (1 − y)·ln(1 − p))`` per sample, added to a running total
  that starts at 0, then divided by the number of samples.

The notes' ``**`` takes its exponent as a plain number; lucid's ``pow`` takes a tensor, so
``b⁻¹`` reuses the ``−1`` constant the same sigmoid already made for ``−v`` (and the final
division reuses the last sample's one), adding no node. One node differs: the notes'
``Value(80) ** -1`` keeps ``Value(80)`` as a node behind ``1/80``; lucid computes a power
of two constants without recording an op (no gradient can flow there), so the graph has
4,658 nodes where the notes count 4,659.

The nodes are tagged (``lucid.viz.graph.groups``) with their sample and neuron, so the drawing
collapses them into ``sample n`` boxes (blocks of them at the top level), each holding its
``hidden neuron j`` and ``output neuron`` boxes, beside one ``parameters`` box.
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import numpy as np

from lucid._func import binary_cross_entropy, exp, log, tanh
from lucid._tensor.tensor import Tensor
from lucid.autograd import Trace, backward_trace, topological_order
from lucid.nn import MLP
from lucid.viz.graph.groups import group, tag, tag_subgraph

#: The notes' experiment: 80 samples, 2 hidden units, 5 features.
SEED_SAMPLES = 80
SEED_HIDDEN = 2


def seed_scalar_loss(model: MLP, Z: np.ndarray, y: np.ndarray) -> tuple[Tensor, list[Tensor]]:
    """The mean BCE of a 1-hidden-layer ``model`` (tanh, sigmoid) built from 0-d tensors as the notes do.

    Returns the loss and the parameters in the order ``W1 (row-major), b1, W2, b2``. The
    weights are copied from ``model``, so the loss equals the array model's loss.
    """
    (w1, b1), (w2, b2) = model.weights()
    n_in, hidden = w1.shape
    W1 = [[Tensor(float(w1[i, j]), requires_grad=True, name=f"W1[{i},{j}]") for j in range(hidden)]
          for i in range(n_in)]
    B1 = [Tensor(float(b1[j]), requires_grad=True, name=f"b1[{j}]") for j in range(hidden)]
    W2 = [Tensor(float(w2[j, 0]), requires_grad=True, name=f"W2[{j}]") for j in range(hidden)]
    B2 = Tensor(float(b2[0]), requires_grad=True, name="b2")
    for j in range(hidden):
        tag([W1[i][j] for i in range(n_in)] + [B1[j]], ("parameters", f"hidden neuron {j}"))
    tag([*W2, B2], ("parameters", "output neuron"))
    params = [w for row in W1 for w in row] + B1 + W2 + [B2]

    total = Tensor(0.0)
    tag(total, ("loss sum",))
    minus_one = None
    for n, (x, t) in enumerate(zip(np.asarray(Z, dtype=np.float64), np.asarray(y, dtype=np.float64).reshape(-1))):
        with group(f"sample {n}"):
            h = []
            for j in range(hidden):
                with group(f"hidden neuron {j}"):
                    acc = B1[j]
                    for i in range(n_in):
                        acc = acc + Tensor(float(x[i])) * W1[i][j]
                    h.append(tanh(acc))
                    tag_subgraph(h[-1])
            with group("output neuron"):
                acc = B2
                for j in range(hidden):
                    acc = acc + h[j] * W2[j]
                p = _notes_sigmoid(acc)
                tag_subgraph(p)
            minus_one = Tensor(-1.0)
            term = (Tensor(float(t)) * log(p) + Tensor(1.0 - float(t)) * log(_notes_sub(Tensor(1.0), p))) * minus_one
            tag_subgraph(term)
        total = total + term
        tag(total, ("loss sum",))
    assert minus_one is not None, "at least one sample is needed"
    inverse = Tensor(float(len(Z))) ** minus_one  # a constant: lucid records no op between constants
    inverse.name = f"1/{len(Z)}"
    loss = total * inverse
    loss.name = "loss"
    return loss, params


def _notes_sigmoid(v: Tensor) -> Tensor:
    """``Value(1.0) / (Value(1.0) + (−v).exp())`` with ``−v = v·(−1)`` and ``a / b = a · b**(−1)``."""
    minus_one = Tensor(-1.0)
    den = Tensor(1.0) + exp(v * minus_one)
    return Tensor(1.0) * den ** minus_one


def _notes_sub(a: Tensor, b: Tensor) -> Tensor:
    """``a − b`` as the notes' ``Value.__sub__``: ``a + (b · (−1))``."""
    return a + b * Tensor(-1.0)


@dataclass(frozen=True)
class StepGraph:
    """One way of building the step: its output, recorded backward, node count, and build time."""

    name: str
    trace: Trace
    nodes: int
    seconds: float  # forward (graph building) + recorded backward

    @property
    def root(self) -> Tensor:
        return self.trace.root

    @property
    def loss(self) -> float:
        return float(self.trace.root.item())


@dataclass(frozen=True)
class GraphSizes:
    tensor: StepGraph
    scalar: StepGraph
    scalar_params: list[Tensor]
    tensor_params: list[Tensor]
    samples: int

    @property
    def node_ratio(self) -> float:
        return self.scalar.nodes / self.tensor.nodes


def step_graphs(model: MLP, Z: np.ndarray, y: np.ndarray, samples: int = SEED_SAMPLES) -> GraphSizes:
    """The same training step (same weights, same first ``samples`` points) as arrays and as scalars.

    The array graph has ``X``, ``W1``, ``b1``, ``W2``, ``b2``, ``y`` and the ops between them
    (13 nodes); the scalar graph is ``seed_scalar_loss``. Both are built on copies, so the
    model's weights and gradients are never touched.
    """
    Z, y = np.asarray(Z)[:samples], np.asarray(y)[:samples]
    twin = copy.deepcopy(model)
    for k, layer in enumerate(twin.layers, start=1):
        layer.weight.name = f"W{k}"
        if layer.bias is not None:
            layer.bias.name = f"b{k}"
    start = time.perf_counter()
    tensor_loss = binary_cross_entropy(twin(Tensor(Z, name="X")), Tensor(y.reshape(-1, 1), name="y"))
    tensor_loss.name = "loss"
    tensor_trace = backward_trace(tensor_loss)
    tensor_seconds = time.perf_counter() - start

    start = time.perf_counter()
    scalar_loss, scalar_params = seed_scalar_loss(model, Z, y)
    scalar_trace = backward_trace(scalar_loss)
    scalar_seconds = time.perf_counter() - start
    return GraphSizes(StepGraph("tensors (arrays)", tensor_trace, len(topological_order(tensor_loss)), tensor_seconds),
                      StepGraph("scalars (0-d tensors)", scalar_trace, len(scalar_trace.order), scalar_seconds),
                      scalar_params, twin.parameters(), len(Z))
