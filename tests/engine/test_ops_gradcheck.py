"""Every registered op agrees with float64 central differences, and its rules agree with each other.

Parametrized from the op registry, so a new op is checked the moment it is
declared. Upstream gradients and tangents are random (never all ones) and the samples include
broadcasting pairs, axis reductions and repeated indices.

An op states its derivative as one rule in lucid ops (``local``, or ``vjp`` for an op that is not
elementwise); forward mode (``jvp``) is derived from it, and a NumPy gradient function inside
``forward`` is kept as a measured fast path. ``test_op_rules_agree_with_each_other_and_with_finite_
differences`` holds the fast path to the rule, and the two rules to each other and to the numbers.
"""
import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid._func import _rules
from lucid.autograd import grad, gradcheck, jvp

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


def _random_like(rng, shape):
    return rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)


def _reverse_mode_jv(fn, values, directions):
    """J·v with J's rows from reverse mode: one backward pass per output number."""
    xs = [Tensor(v.copy(), requires_grad=True) for v in values]
    out = fn(*xs)
    result = np.zeros(out.size)
    for i in range(out.size):
        seed = np.zeros(out.size)
        seed[i] = 1.0
        rows = grad(out, xs, seed.reshape(out.shape))
        result[i] = sum(float(np.sum(r.data * d)) for r, d in zip(rows, directions))
    return result.reshape(out.shape)


@pytest.mark.parametrize("name,sample", list(_cases()))
def test_op_rules_agree_with_each_other_and_with_finite_differences(name, sample):
    inputs, template = _prepare(sample.args)
    fn = _call(getattr(lucid, name), template, sample.kwargs)
    rng = np.random.default_rng(11)
    values = [t.data.copy() for t in inputs]
    upstream = _random_like(rng, fn(*inputs).shape)
    directions = [_random_like(rng, v.shape) for v in values]
    assert not np.all(upstream == 1.0) and not any(np.all(d == 1.0) for d in directions)

    # the NumPy fast path inside forward gives the gradient the lucid-op rule (vjp) gives
    out = fn(*inputs)
    fast = grad(out, inputs, upstream)
    rule = grad(fn(*inputs), inputs, upstream, create_graph=True)
    for f, r in zip(fast, rule):
        np.testing.assert_allclose(f.data, r.data, rtol=1e-12, atol=1e-13)
    # and the local derivatives the backward trace shows are the rule's
    op = out._op
    if op.kind == "elementwise":
        shown, stated = op.local_derivatives(), _rules.rule_arrays(op, out._prev, out.data)
        for i, (x, s, d) in enumerate(zip(out._prev, shown, stated)):
            if x.requires_grad:
                np.testing.assert_allclose(s, d, rtol=1e-12, atol=1e-13, err_msg=f"{name} local {i}")

    # forward mode: J·v from central differences along v, from reverse mode, and the adjoint identity
    # ⟨vjp(g), v⟩ = ⟨g, jvp(v)⟩ between the op's two rules
    value, tangent = jvp(fn, tuple(values), tuple(directions))
    assert tangent.shape == value.shape and not tangent.requires_grad
    h = 1e-6
    plus = fn(*[Tensor(v + h * d) for v, d in zip(values, directions)]).data
    minus = fn(*[Tensor(v - h * d) for v, d in zip(values, directions)]).data
    np.testing.assert_allclose(tangent.data, (plus - minus) / (2 * h), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tangent.data, _reverse_mode_jv(fn, values, directions), rtol=1e-10, atol=1e-12)
    backward = sum(float(np.sum(r.data * d)) for r, d in zip(rule, directions))
    forward = float(np.sum(upstream * tangent.data))
    assert backward == pytest.approx(forward, rel=1e-12, abs=1e-13)
