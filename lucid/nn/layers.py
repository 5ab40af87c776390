"""``Linear`` and ``MLP``: the layers the training page and the benchmark use."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lucid._func import add, matmul, relu, sigmoid, tanh
from lucid._tensor.tensor import Tensor
from lucid.nn.module import Module

# Activation names map to functions through this table only (never getattr on a user's string).
ACTIVATIONS: dict[str, Callable[[Any], Tensor]] = {"tanh": tanh, "relu": relu, "sigmoid": sigmoid}


def activation_fn(name: str | None) -> Callable[[Any], Tensor] | None:
    """The activation called ``name`` (``None`` means identity)."""
    if name is None:
        return None
    if name not in ACTIVATIONS:
        raise ValueError(f"unknown activation {name!r}; choose one of {sorted(ACTIVATIONS)}")
    return ACTIVATIONS[name]


def _generator(rng: np.random.Generator | None, seed: int | None) -> np.random.Generator:
    return rng if rng is not None else np.random.default_rng(seed)


class Linear(Module):
    """``y = x @ weight + bias`` with ``weight`` of shape ``(in_features, out_features)``.

    The weight is stored input-major so the forward formula reads left to right
    as written on a whiteboard; the bias ``(out_features,)`` is broadcast over
    the batch, which is exactly the unbroadcast case backward must sum.
    Initialised uniform in ±1/√in_features (as PyTorch does) from ``rng`` or ``seed``.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 rng: np.random.Generator | None = None, seed: int | None = None) -> None:
        gen = _generator(rng, seed)
        bound = 1.0 / np.sqrt(in_features)
        self.in_features, self.out_features = in_features, out_features
        self.weight = Tensor(gen.uniform(-bound, bound, (in_features, out_features)), requires_grad=True,
                             name="weight")
        self.bias = (Tensor(gen.uniform(-bound, bound, (out_features,)), requires_grad=True, name="bias")
                     if bias else None)

    def forward(self, x: Any) -> Tensor:
        out = matmul(x, self.weight)  # the same ops as ``x @ weight + bias``, without operator dispatch
        bias = self.bias
        return out if bias is None else add(out, bias)

    def __repr__(self) -> str:
        return f"Linear({self.in_features}, {self.out_features}, bias={self.bias is not None})"


class MLP(Module):
    """A stack of ``Linear`` layers: ``sizes = [5, 2, 1]`` is 5 inputs, 2 hidden units, 1 output.

    ``activation`` follows every hidden layer; ``output_activation`` (default
    none) follows the last one. ``seed`` makes the initial weights reproducible.
    """

    def __init__(self, sizes: Sequence[int], activation: str = "tanh", output_activation: str | None = None,
                 seed: int | None = 0, rng: np.random.Generator | None = None) -> None:
        if len(sizes) < 2:
            raise ValueError("an MLP needs at least an input and an output size")
        gen = _generator(rng, seed)
        self.sizes = [int(n) for n in sizes]
        self.activation, self.output_activation = activation, output_activation
        self._act, self._out_act = activation_fn(activation), activation_fn(output_activation)
        self.layers = [Linear(a, b, rng=gen) for a, b in zip(self.sizes[:-1], self.sizes[1:])]

    def forward(self, x: Any) -> Tensor:
        # ``layer.forward(x)`` is what ``layer(x)`` runs (``Module`` makes ``__call__`` the forward), called
        # directly: calling an instance goes through the type's call slot, which costs as much as an op's bookkeeping
        layers = self.layers
        last = layers[-1]
        for layer in layers:
            x = layer.forward(x)
            fn = self._out_act if layer is last else self._act
            if fn is not None:
                x = fn(x)
        return x

    def weights(self) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """Copies of each layer's ``(weight, bias)`` arrays (to build twins such as the NumPy reference)."""
        return [(layer.weight.data.copy(), None if layer.bias is None else layer.bias.data.copy())
                for layer in self.layers]

    def __repr__(self) -> str:
        return f"MLP({self.sizes}, activation={self.activation!r}, output_activation={self.output_activation!r})"
