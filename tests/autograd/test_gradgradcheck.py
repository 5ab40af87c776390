"""Every differentiable op has a second-order rule, checked against central differences.

Parametrized from the op registry like tests/engine/test_ops_gradcheck.py, so a new op without a
differentiable ``vjp`` (or a ``jvp``) fails here the moment it is declared. The upstream
gradients, both the one the first derivative is taken with and the one the check uses on
the first derivative, are random values of both signs, never all ones.
"""
import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid._backend.core import operation, unary_func_op
from lucid.autograd import gradgradcheck
from tests.engine.test_ops_gradcheck import DIFFERENTIABLE, _call, _cases, _prepare


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_every_op_with_a_gradient_declares_a_vjp_and_a_jvp_rule(name):
    cls = lucid.REGISTRY[name].cls
    assert cls.vjp is not operation.vjp, f"{name} has no differentiable backward rule"
    assert cls.jvp is not operation.jvp, f"{name} has no forward-mode rule"


@pytest.mark.parametrize("name,sample", list(_cases()))
def test_op_second_derivatives_match_central_differences(name, sample):
    inputs, template = _prepare(sample.args)
    report = gradgradcheck(_call(getattr(lucid, name), template, sample.kwargs), inputs)
    assert report.first_order_ok, f"{name}: recorded gradient differs by {report.first_order_error:.3g}"
    checked = report.second_order
    assert len(checked.inputs) == len(inputs) + 1  # every input and the upstream gradient
    assert not np.all(checked.upstream == 1.0)
    assert np.any(checked.inputs[-1].analytic != 0.0)  # the gradient does depend on the upstream
    for r in checked.inputs:
        assert r.ok, f"{name} input {r.index}: max abs err {r.max_abs_error:.3g}, rel {r.max_rel_error:.3g}"


class _cube_with_constant_derivative(operation):
    """x³ whose recorded derivative 3x² is a constant: right at first order, wrong at second."""

    @unary_func_op()
    def forward(self, a):
        x = a.data
        return Tensor(x ** 3), lambda g: (g * 3.0 * x * x,)

    def vjp(self, g, inputs, out):
        return (g * Tensor(3.0 * inputs[0].data ** 2),)


class _cube(_cube_with_constant_derivative):
    def vjp(self, g, inputs, out):
        a = inputs[0]
        return (g * (3.0 * a * a),)


def test_gradgradcheck_catches_a_derivative_that_is_not_differentiated_again():
    x = Tensor([0.5, -1.5, 2.0], requires_grad=True)
    wrong = gradgradcheck(lambda a: _cube_with_constant_derivative()(a), [x])
    assert wrong.first_order_ok  # the first derivative's values are right
    assert not wrong.second_order.inputs[0].ok  # but d(3x²)/dx = 6x is missing
    assert gradgradcheck(lambda a: _cube()(a), [x]).ok


def test_gradgradcheck_refuses_a_function_without_differentiable_inputs():
    with pytest.raises(ValueError, match="requires grad"):
        gradgradcheck(lambda a: a * 2.0, [Tensor([1.0])])
