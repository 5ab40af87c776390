"""lucid's second derivatives and forward mode agree with recorded PyTorch values, for every op.

``tests/data/torch_reference.json`` was written by ``scripts/record_torch_reference.py`` with
PyTorch (float64): for each gradcheck sample of each registered op and a few compositions, the
gradient ``∂(Σ f·u)/∂x``, the second-order product ``∂(Σ grad·w)/∂x`` (through
``torch.autograd.grad(create_graph=True)``; a Hessian-vector product for a scalar f) and
``torch.func.jvp``'s ``J·v``, with random u, w, v. No torch is needed here.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.autograd import grad, jvp
from tests.engine.test_ops_gradcheck import DIFFERENTIABLE, _call, _prepare
from tests.reference_compositions import composition_cases

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "torch_reference.json").read_text())
SECOND_ORDER_TOL = 1e-8
JVP_TOL = 1e-9


def _op_cases():
    for name in DIFFERENTIABLE:
        for i, sample in enumerate(lucid.REGISTRY[name].samples(np.random.default_rng(7))):
            yield pytest.param(name, sample, REFERENCE["ops"].get(f"{name}-{i}"), id=f"{name}-{i}")


def _compare(fn, values, ref):
    """lucid's gradient, second-order product and jvp of ``fn`` at ``values`` against ``ref``."""
    xs = [Tensor(v.copy(), requires_grad=True) for v in values]
    out = fn(*xs)
    first = grad(out, xs, np.array(ref["u"]), create_graph=True)
    for got, want in zip(first, ref["grad"]):
        np.testing.assert_allclose(got.data, np.array(want), rtol=1e-10, atol=1e-10)
    total = lucid.sum(lucid.stack([lucid.sum(g * np.array(w)) for g, w in zip(first, ref["w"])]))
    second = grad(total, xs) if total.requires_grad else [Tensor(np.zeros(x.shape)) for x in xs]
    for got, want in zip(second, ref["second"]):
        np.testing.assert_allclose(got.data, np.array(want), rtol=SECOND_ORDER_TOL, atol=SECOND_ORDER_TOL)
    _, tangent = jvp(fn, tuple(values), tuple(np.array(v) for v in ref["v"]))
    np.testing.assert_allclose(tangent.data, np.array(ref["jvp"]), rtol=JVP_TOL, atol=JVP_TOL)


def test_the_reference_covers_every_differentiable_op():
    recorded = {key.rsplit("-", 1)[0] for key in REFERENCE["ops"]}
    assert recorded == set(DIFFERENTIABLE)


@pytest.mark.parametrize("name,sample,ref", list(_op_cases()))
def test_op_matches_pytorch(name, sample, ref):
    assert ref is not None, "no PyTorch reference for this sample: run scripts/record_torch_reference.py"
    inputs, template = _prepare(sample.args)
    values = [t.data.copy() for t in inputs]
    for got, want in zip(values, ref["inputs"]):
        assert np.array_equal(got, np.array(want)), "the sample changed: run scripts/record_torch_reference.py"
    _compare(_call(getattr(lucid, name), template, sample.kwargs), values, ref)


@pytest.mark.parametrize("name,fn,values", composition_cases(), ids=[c[0] for c in composition_cases()])
def test_composition_matches_pytorch(name, fn, values):
    ref = REFERENCE["compositions"][name]
    for got, want in zip(values, ref["inputs"]):
        assert np.array_equal(got, np.array(want))
    _compare(lambda *xs: fn(lucid, *xs), values, ref)


def test_a_hessian_vector_product_matches_pytorch():
    # 'bumps' is a scalar function: its second-order product is u · H·w (u the recorded upstream number)
    name, fn, values = composition_cases()[2]
    ref = REFERENCE["compositions"][name]
    assert name == "bumps" and np.array(ref["u"]).shape == ()
    x = Tensor(values[0].copy(), requires_grad=True)
    (g,) = grad(fn(lucid, x), x, create_graph=True)
    (hw,) = grad(g, x, np.array(ref["w"][0]))
    np.testing.assert_allclose(float(ref["u"]) * hw.data, np.array(ref["second"][0]),
                               rtol=SECOND_ORDER_TOL, atol=SECOND_ORDER_TOL)
