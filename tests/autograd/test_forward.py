"""Forward mode: tangents pushed forward through each op's jvp rule.

Every op's ``jvp`` is checked against central differences, reverse mode and its ``vjp`` in
tests/engine/test_ops_gradcheck.py (``test_op_rules_agree_with_each_other_and_with_finite_differences``);
here, forward mode as a whole (several inputs and outputs, Jacobians, nesting).
"""
import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid._backend.core import operation, unary_func_op
from lucid.autograd import grad, hvp, jacobian, jvp, vjp


class _forward_only_square(operation):
    """x² whose backward rules fail: forward mode must never call them."""

    @unary_func_op()
    def forward(self, a):
        def no_backward(g):
            raise AssertionError("forward mode ran a backward rule")
        return Tensor(a.data ** 2), no_backward

    def vjp(self, g, inputs, out):
        raise AssertionError("forward mode ran a backward rule")

    def jvp(self, tangents, inputs, out):
        return tangents[0] * (2.0 * inputs[0])


def test_jvp_pushes_tangents_forward_without_any_backward_pass():
    out, tangent = jvp(lambda x: lucid.sin(_forward_only_square()(x)), [1.5, -0.5], [2.0, 1.0])
    x = np.array([1.5, -0.5])
    np.testing.assert_allclose(out.data, np.sin(x * x))
    np.testing.assert_allclose(tangent.data, np.cos(x * x) * 2 * x * np.array([2.0, 1.0]), rtol=1e-15)


def test_jvp_of_several_inputs_and_outputs():
    (s, p), (ts, tp) = jvp(lambda a, b: (a + b, a * b), (Tensor([1.0, 2.0]), Tensor([3.0, -1.0])),
                           ([0.5, 0.0], [1.0, 2.0]))
    np.testing.assert_array_equal(s.data, [4.0, 1.0])
    np.testing.assert_array_equal(ts.data, [1.5, 2.0])
    np.testing.assert_array_equal(tp.data, [0.5 * 3.0 + 1.0 * 1.0, 0.0 * -1.0 + 2.0 * 2.0])  # ȧb + aḃ


def test_jvp_of_an_output_that_does_not_depend_on_the_input_is_zero():
    out, tangent = jvp(lambda x: Tensor([1.0, 2.0]) * 3.0, [5.0], [1.0])
    np.testing.assert_array_equal(tangent.data, [0.0, 0.0])


def test_jvp_refuses_a_tangent_of_the_wrong_shape():
    with pytest.raises(ValueError, match="shape"):
        jvp(lambda x: x * 2.0, [1.0, 2.0], [1.0, 2.0, 3.0])


def test_vjp_returns_the_outputs_and_cotangent_times_jacobian():
    out, g = vjp(lambda x: x * x, [1.0, -2.0], [3.0, 0.5])
    np.testing.assert_array_equal(out.data, [1.0, 4.0])
    np.testing.assert_array_equal(g.data, [6.0, -2.0])


def test_jacobian_of_a_three_to_one_function_uses_reverse_mode_and_says_why():
    result = jacobian(lambda x: (x[0] * x[1] + lucid.sin(x[2])), [1.0, 2.0, 0.5])
    np.testing.assert_allclose(result.matrix, [2.0, 1.0, np.cos(0.5)], rtol=1e-15)
    assert result.mode == "reverse" and result.passes == 1
    assert "1 backward pass" in result.reason and "3 forward passes" in result.reason


def test_jacobian_of_a_one_to_three_function_uses_forward_mode_and_says_why():
    result = jacobian(lambda t: lucid.stack([lucid.cos(t), lucid.sin(t), t * t]), 0.5)
    np.testing.assert_allclose(result.matrix, [-np.sin(0.5), np.cos(0.5), 1.0], rtol=1e-15)
    assert result.mode == "forward" and result.passes == 1
    assert "1 forward pass" in result.reason and "3 backward passes" in result.reason


def test_both_modes_build_the_same_jacobian():
    def f(x):
        return lucid.tanh(x.reshape(2, 2) @ np.array([[1.0, -2.0, 0.5], [0.3, 0.2, -1.0]]))
    x = [0.2, -0.4, 1.1, 0.7]
    forward, reverse = jacobian(f, x, mode="forward"), jacobian(f, x, mode="reverse")
    assert forward.matrix.shape == (2, 3, 4) and (forward.passes, reverse.passes) == (4, 6)
    np.testing.assert_allclose(forward.matrix, reverse.matrix, rtol=1e-14, atol=1e-16)
    assert forward.reason.startswith("forward mode, as asked")


def test_hessian_vector_product_of_a_cubic():
    # f(x) = Σ x_i³ + x0·x1: H = diag(6x) + [[0, 1], [1, 0]]
    g, hv = hvp(lambda x: (x ** 3).sum() + x[0] * x[1], [1.0, -2.0], [0.5, 2.0])
    np.testing.assert_allclose(g.data, [3.0 - 2.0, 12.0 + 1.0])
    np.testing.assert_allclose(hv.data, [6.0 * 0.5 + 2.0, 1.0 * 0.5 + -12.0 * 2.0])


def test_forward_over_reverse_gives_the_same_hessian_vector_product():
    def f(x):
        return (lucid.tanh(x) * lucid.exp(x[::-1])).sum()

    def gradient(x):
        (g,) = grad(f(x), x, create_graph=True)
        return g

    x, v = np.array([0.3, -0.8, 1.2]), np.array([1.0, -0.5, 2.0])
    _, forward_over_reverse = jvp(gradient, x, v)
    _, reverse_over_reverse = hvp(f, x, v)
    np.testing.assert_allclose(forward_over_reverse.data, reverse_over_reverse.data, rtol=1e-13)


def test_forward_over_forward_gives_the_second_directional_derivative():
    # f(x) = Σ sin(x)·x; along v the second directional derivative is Σ v² (2cos x − x sin x)
    x, v = np.array([0.3, -1.2]), np.array([1.5, -0.5])

    def along_v(t):
        _, tangent = jvp(lambda s: (lucid.sin(s) * s).sum(), t, v, create_graph=True)
        return tangent

    _, second = jvp(along_v, x, v)
    np.testing.assert_allclose(second.data, np.sum(v * v * (2 * np.cos(x) - x * np.sin(x))), rtol=1e-14)


def test_reverse_over_forward_gives_a_hessian_vector_product():
    x, v = np.array([0.3, -1.2, 0.7]), np.array([1.0, 2.0, -1.0])

    def f(t):
        return (lucid.exp(t) * t[::-1]).sum()

    _, hv = vjp(lambda t: jvp(f, t, v, create_graph=True)[1], x, create_graph=False)
    _, expected = hvp(f, x, v)
    np.testing.assert_allclose(hv.data, expected.data, rtol=1e-13)


@pytest.mark.parametrize(("f", "gradient"), [
    (lambda x: lucid.relu(x).sum(), [1.0, 0.0, 1.0]),  # piecewise linear: ∇ = the mask, constant near x
    (lambda x: (3.0 * x).sum() - x[1], [3.0, 2.0, 3.0]),  # linear
    (lambda x: (x * Tensor([2.0, -1.0, 0.5])).sum(), [2.0, -1.0, 0.5]),
])
def test_hvp_of_a_function_whose_gradient_is_constant_is_zero(f, gradient):
    """PyTorch's hvp returns zeros here; the gradient has no graph, so there is nothing to differentiate."""
    g, hv = hvp(f, [0.5, -2.0, 1.5], [1.0, 2.0, -3.0])
    np.testing.assert_array_equal(g.data, gradient)
    np.testing.assert_array_equal(hv.data, [0.0, 0.0, 0.0])
    assert hv.shape == (3,)


def test_hvp_of_a_sum_with_a_linear_part_keeps_the_curved_parts_hessian():
    # f = Σ x² + 3 Σ x + relu(x₀): H = 2I, so H·v = 2v; ∇f = 2x + 3 + [x₀ > 0]
    g, hv = hvp(lambda x: (x * x).sum() + (3.0 * x).sum() + lucid.relu(x[0]), [0.5, -2.0], [1.0, -4.0])
    np.testing.assert_allclose(g.data, [5.0, -1.0])
    np.testing.assert_allclose(hv.data, [2.0, -8.0])


def test_hvp_of_a_scalar_input_with_constant_gradient_is_a_zero_scalar():
    g, hv = hvp(lambda x: 4.0 * x, 2.0, 1.0)
    assert float(g.data) == 4.0 and hv.shape == () and float(hv.data) == 0.0
