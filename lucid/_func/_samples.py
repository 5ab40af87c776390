"""Random example inputs for the ops' gradcheck samples (kept away from kinks)."""
from __future__ import annotations

import numpy as np


def uniform(rng: np.random.Generator, *shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return rng.uniform(low, high, shape)


def away_from_zero(rng: np.random.Generator, *shape: int, scale: float = 2.0) -> np.ndarray:
    """Values in ±[0.2, scale]: no kink of abs/relu/max within a finite-difference step."""
    return rng.uniform(0.2, scale, shape) * rng.choice([-1.0, 1.0], shape)


def positive(rng: np.random.Generator, *shape: int, low: float = 0.3, high: float = 3.0) -> np.ndarray:
    return rng.uniform(low, high, shape)


def distinct(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """A permutation of well-separated values: no ties for max/min/sort-like ops."""
    n = int(np.prod(shape)) if shape else 1
    return (rng.permutation(n) * 0.37 - n * 0.15 + rng.uniform(0, 0.05, n)).reshape(shape)
