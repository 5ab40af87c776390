"""Small composite functions written once for any op namespace (lucid itself, or an adapter).

``scripts/record_torch_reference.py`` runs them with a PyTorch adapter to record reference
derivatives; ``tests/engine/test_torch_reference.py`` runs them with ``lucid`` and compares. Only
operators and names both namespaces share are used.
"""
from __future__ import annotations

import numpy as np


def mlp(ops, x, w1, b1, w2):
    hidden = ops.tanh(x @ w1 + b1)
    return ops.mean(ops.sigmoid(hidden @ w2))


def attention_like(ops, x, w):
    weights = ops.softmax(x @ w, axis=-1)
    return ops.sum(weights * x, axis=0)


def bumps(ops, x):
    return ops.logsumexp(ops.sin(x) * ops.exp(-(x * x)), axis=None)


def swish_spread(ops, x):
    swish = x * ops.sigmoid(x)
    return ops.var(swish, axis=1) + ops.sum(swish * swish, axis=1)


def soft_norm(ops, x, y):
    return ops.sum(((x - y) ** 2 + 1.0) ** 0.5 / (ops.exp(y) + 1.0))


def composition_cases() -> list[tuple[str, object, list[np.ndarray]]]:
    """(name, function, inputs) with fixed random inputs (float64)."""
    rng = np.random.default_rng(2026)

    def u(*shape):
        return rng.uniform(-1.5, 1.5, shape)

    return [
        ("mlp", mlp, [u(4, 3), u(3, 5), u(5), u(5, 1)]),
        ("attention_like", attention_like, [u(3, 4), u(4, 4)]),
        ("bumps", bumps, [u(2, 3)]),
        ("swish_spread", swish_spread, [u(3, 4)]),
        ("soft_norm", soft_norm, [u(2, 3), u(2, 3)]),
    ]
