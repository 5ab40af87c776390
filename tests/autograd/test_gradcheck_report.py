"""gradcheck reports per input, and its relative error stays meaningful at zero."""
import numpy as np

import lucid
from lucid import Tensor
from lucid._backend.core import operation, unary_func_op
from lucid.autograd import gradcheck
from lucid.autograd.gradcheck import relative_error


def test_report_names_each_input_with_its_errors():
    a = Tensor([0.3, -1.2], requires_grad=True, name="a")
    b = Tensor([[2.0], [0.5]], requires_grad=True, name="b")
    report = gradcheck(lambda a, b: lucid.tanh(a * b), [a, b])
    assert [r.name for r in report.inputs] == ["a", "b"]
    assert report.ok and all(r.max_rel_error < 1e-6 for r in report.inputs)
    np.testing.assert_allclose(report.inputs[1].analytic, report.inputs[1].numerical, atol=1e-8)


class _square_with_forgotten_factor(operation):
    """Test-only op (unregistered): d(x²)/dx written as x instead of 2x."""

    @unary_func_op()
    def forward(self, a):
        return Tensor(a.data * a.data), self.chain(lambda: (a.data,))


def test_a_wrong_gradient_is_reported_not_hidden():
    x = Tensor([0.7, -0.4, 1.1], requires_grad=True, name="x")
    report = gradcheck(lambda x: _square_with_forgotten_factor()(x), [x])
    (r,) = report.inputs
    assert not report.ok and not r.ok
    np.testing.assert_allclose(r.numerical, 2 * r.analytic, rtol=1e-7)
    assert abs(r.max_rel_error - 0.5) < 1e-6


def test_relative_error_of_a_true_zero_gradient_is_small_not_one():
    """sum(softmax(z)) is constant: autodiff ~1e-17, finite differences ~1e-10 of noise."""
    z = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    report = gradcheck(lambda z: lucid.sum(lucid.softmax(z)), [z], grad_output=None)
    assert report.ok
    assert report.inputs[0].max_rel_error < 1e-5


def test_relative_error_is_relative_above_the_floor():
    err = relative_error(np.array([2.0, -4.0]), np.array([2.002, -4.0]))
    np.testing.assert_allclose(err, [0.002 / 2.002, 0.0])
