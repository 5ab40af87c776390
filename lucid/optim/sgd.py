"""Stochastic gradient descent, optionally with (heavy-ball) momentum."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.optim.optimizer import Optimizer

_FLOAT64 = np.dtype(np.float64)


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

    def step(self) -> None:
        """One update of every parameter that has a gradient.

        Plain SGD is the training loop's last line on every step, so it is written
        out: ``p.data -= lr·g`` works on NumPy arrays only and records nothing, so
        it needs neither ``no_grad`` nor a call per parameter. Momentum takes the
        general path.
        """
        if self.momentum or type(self).update is not SGD.update:
            super().step()
            return
        self.steps += 1
        lr = self.lr
        # ``lr`` as a 0-d float64 array for float64 gradients: NumPy 2 converts a Python float on every
        # product (about 150 ns each), an array it takes as it is; the same bits. Any other dtype keeps
        # the Python float, which does not widen float32 (a float64 array would).
        lr64 = np.array(lr)
        for p in self.params:
            g = p.grad
            if g is not None:
                p.data -= (lr64 if g.dtype is _FLOAT64 else lr) * g

    def update(self, index: int, param: Tensor, grad: np.ndarray) -> None:
        if self.momentum:
            v = self.velocity[index]
            v = np.array(grad, dtype=np.float64) if v is None else self.momentum * v + grad
            self.velocity[index] = v
            param.data -= self.lr * v
        else:
            param.data -= self.lr * grad
