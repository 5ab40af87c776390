"""Stochastic gradient descent, optionally with (heavy-ball) momentum."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.optim.optimizer import Optimizer


class SGD(Optimizer):
    """``v ← momentum·v + g`` (``v = g`` on the first step), then ``p ← p − lr·v``.

    With ``momentum=0`` this is plain ``p ← p − lr·g``. Same convention as PyTorch.
    """

    def __init__(self, params: Iterable[Tensor], lr: float, momentum: float = 0.0) -> None:
        super().__init__(params, lr)
        if not 0.0 <= momentum < 1.0:
            raise ValueError(f"momentum must lie in [0, 1), got {momentum}")
        self.momentum = float(momentum)
        self.velocity: list[np.ndarray | None] = [None] * len(self.params)

    def update(self, index: int, param: Tensor, grad: np.ndarray) -> None:
        if self.momentum:
            v = self.velocity[index]
            v = np.array(grad, dtype=np.float64) if v is None else self.momentum * v + grad
            self.velocity[index] = v
            param.data -= self.lr * v
        else:
            param.data -= self.lr * grad
