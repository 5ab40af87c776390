"""lucid.autograd.grad and backward(create_graph=True): gradients as Tensors, derivatives of derivatives."""
import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.autograd import grad


def test_grad_returns_the_same_numbers_as_backward_and_leaves_grad_alone():
    x = Tensor([[0.5, -1.2], [2.0, 0.3]], requires_grad=True)
    w = Tensor([1.5, -0.7], requires_grad=True)
    loss = lucid.tanh(x * w).sum(axis=0) @ np.array([2.0, -3.0])
    gx, gw = grad(loss, [x, w])
    assert x.grad is None and w.grad is None
    loss.backward()
    np.testing.assert_array_equal(gx.data, x.grad)
    np.testing.assert_array_equal(gw.data, w.grad)
    assert isinstance(gx, Tensor) and not gx.requires_grad and gx._op is None


def test_grad_with_an_upstream_gradient_that_is_not_ones():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = grad(x * x, x, grad_outputs=np.array([0.5, -1.0, 2.0]))
    np.testing.assert_array_equal(g.data, [1.0, -4.0, 12.0])  # 2x · upstream


def test_an_input_the_output_does_not_depend_on_gets_zeros():
    x = Tensor([1.0, 2.0], requires_grad=True)
    unused = Tensor([[3.0]], requires_grad=True)
    gx, gu = grad((x * 3.0).sum(), [x, unused])
    np.testing.assert_array_equal(gx.data, [3.0, 3.0])
    np.testing.assert_array_equal(gu.data, [[0.0]])


def test_grad_of_several_outputs_adds_their_gradients():
    x = Tensor([1.0, -2.0], requires_grad=True)
    (g,) = grad([(x * x).sum(), (x * 3.0).sum()], x)
    np.testing.assert_array_equal(g.data, [2.0 + 3.0, -4.0 + 3.0])


def test_grad_refuses_an_output_that_does_not_require_grad():
    with pytest.raises(RuntimeError, match="require grad"):
        grad(Tensor([1.0]).sum(), Tensor([1.0]))


def test_grad_refuses_an_input_whose_gradient_is_not_tracked():
    w = Tensor([2.0], requires_grad=True)
    x = Tensor([3.0])  # a constant: ∂(x·w)/∂x = w is real, but the graph did not record it
    with pytest.raises(RuntimeError, match="input 1 does not require grad"):
        grad((x * w).sum(), [w, x])


def test_create_graph_records_the_gradient_as_graph_nodes():
    x = Tensor([0.5, -1.0], requires_grad=True)
    (g,) = grad((x ** 3).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.data, [0.75, 3.0], rtol=1e-15)  # 3x²
    assert g.requires_grad and g._op is not None and g._prev
    assert g._op.name in lucid.REGISTRY  # built from the same registered ops as any other node


def test_second_and_third_derivatives_of_a_cube():
    x = Tensor([0.5, -1.0, 2.0], requires_grad=True)
    (d1,) = grad((x ** 3).sum(), x, create_graph=True)
    (d2,) = grad(d1.sum(), x, create_graph=True)
    (d3,) = grad(d2.sum(), x, create_graph=True)
    np.testing.assert_allclose(d2.data, [3.0, -6.0, 12.0], rtol=1e-14)  # 6x
    np.testing.assert_allclose(d3.data, [6.0, 6.0, 6.0], rtol=1e-14)


def test_derivatives_of_sin_to_the_fifth_order_cycle_back():
    x = Tensor([0.3, 1.1], requires_grad=True)
    d = lucid.sin(x)
    derivatives = []
    for _ in range(5):
        (d,) = grad(d.sum(), x, create_graph=True)
        derivatives.append(d.data)
    s, c = np.sin(x.data), np.cos(x.data)
    for got, want in zip(derivatives, [c, -s, -c, s, c]):
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


def test_hessian_of_a_two_variable_function():
    # f(x, y) = x²y + sin(xy): ∂²f/∂x² = 2y − y² sin(xy), ∂²f/∂x∂y = 2x + cos(xy) − xy sin(xy)
    x = Tensor(0.7, requires_grad=True)
    y = Tensor(-1.3, requires_grad=True)
    f = x * x * y + lucid.sin(x * y)
    gx, gy = grad(f, [x, y], create_graph=True)
    hxx, hxy = grad(gx, [x, y])
    hyx, hyy = grad(gy, [x, y])
    xv, yv = 0.7, -1.3
    np.testing.assert_allclose(hxx.data, 2 * yv - yv * yv * np.sin(xv * yv), rtol=1e-14)
    np.testing.assert_allclose(hxy.data, 2 * xv + np.cos(xv * yv) - xv * yv * np.sin(xv * yv), rtol=1e-14)
    np.testing.assert_allclose(hyx.data, hxy.data, rtol=1e-14)
    np.testing.assert_allclose(hyy.data, -xv * xv * np.sin(xv * yv), rtol=1e-14)


def test_backward_create_graph_leaves_a_differentiable_grad():
    x = Tensor([1.0, -2.0, 0.5], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    assert isinstance(x.grad, Tensor) and x.grad._op is not None
    np.testing.assert_allclose(x.grad.data, [3.0, 12.0, 0.75])
    penalty = (x.grad * x.grad).sum()  # Σ (3x²)², whose gradient is 36x³
    (gp,) = grad(penalty, x)
    np.testing.assert_allclose(gp.data, 36.0 * x.data ** 3, rtol=1e-14)


def test_a_plain_backward_after_create_graph_adds_its_gradient_as_an_array():
    x = Tensor([1.0, -2.0], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    (x.grad * x.grad).sum().backward()  # x.grad = 3x² + 36x³
    assert isinstance(x.grad, np.ndarray)
    np.testing.assert_allclose(x.grad, [3.0 + 36.0, 12.0 - 288.0])


def test_backward_without_create_graph_still_leaves_arrays():
    x = Tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert isinstance(x.grad, np.ndarray)
    np.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_gradient_penalty_of_a_small_network_matches_finite_differences():
    rng = np.random.default_rng(3)
    x = Tensor(rng.normal(size=(4, 3)), requires_grad=True)
    w = Tensor(rng.normal(size=(3, 2)), requires_grad=True)

    def penalty(wv):
        xx = Tensor(x.data, requires_grad=True)
        out = lucid.tanh(xx @ Tensor(wv)).sum()
        (gx,) = grad(out, xx, create_graph=True)
        return (gx * gx).sum()

    xx = Tensor(x.data, requires_grad=True)
    (gx,) = grad(lucid.tanh(xx @ w).sum(), xx, create_graph=True)
    (gw,) = grad((gx * gx).sum(), w)
    numerical = np.zeros(w.shape)
    for i in np.ndindex(w.shape):
        step = np.zeros(w.shape)
        step[i] = 1e-6
        numerical[i] = (penalty(w.data + step).data - penalty(w.data - step).data) / 2e-6
    np.testing.assert_allclose(gw.data, numerical, rtol=1e-6, atol=1e-8)


def test_recorded_gradients_keep_blocked_branches_at_zero():
    # the audit's case, recorded: sqrt's infinite derivative at 0 must not leak through relu's blocked side
    x = Tensor([-1.0, 4.0], requires_grad=True)
    with np.errstate(divide="ignore"):
        (g,) = grad(lucid.sqrt(lucid.relu(x)).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.data, [0.0, 0.25])


def test_recorded_gradient_of_a_quotient_at_an_extreme_denominator():
    b = Tensor(1e-200, requires_grad=True)
    (g,) = grad(b / b, b, create_graph=True)
    assert g.data == 0.0

