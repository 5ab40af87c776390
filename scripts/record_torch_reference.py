"""Record PyTorch's derivatives of every lucid op (and a few compositions) as test data.

For every sample of every differentiable op in ``lucid.REGISTRY`` (the same samples the
gradcheck tests use) and every function in ``tests/reference_compositions.py``, PyTorch
(float64, CPU) computes, with fixed random ``u`` (upstream), ``w`` and ``v`` (never all ones):

* ``grad``: ``∂(Σ f(x)·u)/∂x`` per input,
* ``second``: ``∂(Σ grad · w)/∂x`` per input, through ``torch.autograd.grad(create_graph=True)``
  (for a scalar ``f`` and ``u = 1`` this is a Hessian-vector product),
* ``jvp``: ``J · v`` by ``torch.func.jvp``.

They are written to ``tests/data/torch_reference.json``; ``tests/engine/test_torch_reference.py``
compares lucid with them, so the tests never need torch. Run it in an environment with torch
(a throwaway virtual environment is enough) from the project directory:

    python scripts/record_torch_reference.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as TF

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from reference_compositions import composition_cases  # noqa: E402

import lucid  # noqa: E402  (only for the registry's samples)

OUTPUT = ROOT / "tests" / "data" / "torch_reference.json"
SAMPLE_SEED = 7  # tests/engine/test_ops_gradcheck.py draws the samples with this seed


def _dims(a: torch.Tensor, axis) -> tuple[int, ...]:
    return tuple(range(a.dim())) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))


def _index(index):
    if isinstance(index, list):
        return torch.tensor(index)
    if isinstance(index, np.ndarray):
        return torch.from_numpy(index)
    return index


class TorchOps:
    """lucid's op functions, spelled with PyTorch (lucid's argument names and defaults)."""

    neg, exp, log, sqrt, abs, sin, cos = torch.neg, torch.exp, torch.log, torch.sqrt, torch.abs, torch.sin, torch.cos
    tanh, sigmoid, relu, softplus = torch.tanh, torch.sigmoid, torch.relu, TF.softplus
    add, sub, mul, div = torch.add, torch.sub, torch.mul, torch.div
    matmul, maximum, minimum = torch.matmul, torch.maximum, torch.minimum

    @staticmethod
    def pow(a, b):
        return torch.pow(a, b)

    @staticmethod
    def leaky_relu(a, slope=0.01):
        return TF.leaky_relu(a, negative_slope=slope)

    @staticmethod
    def clip(a, low=None, high=None):
        return torch.clamp(a, low, high)

    @staticmethod
    def where(cond, a, b):
        return torch.where(torch.from_numpy(np.asarray(cond)), a, b)

    @staticmethod
    def sum(a, axis=None, keepdims=False):
        return torch.sum(a, dim=_dims(a, axis), keepdim=keepdims)

    @staticmethod
    def mean(a, axis=None, keepdims=False):
        return torch.mean(a, dim=_dims(a, axis), keepdim=keepdims)

    @staticmethod
    def max(a, axis=None, keepdims=False):
        return torch.amax(a, dim=_dims(a, axis), keepdim=keepdims)

    @staticmethod
    def min(a, axis=None, keepdims=False):
        return torch.amin(a, dim=_dims(a, axis), keepdim=keepdims)

    @staticmethod
    def var(a, axis=None, keepdims=False):
        return torch.var(a, dim=_dims(a, axis), correction=0, keepdim=keepdims)

    @staticmethod
    def logsumexp(a, axis=None, keepdims=False):
        return torch.logsumexp(a, dim=_dims(a, axis), keepdim=keepdims)

    @staticmethod
    def reshape(a, *shape):
        return a.reshape(shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)

    @staticmethod
    def transpose(a, axes=None):
        return a.permute(tuple(reversed(range(a.dim()))) if axes is None else tuple(axes))

    @staticmethod
    def swapaxes(a, axis1, axis2):
        return torch.swapaxes(a, axis1, axis2)

    @staticmethod
    def squeeze(a, axis=None):
        return a.squeeze() if axis is None else a.squeeze(axis)

    @staticmethod
    def unsqueeze(a, axis):
        return a.unsqueeze(axis)

    @staticmethod
    def broadcast_to(a, shape):
        return a.broadcast_to(tuple(shape))

    @staticmethod
    def concatenate(tensors, axis=0):
        return torch.cat(list(tensors), dim=axis)

    @staticmethod
    def stack(tensors, axis=0):
        return torch.stack(list(tensors), dim=axis)

    @staticmethod
    def getitem(a, index):
        return a[tuple(_index(i) for i in index) if isinstance(index, tuple) else _index(index)]

    @staticmethod
    def softmax(a, axis=-1):
        return torch.softmax(a, dim=axis)

    @staticmethod
    def log_softmax(a, axis=-1):
        return torch.log_softmax(a, dim=axis)

    @staticmethod
    def mse_loss(p, y):
        return torch.mean((p - y) ** 2)

    @staticmethod
    def binary_cross_entropy(p, y):
        return TF.binary_cross_entropy(p, y)

    @staticmethod
    def binary_cross_entropy_with_logits(z, t):
        shape = torch.broadcast_shapes(z.shape, t.shape)
        return TF.binary_cross_entropy_with_logits(z.broadcast_to(shape), t.broadcast_to(shape))

    @staticmethod
    def cross_entropy(z, targets):
        return TF.cross_entropy(z, torch.as_tensor(np.asarray(targets)))


def _random(rng: np.random.Generator, shape) -> np.ndarray:
    """Both signs, magnitudes in [0.5, 1.5]: never all ones."""
    return np.asarray(rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape))


def derivatives(fn, values: list[np.ndarray], seed: int) -> dict:
    """u, w, v and PyTorch's first-order gradient, second-order product and jvp for ``fn``."""
    rng = np.random.default_rng(seed)
    xs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    out = fn(*xs)
    u = _random(rng, tuple(out.shape))
    first = torch.autograd.grad(out, xs, torch.from_numpy(u), create_graph=True, allow_unused=True)
    first = [torch.zeros_like(x) if g is None else g for x, g in zip(xs, first)]
    w = [_random(rng, v.shape) for v in values]
    total = sum((g * torch.from_numpy(wi)).sum() for g, wi in zip(first, w))
    second = torch.autograd.grad(total, xs, allow_unused=True) if total.requires_grad else [None] * len(xs)
    v = [_random(rng, x.shape) for x in values]
    _, tangent = torch.func.jvp(fn, tuple(torch.tensor(x, dtype=torch.float64) for x in values),
                                tuple(torch.from_numpy(t) for t in v))
    return {
        "inputs": [x.tolist() for x in values],
        "u": u.tolist(), "w": [x.tolist() for x in w], "v": [x.tolist() for x in v],
        "grad": [g.detach().numpy(force=True).tolist() for g in first],
        "second": [np.zeros(x.shape).tolist() if s is None else s.numpy(force=True).tolist()
                   for x, s in zip(values, second)],
        "jvp": tangent.numpy(force=True).tolist(),
    }


def _bind(fn, template, kwargs):
    """Run one registry sample: float arrays are the inputs, everything else passes as is."""
    def run(*xs):
        args, k = [], 0
        for kind, value in template:
            if kind == "list":
                args.append(list(xs[k:k + value]))
                k += value
            elif kind == "tensor":
                args.append(xs[k])
                k += 1
            else:
                args.append(value)
        return fn(*args, **kwargs)
    return run


def op_cases() -> dict:
    cases = {}
    for name in sorted(n for n, spec in lucid.REGISTRY.items() if spec.samples is not None):
        samples = lucid.REGISTRY[name].samples(np.random.default_rng(SAMPLE_SEED))
        for i, sample in enumerate(samples):
            values, template = [], []
            for arg in sample.args:
                if isinstance(arg, list):
                    values.extend(arg)
                    template.append(("list", len(arg)))
                elif isinstance(arg, np.ndarray) and arg.dtype.kind == "f":
                    values.append(arg)
                    template.append(("tensor", None))
                else:
                    template.append(("raw", arg))
            fn = _bind(getattr(TorchOps, name), template, sample.kwargs)
            cases[f"{name}-{i}"] = derivatives(fn, values, seed=1000 + len(cases))
    return cases


def main() -> None:
    torch.set_default_dtype(torch.float64)
    data = {"torch_version": torch.__version__, "ops": op_cases(), "compositions": {}}
    for name, fn, values in composition_cases():
        data["compositions"][name] = derivatives(lambda *xs, fn=fn: fn(TorchOps, *xs), values, seed=5000)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {len(data['ops'])} op cases and {len(data['compositions'])} compositions (torch {torch.__version__})")


if __name__ == "__main__":
    main()
