"""``Optimizer``: holds the parameters and updates their ``.data`` in place.

Updates run under ``no_grad`` and write into the existing arrays, so the
parameter tensors keep their identity (graphs, names and optimizer state that
refer to them stay valid) and no update is ever recorded as part of a graph.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from lucid._backend.grad_mode import no_grad
from lucid._tensor.tensor import Tensor


class Optimizer:
    """Base class: subclasses implement ``update(index, param, grad)``."""

    def __init__(self, params: Iterable[Tensor], lr: float) -> None:
        self.params: list[Tensor] = list(params)
        if not self.params:
            raise ValueError("the optimizer got no parameters")
        for p in self.params:
            if not isinstance(p, Tensor) or not p.requires_grad:
                raise TypeError("optimizer parameters must be Tensors with requires_grad=True")
        if len({id(p) for p in self.params}) != len(self.params):
            raise ValueError("a parameter appears twice: it would be updated twice per step")
        if lr <= 0:
            raise ValueError(f"learning rate must be positive, got {lr}")
        self.lr = float(lr)
        self.steps = 0  # calls of step(); Adam counts updates per parameter (as PyTorch does)

    def zero_grad(self) -> None:
        """Forget the gradients of every parameter (backward accumulates into them)."""
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        """One update of every parameter that has a gradient."""
        self.steps += 1
        with no_grad():
            for i, p in enumerate(self.params):
                if p.grad is not None:
                    self.update(i, p, p.grad)

    def update(self, index: int, param: Tensor, grad: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
