"""Sigmoid, tanh and SGD use a 0-d float64 array for their constant 1 and step size on float64 data.

That is a speed-up only (NumPy 2 converts a Python float on every ufunc call): the values must be the
bits the Python-float formulas give. A float32 array given to a Tensor is widened to float64 exactly (lucid
computes in float64 always), so it gets the float64 formulas on its widened values. The upstream gradients
here are not all ones, so a wrong local derivative would show.
"""
from __future__ import annotations

import numpy as np
import pytest

import lucid
from lucid import Tensor
from lucid.optim import SGD

_RNG = np.random.default_rng(27)
X = _RNG.uniform(-3.0, 3.0, (7, 3))
UPSTREAM = _RNG.uniform(-1.5, 2.5, (7, 3))


def widened(dtype) -> np.ndarray:
    """``X`` as a Tensor given ``dtype`` holds it: rounded to that dtype, then float64 exactly."""
    return X.astype(dtype).astype(np.float64)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sigmoid_value_and_gradient_are_the_python_float_formulas_to_the_bit(dtype):
    x = Tensor(X, requires_grad=True, dtype=dtype)
    out = lucid.sigmoid(x)
    out.backward(UPSTREAM)
    e = np.exp(-widened(dtype))
    e += 1.0
    s = np.divide(1.0, e, out=e)
    np.testing.assert_array_equal(out.data, s)
    assert x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad, UPSTREAM * (s * (1.0 - s)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tanh_gradient_is_one_minus_out_squared_to_the_bit(dtype):
    x = Tensor(X, requires_grad=True, dtype=dtype)
    lucid.tanh(x).backward(UPSTREAM)
    t = np.tanh(widened(dtype))
    assert x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad, UPSTREAM * (1.0 - t * t))


def test_tanh_and_sigmoid_gradients_match_central_differences():
    x = Tensor(X, requires_grad=True)
    (lucid.tanh(x) * lucid.sigmoid(x) * Tensor(UPSTREAM)).sum().backward()
    h = 1e-6

    def f(v):
        return (np.tanh(v) / (1.0 + np.exp(-v)) * UPSTREAM).sum()

    numeric = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        step = np.zeros_like(X)
        step[i] = h
        numeric[i] = (f(X + step) - f(X - step)) / (2 * h)
    np.testing.assert_allclose(x.grad, numeric, rtol=1e-7, atol=1e-9)


def test_zero_d_sigmoid_and_tanh_still_work():
    x = Tensor(0.3, requires_grad=True)
    (lucid.sigmoid(x) * lucid.tanh(x)).backward()
    s, t = 1.0 / (1.0 + np.exp(-0.3)), np.tanh(0.3)
    assert x.grad.shape == ()
    np.testing.assert_allclose(x.grad, s * (1 - s) * t + s * (1 - t * t), rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sgd_step_is_the_python_float_product_to_the_bit(dtype):
    w = Tensor(X, requires_grad=True, dtype=dtype)
    w.grad = UPSTREAM.astype(dtype).astype(np.float64)
    expected = widened(dtype).copy()
    expected -= 0.37 * w.grad
    SGD([w], lr=0.37).step()
    assert w.data.dtype == np.float64
    np.testing.assert_array_equal(w.data, expected)
