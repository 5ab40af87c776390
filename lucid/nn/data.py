"""A small, fixed two-class data set for the training page, the benchmark and tests."""
from __future__ import annotations

import numpy as np


def toy_binary_data(n: int = 80, features: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` with ``X`` of shape ``(n, features)`` and labels ``y`` of shape ``(n, 1)`` in {0, 1}.

    The label is a non-linear function of the first features plus a little
    label noise, so a tiny tanh network can learn most of it but not all of it
    (the loss keeps falling for a few hundred steps, which is what a plot wants).
    """
    if features < 2:
        raise ValueError("toy_binary_data needs at least 2 features")
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features))
    score = x[:, 0] - 0.5 * x[:, 1] ** 2 + (0.8 * x[:, 2] * x[:, 3] if features >= 4 else 0.0)
    flip = rng.random(n) < 0.05
    y = ((score > 0) ^ flip).astype(np.float64)
    return x, y.reshape(n, 1)
