"""The engine's fast paths give exactly what the plain paths give.

Each fast path (op functions that build the instance in one frame, results built
without ``Tensor.__init__``, local derivatives from a class rule instead of a
per-call closure, the full-batch mean, backward clearing and releasing gradients
inside its walk) must be invisible: same numbers, same graph, same ownership.
"""
from __future__ import annotations

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid._func import binary, reduce, unary
from lucid.autograd import backward_trace
from lucid.autograd.backward import run_backward


def _leaf(*shape: int, seed: int = 0, low: float = 0.2, high: float = 1.7) -> Tensor:
    return Tensor(np.random.default_rng(seed).uniform(low, high, shape), requires_grad=True)


def test_each_call_makes_a_fresh_operation_and_the_same_graph_as_the_plain_forward():
    a, b = _leaf(3, 2), _leaf(3, 2, seed=1)
    fast1, fast2 = lucid.mul(a, b), lucid.mul(a, b)
    plain = binary.mul.forward(binary.mul(), a, b)
    assert fast1._op is not fast2._op
    assert type(fast1._op) is binary.mul and fast1._op.result is fast1
    assert fast1._prev == [a, b] and fast1._prev[0] is a and fast1._prev[1] is b
    np.testing.assert_array_equal(fast1.data, plain.data)
    assert fast1.requires_grad and fast1._backward_op is not None


def test_x_times_x_keeps_both_edges():
    x = _leaf(4)
    y = x * x
    assert len(y._prev) == 2 and y._prev[0] is x and y._prev[1] is x


def test_op_results_are_float64_arrays_and_zero_d_results_stay_arrays():
    x = _leaf(3, 4)
    m = x.mean()
    n = -m
    for t in (m, n):
        assert type(t.data) is np.ndarray and t.data.dtype == np.float64 and t.data.shape == ()
        assert t.grad is None and t.name is None and t.is_leaf is False
    assert lucid.add(Tensor([1.0]), Tensor([2.0])).requires_grad is False  # constants stay constants


@pytest.mark.parametrize("make, expected", [
    (lambda a, b: a + b, lambda a, b, out: (np.ones((3, 4)), np.ones((3, 4)))),
    (lambda a, b: a - b, lambda a, b, out: (np.ones((3, 4)), np.full((3, 4), -1.0))),
    (lambda a, b: a * b, lambda a, b, out: (np.broadcast_to(b, (3, 4)), a)),
])
def test_binary_local_derivatives_come_from_the_class_rule(make, expected):
    a, b = _leaf(3, 4), _leaf(1, 4, seed=2)
    out = make(a, b)
    got = out._op.local_derivatives()
    for g, e in zip(got, expected(a.data, b.data, out.data)):
        np.testing.assert_allclose(g, e, rtol=0, atol=0)


@pytest.mark.parametrize("fn, expected", [
    (lucid.neg, lambda x, out: -np.ones_like(x)),
    (lucid.log, lambda x, out: 1.0 / x),
    (lucid.tanh, lambda x, out: 1.0 - np.tanh(x) ** 2),
    (lucid.sigmoid, lambda x, out: out * (1.0 - out)),
    (lucid.mean, lambda x, out: np.full(x.shape, 1.0 / x.size)),
])
def test_unary_local_derivatives_come_from_the_class_rule(fn, expected):
    x = _leaf(3, 5, seed=3)
    out = fn(x)
    (got,) = out._op.local_derivatives()
    np.testing.assert_allclose(got, expected(x.data, out.data), rtol=1e-15, atol=0)


def test_an_untracked_result_has_no_local_derivatives_to_show():
    out = lucid.tanh(Tensor([0.3, -0.2]))
    assert out._op is None and out._backward_op is None


def test_mean_over_everything_and_over_an_axis_agree_with_numpy_and_keepdims_is_kept():
    x = _leaf(4, 3, seed=4)
    np.testing.assert_array_equal(x.mean().data, np.add.reduce(x.data, axis=(0, 1)) / 12)
    kept = x.mean(keepdims=True)
    assert kept.shape == (1, 1)
    upstream = np.array([[0.7]])
    kept.backward(upstream)
    np.testing.assert_allclose(x.grad, np.full((4, 3), 0.7 / 12), rtol=1e-15)
    x32 = Tensor([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32, requires_grad=True)
    x32.mean().backward()
    assert x32.dtype == np.float64 and x32.grad.dtype == np.float64  # float32 asked for: float64 (issue 29)
    np.testing.assert_array_equal(x32.grad, np.full((2, 2), 0.25))


def test_tensor_backward_is_the_engine_pass_and_gradients_match_the_trace_bit_for_bit():
    assert Tensor.backward is run_backward
    rng = np.random.default_rng(5)
    x = Tensor(rng.normal(size=(6, 3)))
    w = Tensor(rng.normal(size=(3, 2)), requires_grad=True)
    b = Tensor(rng.normal(size=(2,)), requires_grad=True)
    h = lucid.tanh(x @ w + b)
    p = lucid.sigmoid(h @ Tensor(rng.normal(size=(2, 1))))
    loss = -(p * lucid.log(p) + (1 - p) * lucid.log(1 - p)).mean()
    h.retain_grad()
    loss.backward()
    grads = {id(t): t.grad.copy() for t in (w, b, h)}
    assert loss.grad is None and p.grad is None  # op results released, the retained one kept
    trace = backward_trace(loss)
    assert trace is not None
    w2, b2 = w.grad, b.grad
    np.testing.assert_array_equal(grads[id(w)] * 2, w2)  # the trace's pass accumulated a second, identical one
    np.testing.assert_array_equal(grads[id(b)] * 2, b2)


def test_a_second_backward_never_lets_an_old_intermediate_gradient_flow_again():
    x = _leaf(3)
    y = lucid.tanh(x) * 2.0
    z = y.sum()
    y.retain_grad()
    z.backward()
    first = x.grad.copy()
    z.backward()
    np.testing.assert_allclose(x.grad, 2 * first, rtol=1e-15)
    np.testing.assert_array_equal(y.grad, np.full(3, 1.0))


def test_sigmoid_is_exact_and_finite_everywhere():
    moderate = np.array([[-30.0, -1.0, 0.0], [2.5, 40.0, 699.0]])
    np.testing.assert_array_equal(lucid.sigmoid(Tensor(moderate)).data, 1.0 / (1.0 + np.exp(-moderate)))
    np.testing.assert_array_equal(lucid.sigmoid(Tensor(-1.5)).data, 1.0 / (1.0 + np.exp(1.5)))
    extreme = lucid.sigmoid(Tensor([-800.0, -30.0, 800.0])).data
    assert np.all(np.isfinite(extreme)) and extreme[0] == 0.0 and extreme[2] == 1.0
    assert unary.sigmoid.local_rule is not None and reduce.mean.local_rule is not None


def test_backward_op_is_the_closure_that_pushes_the_gradient_to_the_parents():
    """DESIGN's ``_backward_op``: called on a node whose gradient is set, it fills its parents' gradients."""
    a = Tensor([1.5, -2.0, 0.5], requires_grad=True)
    b = Tensor([3.0, 4.0, -1.0], requires_grad=True)
    c = a * b
    assert callable(c._backward_op) and a._backward_op is None and b._backward_op is None
    c.grad = np.array([0.5, -1.0, 2.0])
    c._backward_op()
    np.testing.assert_array_equal(a.grad, [1.5, -4.0, -2.0])  # upstream · b
    np.testing.assert_array_equal(b.grad, [0.75, 2.0, 1.0])  # upstream · a
    c._backward_op()  # a second push accumulates, as every gradient does
    np.testing.assert_array_equal(a.grad, [3.0, -8.0, -4.0])


def test_a_bias_gradient_and_a_zero_d_gradient_take_the_inline_paths_with_the_same_numbers():
    """The batch sum of a bias and a 0-d node's gradient, checked against hand-written NumPy."""
    rng = np.random.default_rng(11)
    x = Tensor(rng.normal(size=(7, 3)))
    w = Tensor(rng.normal(size=(3, 2)), requires_grad=True)
    bias = Tensor(rng.normal(size=(2,)), requires_grad=True)
    scale = Tensor(1.75, requires_grad=True)  # a 0-d leaf: its gradient arrives as a NumPy scalar
    out = (lucid.tanh(x @ w + bias) * scale).mean()
    out.backward()
    h = np.tanh(x.data @ w.data + bias.data)
    upstream = np.full((7, 2), 1.0 / 14) * 1.75 * (1 - h * h)
    np.testing.assert_allclose(bias.grad, upstream.sum(axis=0), rtol=1e-14)
    np.testing.assert_allclose(w.grad, x.data.T @ upstream, rtol=1e-14)
    assert isinstance(scale.grad, np.ndarray) and scale.grad.shape == ()
    np.testing.assert_allclose(scale.grad, h.mean(), rtol=1e-14)


def test_sigmoid_of_a_nan_stays_nan_and_never_warns():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = lucid.sigmoid(Tensor([np.nan, -800.0, 0.0])).data
    assert np.isnan(out[0]) and out[1] == 0.0 and out[2] == 0.5


def test_python_numbers_become_the_same_constants_as_tensor_does():
    p = Tensor([0.25, 0.5], requires_grad=True)
    for number in (1, 1.0, True, 2**60):
        fast = lucid.sub(number, p)
        slow = lucid.sub(Tensor(number), p)
        np.testing.assert_array_equal(fast.data, slow.data)
        assert fast._prev[0].data.dtype == slow._prev[0].data.dtype and fast._prev[0].shape == ()
