"""The MLP by hand in NumPy: forward, backward and SGD written out, no graph.

This is the yardstick for the engine: the benchmark trains it next to the
``lucid`` MLP from the same initial weights, and the two must agree to
rounding error while ``lucid`` should cost at most a few times as much.
Hidden layers use ``activation``; the output is a sigmoid trained with binary
cross-entropy (the classic ``(p − y)/N`` gradient at the logits).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Weights = Sequence[tuple[np.ndarray, np.ndarray]]
_LOG_FLOOR = -100.0  # the same floor on ln as lucid.binary_cross_entropy


def _sigmoid(z: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


# activation name -> (f(z), f'(z) written in terms of the output a = f(z) and z)
_HIDDEN: dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray, np.ndarray], np.ndarray]]] = {
    "tanh": (np.tanh, lambda a, z: 1.0 - a * a),
    "relu": (lambda z: np.maximum(z, 0.0), lambda a, z: (z > 0).astype(np.float64)),
    "sigmoid": (_sigmoid, lambda a, z: a * (1.0 - a)),
}


def bce(p: np.ndarray, y: np.ndarray) -> float:
    """Mean binary cross-entropy of probabilities ``p`` against labels ``y``."""
    with np.errstate(divide="ignore"):
        log_p, log_q = np.maximum(np.log(p), _LOG_FLOOR), np.maximum(np.log1p(-p), _LOG_FLOOR)
    return float(-np.mean(y * log_p + (1.0 - y) * log_q))


class NumpyMLP:
    """An MLP with a sigmoid output, as arrays: ``weights[i] = (W_i (in, out), b_i (out,))``."""

    def __init__(self, weights: Weights, activation: str = "tanh") -> None:
        if activation not in _HIDDEN:
            raise ValueError(f"unknown activation {activation!r}; choose one of {sorted(_HIDDEN)}")
        self.weights = [(np.array(w, dtype=np.float64), np.array(b, dtype=np.float64)) for w, b in weights]
        self.activation = activation
        self._f, self._df = _HIDDEN[activation]

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Output probabilities ``(N, out)``."""
        return self._forward(x)[0][-1]

    def _forward(self, x: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        acts, pre = [x], []
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(self.weights):
            z = acts[-1] @ w + b
            pre.append(z)
            acts.append(_sigmoid(z) if i == last else self._f(z))
        return acts, pre

    def loss_and_grads(self, x: np.ndarray, y: np.ndarray) -> tuple[float, list[tuple[np.ndarray, np.ndarray]]]:
        """BCE loss and ``(dW, db)`` per layer, by the chain rule written out."""
        acts, pre = self._forward(x)
        p = acts[-1]
        grads: list[tuple[np.ndarray, np.ndarray]] = []
        dz = (p - y) / p.size  # sigmoid + BCE together
        for i in range(len(self.weights) - 1, -1, -1):
            w, _ = self.weights[i]
            grads.append((acts[i].T @ dz, dz.sum(axis=0)))
            if i:
                dz = (dz @ w.T) * self._df(acts[i], pre[i - 1])
        grads.reverse()
        return bce(p, y), grads

    def sgd_step(self, grads: Sequence[tuple[np.ndarray, np.ndarray]], lr: float) -> None:
        """``p ← p − lr·g`` in place for every weight and bias."""
        for (w, b), (dw, db) in zip(self.weights, grads):
            w -= lr * dw
            b -= lr * db
