"""Every registered op agrees with float64 central differences.

Parametrized from the op registry, so a new op is checked the moment it is
declared. Upstream gradients are random (never all ones) and the samples include
broadcasting pairs, axis reductions and repeated indices.
"""
import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.autograd import gradcheck

DIFFERENTIABLE = sorted(name for name, spec in lucid.REGISTRY.items() if spec.samples is not None)


def _cases():
    for name in DIFFERENTIABLE:
        samples = lucid.REGISTRY[name].samples(np.random.default_rng(7))
        for i, sample in enumerate(samples):
            yield pytest.param(name, sample, id=f"{name}-{i}")


def _prepare(args):
    """Float arrays become differentiable inputs; everything else passes as is."""
    inputs, template = [], []
    for arg in args:
        if isinstance(arg, list):
            sub = []
            for item in arg:
                inputs.append(Tensor(item, requires_grad=True))
                sub.append(len(inputs) - 1)
            template.append(("list", sub))
        elif isinstance(arg, np.ndarray) and arg.dtype.kind == "f":
            inputs.append(Tensor(arg, requires_grad=True))
            template.append(("tensor", len(inputs) - 1))
        else:
            template.append(("raw", arg))
    return inputs, template


def _call(fn, template, kwargs):
    def run(*inputs):
        args = [[inputs[j] for j in v] if kind == "list" else inputs[v] if kind == "tensor" else v
                for kind, v in template]
        return fn(*args, **kwargs)
    return run


def test_every_op_with_a_gradient_has_samples():
    no_samples = {n for n, s in lucid.REGISTRY.items() if s.samples is None}
    assert no_samples == {"eq", "ne", "lt", "le", "gt", "ge"}


@pytest.mark.parametrize("name,sample", list(_cases()))
def test_op_gradient_matches_central_differences(name, sample):
    inputs, template = _prepare(sample.args)
    report = gradcheck(_call(getattr(lucid, name), template, sample.kwargs), inputs)
    assert report.inputs, "the op produced no gradient to check"
    assert not np.all(report.upstream == 1.0)
    for r in report.inputs:
        assert r.ok, f"{name} input {r.index}: max abs err {r.max_abs_error:.3g}, rel {r.max_rel_error:.3g}"


@pytest.mark.parametrize("name", sorted(lucid.REGISTRY))
def test_every_op_declares_symbol_and_formulas(name):
    spec = lucid.REGISTRY[name]
    assert spec.symbol and spec.symbol != "?"
    assert spec.formula
    assert spec.derivatives
