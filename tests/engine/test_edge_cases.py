"""Edge cases where the engine used to give a wrong number or a NumPy traceback.

- ``pow`` at base 0: the limit where it exists (as PyTorch gives), infinity where it really diverges.
- Axes of 0-d tensors: what NumPy's reductions accept (axis 0 or -1), the same in the engine and in the
  expression language's shape inference, and a clear error otherwise.
- A float32 input becomes float64, and so do its gradients, however many contributions they get (issue 29).
"""
from __future__ import annotations

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.expr import ExprError, run
from lucid.expr import shapes as sh


# ----- pow at base 0 ---------------------------------------------------------------------------
def test_x_to_the_zero_has_gradient_zero_at_x_zero():
    x = Tensor([0.0, 0.0, 2.0], requires_grad=True)
    y = x ** 0
    y.backward(np.array([2.0, -3.0, 5.0]))
    np.testing.assert_array_equal(y.data, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 0.0])


def test_pow_gradients_at_base_zero_match_pytorch():
    """Values recorded from torch 2.13 (``x ** e`` with float64 tensors, upstream 2, 3, 4, 5, 6, 7)."""
    x = Tensor([0.0, 2.0, 0.0, 0.0, 0.0, 0.0], requires_grad=True)
    e = Tensor([0.0, 0.0, 1.5, 2.0, -1.0, 0.5], requires_grad=True)
    with np.errstate(divide="ignore"):  # 0 ** -1 = inf in the forward pass is genuine
        y = x ** e
    y.backward(np.array([2.0, 3.0, 4.0, 5.0, 6.0, 7.0]))
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 0.0, 0.0, -np.inf, np.inf])
    np.testing.assert_allclose(e.grad, [0.0, 3.0 * np.log(2.0), 0.0, 0.0, -np.inf, 0.0], rtol=1e-15)
    assert not np.isnan(x.grad).any() and not np.isnan(e.grad).any()


def test_exponent_gradient_of_zero_to_the_x_is_zero():
    """``0 ** x`` is 0 for x > 0 and 1 at x = 0: flat on the right, so PyTorch's 0 (not 0 · −∞ = NaN)."""
    x = Tensor([0.0, 1.0, 2.5], requires_grad=True)
    y = Tensor(0.0) ** x
    y.backward(np.array([1.5, -2.0, 0.5]))
    np.testing.assert_array_equal(y.data, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 0.0])


def test_pow_away_from_zero_is_unchanged_and_the_trace_local_derivative_is_the_limit_too():
    x = Tensor([0.0, 1.5, -2.0], requires_grad=True)
    e = Tensor([0.0, 2.0, 3.0], requires_grad=True)
    trace = lucid.autograd.backward_trace((x ** e).sum())
    np.testing.assert_allclose(x.grad, [0.0, 2.0 * 1.5, 3.0 * 4.0], rtol=1e-15)
    np.testing.assert_allclose(e.grad[1:2], [1.5 ** 2 * np.log(1.5)], rtol=1e-15)
    assert np.isnan(e.grad[2])  # (−2)^y has no real derivative in y: a genuine NaN, as in PyTorch
    to_x = next(s for s in trace.steps if s.parent is x)
    np.testing.assert_array_equal(to_x.local, [0.0, 3.0, 12.0])


def test_sqrt_at_zero_stays_a_genuine_infinity():
    x = Tensor([0.0, 4.0], requires_grad=True)
    with np.errstate(divide="ignore"):
        lucid.sqrt(x).backward(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(x.grad, [np.inf, 0.5])


# ----- axes of 0-d tensors ---------------------------------------------------------------------
REDUCTIONS = ["sum", "mean", "max", "min", "var", "logsumexp"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, -1, ()])
def test_reductions_of_a_0d_tensor_accept_what_numpy_sum_accepts(name, axis):
    x = Tensor(1.25, requires_grad=True)
    y = getattr(lucid, name)(x, axis=axis)
    y.backward(np.array(3.0))
    assert y.shape == ()
    np.testing.assert_allclose(y.data, 0.0 if name == "var" else 1.25)
    np.testing.assert_allclose(x.grad, 0.0 if name == "var" else 3.0)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [1, -2, (0,), (-1,)])
def test_reductions_of_a_0d_tensor_refuse_other_axes_in_words(name, axis):
    with pytest.raises(ValueError, match="out of range for a tensor with 0 dimensions"):
        getattr(lucid, name)(Tensor(1.25), axis=axis)


def test_axis_minus_one_keepdims_on_a_0d_tensor_is_numpys_answer():
    x = Tensor(2.0)
    assert lucid.sum(x, axis=-1, keepdims=True).shape == np.sum(np.array(2.0), axis=-1, keepdims=True).shape


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [0, -1])
def test_softmax_of_a_0d_tensor_is_one_with_zero_gradient(name, axis):
    x = Tensor(0.7, requires_grad=True)
    y = getattr(lucid, name)(x, axis=axis)
    y.backward(np.array(2.5))
    np.testing.assert_allclose(y.data, 1.0 if name == "softmax" else 0.0)
    np.testing.assert_allclose(x.grad, 0.0)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_refuses_an_axis_out_of_range_instead_of_wrapping_it(name):
    """``axis % ndim`` used to turn axis 1 of a vector into axis 0 silently."""
    with pytest.raises(ValueError, match="axis 1 is out of range for a tensor with 1 dimension"):
        getattr(lucid, name)(Tensor([1.0, 2.0, 3.0]), axis=1)
    with pytest.raises(ValueError, match="axis 1 is out of range for a tensor with 0 dimensions"):
        getattr(lucid, name)(Tensor(1.0), axis=1)


def test_concatenating_0d_tensors_is_refused_in_words():
    with pytest.raises(ValueError, match="use stack"):
        lucid.concatenate([Tensor(1.0), Tensor(2.0)])


def _engine_shape(shape, axis, keepdims, name):
    try:
        return getattr(lucid, name)(Tensor(np.ones(shape)), axis=axis, keepdims=keepdims).shape
    except ValueError:
        return None


def _checker_shape(shape, axis, keepdims, name):
    try:
        return sh.reduce(shape, axis, keepdims, name)
    except sh.ShapeProblem:
        return None


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("axis", [None, 0, -1, 1, -2, 2, (0,), (0, 1), (-1, 0), (0, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_the_language_and_the_engine_agree_on_every_reduction_axis(shape, axis, keepdims):
    for name in ("sum", "max"):
        assert _checker_shape(shape, axis, keepdims, name) == _engine_shape(shape, axis, keepdims, name)
    numpy_ok = True
    try:
        expected = np.sum(np.ones(shape), axis=axis, keepdims=keepdims).shape
    except ValueError:
        numpy_ok = False
    assert (_engine_shape(shape, axis, keepdims, "sum") is not None) == numpy_ok
    if numpy_ok:
        assert _engine_shape(shape, axis, keepdims, "sum") == expected


@pytest.mark.parametrize("source, value", [
    ("x = 1.5\nx.sum(axis=-1)", 1.5), ("x = 1.5\nsum(x, 0)", 1.5), ("x = 1.5\nmean(x, axis=-1)", 1.5),
    ("x = 1.5\nsoftmax(x)", 1.0), ("x = 1.5\nlog_softmax(x, 0)", 0.0), ("x = 1.5\nx.max(axis=-1, keepdims=True)", 1.5),
])
def test_the_language_runs_reductions_of_0d_tensors(source, value):
    program = run(source)
    np.testing.assert_allclose(program.output.data, value)


@pytest.mark.parametrize("source, line, column", [
    ("x = 1.5\ny = x.sum(axis=1)", 2, 7), ("x = 1.5\ny = softmax(x, axis=-2)", 2, 5),
    ("x = 1.5\ny = mean(x, (0,))", 2, 5), ("x = randn(3)\ny = log_softmax(x, 1)", 2, 5),
])
def test_the_language_reports_a_bad_axis_with_line_and_column(source, line, column):
    with pytest.raises(ExprError) as err:
        run(source)
    assert "out of range" in err.value.message
    assert (err.value.line, err.value.col) == (line, column)
