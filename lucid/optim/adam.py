"""Adam: per-parameter step sizes from running moments of the gradient."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from lucid._tensor.tensor import Tensor
from lucid.optim.optimizer import Optimizer


class Adam(Optimizer):
    """Kingma & Ba (2015), with bias correction, following PyTorch's ``torch.optim.Adam``.

    ``m ← β₁m + (1−β₁)g``, ``v ← β₂v + (1−β₂)g²``,
    ``p ← p − lr · m̂ / (√v̂ + eps)`` where ``m̂ = m/(1−β₁ᵗ)``, ``v̂ = v/(1−β₂ᵗ)``.

    ``t`` is counted per parameter (``step_counts``): it is the number of
    updates that parameter has had, so a parameter that first gets a gradient
    late starts with ``t = 1`` and a full-sized, bias-corrected first step, and a
    ``step()`` in which a parameter has no gradient leaves its count alone.
    """

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        super().__init__(params, lr)
        b1, b2 = betas
        if not (0.0 <= b1 < 1.0 and 0.0 <= b2 < 1.0):
            raise ValueError(f"betas must lie in [0, 1), got {betas}")
        if eps < 0:
            raise ValueError(f"eps must not be negative, got {eps}")
        self.betas = (float(b1), float(b2))
        self.eps = float(eps)
        self.m = [np.zeros_like(p.data, dtype=np.float64) for p in self.params]
        self.v = [np.zeros_like(p.data, dtype=np.float64) for p in self.params]
        self.step_counts = [0] * len(self.params)

    def update(self, index: int, param: Tensor, grad: np.ndarray) -> None:
        b1, b2 = self.betas
        t = self.step_counts[index] = self.step_counts[index] + 1
        m = self.m[index] = b1 * self.m[index] + (1.0 - b1) * grad
        v = self.v[index] = b2 * self.v[index] + (1.0 - b2) * grad * grad
        denom = np.sqrt(v) / np.sqrt(1.0 - b2 ** t) + self.eps
        param.data -= (self.lr / (1.0 - b1 ** t)) * m / denom
