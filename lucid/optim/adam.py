"""Adam: per-parameter step sizes from running moments of the gradient."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.optim.optimizer import Optimizer


class Adam(Optimizer):
    """Kingma & Ba (2015), with bias correction.

    ``m ← β₁m + (1−β₁)g``, ``v ← β₂v + (1−β₂)g²``,
    ``p ← p − lr · m̂ / (√v̂ + eps)`` where ``m̂ = m/(1−β₁ᵗ)``, ``v̂ = v/(1−β₂ᵗ)``.
    """

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        super().__init__(params, lr)
        b1, b2 = betas
        if not (0.0 <= b1 < 1.0 and 0.0 <= b2 < 1.0):
            raise ValueError(f"betas must lie in [0, 1), got {betas}")
        self.betas = (float(b1), float(b2))
        self.eps = float(eps)
        self.m = [np.zeros_like(p.data, dtype=np.float64) for p in self.params]
        self.v = [np.zeros_like(p.data, dtype=np.float64) for p in self.params]

    def update(self, index: int, param: Tensor, grad: np.ndarray) -> None:
        b1, b2 = self.betas
        t = self.steps
        m = self.m[index] = b1 * self.m[index] + (1.0 - b1) * grad
        v = self.v[index] = b2 * self.v[index] + (1.0 - b2) * grad * grad
        m_hat = m / (1.0 - b1 ** t)
        v_hat = v / (1.0 - b2 ** t)
        param.data -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
